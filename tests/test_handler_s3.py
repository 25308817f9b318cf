"""The S3 trigger under at-least-once delivery: idempotency, recursion, size caps, failures, deadlines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from botocore.config import Config
from fixtures_s3 import (
    INPUT_BUCKET,
    OUTPUT_BUCKET,
    LambdaContext,
    audio_info,
    load_event,
)
from supertonic_engine.errors import ConfigurationError, DeadlineExceeded
from supertonic_engine.storage import ObjectStore, StorageUnavailable
from supertonic_function import s3_trigger
from supertonic_function.config import FunctionConfig
from supertonic_function.service import Service

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]


def _service(app: Any, **overrides: Any) -> Service:
    """The app's engine with another configuration (the buckets of the tests unless overridden)."""
    config = FunctionConfig(
        **{"input_bucket": INPUT_BUCKET, "output_bucket": OUTPUT_BUCKET, "warm_up": False, **overrides}
    )
    return Service(config, app.service.engine_or_error)


def _render(service: Service, event: dict[str, Any], remaining_ms: int = 60_000, context: Any = None) -> list[dict[str, Any]]:
    context = context or LambdaContext(remaining_ms=remaining_ms)
    return s3_trigger.handle(service, event, request_id=context.aws_request_id, context=context)["results"]


@dataclass
class RunningOut(LambdaContext):
    """A context whose remaining time is read from a list, one reading per question."""

    readings_ms: Iterator[int] = field(default_factory=lambda: iter(()))

    def get_remaining_time_in_millis(self) -> int:
        return next(self.readings_ms)


def _put_event(bucket: str, key: str, s3_client: Any, body: bytes | None = None, **object_fields: Any) -> dict[str, Any]:
    """An S3 put notification for ``key`` (encoded as S3 encodes it), storing ``body`` first."""
    from urllib.parse import quote_plus

    obj: dict[str, Any] = {"key": quote_plus(key, safe="/"), "sequencer": "0A"}
    if body is not None:
        reply = s3_client.put_object(Bucket=bucket, Key=key, Body=body)
        obj.update(size=len(body), eTag=reply["ETag"].strip('"'))
    obj.update(object_fields)
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": bucket}, "object": obj},
            }
        ]
    }


def _keys(s3_client: Any, bucket: str) -> dict[str, str]:
    """Key -> ETag of everything in ``bucket``."""
    listing = s3_client.list_objects_v2(Bucket=bucket).get("Contents", [])
    return {item["Key"]: item["ETag"] for item in listing}


def _manifest(s3_client: Any, key: str) -> dict[str, Any]:
    return json.loads(s3_client.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read())


def test_redelivered_event_does_no_work(app: Any, s3: Any) -> None:
    service = _service(app)
    event = _put_event(INPUT_BUCKET, "input/twice.txt", s3, b"Delivered at least once.")
    (first,) = _render(service, event)
    written = _keys(s3, OUTPUT_BUCKET)
    # With the source gone, any attempt to read it again would be a skip for a different reason.
    s3.delete_object(Bucket=INPUT_BUCKET, Key="input/twice.txt")

    (second,) = _render(service, event)

    assert first["status"] == "done"
    assert second == {**first, "status": "skipped", "reason": "already_done"}
    assert _keys(s3, OUTPUT_BUCKET) == written


def test_changed_object_gets_a_new_result_folder(app: Any, s3: Any) -> None:
    service = _service(app)
    (first,) = _render(service, _put_event(INPUT_BUCKET, "input/draft.txt", s3, b"First draft."))
    (second,) = _render(service, _put_event(INPUT_BUCKET, "input/draft.txt", s3, b"Second draft, longer."))
    assert first["status"] == second["status"] == "done"
    assert first["manifest_key"] != second["manifest_key"]


def test_event_older_than_the_object_is_skipped(app: Any, s3: Any) -> None:
    service = _service(app)
    stale = _put_event(INPUT_BUCKET, "input/race.txt", s3, b"Version one.")
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/race.txt", Body=b"Version two, already replaced.")
    (result,) = _render(service, stale)
    assert (result["status"], result["reason"]) == ("skipped", "object_changed")
    assert _keys(s3, OUTPUT_BUCKET) == {}


