"""The function URL beyond the sample events: cold start, deadlines, the 6 MB limit, jobs, CORS, failures."""

from __future__ import annotations

import importlib
import json
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import boto3
import pytest
from botocore.config import Config
from fixtures_s3 import (
    FUNCTION_ENV,
    INPUT_BUCKET,
    OUTPUT_BUCKET,
    HttpAnswer,
    LambdaContext,
    asked_disposition,
    audio_info,
    disposition_of,
    fetch,
    load_event,
    sample_events,
    seeded,
)

from supertonic_engine import DEFAULT_VOICE
from supertonic_engine.errors import ConfigurationError, ModelMissing, SupertonicError
from supertonic_function import errors
from supertonic_function.config import FunctionConfig
from supertonic_function.responses import SYNC_RESPONSE_LIMIT, size_of
from supertonic_function.service import Service
from supertonic_function.storage import ObjectStore, StorageError, StorageFailed
from supertonic_harness.fronts.furl import http_to_event
from supertonic_harness.function.outcome import Outcome

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

# About 70 s of audio on the stand-in: over 6 MB as base64 WAV, small as MP3.
LONG_TEXT = "Every sentence here adds a few seconds of audio to the answer. " * 13


def _post(body: dict[str, Any], path: str = "/v1/tts", headers: dict[str, str] | None = None) -> dict[str, Any]:
    return _post_raw(json.dumps(body), "application/json", path, headers=headers)


def _get(path: str, query: str = "", headers: dict[str, str] | None = None) -> dict[str, Any]:
    return http_to_event("GET", f"{path}?{query}" if query else path, (headers or {}).items(), b"")


def _post_raw(
    body: str, content_type: str, path: str = "/v1/tts", query: str = "", headers: dict[str, str] | None = None
) -> dict[str, Any]:
    target = f"{path}?{query}" if query else path
    return http_to_event("POST", target, [("content-type", content_type), *(headers or {}).items()], body.encode("utf-8"))


def _call(app: Any, event: dict[str, Any], remaining_ms: int = 60_000) -> HttpAnswer:
    return HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=remaining_ms)))


def test_cold_start_is_measured_and_reported_once(app: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch, json_logs: Any) -> None:
    monkeypatch.setenv("SUPERTONIC_MODEL_DIR", str(tiny_model_dir))
    for name, value in FUNCTION_ENV.items():
        monkeypatch.setenv(name, value)
    importlib.reload(app)  # a new container: the init phase runs again

    first = _call(app, _get("/health")).json()
    second = _call(app, _get("/health")).json()

    assert first["cold_start"] is True and second["cold_start"] is False
    assert 0 < first["init_ms"] < 10_000 and first["model_kind"] == "stand-in"
    logs = json_logs()
    init = next(entry for entry in logs if entry.get("message") == "init done")
    cold = next(entry for entry in logs if entry.get("message") == "cold start")
    assert init["init_ms"] == cold["init_ms"] == first["init_ms"]
    assert cold["cold_start"] is True and cold["function_request_id"]


def test_no_time_left_is_a_504(app: Any, s3: Any) -> None:
    answer = _call(app, load_event("furl_post_tts"), remaining_ms=10)
    assert answer.status == 504
    error = answer.json()["error"]
    assert error["code"] == "deadline_exceeded"
    # Nothing ran: the message says so, not "stopped after 0.00 s ... (0/0 chunks done)".
    assert error["message"].startswith("no time was left to start synthesis: 0.01 s remained and 2.00 s are kept")
    assert "0/0 chunks" not in error["message"]
    # The engine's advice, with the function's way out in its place.
    assert error["message"].endswith(". Send shorter text, fewer steps, or use an asynchronous job.")


@dataclass
class ClockContext(LambdaContext):
    """A context whose remaining time runs down with the clock, as Lambda's does."""

    started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return int(self.remaining_ms - (time.monotonic() - self.started) * 1000)


def test_encoding_is_done_inside_the_deadline(app: Any, configure: Any) -> None:
    """A long Opus answer: time enough for synthesis and a third of the encoding. Encoding after
    the deadline answered 200 after Lambda's timeout (a 502 and a reset); now the answer, audio
    or 504, is ready before the time is up."""
    configure(sync_max_text_chars=10_000)
    body = {"text": LONG_TEXT, "steps": 1, "format": "opus"}
    measured = _call(app, _post(body, headers={"accept": "application/json"})).json()
    # The margin after synthesis, a sixth of the encoding, dwarfs the one block (1.5 s of the
    # 70 s) that may run past the deadline; before, two thirds of the encoding ran past it.
    margin_ms = measured["encode_ms"] / 6
    configure(sync_max_text_chars=10_000, deadline_margin_s=margin_ms / 1000)
    context = ClockContext(remaining_ms=int(margin_ms + measured["synth_ms"] + measured["encode_ms"] / 3))
    answer = HttpAnswer.of(app.lambda_handler(_post(body), context))
    left_ms = context.get_remaining_time_in_millis()
    assert left_ms > 0, f"answered {-left_ms} ms after the deadline (encode took {measured['encode_ms']:.0f} ms)"
    assert answer.status in (200, 504)
    if answer.status == 504:
        assert answer.json()["error"]["code"] == "deadline_exceeded"


