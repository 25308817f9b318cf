"""Long jobs rendered in parts: the planner, the part workers and the assembly, through the real
``lambda_handler`` on the tiny stand-in against moto's S3 and SQS (one server).

The SQS deliveries here are made by hand from the queue's messages (receive, invoke, delete on
success) so each test controls order, duplicates and concurrency; the harness's own event source
mapping drives the same code through RIE in test_harness_fanout.py.
"""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import numpy as np
import pytest
import soundfile
from fixtures_s3 import INPUT_BUCKET, LONG_JOB, OUTPUT_BUCKET, REGION, LambdaContext, drop_job, receive_all

from supertonic_engine import SynthesisOptions
from supertonic_function.errors import BatchFailed
from supertonic_harness.fronts.furl import http_to_event
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.fronts.sqs import sqs_event

pytest_plugins = ["fixtures_s3"]

JOB = LONG_JOB
TEXT = JOB["text"]


def _folder_objects(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("Contents", [])]


def _manifest(s3: Any) -> dict[str, Any]:
    (key,) = [k for k in _folder_objects(s3) if k.endswith("manifest.json")]
    return json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read())


def _sequential(app: Any, seed: int) -> np.ndarray:
    engine = app.service.engine
    options = SynthesisOptions(voice="M1", steps=1, seed=seed)
    return engine.synthesize(TEXT, options).audio


def test_a_long_job_is_planned_rendered_in_parts_and_stitched_to_the_sequential_audio(app, s3, queues):
    planned = drop_job(app, s3)
    assert planned["results"][0]["status"] == "planned"
    messages = receive_all(queues["parts"])
    assert len(messages) > 3
    # The planner's re-delivery sends nothing twice.
    assert drop_job(app, s3)["results"][0]["status"] == "skipped"
    assert receive_all(queues["parts"]) == []
    # Parts in any batch and order; each batch is one invocation of the function.
    messages.reverse()
    answers = [
        app.lambda_handler(sqs_event(messages[i : i + 3], queues["parts_arn"], REGION), LambdaContext()) for i in range(0, len(messages), 3)
    ]
    assert all(a == {"batchItemFailures": []} for a in answers)
    manifest = _manifest(s3)
    assert manifest["status"] == "done" and manifest["parts_total"] == len(messages)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    stitched, rate = soundfile.read(io.BytesIO(audio), dtype="float32")
    expected = _sequential(app, seed=5)
    # The same samples through the same 16-bit encoder as sequential synthesis writes them.
    from supertonic_engine import encode

    assert audio == encode(expected, rate, "wav")
    assert stitched.size == expected.size and [c["index"] for c in manifest["chunks"]] == list(range(len(messages)))
    # The parts, the claim and the errors are gone; the plan stays.
    assert not [k for k in _folder_objects(s3) if "/parts/" in k or k.endswith("assembly.json")]


def test_a_blended_voice_is_rendered_in_parts_to_the_sequential_audio_and_named_canonically(app, s3, queues):
    drop_job(app, s3, {**JOB, "voice": "nova:1,M2:2"})
    messages = receive_all(queues["parts"])
    app.service.engine.assets._blends.clear()  # the part workers are other processes: no blend mixed there yet
    answers = [app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) for message in messages]
    assert all(a == {"batchItemFailures": []} for a in answers)
    manifest = _manifest(s3)
    assert manifest["status"] == "done" and manifest["voice"] == "F2:0.333,M2:0.667"
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    from supertonic_engine import encode

    expected = app.service.engine.synthesize(TEXT, SynthesisOptions(voice="F2:1,M2:2", steps=1, seed=5)).audio
    assert audio == encode(expected, manifest["sample_rate"], "wav")


def test_an_ssml_job_keeps_its_breaks_and_languages_across_the_parts(app, s3, queues):
    ssml = (
        "<speak>"
        + "".join(f'Sentence number {n} of a long text.<break time="{100 * n}ms"/>' for n in range(1, 9))
        + '<lang xml:lang="ko-KR">마지막 문장은 한국어로 3번 읽습니다.</lang><break time="1s"/></speak>'
    )
    drop_job(app, s3, {**JOB, "text": ssml})
    messages = receive_all(queues["parts"])
    (plan_key,) = [k for k in _folder_objects(s3) if k.endswith("plan.json")]
    plan = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=plan_key)["Body"].read())
    assert set(plan["langs"]) == {"en", "ko"} and len(set(plan["pauses"])) > 3
    answers = [app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) for message in reversed(messages)]
    assert all(a == {"batchItemFailures": []} for a in answers)
    manifest = _manifest(s3)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    from supertonic_engine import encode

    expected = app.service.engine.synthesize(ssml, SynthesisOptions(voice="M1", steps=1, seed=5)).audio
    assert audio == encode(expected, manifest["sample_rate"], "wav")  # every pause and the trailing second included