@pytest.mark.parametrize(
    ("bucket", "key"),
    [
        (OUTPUT_BUCKET, "output/a.txt/abc/audio.wav"),  # the function's own audio
        (OUTPUT_BUCKET, "output/a.txt/abc/manifest.json"),  # its own manifest (.json like a job)
        (INPUT_BUCKET, "elsewhere/notes.txt"),  # outside the input prefix
        (INPUT_BUCKET, "input/picture.png"),  # not a text suffix
        (INPUT_BUCKET, "input/SHOUTING.TXT"),  # S3's suffix filter is case-sensitive: never notified
    ],
)
def test_refuses_outputs_and_foreign_keys(app: Any, s3: Any, bucket: str, key: str) -> None:
    (result,) = _render(_service(app), _put_event(bucket, key, s3, b"Not for rendering."))
    assert result["status"] == "skipped"
    assert result["reason"] in ("own_output", "not_an_input")
    assert not [k for k in _keys(s3, OUTPUT_BUCKET) if k != key]


def test_one_bucket_layout_refuses_its_own_output_prefix(app: Any, s3: Any) -> None:
    service = _service(app, output_bucket=None)  # results go to the input bucket, under output/
    (done,) = _render(service, _put_event(INPUT_BUCKET, "input/one.txt", s3, b"One bucket."))
    manifest_key = done["manifest_key"]
    assert manifest_key.startswith("output/") and manifest_key in _keys(s3, INPUT_BUCKET)

    (loop,) = _render(service, _put_event(INPUT_BUCKET, manifest_key, s3))
    assert (loop["status"], loop["reason"]) == ("skipped", "own_output")


def test_overlapping_prefixes_in_one_bucket_are_refused_at_init() -> None:
    with pytest.raises(ConfigurationError, match="overlaps"):
        FunctionConfig(input_bucket=INPUT_BUCKET, input_prefix="", output_prefix="output/")


def test_keys_are_url_decoded(app: Any, s3: Any) -> None:
    key = "input/chapter 1 – café + crème.txt"
    event = _put_event(INPUT_BUCKET, key, s3, "Spaces, a plus and accents.".encode())
    assert "+" in event["Records"][0]["s3"]["object"]["key"]  # spaces arrive as '+', '+' as %2B
    (result,) = _render(_service(app), event)
    assert result["key"] == key
    assert _manifest(s3, result["manifest_key"])["source"]["key"] == key


def test_oversize_is_refused_before_download(app: Any, s3: Any) -> None:
    service = _service(app, max_object_bytes=1000)
    # The object does not even exist: only the event's size is looked at.
    event = _put_event(INPUT_BUCKET, "input/huge.txt", s3, None, size=5000, eTag="0" * 32)
    (result,) = _render(service, event)
    manifest = _manifest(s3, result["manifest_key"])
    assert (result["status"], result["reason"]) == ("failed", "object_too_large")
    assert manifest["error"]["code"] == "object_too_large" and manifest["http_status"] == 413
    assert "5,000 bytes" in manifest["error"]["message"]


def test_object_that_grew_past_the_cap_is_refused(app: Any, s3: Any) -> None:
    service = _service(app, max_object_bytes=100)
    event = _put_event(INPUT_BUCKET, "input/grew.txt", s3, b"x" * 500)
    event["Records"][0]["s3"]["object"].update(size=10, eTag=None)  # the event understates the size
    (result,) = _render(service, event)
    assert (result["status"], result["reason"]) == ("failed", "object_too_large")


def test_not_utf8_writes_an_error_manifest(app: Any, s3: Any) -> None:
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/latin.txt", s3, "Crème brûlée".encode("latin-1")))
    manifest = _manifest(s3, result["manifest_key"])
    assert manifest["status"] == "failed"
    assert manifest["error"] == {
        "code": "text_not_utf8",
        "message": "the text object is not UTF-8 (byte 0xe8 at offset 2); save it as UTF-8 text.",
        "field": "text",
    }
    assert manifest["source"]["key"] == "input/latin.txt"


def test_metadata_sets_the_options_of_a_txt(app: Any, s3: Any) -> None:
    s3.put_object(
        Bucket=INPUT_BUCKET, Key="input/meta.txt", Body=b"Options from metadata.",
        Metadata={"voice": "F3", "format": "flac", "steps": "2", "seed": "5"},
    )
    event = _put_event(INPUT_BUCKET, "input/meta.txt", s3)
    (result,) = _render(_service(app), event)
    manifest = _manifest(s3, result["manifest_key"])
    assert (manifest["voice"], manifest["format"], manifest["steps"], manifest["seed"]) == ("F3", "flac", 2, 5)
    assert manifest["audio"]["key"].endswith(".flac")
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    assert audio_info(audio).format == "FLAC"