@pytest.mark.parametrize(
    ("path", "body", "limit"),
    [
        ("/v1/tts", {"text": "9" * 3000}, "the limit is 6,000"),  # 15,000 characters read aloud
        ("/v1/audio/speech", {"input": "9" * 3000, "voice": "alloy"}, "the limit is 6,000"),
        ("/v1/tts", {"text": "A\n\n" * 1000}, "s of audio; the limit is 600 s"),  # a chunk and a pause each
        (None, {"text": "A\n\n" * 1000}, "s of audio; the limit is 600 s"),  # a direct invoke
    ],
    ids=["digits", "digits-openai", "paragraphs", "paragraphs-direct"],
)
def test_a_short_text_that_reads_long_is_refused_before_synthesis(
    app: Any, configure: Any, path: str | None, body: dict[str, Any], limit: str
) -> None:
    """3,000 characters within the written limit that would make ~1,400 s of audio (and over 1 GB
    of memory): refused from the normalized length or the forecast, naming the text and the way out."""
    configure()
    context = LambdaContext(remaining_ms=5_000)  # before the bounds this ran into the deadline
    if path is None:
        result = app.lambda_handler(body, context)
        status, error = result["status"], result["error"]
    else:
        answer = HttpAnswer.of(app.lambda_handler(_post(body, path=path), context))
        status, error = answer.status, answer.json()["error"]
    # OpenAI's route answers its 400 (its SDK has no class for 413), with the same error.
    assert status == (400 if path == "/v1/audio/speech" else 413) and error["code"] == "text_too_long" and error["field"] == "text"
    assert limit in error["message"] and "POST /v1/jobs" in error["message"]


def test_engine_deadline_stops_a_long_synthesis(app: Any, configure: Any) -> None:
    configure(deadline_margin_s=0.0, sync_max_text_chars=10_000)
    # What a request costs around the synthesis on this machine: a one-step answer of a short text.
    started = time.perf_counter()
    assert _call(app, _post({"text": "Short.", "steps": 1})).status == 200
    overhead_s = time.perf_counter() - started
    started = time.perf_counter()
    answer = _call(app, _post({"text": LONG_TEXT, "steps": 100}), remaining_ms=1000)
    elapsed = time.perf_counter() - started
    error = answer.json()["error"]
    assert answer.status == 504 and error["code"] == "deadline_exceeded"
    # The engine started and was stopped near the budget (the whole text would take many seconds);
    # the budget is the time left less what delivering the forecast audio takes.
    assert "synthesis stopped after" in error["message"] and "stopped after 0.00 s" not in error["message"]
    assert elapsed < 1.0 + 0.5 + 3 * overhead_s


def test_too_large_without_a_bucket_says_how_much_text_fits(app: Any, configure: Any) -> None:
    configure(input_bucket=None, output_bucket=None, sync_max_text_chars=10_000)
    answer = _call(app, _post({"text": LONG_TEXT, "steps": 1}))
    error = answer.json()["error"]
    assert answer.status == 413 and error["code"] == "response_too_large"
    fits = int(error["message"].split("at most about ")[1].split(" ")[0].replace(",", ""))
    assert 0 < fits < len(LONG_TEXT)
    # The estimate holds: that much text fits in one response.
    assert _call(app, _post({"text": LONG_TEXT[:fits], "steps": 1})).status == 200


def test_too_large_with_a_bucket_redirects_to_a_presigned_link(app: Any, s3: Any, configure: Any) -> None:
    service = configure(sync_max_text_chars=10_000)
    answer = _call(app, _post({"text": LONG_TEXT, "steps": 1}))
    assert answer.status == 303
    url = answer.headers["location"]
    assert answer.json()["audio_url"] == url
    query = parse_qs(urlparse(url).query)
    assert query["X-Amz-Expires"] == [str(service.config.url_expires_s)]
    audio = fetch(url)
    assert len(audio) * 4 / 3 > SYNC_RESPONSE_LIMIT
    assert audio_info(audio).duration == pytest.approx(answer.json()["duration_s"], abs=1e-3)
    # A player or a browser tab follows the redirect to play the audio, not to be handed a file to save.
    assert asked_disposition(url) == [] and disposition_of(url) is None


def test_too_large_as_json_returns_the_link(app: Any, s3: Any, configure: Any) -> None:
    configure(sync_max_text_chars=10_000)
    answer = _call(app, _post({"text": LONG_TEXT, "steps": 1}, headers={"accept": "application/json"}))
    document = answer.json()
    assert answer.status == 200 and "audio_base64" not in document
    assert audio_info(fetch(document["audio_url"])).samplerate == 44100
    # A link handed over in a document is for saving (the playground's Download), under the key's name.
    (disposition,) = asked_disposition(document["audio_url"])
    assert re.fullmatch(r'attachment; filename="[^"/]+\.wav"', disposition) and disposition_of(document["audio_url"]) == disposition