def test_a_duplicate_delivery_does_no_second_work(app, s3, queues, json_logs):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    first = messages[0]
    app.lambda_handler(sqs_event([first], queues["parts_arn"], REGION), LambdaContext())
    app.lambda_handler(sqs_event([first], queues["parts_arn"], REGION), LambdaContext())
    rendered = [line for line in json_logs() if line.get("message") == "part rendered"]
    assert len(rendered) == 1


def test_two_last_parts_at_once_give_one_assembly(app, s3, queues, json_logs):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    for message in messages[:-2]:
        app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def last(message: dict[str, Any]) -> None:
        barrier.wait()
        answers.append(app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()))

    threads = [threading.Thread(target=last, args=(m,)) for m in messages[-2:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [{"batchItemFailures": []}] * 2
    assert [line for line in json_logs() if line.get("message") == "job assembled"].__len__() == 1
    assert _manifest(s3)["status"] == "done"
    assert len([k for k in _folder_objects(s3) if "/audio-" in k]) == 1


def test_a_part_whose_retries_are_spent_fails_the_job_naming_it(app, s3, queues):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    broken = messages[1]

    def refuse(part, **_):
        raise RuntimeError("the vocoder ran out of memory")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app.service.engine, "render_part", refuse)
        for _ in range(3):  # every receive of it fails (maxReceiveCount 3)
            with pytest.raises(BatchFailed):
                app.lambda_handler(sqs_event([broken], queues["parts_arn"], REGION), LambdaContext())
    # The queue's redrive moved it to the dead-letter queue; the mapping on that queue delivers it.
    app.lambda_handler(sqs_event([broken], queues["dlq_arn"], REGION), LambdaContext())
    manifest = _manifest(s3)
    assert manifest["status"] == "failed" and manifest["error"]["part"] == 1
    assert "part 1 failed after every retry" in manifest["error"]["message"]
    assert manifest["error"]["code"] == "internal_error" and manifest["status"] == "failed"
    # Later parts of a finished job do nothing.
    later = app.lambda_handler(sqs_event([messages[2]], queues["parts_arn"], REGION), LambdaContext())
    assert later == {"batchItemFailures": []}


def test_an_s3_error_during_assembly_is_retried_and_the_job_ends_done_once(app, s3, queues, monkeypatch):
    from supertonic_function.storage import ObjectStore, StorageUnavailable

    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    for message in messages[:-1]:
        app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
    real_read = ObjectStore.read_bytes
    calls = {"n": 0}

    def flaky(self, bucket, key):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StorageUnavailable("GET timed out")
        return real_read(self, bucket, key)

    monkeypatch.setattr(ObjectStore, "read_bytes", flaky)
    last = messages[-1]
    with pytest.raises(BatchFailed):
        app.lambda_handler(sqs_event([last], queues["parts_arn"], REGION), LambdaContext())
    assert not [k for k in _folder_objects(s3) if k.endswith("manifest.json")]
    # The message comes back after its visibility timeout: the retry assembles.
    assert app.lambda_handler(sqs_event([last], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert _manifest(s3)["status"] == "done"
    assert len([k for k in _folder_objects(s3) if "/audio-" in k]) == 1


def test_progress_is_told_while_the_parts_are_rendered(app, s3, queues):
    from supertonic_function import jobs

    request = http_to_event("POST", "/v1/jobs", [("content-type", "application/json")], json.dumps(JOB).encode())
    reply = app.lambda_handler(request, LambdaContext())
    assert reply["statusCode"] == 202, reply
    job_id = json.loads(reply["body"])["job_id"]
    key = f"input/jobs/{job_id}.json"
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())
    queued = jobs.status(app.service, job_id)
    assert queued["status"] == "queued" and queued["parts_done"] == 0 and queued["parts_total"] > 3
    messages = receive_all(queues["parts"])
    app.lambda_handler(sqs_event(messages[:2], queues["parts_arn"], REGION), LambdaContext())
    running = jobs.status(app.service, job_id)
    assert (running["status"], running["parts_done"]) == ("running", 2) and running["elapsed_s"] >= 0
    app.lambda_handler(sqs_event(messages[2:], queues["parts_arn"], REGION), LambdaContext())
    assert jobs.status(app.service, job_id)["status"] == "done"


def test_short_jobs_keep_the_single_invocation_path(app, s3, queues):
    assert drop_job(app, s3, {**JOB, "text": "A short one."}, key="input/short.json")["results"][0]["status"] == "done"
    assert receive_all(queues["parts"]) == []


def test_bad_text_is_refused_before_any_fan_out(app, s3, queues):
    result = drop_job(app, s3, {**JOB, "text": TEXT + " ᚠ"}, key="input/bad.json")["results"][0]
    assert result["status"] == "failed" and result["reason"] == "unsupported_characters"
    assert receive_all(queues["parts"]) == []


def _run_parts(app: Any, queues: Any) -> list[dict[str, Any]]:
    messages = receive_all(queues["parts"])
    answers = [app.lambda_handler(sqs_event([m], queues["parts_arn"], REGION), LambdaContext()) for m in reversed(messages)]
    assert all(a == {"batchItemFailures": []} for a in answers)
    return messages


def _ffmpeg_decoded(data: bytes, suffix: str, tmp_path: Any) -> np.ndarray:
    """What a player reads: ffmpeg's decode, which must report nothing wrong."""
    import subprocess

    import imageio_ffmpeg

    path = tmp_path / f"joined.{suffix}"
    path.write_bytes(data)
    run = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(path), "-f", "f32le", "-"], capture_output=True, check=True
    )
    assert run.stderr == b""
    return np.frombuffer(run.stdout, np.float32)


