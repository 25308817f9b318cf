"""The S3 trigger under at-least-once delivery: idempotency, recursion, size caps, failures, deadlines."""

from __future__ import annotations

import json
import time
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

from supertonic_engine.errors import ConfigurationError
from supertonic_function import s3_trigger
from supertonic_function.config import ENV_OUTPUT_BUCKET, FunctionConfig
from supertonic_function.errors import RecordsLeft
from supertonic_function.invocation import LambdaCall
from supertonic_function.layout import MAX_KEY_BYTES
from supertonic_function.service import Service
from supertonic_function.storage import ObjectStore, StorageUnavailable
from supertonic_harness.fronts.s3 import s3_put_event

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]


def _service(app: Any, **overrides: Any) -> Service:
    """The app's engine with another configuration (the buckets of the tests unless overridden)."""
    config = FunctionConfig(**{"input_bucket": INPUT_BUCKET, "output_bucket": OUTPUT_BUCKET, "warm_up": False, **overrides})
    return Service(config, app.service.engine_or_error)


def _render(service: Service, event: dict[str, Any], remaining_ms: int = 60_000, context: Any = None) -> list[dict[str, Any]]:
    context = context or LambdaContext(remaining_ms=remaining_ms)
    return s3_trigger.handle(service, event, LambdaCall.begin(context, margin_s=service.config.deadline_margin_s))["results"]


@dataclass
class RunningOut(LambdaContext):
    """A context whose remaining time is read from a list, one reading per question."""

    readings_ms: Iterator[int] = field(default_factory=lambda: iter(()))

    def get_remaining_time_in_millis(self) -> int:
        return next(self.readings_ms)


@dataclass
class Timed(LambdaContext):
    """A context whose remaining time runs down with the real clock, as Lambda's does."""

    timeout_s: float = 60.0
    started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return int((self.started + self.timeout_s - time.monotonic()) * 1000)


def _s3_calls(service: Service) -> list[str]:
    """The S3 operations the service's (real) client makes from now on, in order."""
    calls: list[str] = []
    service.store.client.meta.events.register("before-call.s3", lambda model, **_: calls.append(model.name))
    return calls


def _slow_downloads(service: Service, delay_s: float) -> None:
    """Every GET of the service's client takes ``delay_s`` longer, as a slow S3 would."""
    service.store.client.meta.events.register("after-call.s3.GetObject", lambda **_: time.sleep(delay_s))


def _put_event(bucket: str, key: str, s3_client: Any, body: bytes | None = None) -> dict[str, Any]:
    """The notification S3 sends for ``key``, storing ``body`` first (without one, for the object already there)."""
    if body is not None:
        s3_client.put_object(Bucket=bucket, Key=key, Body=body)
    head = s3_client.head_object(Bucket=bucket, Key=key)
    return s3_put_event(bucket, key, head["ContentLength"], head["ETag"])


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
    calls = _s3_calls(service)

    (second,) = _render(service, event)

    assert first["status"] == "done"
    assert second == {**first, "status": "skipped", "reason": "already_done"}
    assert _keys(s3, OUTPUT_BUCKET) == written
    # The source's metadata (its options) and the manifest: the text itself is not read again.
    assert calls == ["HeadObject", "HeadObject"]


def test_the_same_text_with_new_options_in_metadata_is_a_new_result(app: Any, s3: Any) -> None:
    service = _service(app)
    body = b"Same words, another voice."
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/again.txt", Body=body, Metadata={"voice": "F1"})
    (first,) = _render(service, _put_event(INPUT_BUCKET, "input/again.txt", s3))
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/again.txt", Body=body, Metadata={"voice": "F3", "format": "flac"})
    again = _put_event(INPUT_BUCKET, "input/again.txt", s3)
    (second,) = _render(service, again)
    (redelivered,) = _render(service, again)

    assert first["status"] == second["status"] == "done"
    assert first["manifest_key"] != second["manifest_key"]  # the ETag is the same: the options are not
    assert _manifest(s3, first["manifest_key"])["voice"] == "F1"
    manifest = _manifest(s3, second["manifest_key"])
    assert (manifest["voice"], manifest["format"]) == ("F3", "flac") and manifest["audio"]["key"].endswith(".flac")
    assert (redelivered["status"], redelivered["reason"]) == ("skipped", "already_done")


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
    event = _put_event(INPUT_BUCKET, key, s3, b"Spaces, a plus and accents.")
    assert "+" in event["Records"][0]["s3"]["object"]["key"]  # spaces arrive as '+', '+' as %2B
    (result,) = _render(_service(app), event)
    assert result["key"] == key
    assert _manifest(s3, result["manifest_key"])["source"]["key"] == key