def test_text_too_long_for_the_whole_timeout_becomes_an_error_manifest(app: Any, s3: Any) -> None:
    service = _service(app, deadline_margin_s=0.0)
    event = _put_event(INPUT_BUCKET, "input/late.json", s3, json.dumps({"text": "A long story. " * 60, "steps": 100}).encode())
    (result,) = _render(service, event, remaining_ms=300)
    manifest = _manifest(s3, result["manifest_key"])
    assert (result["status"], manifest["error"]["code"], manifest["http_status"]) == ("failed", "deadline_exceeded", 504)
    assert "retryable" not in manifest  # a manifest is final: anything retryable is raised instead


def test_a_record_the_earlier_ones_left_no_time_for_is_retried_not_failed(app: Any, s3: Any) -> None:
    service = _service(app, deadline_margin_s=2.0)
    first = _put_event(INPUT_BUCKET, "input/first.txt", s3, b"First of two.")
    second = _put_event(INPUT_BUCKET, "input/second.txt", s3, b"Second of two.")
    event = {"Records": first["Records"] + second["Records"]}
    # The first record renders with a minute left; by the second, 1.5 s remain: less than the margin.
    with pytest.raises(DeadlineExceeded):
        _render(service, event, context=RunningOut(readings_ms=iter([60_000, 1_500])))
    done = [k for k in _keys(s3, OUTPUT_BUCKET) if k.endswith("manifest.json")]
    assert len(done) == 1 and done[0].startswith("output/first.txt/")  # no failed manifest for the second

    # Lambda's retry: the first is done already, so the second is the first to render and gets the whole time.
    results = _render(service, event, context=RunningOut(readings_ms=iter([60_000])))
    assert [(r["status"], r.get("reason")) for r in results] == [("skipped", "already_done"), ("done", None)]


def test_a_misconfigured_function_retries_instead_of_failing_the_text(app: Any, s3: Any) -> None:
    service = Service(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET), ConfigurationError("SUPERTONIC_X is wrong"))
    with pytest.raises(ConfigurationError):
        _render(service, _put_event(INPUT_BUCKET, "input/wait.txt", s3, b"Wait for the fix."))
    assert _keys(s3, OUTPUT_BUCKET) == {}


def test_unreadable_job_json_is_a_failed_manifest(app: Any, s3: Any) -> None:
    event = _put_event(INPUT_BUCKET, "input/deep.json", s3, b"[" * 100_000)
    (result,) = _render(_service(app), event)
    manifest = _manifest(s3, result["manifest_key"])
    assert (result["status"], result["reason"]) == ("failed", "invalid_json")
    assert manifest["error"]["message"] == "the job is nested too deeply to be a request"


def test_each_delivery_writes_its_own_audio_and_the_manifest_names_it(app: Any, s3: Any) -> None:
    context = LambdaContext()
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/mine.txt", s3, b"Whose audio?"), context=context)
    manifest = _manifest(s3, result["manifest_key"])
    assert manifest["audio"]["key"].endswith(f"/audio-{context.aws_request_id}.wav")
    assert manifest["request_id"] == context.aws_request_id


def test_transient_s3_failure_raises_for_a_retry(app: Any, tiny_model_dir: Any) -> None:
    unreachable = boto3.client(
        "s3", endpoint_url="http://127.0.0.1:9", region_name="us-east-1",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
    )
    service = _service(app)
    service._store = ObjectStore(unreachable)
    event = _put_event(INPUT_BUCKET, "input/retry.txt", None, None, size=10, eTag="a" * 32)
    with pytest.raises(StorageUnavailable):
        _render(service, event)


def test_manifest_describes_complete_audio(app: Any, s3: Any) -> None:
    (result,) = _render(_service(app), load_event("s3_put_txt", s3))
    manifest = _manifest(s3, result["manifest_key"])
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    assert manifest["audio"]["bytes"] == len(audio)
    assert manifest["source"]["etag"] and manifest["request_id"] and manifest["finished_at"].endswith("Z")
    assert manifest["chunks"][-1]["end_s"] == pytest.approx(manifest["duration_s"], abs=1e-3)


def test_test_event_and_other_event_names_do_nothing(app: Any, s3: Any) -> None:
    context = LambdaContext()
    assert app.lambda_handler(load_event("s3_test_event"), context)["results"] == []
    removal = _put_event(INPUT_BUCKET, "input/gone.txt", s3, b"Deleted.")
    removal["Records"][0]["eventName"] = "ObjectRemoved:Delete"
    (result,) = _render(_service(app), removal)
    assert (result["status"], result["reason"]) == ("skipped", "not_a_creation")