@pytest.mark.parametrize("fmt", ["wav", "pcm", "flac", "mp3", "opus"])
def test_workers_encode_their_parts_and_the_assembly_only_joins_bytes(app, s3, queues, monkeypatch, tmp_path, fmt):
    from supertonic_engine import encode

    drop_job(app, s3, {**JOB, "format": fmt})
    _run_parts(app, queues)
    manifest = _manifest(s3)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    expected = _sequential(app, seed=5)
    rate = app.service.engine.sample_rate
    whole = encode(expected, rate, fmt)
    if fmt in ("wav", "pcm"):
        assert audio == whole  # pcm: resampled to 24 kHz apart, still exact
    elif fmt == "flac":
        assert np.array_equal(soundfile.read(io.BytesIO(audio), dtype="int16")[0], soundfile.read(io.BytesIO(whole), dtype="int16")[0])
    else:  # lossy: the same length as the file encoded whole, decoded without an error
        assert _ffmpeg_decoded(audio, fmt, tmp_path).size == _ffmpeg_decoded(whole, fmt, tmp_path).size
    assert manifest["duration_s"] == pytest.approx(expected.size / rate, abs=1e-4)
    chunks = manifest["chunks"]
    assert all(a["end_s"] <= b["start_s"] for a, b in zip(chunks, chunks[1:], strict=False))
    assert all(c["synth_ms"] is not None for c in chunks) and manifest["synth_ms"] > 0


def test_the_assembly_of_a_joinable_format_runs_no_encoder(app, s3, queues, monkeypatch):
    from supertonic_engine import AudioWriter
    from supertonic_function import fanout

    drop_job(app, s3, {**JOB, "format": "mp3"})
    messages = receive_all(queues["parts"])
    for message in messages[:-1]:
        assert app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    # The last part's worker encodes its own part, then assembles: the assembly itself writes nothing through an encoder.
    assembly_writes: list[int] = []
    real_assemble, real_write = fanout.assemble, AudioWriter.write
    inside = {"assembly": False}

    def watched_assemble(*args: Any, **kwargs: Any) -> str:
        inside["assembly"] = True
        try:
            return real_assemble(*args, **kwargs)
        finally:
            inside["assembly"] = False

    def watched_write(self: Any, samples: Any) -> None:
        if inside["assembly"]:
            assembly_writes.append(samples.size)
        real_write(self, samples)

    monkeypatch.setattr(fanout, "assemble", watched_assemble)
    monkeypatch.setattr(AudioWriter, "write", watched_write)
    assert app.lambda_handler(sqs_event([messages[-1]], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert _manifest(s3)["status"] == "done" and assembly_writes == []


def test_a_job_whose_parts_cannot_be_known_in_length_keeps_its_samples_for_one_encoder(app, s3, queues):
    # Trimmed silence makes each part as long as its audio turns out: no worker can place its
    # bytes, so the parts stay samples and the assembly encodes them (and the file is still whole).
    drop_job(app, s3, {**JOB, "trim_silence": True})
    (plan_key,) = [k for k in _folder_objects(s3) if k.endswith("plan.json")]
    assert json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=plan_key)["Body"].read())["joined"] is False
    _run_parts(app, queues)
    manifest = _manifest(s3)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    from supertonic_engine import encode

    expected = app.service.engine.synthesize(TEXT, SynthesisOptions(voice="M1", steps=1, seed=5, trim_silence=True)).audio
    assert audio == encode(expected, manifest["sample_rate"], "wav")