def test_compressed_format_fits_where_wav_does_not(app: Any, configure: Any) -> None:
    configure(input_bucket=None, output_bucket=None, sync_max_text_chars=10_000)
    answer = _call(app, _post({"text": LONG_TEXT, "steps": 1, "format": "mp3"}))
    assert answer.status == 200 and answer.content_type == "audio/mpeg"


def test_job_round_trip(app: Any, s3: Any) -> None:
    accepted = _call(app, load_event("furl_post_job"))
    job = accepted.json()
    assert accepted.status == 202 and job["status"] == "queued"
    assert accepted.headers["location"] == job["status_url"]
    assert job["status_url"] == f"https://{load_event('furl_post_job')['requestContext']['domainName']}/v1/jobs/{job['job_id']}"
    status_path = urlparse(job["status_url"]).path
    assert _call(app, _get(status_path)).json()["status"] == "queued"

    delivered = _deliver_job(app, s3, job["job_id"])
    assert delivered["status"] == "done"

    done = _call(app, _get(status_path)).json()
    assert done["status"] == "done" and done["format"] == "mp3" and done["voice"] == "F2"
    assert audio_info(fetch(done["audio_url"])).duration == pytest.approx(done["duration_s"], abs=0.06)
    # A job's link is for saving the file (the playground's Download) under its key's last part.
    audio_key = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=delivered["manifest_key"])["Body"].read())["audio"]["key"]
    saved_as = f'attachment; filename="{audio_key.rsplit("/", 1)[-1]}"'
    assert asked_disposition(done["audio_url"]) == [saved_as] and disposition_of(done["audio_url"]) == saved_as


def _deliver_job(app: Any, s3: Any, job_id: str) -> dict[str, Any]:
    """S3 notifies the function of the stored job, exactly as for a dropped file: the record's result."""
    key = f"input/jobs/{job_id}.json"
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    notification = load_event("s3_put_json")
    notification["Records"][0]["s3"]["object"].update(key=key, size=head["ContentLength"], eTag=head["ETag"].strip('"'))
    (result,) = app.lambda_handler(notification, LambdaContext())["results"]
    return result


def test_a_job_whose_audio_is_gone_has_expired(app: Any, s3: Any) -> None:
    job = _call(app, load_event("furl_post_job")).json()
    manifest_key = _deliver_job(app, s3, job["job_id"])["manifest_key"]
    audio_key = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=manifest_key)["Body"].read())["audio"]["key"]
    s3.delete_object(Bucket=OUTPUT_BUCKET, Key=audio_key)  # as the lifecycle rule does, maybe before the manifest
    answer = _call(app, _get(f"/v1/jobs/{job['job_id']}"))
    assert answer.status == 200 and answer.json()["status"] == "expired"
    assert "audio_url" not in answer.json()  # never a link to nothing


def test_a_queued_job_older_than_the_results_kept_has_expired(app: Any, s3: Any, configure: Any) -> None:
    from moto.s3.models import s3_backends

    configure(result_retention_days=30)
    job = _call(app, load_event("furl_post_job")).json()
    status_path = f"/v1/jobs/{job['job_id']}"
    assert _call(app, _get(status_path)).json()["status"] == "queued"
    # Time passes in S3 (moto runs in this process): the job object is now 31 days old, and
    # whatever result it had, the lifecycle rule has removed.
    stored = s3_backends["123456789012"]["aws"].buckets[INPUT_BUCKET].keys[f"input/jobs/{job['job_id']}.json"]
    stored.last_modified -= timedelta(days=31)
    expired = _call(app, _get(status_path)).json()
    assert expired["status"] == "expired" and "30 days" in expired["message"]


def test_a_missing_input_bucket_is_the_operator_s_to_fix(app: Any, s3: Any, configure: Any) -> None:
    configure(input_bucket="supertonic-input-that-does-not-exist")
    for answer in (_call(app, _get("/v1/jobs/" + "0" * 32)), _call(app, load_event("furl_post_job"))):
        error = answer.json()["error"]
        assert answer.status == 503 and error["code"] == "configuration_error", answer.body
        assert error["field"] == "SUPERTONIC_INPUT_BUCKET" and "does not exist" in error["message"]


def test_a_field_name_without_utf8_form_is_named_in_a_body_that_encodes(app: Any, s3: Any) -> None:
    event = _post_raw('{"text": "Hello.", "\\ud800": 1}', "application/json", path="/v1/jobs")
    answer = _call(app, event)  # HttpAnswer encodes the body as UTF-8, as the function URL must
    assert answer.status == 400 and answer.json()["error"]["field"] == "\\ud800"


def test_job_that_would_fail_is_refused_before_it_is_stored(app: Any, s3: Any) -> None:
    answer = _call(app, _post({"text": "Hello.", "voice": "nobody"}, path="/v1/jobs"))
    assert answer.status == 422 and answer.json()["error"]["code"] == "unknown_voice"
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 0


def test_a_job_with_a_number_of_thousands_of_digits_is_accepted(app: Any, s3: Any) -> None:
    # int() refuses more than 4,300 digits: the normalizer raised a bare ValueError, a 500.
    answer = _call(app, _post({"text": f"Call {'7' * 5000} now."}, path="/v1/jobs"))
    assert answer.status == 202, answer.body[:300]
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 1