def test_oversize_is_refused_before_download(app: Any, s3: Any) -> None:
    service = _service(app, max_object_bytes=1000)
    # The object does not even exist: only the event's size is looked at.
    event = s3_put_event(INPUT_BUCKET, "input/huge.txt", 5000, "0" * 32)
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
        Bucket=INPUT_BUCKET,
        Key="input/meta.txt",
        Body=b"Options from metadata.",
        Metadata={"voice": "F3", "format": "flac", "steps": "2", "seed": "5"},
    )
    event = _put_event(INPUT_BUCKET, "input/meta.txt", s3)
    (result,) = _render(_service(app), event)
    manifest = _manifest(s3, result["manifest_key"])
    assert (manifest["voice"], manifest["format"], manifest["steps"], manifest["seed"]) == ("F3", "flac", 2, 5)
    assert manifest["audio"]["key"].endswith(".flac")
    audio = s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    assert audio_info(audio).format == "FLAC"


def test_a_blend_in_metadata_or_a_json_job_is_rendered_and_a_bad_one_fails_naming_the_voice(app: Any, s3: Any) -> None:
    s3.put_object(
        Bucket=INPUT_BUCKET, Key="input/blend.txt", Body=b"Two voices from metadata.", Metadata={"voice": "nova:1,M2:3", "steps": "1"}
    )
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/blend.txt", s3))
    assert _manifest(s3, result["manifest_key"])["voice"] == "F2:0.25,M2:0.75"
    job = json.dumps({"text": "Two voices from a job.", "voice": "F1,M3", "steps": 1}).encode()
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/blend.json", s3, job))
    assert _manifest(s3, result["manifest_key"])["voice"] == "F1:0.5,M3:0.5"
    bad = json.dumps({"text": "Hello.", "voice": "F1:0.5,F1:0.5"}).encode()
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/bad-blend.json", s3, bad))
    manifest = _manifest(s3, result["manifest_key"])
    assert manifest["status"] == "failed" and manifest["http_status"] == 422
    assert manifest["error"]["field"] == "voice" and "voice 'F1' appears twice" in manifest["error"]["message"]