def test_the_plan_stays_small_its_parts_texts_and_noise_are_found_from_columns(app, s3, queues, monkeypatch):
    # A book's plan must not grow with its text: it holds where each part's text begins in
    # chunks.txt and the noise stream's state every few parts (3 here, to reach past a checkpoint).
    from supertonic_function import fanout

    monkeypatch.setattr(fanout, "NOISE_CHECKPOINT_PARTS", 3)
    drop_job(app, s3)
    (plan_key,) = [k for k in _folder_objects(s3) if k.endswith("plan.json")]
    raw = s3.get_object(Bucket=OUTPUT_BUCKET, Key=plan_key)["Body"].read()
    plan = json.loads(raw)
    total = plan["parts_total"]
    assert total > 3 and len(plan["noise_checkpoints"]) == -(-total // 3) and "parts" not in plan
    assert b"Sentence number" not in raw  # no text in the plan: it is in chunks.txt
    chunks = s3.get_object(Bucket=OUTPUT_BUCKET, Key=plan_key.replace("plan.json", "chunks.txt"))["Body"].read()
    assert len(chunks) == plan["text_offsets"][-1]
    _run_parts(app, queues)
    manifest = _manifest(s3)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    from supertonic_engine import encode

    assert audio == encode(_sequential(app, seed=5), manifest["sample_rate"], "wav")
    assert not [k for k in _folder_objects(s3) if k.endswith("chunks.txt")]  # tidied with the parts


def _deliver_until_quiet(app: Any, queues: Any) -> list[dict[str, Any]]:
    """Deliver every message on the parts queue, and those the deliveries send, until none is left."""
    served = []
    while messages := receive_all(queues["parts"]):
        for message in messages:
            answer = app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
            assert answer == {"batchItemFailures": []}
            served.append(json.loads(message["Body"]))
    return served


def test_an_assembly_short_of_time_hands_its_upload_on_and_the_file_is_the_same(app, s3, queues, monkeypatch, json_logs):
    # Every invocation thinks its time is short: it sends one 5 MiB part of the upload, records
    # where it stands in the claim and queues an assembly message; the next goes on from there.
    from supertonic_engine import encode
    from supertonic_function import fanout
    from supertonic_function.storage import ObjectStore

    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 10.0**9)
    sent: list[int] = []
    real_put = ObjectStore.put_joined

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        left = real_put(self, *args, **kwargs)
        sent.append(len(left.parts) if left is not None else -1)
        return left

    monkeypatch.setattr(ObjectStore, "put_joined", counted)
    drop_job(app, s3)
    served = _deliver_until_quiet(app, queues)
    handed = [b for b in served if fanout.ASSEMBLY_MESSAGE in b]
    manifest = _manifest(s3)
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    assert audio == encode(_sequential(app, seed=5), manifest["sample_rate"], "wav")
    assert len(audio) > 2 * 5 * 2**20 and len(handed) == 2 and sent == [1, 2, -1]  # one part each, none sent twice
    assert [line for line in json_logs() if line.get("message") == "assembly parked"]
    assert not [k for k in _folder_objects(s3) if "/parts/" in k or k.endswith(("assembly.json", "chunks.txt"))]


def _handed_over(app: Any, s3: Any, queues: Any, monkeypatch: Any) -> dict[str, Any]:
    """A job whose assembly sent one part of its upload and handed the rest over: the assembly
    message it queued (and the time left from now on plenty again)."""
    from supertonic_function import fanout

    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 10.0**9)
    drop_job(app, s3)
    for message in receive_all(queues["parts"]):
        app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
    (handed,) = receive_all(queues["parts"])
    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 0.0)
    return handed


