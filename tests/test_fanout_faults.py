"""Long jobs rendered in parts under faults and forged messages, through the real ``lambda_handler``
against moto's S3 and SQS: a part that fails once, part messages nobody planned, dead letters
that cannot be read, jobs too large to assemble and a parts queue that refuses the planner.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError
from fixtures_s3 import INPUT_BUCKET, LONG_JOB, OUTPUT_BUCKET, REGION, LambdaContext, drop_job, receive_all
from test_fanout import _folder_objects, _manifest, _sequential

from supertonic_engine import encode
from supertonic_function import jobs
from supertonic_function.config import FunctionConfig
from supertonic_function.errors import BatchFailed
from supertonic_function.request import parse_request
from supertonic_harness.fronts.furl import http_to_event
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.fronts.sqs import sqs_event
from supertonic_harness.function.template import Template

pytest_plugins = ["fixtures_s3"]

# A job of nothing but long breaks: 19 characters each, and each forces a chunk of its own.
BREAKS_JOB = {**LONG_JOB, "text": "<speak>" + 'a<break time="10s"/>' * 5100 + "</speak>"}


def _deliver(app: Any, queue_arn: str, bodies: list[Any]) -> Any:
    """Deliver message bodies (JSON documents or raw strings) through ``queue_arn``'s mapping."""
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.get_queue_url(QueueName=queue_arn.rsplit(":", 1)[1])["QueueUrl"]
    for body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body if isinstance(body, str) else json.dumps(body))
    return app.lambda_handler(sqs_event(receive_all(url), queue_arn, REGION), LambdaContext())


def _post_job(app: Any, s3: Any, job: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """POST /v1/jobs, then the S3 event of the stored job: the job id and the trigger's answer."""
    reply = app.lambda_handler(
        http_to_event("POST", "/v1/jobs", [("content-type", "application/json")], json.dumps(job).encode()), LambdaContext()
    )
    assert reply["statusCode"] == 202, reply
    job_id = json.loads(reply["body"])["job_id"]
    key = f"input/jobs/{job_id}.json"
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    return job_id, app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())


def _assert_sequential_audio(app: Any, s3: Any) -> None:
    manifest = _manifest(s3)
    assert manifest["status"] == "done", manifest
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    assert audio == encode(_sequential(app, seed=5), manifest["sample_rate"], "wav")


def test_a_part_that_failed_once_leaves_no_count_behind_and_the_job_ends_done(app, s3, queues, monkeypatch):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    real_render = app.service.engine.render_part
    failures = iter([RuntimeError("the vocoder ran out of memory")])

    def fails_once(part, **kwargs):
        error = next(failures, None)
        if error is not None:
            raise error
        return real_render(part, **kwargs)

    monkeypatch.setattr(app.service.engine, "render_part", fails_once)
    with pytest.raises(BatchFailed):
        app.lambda_handler(sqs_event(messages[:1], queues["parts_arn"], REGION), LambdaContext())
    # Its error stays beside the parts; every part then renders, one message at a time.
    answers = [app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) for message in messages]
    assert answers == [{"batchItemFailures": []}] * len(messages)
    _assert_sequential_audio(app, s3)


def test_forged_part_messages_are_dropped_and_the_real_job_ends_with_its_own_audio(app, s3, queues, json_logs):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    real = json.loads(messages[0]["Body"])["supertonic_part"]
    part = real.get("part") or {"index": real.get("index")}
    forged = [
        {"supertonic_part": {**real, "total": 0}},  # "the last part": would finish the job with no speech
        {"supertonic_part": {**real, "folder": "output/results/other.json/abc/"}},  # a folder nobody planned
        {"supertonic_part": {**real, "bucket": INPUT_BUCKET, "folder": "input/jobs/"}},  # objects written where they trigger
        {"supertonic_part": {**real, "part": {**part, "text": "Words nobody asked for."}}},  # words into a real slot
    ]
    for body in forged:
        assert _deliver(app, queues["parts_arn"], [body]) == {"batchItemFailures": []}
        # Nor does the dead-letter queue fail the job for a message it was never sent.
        assert _deliver(app, queues["dlq_arn"], [body]) == {"batchItemFailures": []}
    assert not [k for k in _folder_objects(s3) if k.endswith("manifest.json")]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=INPUT_BUCKET)["Contents"]] == ["input/long.json"]
    assert len([line for line in json_logs() if line.get("message") == "part message dropped"]) == 2 * len(forged)
    answers = [app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) for message in messages]
    assert answers == [{"batchItemFailures": []}] * len(messages)
    _assert_sequential_audio(app, s3)