def test_oversized_job_is_refused_by_size_before_its_text_is_read(
    app: Any, s3: Any, configure: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = configure(max_object_bytes=1000)

    def read_text(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("the whole text was normalized before the cheap size check")

    monkeypatch.setattr(service.engine, "prepare", read_text)
    answer = _call(app, _post({"text": "A long job. " * 200}, path="/v1/jobs"))
    assert answer.status == 413 and answer.json()["error"]["code"] == "object_too_large"
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 0


def test_jobs_need_a_bucket(app: Any, configure: Any) -> None:
    configure(input_bucket=None, output_bucket=None)
    answer = _call(app, load_event("furl_post_job"))
    assert answer.status == 501 and answer.json()["error"]["code"] == "not_configured"


def test_cors_headers_for_allowed_origins_only(app: Any, configure: Any) -> None:
    configure(cors_allow_origins=("https://app.example.com",))
    allowed = _call(app, load_event("furl_options_preflight"))
    assert allowed.status == 204
    assert allowed.headers["access-control-allow-origin"] == "https://app.example.com"
    assert "x-supertonic-duration-s" in allowed.headers["access-control-expose-headers"]
    assert allowed.headers["access-control-allow-methods"] == "GET, POST"

    other = _call(app, _get("/health", headers={"origin": "https://evil.example.net"}))
    assert "access-control-allow-origin" not in other.headers


def test_cors_is_off_by_default(app: Any, configure: Any) -> None:
    configure()
    answer = _call(app, load_event("furl_options_preflight"))
    assert answer.status == 204 and "access-control-allow-origin" not in answer.headers


def test_unexpected_failure_is_a_500_without_details(app: Any, configure: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    service = configure()

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(service.engine, "synthesize", broken)
    context = LambdaContext()
    answer = HttpAnswer.of(app.lambda_handler(load_event("furl_post_tts"), context))
    body = answer.body.decode()
    assert answer.status == 500 and json.loads(body)["error"]["code"] == "internal_error"
    assert "secret" not in body and "Traceback" not in body and context.aws_request_id in body


def test_model_not_loaded_is_a_503(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = ModelMissing("model directory /opt/model has no onnx/tts.json")
    monkeypatch.setattr(app, "service", Service(FunctionConfig(), missing))
    health = _call(app, _get("/health"))
    speech = _call(app, load_event("furl_post_tts"))
    assert health.status == 503 and health.json()["model_loaded"] is False
    assert speech.status == 503 and speech.json()["error"]["code"] == "model_missing"


def test_error_audio_even_when_the_body_is_unreadable(app: Any) -> None:
    event = load_event("furl_bad_json")
    event["rawQueryString"], event["queryStringParameters"] = "on_error=audio", {"on_error": "audio"}
    answer = _call(app, event)
    assert answer.status == 400 and answer.content_type == "audio/wav"
    assert answer.headers["x-supertonic-error"] == "invalid_json"
    assert audio_info(answer.body).duration > 0.1


@pytest.mark.parametrize("path", ["/v1/tts", "/v1/audio/speech", "/v1/jobs"])
def test_deeply_nested_json_is_a_400_not_a_crash(app: Any, s3: Any, path: str) -> None:
    nested = _post_raw("[" * 100_000, "application/json", path)
    answer = _call(app, nested)
    assert answer.status == 400 and answer.json()["error"]["code"] == "invalid_json"
    assert "nested too deeply" in answer.json()["error"]["message"]
    spoken = _call(app, _post_raw("[" * 100_000, "application/json", path, query="on_error=audio"))
    assert spoken.status == 400 and spoken.content_type == "audio/wav"


def test_error_audio_is_asked_for_in_form_fields_too(app: Any) -> None:
    # The form is read as the request reads it: on_error=audio among its fields counts.
    answer = _call(app, _post_raw("text=&on_error=audio", "application/x-www-form-urlencoded"))
    assert answer.status == 400 and answer.content_type == "audio/wav"
    assert answer.headers["x-supertonic-error"] == "empty_text"
    as_json = _call(app, _post_raw("text=&on_error=json", "application/x-www-form-urlencoded"))
    assert as_json.status == 400 and as_json.json()["error"]["code"] == "empty_text"


def test_voices_name_the_voice_requests_default_to(app: Any) -> None:
    document = _call(app, _get("/v1/voices")).json()
    assert document["default_voice"] == DEFAULT_VOICE == "M1"
    spoken = _call(app, _post({"text": "Which voice?"}, headers={"accept": "application/json"})).json()
    assert spoken["voice"] == document["default_voice"]


def test_openai_nulls_are_defaults_over_http(app: Any) -> None:
    body = {"input": "Defaults.", "voice": None, "speed": None, "lang": None, "response_format": "wav"}
    answer = _call(app, _post(body, path="/v1/audio/speech", headers={"accept": "application/json"}))
    assert answer.status == 200 and answer.json()["voice"] == DEFAULT_VOICE
    missing = _call(app, _post({"voice": "alloy"}, path="/v1/audio/speech")).json()["error"]
    assert missing["field"] == "input" and "'input'" in missing["message"]


def test_size_guard_counts_what_awslambdaric_sends_from_a_custom_image(monkeypatch: pytest.MonkeyPatch) -> None:
    from awslambdaric.lambda_runtime_marshaller import to_json

    # A JSON answer whose chunk texts are Korean: escaped as \uXXXX by the runtime in an image
    # that is not one of AWS's managed Python runtimes, 6 bytes a syllable instead of 3.
    answer = {"statusCode": 200, "body": json.dumps({"chunks": [{"text": "안녕하세요. " * 400}]}, ensure_ascii=False)}
    for execution_env in (None, "AWS_Lambda_python3.12"):
        if execution_env is None:
            monkeypatch.delenv("AWS_EXECUTION_ENV", raising=False)
        else:
            monkeypatch.setenv("AWS_EXECUTION_ENV", execution_env)
        assert size_of(answer) >= len(to_json(answer).encode("utf-8")), execution_env


def test_a_bad_setting_keeps_init_alive_and_answers_503(app: Any, monkeypatch: pytest.MonkeyPatch, json_logs: Any) -> None:
    monkeypatch.setenv("SUPERTONIC_SYNC_MAX_TEXT_CHARS", "lots")
    monkeypatch.setattr(app, "service", Service.start())
    health = _call(app, _get("/health"))
    speech = _call(app, load_event("furl_post_tts"))
    assert health.status == 503 and health.json()["model_loaded"] is False
    assert health.json()["error"]["field"] == "SUPERTONIC_SYNC_MAX_TEXT_CHARS"
    error = speech.json()["error"]
    assert speech.status == 503 and error["code"] == "configuration_error" and "'lots'" in error["message"]
    assert any(line.get("message") == "not ready to serve" for line in json_logs())


def test_a_margin_as_long_as_the_timeout_is_a_503_that_says_so_not_a_504(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_TIMEOUT", "10")
    monkeypatch.setenv("SUPERTONIC_DEADLINE_MARGIN_S", "10")
    monkeypatch.setattr(app, "service", Service.start())
    speech = _call(app, load_event("furl_post_tts"), remaining_ms=10_000)
    error = speech.json()["error"]
    assert speech.status == 503 and error["code"] == "configuration_error"
    assert error["field"] == "SUPERTONIC_DEADLINE_MARGIN_S" and "below the timeout" in error["message"]


def test_a_bad_engine_setting_is_the_deployment_s_fault(app: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERTONIC_INTRA_OP_THREADS", "many")
    service = Service.start(FunctionConfig(warm_up=False), tiny_model_dir)
    assert isinstance(service.engine_or_error, ConfigurationError)  # not a 400 blamed on every caller
    assert service.engine_or_error.field == "SUPERTONIC_INTRA_OP_THREADS"
    monkeypatch.setattr(app, "service", service)
    assert _call(app, load_event("furl_post_tts")).status == 503


@pytest.mark.parametrize("event", ["furl_post_tts", "direct_invoke"])
def test_failures_on_the_function_side_are_logged_as_errors_by_every_source(
    app: Any, monkeypatch: pytest.MonkeyPatch, json_logs: Any, event: str
) -> None:
    monkeypatch.setattr(app, "service", Service(FunctionConfig(), ModelMissing("no model here")))
    app.lambda_handler(load_event(event), LambdaContext())
    (line,) = [entry for entry in json_logs() if entry.get("error", {}).get("code") == "model_missing"]
    assert line["level"] == "ERROR" and line["message"].endswith(" failed") and "exception" not in line


def test_each_status_is_listed_once_in_the_error_table() -> None:
    # A class listed with the status its nearest listed ancestor already gives is a second copy.
    for cls, status in errors.HTTP_STATUS.items():
        inherited = next((errors.HTTP_STATUS[base] for base in cls.__mro__[1:] if base in errors.HTTP_STATUS), None)
        assert inherited != status, f"{cls.__name__} repeats {status}"
    # A missing bucket or a denied action is the operator's to fix, like a wrong setting.
    assert errors.http_status(StorageFailed("denied")) == errors.http_status(ConfigurationError("bad")) == 503
    assert errors.http_status(StorageError("x")) == 502
    assert errors.http_status(SupertonicError("x")) == 500


def test_method_not_allowed_lists_the_allowed_methods(app: Any) -> None:
    answer = _call(app, load_event("furl_wrong_method"))
    assert answer.status == 405 and answer.headers["allow"] == "POST"


def test_openai_formats_and_voices(app: Any) -> None:
    body = {"model": "tts-1-hd", "input": "Raw samples.", "voice": "onyx", "response_format": "pcm", "speed": 1.9}
    answer = _call(app, _post(body, path="/v1/audio/speech", headers={"accept": "application/json"}))
    document = answer.json()
    assert answer.status == 200
    assert document["voice"] == "M2" and document["steps"] == 12 and document["speed"] == 1.995
    assert document["content_type"] == "audio/pcm;rate=24000;channels=1;encoding=signed-int;bits=16;endianness=little"
    assert document["sample_rate"] == 24_000
    refused = _call(app, _post({**body, "response_format": "aac"}, path="/v1/audio/speech"))
    assert refused.status == 422 and refused.json()["error"]["field"] == "format"


BAD_BLENDS = [
    ("F1:0.5,nobody:0.5", "unknown_voice", "voice 'nobody' (in the blend 'F1:0.5,nobody:0.5') not found; available: F1, F2"),
    ("F1:0,M2:1", "invalid_voice_blend", "the weight of 'F1' is 0; weights must be greater than 0"),
    ("F1:-1,M2:1", "invalid_voice_blend", "the weight of 'F1' is -1"),
    ("F1:abc,M2:1", "invalid_voice_blend", "'abc', is not a number"),
    ("F1,f1", "invalid_voice_blend", "voice 'F1' appears twice"),
    ("F1,F2,F3,F4,F5,M1,M2,M3,M4", "invalid_voice_blend", "a blend mixes at most 8"),
    ("F1,,M2", "invalid_voice_blend", "item 2 is empty"),
]


def test_a_blend_is_spoken_and_reported_by_its_canonical_name(app: Any) -> None:
    answer = _call(app, _post({"text": "Two voices.", "voice": "f1:7, M2:3", "steps": 1, "format": "wav"}))
    assert answer.status == 200 and answer.content_type == "audio/wav"
    assert answer.headers["x-supertonic-voice"] == "F1:0.7,M2:0.3"
    document = _call(app, _post({"text": "Two voices.", "voice": "F1,M2", "steps": 1}, headers={"accept": "application/json"})).json()
    assert document["voice"] == "F1:0.5,M2:0.5"
    plain = _call(app, _post({"text": "Two voices.", "voice": "F1", "steps": 1, "format": "wav"}))
    assert plain.headers["x-supertonic-voice"] == "F1" and plain.body != answer.body


@pytest.mark.parametrize("voice, code, message", BAD_BLENDS)
def test_a_bad_blend_is_a_422_naming_the_voice_on_every_route(app: Any, s3: Any, voice: str, code: str, message: str) -> None:
    query = urlencode({"text": "Hello.", "voice": voice})
    answers = {
        "json": _call(app, _post({"text": "Hello.", "voice": voice})),
        "query": _call(app, _get("/", query, headers={"accept": "audio/wav"})),
        "form": _call(app, _post_raw(query, "application/x-www-form-urlencoded")),
        "openai": _call(app, _post({"input": "Hello.", "voice": voice}, path="/v1/audio/speech")),
        "job": _call(app, _post({"text": "Hello.", "voice": voice}, path="/v1/jobs")),
    }
    for route, answer in answers.items():
        error = answer.json()["error"]
        assert (answer.status, error["code"], error["field"]) == (422, code, "voice"), route
        assert message in error["message"], route
    direct = app.lambda_handler({"text": "Hello.", "voice": voice}, LambdaContext())
    assert direct["status"] == 422 and direct["error"]["field"] == "voice" and message in direct["error"]["message"]


@pytest.mark.parametrize(
    "voice, canonical", [("alloy:0.5,F2:0.5", "F1:0.5,F2:0.5"), ("nova,onyx", "F2:0.5,M2:0.5"), ("shimmer:3,echo:1", "F3:0.75,M1:0.25")]
)
def test_openai_voice_names_blend_too(app: Any, voice: str, canonical: str) -> None:
    body = {"model": "tts-1", "input": "Blended.", "voice": voice, "response_format": "wav"}
    answer = _call(app, _post(body, path="/v1/audio/speech"))
    assert answer.status == 200 and answer.headers["x-supertonic-voice"] == canonical
    document = _call(app, _post(body, path="/v1/audio/speech", headers={"accept": "application/json"})).json()
    assert document["voice"] == canonical


def test_a_blend_in_the_query_string_and_a_direct_invoke(app: Any) -> None:
    query = urlencode({"text": "From the address bar.", "voice": "F1:0.7,M2:0.3", "steps": "1"})
    answer = _call(app, _get("/", query, headers={"accept": "audio/wav"}))
    assert answer.status == 200 and answer.headers["x-supertonic-voice"] == "F1:0.7,M2:0.3"
    direct = app.lambda_handler({"text": "Invoked.", "voice": "M2:1,F1:3", "steps": 1}, LambdaContext())
    assert direct["voice"] == "M2:0.25,F1:0.75" and direct["audio_base64"]


def test_a_custom_voice_is_listed_and_spoken_and_a_broken_one_fails_alone(
    app: Any, tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Path(shutil.copytree(tiny_model_dir, tmp_path / "model"))
    shutil.copy(model / "voice_styles" / "F3.json", model / "voice_styles" / "narrator.json")
    (model / "voice_styles" / "broken.json").write_text('{"style_ttl": ')
    monkeypatch.setattr(app, "service", Service.start(FunctionConfig(warm_up=False), model_dir=model))
    listed = [voice["id"] for voice in _call(app, _get("/v1/voices")).json()["voices"]]
    assert "narrator" in listed and "broken" in listed
    for voice in ("narrator", "Narrator:0.6,M1:0.4"):
        answer = _call(app, _post({"text": "A voice of my own.", "voice": voice, "steps": 1, "format": "wav"}))
        assert answer.status == 200, answer.json()
    broken = _call(app, _post({"text": "Hello.", "voice": "broken"}))
    error = broken.json()["error"]
    assert broken.status == 503 and error["field"] == "voice" and error["code"] == "voice_corrupt"
    assert "voice file voice_styles/broken.json is not valid JSON" in error["message"] and str(model) not in error["message"]
    assert _call(app, _post({"text": "Still here.", "voice": "F1", "steps": 1})).status == 200


def test_openai_pcm_is_24_khz_samples_as_long_as_the_duration_says(app: Any) -> None:
    body = {"model": "tts-1", "input": "Raw samples at OpenAI's rate.", "voice": "alloy", "response_format": "pcm"}
    answer = _call(app, _post(body, path="/v1/audio/speech"))
    assert answer.status == 200
    assert answer.content_type == "audio/pcm;rate=24000;channels=1;encoding=signed-int;bits=16;endianness=little"
    assert answer.headers["x-supertonic-sample-rate"] == "24000"
    assert abs(len(answer.body) / 2 / 24_000 - float(answer.headers["x-supertonic-duration-s"])) < 0.002


@pytest.mark.parametrize(
    ("change", "status", "field", "param"),
    [
        ({"input": ""}, 400, "input", "input"),
        ({"response_format": "aac"}, 422, "format", "response_format"),
        ({"voice": "nobody"}, 422, "voice", "voice"),
        ({"speed": 9}, 400, "speed", "speed"),
        ({"colour": "blue"}, 400, "colour", "colour"),
    ],
)
def test_openai_errors_carry_openai_s_shape_naming_its_param(app: Any, change: dict[str, Any], status: int, field: str, param: str) -> None:
    body = {"model": "tts-1", "input": "Hello.", "voice": "alloy", **change}
    answer = _call(app, _post(body, path="/v1/audio/speech"))
    error = answer.json()["error"]
    assert answer.status == status
    assert (error["field"], error["param"], error["type"]) == (field, param, "invalid_request_error")
    assert error["code"] and error["message"]


def test_openai_shape_is_only_on_the_openai_route(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    unreadable = _call(app, _post_raw("{", "application/json", path="/v1/audio/speech")).json()["error"]
    assert unreadable["param"] is None and unreadable["type"] == "invalid_request_error" and unreadable["field"] == "body"
    ours = _call(app, _post({"text": ""}, path="/v1/tts")).json()["error"]
    assert set(ours) == {"code", "message", "field"}
    monkeypatch.setattr(app, "service", Service(FunctionConfig(), ModelMissing("model directory /opt/model has no onnx/tts.json")))
    down = _call(app, _post({"input": "Hello.", "voice": "alloy"}, path="/v1/audio/speech"))
    assert down.status == 503 and down.json()["error"]["type"] == "server_error"


def test_logs_are_json_with_the_request_id_and_metrics_are_emf(app: Any, json_logs: Any, capsys: pytest.CaptureFixture[str]) -> None:
    context = LambdaContext()
    app.lambda_handler(load_event("furl_post_tts"), context)
    synthesized = next(line for line in json_logs() if line.get("message") == "synthesized")
    assert synthesized["function_request_id"] == context.aws_request_id
    assert synthesized["event_source"] == "function_url" and synthesized["rtf"] > 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    emf = next(line for line in printed if "_aws" in line and "RTF" in line)
    names = {m["Name"] for m in emf["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert {"RTF", "SynthesisMs", "Characters", "AudioSeconds"} <= names
    assert emf["Characters"] == [len(json.loads(load_event("furl_post_tts")["body"])["text"])]


def test_nothing_is_left_in_tmp(app: Any, s3: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "lambda-tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    for event in sample_events():
        if event.expect.outcome is Outcome.FUNCTION_ERROR:  # raised for Lambda to retry
            with pytest.raises(SupertonicError):
                app.lambda_handler(seeded(event, s3), LambdaContext())
            continue
        app.lambda_handler(seeded(event, s3), LambdaContext())
    assert list(scratch.iterdir()) == []


# --- any text at all -------------------------------------------------------------------------------

from event_fuzzer import TYPED_PIECES  # noqa: E402 - the same pieces the event fuzzer types with
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_readable import READABLE_CHARACTERS  # noqa: E402 - what the release's table reads, folds included

# Every code point class: controls, combining marks, emoji, Hangul, CJK, private use, lone surrogates.
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=400)
TYPED_TEXT = st.lists(st.sampled_from(TYPED_PIECES), max_size=80).map("".join)
# Characters the real model reads (the stand-in ships the release's table), mixed with any others.
TABLE_TEXT = st.text(st.one_of(st.sampled_from(READABLE_CHARACTERS), st.characters()), max_size=200)
_NAMED = re.compile(r"U\+([0-9A-F]{4,6}) ")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(ANY_TEXT, TYPED_TEXT, TABLE_TEXT), lang=st.sampled_from(["en", "ko", "ja", "na"]), normalize=st.booleans())
def test_any_text_is_audio_or_a_4xx_that_names_the_field(app, text, lang, normalize):
    answer = _call(app, _post({"text": text, "lang": lang, "steps": 1, "normalize": normalize}))
    if answer.status == 200:
        assert audio_info(answer.body).samplerate == 44100
        return
    assert answer.status in (400, 413, 422), (answer.status, answer.body[:300])
    error = answer.json()["error"]
    assert error["field"] == "text" and error["code"] and error["message"]
    if error["code"] == "unsupported_characters":  # only characters the real table cannot read, each one written
        named = {chr(int(code, 16)) for code in _NAMED.findall(error["message"])}
        assert named and named <= set(text) and not named & set(READABLE_CHARACTERS), error["message"]


# --- what a public body may say ----------------------------------------------------------------------
# Bodies name no bucket (whose name holds the account id), key, path or ETag, and never quote S3;
# the log line under the request id the body carries has the details for an operator.

ACCOUNT_ID = "123456789012"


def _says_where_things_are(text: str, *names: str) -> list[str]:
    return [name for name in (ACCOUNT_ID, INPUT_BUCKET, OUTPUT_BUCKET, "s3://", *names) if name and name in text]


def test_health_names_no_path(app: Any, tiny_model_dir: Path) -> None:
    answer = _call(app, _get("/health"))
    assert answer.status == 200 and answer.json()["model_kind"] == "stand-in"
    assert "model_dir" not in answer.json() and str(tiny_model_dir) not in answer.body.decode()


def test_a_missing_model_is_a_503_that_names_no_path(app: Any, monkeypatch: pytest.MonkeyPatch, json_logs: Any) -> None:
    monkeypatch.setattr(app, "service", Service(FunctionConfig(), ModelMissing("model directory /opt/secret-model lacks onnx/tts.json")))
    context = LambdaContext()
    for event in (_get("/health"), load_event("furl_post_tts")):
        answer = HttpAnswer.of(app.lambda_handler(event, context))
        assert answer.status == 503 and answer.json()["error"]["code"] == "model_missing"
        assert "/opt/secret-model" not in answer.body.decode() and context.aws_request_id in answer.body.decode()
    logged = [line for line in json_logs() if line.get("function_request_id") == context.aws_request_id and "error" in line]
    assert any("/opt/secret-model" in line["error"]["message"] for line in logged)


@pytest.mark.parametrize(
    ("bucket", "endpoint", "status", "code"),
    [
        # S3 answers NoSuchBucket: the operator's to fix, named by its setting.
        ("supertonic-input-999999999999-nowhere", None, 503, "configuration_error"),
        (INPUT_BUCKET, "http://127.0.0.1:9", 503, "storage_unavailable"),  # S3 unreachable: try again
    ],
)
def test_s3_failures_name_no_bucket_key_or_s3_message(
    app: Any, s3: Any, configure: Any, json_logs: Any, bucket: str, endpoint: str | None, status: int, code: str
) -> None:
    service = configure(input_bucket=bucket)
    if endpoint is not None:
        service._store = ObjectStore(
            boto3.client(
                "s3", endpoint_url=endpoint, region_name="us-east-1", config=Config(retries={"max_attempts": 1}, connect_timeout=1)
            )
        )
    context = LambdaContext()
    answer = HttpAnswer.of(app.lambda_handler(load_event("furl_post_job"), context))
    body = answer.body.decode()
    assert (answer.status, answer.json()["error"]["code"]) == (status, code)
    assert _says_where_things_are(body, bucket, "input/jobs/", "specified bucket", endpoint or "") == []
    logged = [line for line in json_logs() if line.get("function_request_id") == context.aws_request_id and line["level"] == "ERROR"]
    # The log has what the body leaves out, under the request id the body names (or the setting).
    assert any(bucket in json.dumps(line) for line in logged), logged
    if code.startswith("storage_"):
        assert context.aws_request_id in answer.json()["error"]["message"]
    else:
        assert answer.json()["error"]["field"] == "SUPERTONIC_INPUT_BUCKET"


def test_job_status_names_no_bucket_key_or_etag(app: Any, s3: Any) -> None:
    job = _call(app, load_event("furl_post_job")).json()
    key = f"input/jobs/{job['job_id']}.json"
    etag = s3.head_object(Bucket=INPUT_BUCKET, Key=key)["ETag"].strip('"')
    notification = load_event("s3_put_json")
    notification["Records"][0]["s3"]["object"].update(
        key=key, size=s3.head_object(Bucket=INPUT_BUCKET, Key=key)["ContentLength"], eTag=etag
    )
    app.lambda_handler(notification, LambdaContext())

    done = _call(app, _get(urlparse(job["status_url"]).path)).json()
    assert done["status"] == "done" and done["audio"]["bytes"] > 0 and done["audio"]["content_type"] == "audio/mpeg"
    # The link names the bucket and key, as any presigned S3 URL must; nothing else does.
    link = done.pop("audio_url")
    assert _says_where_things_are(json.dumps(done), etag, key, "output/") == []
    assert audio_info(fetch(link)).duration == pytest.approx(done["duration_s"], abs=0.06)