def test_a_handed_over_assembly_whose_claim_changed_hands_does_nothing(app, s3, queues, monkeypatch):
    from supertonic_function import fanout

    handed = _handed_over(app, s3, queues, monkeypatch)
    body = json.loads(handed["Body"])
    stale = {fanout.ASSEMBLY_MESSAGE: {**body[fanout.ASSEMBLY_MESSAGE], "token": "not-the-claim-s"}}
    forged = {fanout.ASSEMBLY_MESSAGE: {**body[fanout.ASSEMBLY_MESSAGE], "plan": "another-plan"}}
    for document in (stale, forged):
        fake = {**handed, "Body": json.dumps(document)}
        assert app.lambda_handler(sqs_event([fake], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert not [k for k in _folder_objects(s3) if k.endswith("manifest.json")]
    assert app.lambda_handler(sqs_event([handed], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert _manifest(s3)["status"] == "done"


def test_an_assembly_whose_retries_are_spent_fails_its_job(app, s3, queues, monkeypatch):
    handed = _handed_over(app, s3, queues, monkeypatch)
    dead = sqs_event([handed], queues["dlq_arn"], REGION)
    assert app.lambda_handler(dead, LambdaContext()) == {"batchItemFailures": []}
    manifest = _manifest(s3)
    assert manifest["status"] == "failed" and manifest["error"]["code"] == "assembly_failed"


def test_two_deliveries_of_one_handed_over_assembly_give_one_file_that_exists(app, s3, queues, monkeypatch):

    handed = _handed_over(app, s3, queues, monkeypatch)
    answers: list[Any] = []
    both = [
        threading.Thread(
            target=lambda: answers.append(app.lambda_handler(sqs_event([handed], queues["parts_arn"], REGION), LambdaContext()))
        )
        for _ in range(2)
    ]
    for thread in both:
        thread.start()
    for thread in both:
        thread.join()
    assert answers == [{"batchItemFailures": []}] * 2
    manifest = _manifest(s3)
    assert manifest["status"] == "done"
    assert [k for k in _folder_objects(s3) if "/audio-" in k] == [manifest["audio"]["key"]]


def test_a_forged_assembly_message_for_a_job_still_rendering_neither_assembles_nor_fails_it(app, s3, queues):
    from supertonic_function import fanout

    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    part = json.loads(messages[0]["Body"])[fanout.PART_MESSAGE]
    forged = {fanout.ASSEMBLY_MESSAGE: {"bucket": part["bucket"], "folder": part["folder"], "plan": part["plan"], "token": "guessed"}}
    fake = {**messages[0], "Body": json.dumps(forged)}
    assert app.lambda_handler(sqs_event([fake], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert app.lambda_handler(sqs_event([fake], queues["dlq_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert not [k for k in _folder_objects(s3) if k.endswith(("manifest.json", "assembly.json"))]
    for message in messages:
        assert app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert _manifest(s3)["status"] == "done"


def test_a_part_whose_encoding_fails_fails_its_job_naming_why(app, s3, queues, monkeypatch):
    from supertonic_engine import part_codecs

    def broken(self: Any, samples: Any, span: Any) -> bytes:
        raise ValueError("the encoder refused these samples")

    monkeypatch.setattr(part_codecs._Pcm16, "encode_part", broken)
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    with pytest.raises(BatchFailed):
        app.lambda_handler(sqs_event([messages[0]], queues["parts_arn"], REGION), LambdaContext())
    dead = sqs_event([messages[0]], queues["dlq_arn"], REGION)
    assert app.lambda_handler(dead, LambdaContext()) == {"batchItemFailures": []}
    error = _manifest(s3)["error"]
    # The worker's own error, stored when it failed (an unexpected one is told as internal, with
    # the request to look up in the logs), not "stopped without an answer".
    assert error["part"] == 0 and "internal error" in error["message"] and "out of memory" not in error["message"]


def test_a_late_second_delivery_of_a_handed_over_assembly_finds_the_claim_taken(app, s3, queues, monkeypatch):
    # The first delivery renewed the claim and is finishing the upload; the second reads the claim
    # only now: it must not take it over (the upload it would resume is being completed).
    from supertonic_function import fanout

    handed = _handed_over(app, s3, queues, monkeypatch)
    real_assemble = fanout.assemble
    late: list[Any] = []
    calls: list[str] = []

    def first_then_late(*args: Any, **kwargs: Any) -> str:
        calls.append("assemble")
        if len(calls) == 1:  # while the first delivery holds the renewed claim, the second arrives
            late.append(app.lambda_handler(sqs_event([handed], queues["parts_arn"], REGION), LambdaContext()))
        return real_assemble(*args, **kwargs)

    monkeypatch.setattr(fanout, "assemble", first_then_late)
    assert app.lambda_handler(sqs_event([handed], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    assert late == [{"batchItemFailures": []}] and calls == ["assemble"]  # the second never assembled
    manifest = _manifest(s3)
    assert manifest["status"] == "done"
    assert [k for k in _folder_objects(s3) if "/audio-" in k] == [manifest["audio"]["key"]]