def test_upload_time_is_kept_in_proportion_to_the_audio(app: Any, s3: Any) -> None:
    body = json.dumps({"text": "A story that takes a while to tell. " * 24, "steps": 2}).encode()
    (probe,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/probe.json", s3, body))
    audio_bytes = _manifest(s3, probe["manifest_key"])["audio"]["bytes"]

    # A minute of budget; at this rate the whole audio would upload in 30 s: it fits.
    fits = _service(app, deadline_margin_s=0.0, upload_mb_per_s=audio_bytes / 30 / 1e6)
    (done,) = _render(fits, _put_event(INPUT_BUCKET, "input/fits.json", s3, body))
    # At a quarter of that rate the upload alone would take two minutes: synthesis stops once
    # what it has made needs the rest of the time to upload, and nothing is uploaded.
    slow = _service(app, deadline_margin_s=0.0, upload_mb_per_s=audio_bytes / 120 / 1e6)
    (refused,) = _render(slow, _put_event(INPUT_BUCKET, "input/slow.json", s3, body))

    assert done["status"] == "done"
    manifest = _manifest(s3, refused["manifest_key"])
    assert (refused["status"], manifest["error"]["code"]) == ("failed", "deadline_exceeded")
    assert "to upload the audio made so far" in manifest["error"]["message"]
    assert "(3/3 chunks done)" not in manifest["error"]["message"]
    assert not [k for k in _keys(s3, OUTPUT_BUCKET) if k.startswith("output/results/slow.json/") and "/audio-" in k]


def test_a_deadline_after_a_slow_download_is_retried_not_failed(app: Any, s3: Any) -> None:
    body = json.dumps({"text": "A story that takes a while to tell. " * 8, "steps": 20}).encode()
    needs_s = 0.0  # what the record takes with S3 answering at once: the slower of two, as one core varies
    for probe in ("input/probe.json", "input/probe-2.json"):
        started = time.monotonic()
        _render(_service(app), _put_event(INPUT_BUCKET, probe, s3, body))
        needs_s = max(needs_s, time.monotonic() - started)

    # Twice what the record needs, but the download eats all but a twentieth of what it needs.
    service = _service(app, deadline_margin_s=0.0)
    _slow_downloads(service, 1.95 * needs_s)
    event = _put_event(INPUT_BUCKET, "input/slow.json", s3, body)
    with pytest.raises(RecordsLeft):
        _render(service, event, context=Timed(timeout_s=2 * needs_s))
    assert not [k for k in _keys(s3, OUTPUT_BUCKET) if k.startswith("output/results/slow.json/")]

    # The retry, with S3 fast again, renders it: a fresh invocation's whole time (the deployment's
    # timeout, not the probe's small multiple, which a pause in moto or a client's creation can pass).
    (retried,) = _render(_service(app, deadline_margin_s=0.0), event, context=Timed(timeout_s=60.0))
    assert retried["status"] == "done"


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
    # A minute at the start and for the first record (before and after its download); by the
    # second, 1.5 s remain: less than the margin.
    with pytest.raises(RecordsLeft, match="1 of 2 records"):
        _render(service, event, context=RunningOut(readings_ms=iter([60_000, 60_000, 60_000, 1_500])))
    done = [k for k in _keys(s3, OUTPUT_BUCKET) if k.endswith("manifest.json")]
    assert len(done) == 1 and done[0].startswith("output/results/first.txt/")  # no failed manifest for the second

    # Lambda's retry: the first is done already, so the second gets the time.
    results = _render(service, event, context=RunningOut(readings_ms=iter([60_000] * 3)))
    assert [(r["status"], r.get("reason")) for r in results] == [("skipped", "already_done"), ("done", None)]


def test_retries_of_an_event_too_long_for_one_invocation_finish_every_record(app: Any, s3: Any) -> None:
    body = json.dumps({"text": "A story that takes a while to tell. " * 8, "steps": 15}).encode()
    service = _service(app, deadline_margin_s=0.0)
    # A record's time, measured warm on the service the deliveries use (its first record pays
    # first-run allocations and the results bucket's check); the slower of two readings, since a
    # delivery given too little for even one record would fail that record's text, not retry it.
    _render(service, _put_event(INPUT_BUCKET, "input/warm.json", s3, body))
    readings = []
    for probe in range(2):
        started = time.monotonic()
        _render(service, _put_event(INPUT_BUCKET, f"input/probe-{probe}.json", s3, body))
        readings.append(time.monotonic() - started)
    needs_s = max(readings)

    records = [_put_event(INPUT_BUCKET, f"input/part-{n}.json", s3, body)["Records"][0] for n in range(8)]
    event = {"Records": records}
    done_after: list[int] = []
    for _ in range(len(records)):  # each delivery has time for about three and a half records
        try:
            results = _render(service, event, context=Timed(timeout_s=3.5 * needs_s))
            break
        except RecordsLeft:
            done_after.append(len([k for k in _keys(s3, OUTPUT_BUCKET) if k.endswith("manifest.json")]))
    else:
        pytest.fail(f"still records left after {len(records)} deliveries (manifests after each: {done_after}, a record {readings} s)")

    assert done_after and done_after == sorted(set(done_after)), (done_after, readings)  # every delivery kept its progress
    manifests = [_manifest(s3, k) for k in _keys(s3, OUTPUT_BUCKET) if k.endswith("manifest.json")]
    failures = [(m["source"]["key"], m.get("error")) for m in manifests if m["status"] != "done"]
    assert failures == [], (failures, readings)
    assert all(r["status"] in ("done", "skipped") for r in results)
    assert len(manifests) == len(records) + 3  # the parts, the warm-up and the probes


def test_a_misconfigured_function_retries_instead_of_failing_the_text(app: Any, s3: Any) -> None:
    service = Service(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET), ConfigurationError("SUPERTONIC_X is wrong"))
    with pytest.raises(ConfigurationError):
        _render(service, _put_event(INPUT_BUCKET, "input/wait.txt", s3, b"Wait for the fix."))
    assert _keys(s3, OUTPUT_BUCKET) == {}