def test_a_dead_letter_that_cannot_be_read_is_dropped_and_fails_nothing(app, s3, queues, json_logs):
    drop_job(app, s3)
    unreadable = ["not json at all", json.dumps({"supertonic_part": {"folder": 5}}), json.dumps({"something": "else"})]
    assert _deliver(app, queues["dlq_arn"], unreadable) == {"batchItemFailures": []}
    assert len([line for line in json_logs() if line.get("message") == "part message dropped"]) == len(unreadable)
    messages = receive_all(queues["parts"])
    for message in messages:
        app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
    assert _manifest(s3)["status"] == "done"


def _refused_as_too_large(app, s3, job, key):
    """``job`` refused both ways: ``POST /v1/jobs`` answers 413 ``job_too_large``, and dropped in the
    bucket, where no one is answered, it ends in a failed manifest; returns the 413's error."""
    request = http_to_event("POST", "/v1/jobs", [("content-type", "application/json")], json.dumps(job).encode())
    reply = app.lambda_handler(request, LambdaContext())
    assert reply["statusCode"] == 413, reply
    error = json.loads(reply["body"])["error"]
    assert error["code"] == "job_too_large"
    result = drop_job(app, s3, job, key=key)["results"][0]
    assert result["status"] == "failed" and result["reason"] == "job_too_large"
    return error


def test_a_job_too_large_to_assemble_is_refused_before_any_part_is_sent(app, s3, queues):
    error = _refused_as_too_large(app, s3, BREAKS_JOB, "input/breaks.json")
    assert "parts" in error["message"]
    assert receive_all(queues["parts"]) == []
    assert "job_too_large" == _manifest(s3)["error"]["code"]


def test_a_parts_queue_that_does_not_exist_fails_the_job_naming_the_setting(app, s3, queues, monkeypatch, moto_endpoint, json_logs):
    missing = f"{moto_endpoint}/123456789012/no-such-queue"
    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, parts_queue_url=missing))
    job_id, answer = _post_job(app, s3, LONG_JOB)
    (result,) = answer["results"]
    assert result["status"] == "failed" and result["reason"] == "parts_queue_unusable"
    status = jobs.status(app.service, job_id)
    assert status["status"] == "failed" and "SUPERTONIC_PARTS_QUEUE_URL" in status["error"]["message"]
    logged = [line for line in json_logs() if line.get("level") == "ERROR"]
    assert logged and all(line.get("error", {}).get("code") == "parts_queue_unusable" for line in logged)
    assert not [line for line in json_logs() if line.get("exception")]  # not logged as a bug


def test_a_job_whose_forecast_audio_passes_tmp_fails_at_planning_naming_the_setting(app, s3, queues, monkeypatch):
    # Ogg Vorbis cannot be joined from parts: its assembly encodes the file whole into /tmp. 1 MB
    # of it holds about 26 s at its most bytes per second: the job's pauses fit, its speech does not.
    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, ephemeral_storage_mb=1))
    job = {**LONG_JOB, "format": "ogg"}
    pauses = parse_request(job, voices=app.service.voices).prepare(app.service.engine).total_silence_s
    assert pauses * 320_000 / 8 < 2**20  # so the text alone does not refuse it
    result = drop_job(app, s3, job)["results"][0]
    assert result["status"] == "failed" and result["reason"] == "job_too_large"
    error = _manifest(s3)["error"]
    assert "SUPERTONIC_EPHEMERAL_STORAGE_MB" in error["message"]
    assert receive_all(queues["parts"]) == []


def test_an_unreachable_parts_queue_is_retried_not_failed(app, s3, queues, monkeypatch):
    import socket

    with socket.socket() as free:  # a port nothing listens on: every send is refused at connect
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL_SQS", f"http://127.0.0.1:{port}")
    app.service.__dict__.pop("queue_client", None)
    with pytest.raises(EndpointConnectionError):  # the S3 event fails, so Lambda delivers it again
        drop_job(app, s3)
    assert not [k for k in _folder_objects(s3) if k.endswith("manifest.json")]


def test_the_function_is_told_the_tmp_its_assembly_fills():
    template = Template.load(Path(__file__).resolve().parents[1] / "template.yaml")
    function = template.function("TtsFunction")
    size = template.resolve(template.resources["TtsFunction"]["Properties"]["EphemeralStorage"]["Size"])
    assert size is not None and FunctionConfig.from_env(function.environment).ephemeral_storage_mb == int(size)


