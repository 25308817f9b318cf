"""Every producer of a result document holds to one set of keys a status (results.py).

Each document here is made by the real path that makes it for a user: the handler on the tiny
stand-in against moto's S3 and SQS, a job rendered in one invocation beside one rendered in parts,
a refused text beside a part whose retries are spent, a job's status at each step.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from fixtures_s3 import INPUT_BUCKET, LONG_JOB, OUTPUT_BUCKET, REGION, LambdaContext, drop_job, receive_all

from supertonic_function import jobs
from supertonic_function.errors import BatchFailed
from supertonic_function.results import AUDIO_KEYS, CHUNK_KEYS, DONE_KEYS, EXPIRED_KEYS, FAILED_KEYS, PROGRESS_KEYS
from supertonic_harness.fronts.furl import http_to_event
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.fronts.sqs import sqs_event

pytest_plugins = ["fixtures_s3"]

SHORT = {"text": "A short job. It renders in one go.", "voice": "M1", "steps": 1, "seed": 5, "format": "wav"}


def _manifests(s3: Any) -> dict[str, dict[str, Any]]:
    """Every manifest in the results bucket, by the input key its source names."""
    found = {}
    for item in s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("Contents", []):
        if item["Key"].endswith("manifest.json"):
            manifest = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=item["Key"])["Body"].read())
            found[manifest["source"]["key"]] = manifest
    return found


def _assert_chunks_point_into(manifest: dict[str, Any], text: str) -> None:
    """Chunks by byte range, in order, covering the text from its first word to its last (a
    sentence longer than a chunk would give its range to each chunk it spans: none here does)."""
    size = len(text.encode("utf-8"))
    ranges = [(c["start"], c["end"]) for c in manifest["chunks"]]
    assert all(set(c) == CHUNK_KEYS for c in manifest["chunks"])
    assert all(0 <= a < b <= size for a, b in ranges) and ranges == sorted(ranges)
    assert ranges[0][0] == 0 and ranges[-1][1] == size
    assert all(earlier[1] <= later[0] for earlier, later in itertools.pairwise(ranges))


def test_a_job_in_one_invocation_and_one_in_parts_write_done_manifests_with_the_same_keys(app, s3, queues):
    drop_job(app, s3, SHORT, key="input/short.json")  # under the fan-out threshold: one invocation
    drop_job(app, s3)
    messages = receive_all(queues["parts"])
    assert len(messages) > 1
    app.lambda_handler(sqs_event(messages, queues["parts_arn"], REGION), LambdaContext())
    manifests = _manifests(s3)
    single, parts = manifests["input/short.json"], manifests["input/long.json"]
    assert set(single) == set(parts) == DONE_KEYS
    assert (single["parts_total"], parts["parts_total"]) == (1, len(messages))
    _assert_chunks_point_into(single, SHORT["text"])
    _assert_chunks_point_into(parts, LONG_JOB["text"])
    # Rendered in parts, the manifest still says what the render cost and how.
    assert parts["synth_ms"] > 0 and parts["rtf"] > 0 and parts["precision"] == single["precision"]
    assert parts["synth_ms"] == pytest.approx(sum(c["synth_ms"] for c in parts["chunks"]), abs=0.1 * len(messages))


def test_a_refused_text_and_a_spent_part_write_failed_manifests_with_the_same_keys(app, s3, queues, monkeypatch):
    drop_job(app, s3, {**SHORT, "voice": "nobody"}, key="input/refused.json")
    drop_job(app, s3)
    broken = receive_all(queues["parts"])[0]
    monkeypatch.setattr(app.service.engine, "render_part", lambda part, **_: (_ for _ in ()).throw(RuntimeError("out of memory")))
    with pytest.raises(BatchFailed):
        app.lambda_handler(sqs_event([broken], queues["parts_arn"], REGION), LambdaContext())
    app.lambda_handler(sqs_event([broken], queues["dlq_arn"], REGION), LambdaContext())
    manifests = _manifests(s3)
    refused, spent = manifests["input/refused.json"], manifests["input/long.json"]
    assert set(refused) == set(spent) == FAILED_KEYS
    assert (refused["error"]["code"], refused["http_status"]) == ("unknown_voice", 422)
    assert (spent["error"]["code"], spent["error"]["part"], spent["http_status"]) == ("internal_error", 0, 500)


def test_a_job_s_status_has_the_same_keys_at_every_step(app, s3, queues):
    def submit(job: dict[str, Any]) -> dict[str, Any]:
        event = http_to_event("POST", "/v1/jobs", [("content-type", "application/json")], json.dumps(job).encode())
        reply = app.lambda_handler(event, LambdaContext())
        assert reply["statusCode"] == 202, reply
        return json.loads(reply["body"])

    accepted = submit(LONG_JOB)
    assert set(accepted) - {"status_url"} == PROGRESS_KEYS
    job_id = accepted["job_id"]
    waiting = jobs.status(app.service, job_id)  # stored, its event not delivered yet
    key = f"input/jobs/{job_id}.json"
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())
    planned = jobs.status(app.service, job_id)
    messages = receive_all(queues["parts"])
    app.lambda_handler(sqs_event(messages[:1], queues["parts_arn"], REGION), LambdaContext())
    running = jobs.status(app.service, job_id)
    steps = [accepted, waiting, planned, running]
    assert [d["status"] for d in steps] == ["queued", "queued", "queued", "running"]
    assert all(set(d) == PROGRESS_KEYS for d in steps[1:])
    assert [d["parts_total"] for d in steps] == [None, None, len(messages), len(messages)]
    app.lambda_handler(sqs_event(messages[1:], queues["parts_arn"], REGION), LambdaContext())
    done = jobs.status(app.service, job_id)
    # What a caller sees of a done manifest: no bucket, key or source, and a link.
    assert set(done) == (DONE_KEYS - {"source"}) | {"job_id", "audio_url", "expires_in_s"}
    assert set(done["audio"]) == {"content_type", "bytes"}


def test_an_expired_job_says_so_in_its_own_keys(app, s3, monkeypatch):
    import dataclasses

    job_id = jobs.submit(app.service, SHORT).job_id
    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, result_retention_days=0))
    assert set(jobs.status(app.service, job_id)) == EXPIRED_KEYS


def test_a_synchronous_json_answer_describes_its_audio_as_a_manifest_does(app):
    headers = [("content-type", "application/json"), ("accept", "application/json")]
    body = json.dumps({**SHORT, "text": "안녕하세요. Hello there."}).encode()
    reply = app.lambda_handler(http_to_event("POST", "/v1/tts", headers, body), LambdaContext())
    document = json.loads(reply["body"])
    assert set(document) == AUDIO_KEYS | {"audio_base64"}
    # A bounded text: each chunk says what the model read besides where it is.
    assert all(set(c) == CHUNK_KEYS | {"text"} for c in document["chunks"])
    assert document["chunks"][0]["start"] == 0 and document["chunks"][-1]["end"] == len("안녕하세요. Hello there.".encode())