def test_a_missing_results_bucket_is_found_before_any_work(app: Any, s3: Any) -> None:
    service = _service(app, output_bucket="supertonic-output-that-does-not-exist")
    calls = _s3_calls(service)
    with pytest.raises(ConfigurationError, match=ENV_OUTPUT_BUCKET) as raised:
        _render(service, _put_event(INPUT_BUCKET, "input/nowhere.txt", s3, b"Nowhere to go."))
    assert "does not exist" in raised.value.message
    assert calls == ["HeadBucket"]  # the text was never read, let alone synthesized


def test_a_job_field_name_without_utf8_form_is_a_failed_manifest(app: Any, s3: Any) -> None:
    # JSON may escape a lone surrogate; Python reads it into a str that UTF-8 cannot encode.
    event = _put_event(INPUT_BUCKET, "input/odd.json", s3, b'{"text": "Hello.", "\\ud800": 1}')
    (result,) = _render(_service(app), event)
    manifest = _manifest(s3, result["manifest_key"])
    assert (result["status"], manifest["error"]["code"]) == ("failed", "invalid_parameter")
    assert manifest["error"]["field"] == "\\ud800"  # spelled as its escape


def test_keys_near_s3s_limit_get_results_that_fit_and_stay_apart(app: Any, s3: Any) -> None:
    service = _service(app)
    stem = "input/" + "ü" * 490  # 986 bytes: a valid key, too long with the result folder around it
    keys = [stem + "a.txt", stem + "b.txt"]
    results = [_render(service, _put_event(INPUT_BUCKET, key, s3, b"A long name."))[0] for key in keys]

    manifests = [_manifest(s3, r["manifest_key"]) for r in results]
    assert [r["status"] for r in results] == ["done", "done"]
    assert [m["source"]["key"] for m in manifests] == keys
    assert results[0]["manifest_key"] != results[1]["manifest_key"]
    written = [k for k in _keys(s3, OUTPUT_BUCKET)]
    assert len(written) == 4 and all(len(k.encode()) <= MAX_KEY_BYTES for k in written)
    (again,) = _render(service, _put_event(INPUT_BUCKET, keys[0], s3))
    assert (again["status"], again["reason"]) == ("skipped", "already_done")


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
        "s3",
        endpoint_url="http://127.0.0.1:9",
        region_name="us-east-1",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
    )
    service = _service(app)
    service._store = ObjectStore(unreachable)
    event = s3_put_event(INPUT_BUCKET, "input/retry.txt", 10, "a" * 32)
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


def test_an_ssml_file_is_read_as_ssml_and_unsupported_ssml_fails_naming_the_element(app: Any, s3: Any) -> None:
    fragment = 'First part.<break time="2s"/>Second <say-as interpret-as="digits">42</say-as>.'
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/ssml.txt", Body=fragment.encode(), Metadata={"text_type": "ssml", "steps": "1"})
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/ssml.txt", s3))
    manifest = _manifest(s3, result["manifest_key"])
    # Chunks are named by the bytes of the SSML as sent that they read (markup inside a chunk included).
    sent = fragment.encode()
    assert [sent[c["start"] : c["end"]].decode() for c in manifest["chunks"]] == [
        "First part.",
        'Second <say-as interpret-as="digits">42</say-as>.',
    ]
    assert round(manifest["chunks"][1]["start_s"] - manifest["chunks"][0]["end_s"], 3) == 2.0
    bad = b'<speak><prosody rate="x-slow">Slowly.</prosody></speak>'
    (result,) = _render(_service(app), _put_event(INPUT_BUCKET, "input/bad.txt", s3, bad))
    manifest = _manifest(s3, result["manifest_key"])
    assert manifest["status"] == "failed" and manifest["http_status"] == 422
    assert manifest["error"]["code"] == "unsupported_ssml" and "<prosody>" in manifest["error"]["message"]