def test_a_dead_letter_whose_folder_no_key_can_hold_or_whose_json_is_too_deep_is_dropped(app, s3, queues, json_logs):
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    real = json.loads(messages[0]["Body"])["supertonic_part"]
    folders = [
        real["folder"] + "\ud800/",  # a lone surrogate: botocore cannot send it to S3 as a key
        real["folder"] + "x" * 1100 + "/",  # past S3's 1,024-byte keys
    ]
    unkeyable = [json.dumps({"supertonic_part": {**real, "folder": folder}}) for folder in folders]
    too_deep = "[" * 100_000  # deeper than the JSON parser recurses
    assert _deliver(app, queues["dlq_arn"], [*unkeyable, too_deep]) == {"batchItemFailures": []}
    # On the parts queue, what is no JSON is a malformed message of its own (retried, then a dead letter, dropped).
    answer = _deliver(app, queues["parts_arn"], [*unkeyable, too_deep])
    assert len(answer["batchItemFailures"]) == 1
    assert len([line for line in json_logs() if line.get("message") == "part message dropped"]) == 3 + 2
    for message in messages:
        app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
    assert _manifest(s3)["status"] == "done"


# Breaks enough for 43,000 s of audio in 860 chunks of one letter each: 860 characters to read, under
# the template's fan-out threshold (4,000), so rendered in one invocation: its file must fit /tmp too.
SHORT_BREAKS_JOB = {**LONG_JOB, "text": "<speak>" + ("a" + '<break time="10s"/>' * 5) * 860 + "</speak>"}


def test_a_job_made_in_one_invocation_is_bounded_by_tmp_too(app, s3):
    from supertonic_function.fanout import fans_out

    prepared = parse_request(SHORT_BREAKS_JOB, voices=app.service.voices).prepare(app.service.engine)
    assert prepared.total_silence_s > 40_000 and not fans_out(app.service, prepared)
    error = _refused_as_too_large(app, s3, SHORT_BREAKS_JOB, "input/short-breaks.json")
    assert "SUPERTONIC_EPHEMERAL_STORAGE_MB" in error["message"]


def test_a_wav_job_is_bounded_by_riff_s_32_bit_sizes_however_large_tmp_is(app, monkeypatch):
    from supertonic_function.fanout import tmp_audio_s

    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, ephemeral_storage_mb=10_240))
    wav, flac = "wav", "flac"
    rate = app.service.engine.sample_rate
    assert tmp_audio_s(app.service, wav) * 2 * rate < 2**32  # the WAV file's sizes still fit their fields
    assert tmp_audio_s(app.service, flac) * 2 * rate == 10_240 * 2**20  # FLAC has no such field: /tmp decides


def test_a_job_joined_from_parts_is_not_bound_by_tmp(app, s3, queues, monkeypatch):
    # Its parts are joined in S3: nothing of the file passes through /tmp.
    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, ephemeral_storage_mb=1))
    assert drop_job(app, s3)["results"][0]["status"] == "planned"
    assert receive_all(queues["parts"])


def test_a_joined_job_past_what_one_s3_object_holds_fails_at_planning(app, s3, queues, monkeypatch):
    from supertonic_function import fanout

    monkeypatch.setattr(fanout, "MULTIPART_MAX_PARTS", 1)  # one 5 MiB part: about 59 s of WAV
    result = drop_job(app, s3)["results"][0]
    assert result["status"] == "failed" and result["reason"] == "job_too_large"
    assert "one S3 object" in _manifest(s3)["error"]["message"]
    assert receive_all(queues["parts"]) == []


def test_a_job_its_assembly_could_not_encode_in_time_fails_at_planning_naming_the_timeout(app, s3, queues, monkeypatch):
    # Ogg Vorbis is encoded whole by the assembly (about 4 ms per audio second, measured): at a
    # 0.8 s Timeout (half of it for the encoder) the job's two minutes and more of audio cannot be,
    # so nothing is sent.
    config = dataclasses.replace(app.service.config, function_timeout_s=0.8, deadline_margin_s=0.1)
    monkeypatch.setattr(app.service, "config", config)
    result = drop_job(app, s3, {**LONG_JOB, "format": "ogg"})["results"][0]
    assert result["status"] == "failed" and result["reason"] == "job_too_large"
    message = _manifest(s3)["error"]["message"]
    assert "AWS_LAMBDA_FUNCTION_TIMEOUT" in message and "mp3" in message and "trim_silence" in message
    assert receive_all(queues["parts"]) == []
