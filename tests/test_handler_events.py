"""Every file in events/ through the real ``lambda_handler``, checked against its sidecar.

The same files serve ``sam local invoke -e`` and ``supertonic-lambda replay``; here each one runs
on the tiny stand-in model against moto's S3 server, and the answer is read as a function URL
would turn it into HTTP: status, content type, and audio decoded from the bytes themselves.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fixtures_s3 import (
    OUTPUT_BUCKET,
    HttpAnswer,
    LambdaContext,
    audio_info,
    load_event,
    sample_events,
    seeded,
)

from supertonic_engine.errors import SupertonicError
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.replay.events import ReplayEvent

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

# The error code each refused request must carry.
ERROR_CODES = {
    "furl_bad_json": "invalid_json",
    "furl_bad_field": "invalid_parameter",
    "furl_empty_text": "empty_text",
    "furl_text_too_long": "text_too_long",
    "furl_unsupported_media_type": "unsupported_media_type",
    "furl_unknown_route": "not_found",
    "furl_wrong_method": "method_not_allowed",
    "furl_unsupported_characters": "unsupported_characters",
    "furl_unknown_voice": "unknown_voice",
    "furl_unknown_lang": "unknown_language",
    "furl_unsupported_format": "unsupported_format",
    "furl_get_job_unknown": "job_not_found",
    "unknown_event": "unknown_event",
}
# What each S3 notification must do: (status, reason or error code).
S3_OUTCOMES = {
    "s3_put_txt": ("done", None),
    "s3_put_json": ("done", None),
    "s3_put_key_spaces_unicode": ("done", None),
    "s3_put_oversize": ("failed", "object_too_large"),
    "s3_put_not_utf8": ("failed", "text_not_utf8"),
    "s3_put_own_output": ("skipped", "own_output"),
}


def test_every_event_has_expectations() -> None:
    missing = [event.path.name for event in sample_events() if not event.expect.status]
    assert not missing, f"events without a status in their .expect.json sidecar: {missing}"


@pytest.mark.parametrize("sample", sample_events(), ids=lambda sample: sample.name)
def test_event(sample: ReplayEvent, app: Any, s3: Any) -> None:
    expect, name = sample.expect, sample.name
    event = seeded(sample, s3)
    if expect.outcome is Outcome.FUNCTION_ERROR:
        # Raised, so that Lambda retries or dead-letters it: a function URL answers 502.
        with pytest.raises(SupertonicError) as raised:
            app.lambda_handler(event, LambdaContext())
        assert expect.status == 502
        assert raised.value.code == ERROR_CODES[name]
        return
    answer = HttpAnswer.of(app.lambda_handler(event, LambdaContext()))

    assert answer.status == expect.status, answer.body[:300]
    assert answer.content_type.startswith(expect.content_type or ""), answer.content_type
    if answer.content_type.startswith("audio/") and answer.status == 200:
        _check_audio_response(answer)
    if name in ERROR_CODES:
        assert answer.json()["error"]["code"] == ERROR_CODES[name]
        assert "Traceback" not in answer.body.decode()
    if name in S3_OUTCOMES:
        _check_s3_outcome(name, answer.json(), s3)


def _check_audio_response(answer: HttpAnswer) -> None:
    info = audio_info(answer.body)
    assert info.samplerate == int(answer.headers["x-supertonic-sample-rate"])
    # MP3 frames pad the end by up to one frame (1,152 samples); lossless formats are exact.
    assert abs(info.duration - float(answer.headers["x-supertonic-duration-s"])) < 0.06
    assert info.duration > 0.5
    assert answer.headers["x-supertonic-model"] == "stand-in"
    assert float(answer.headers["x-supertonic-rtf"]) > 0


def _check_s3_outcome(name: str, body: dict[str, Any], s3_client: Any) -> None:
    (result,) = body["results"]
    status, reason = S3_OUTCOMES[name]
    assert result["status"] == status
    assert result.get("reason") == reason
    if status == "skipped":
        return
    manifest = _json_object(s3_client, OUTPUT_BUCKET, result["manifest_key"])
    assert manifest["status"] == status
    assert manifest["source"]["key"] == result["key"]
    if status == "failed":
        assert manifest["error"]["code"] == reason
        return
    audio = s3_client.get_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["Body"].read()
    info = audio_info(audio)
    assert info.samplerate == manifest["sample_rate"]
    assert abs(info.duration - manifest["duration_s"]) < 0.06
    assert manifest["model"] == "stand-in"


def test_json_accept_carries_audio_and_timings(app: Any, s3: Any) -> None:
    answer = HttpAnswer.of(app.lambda_handler(load_event("furl_accept_json"), LambdaContext()))
    document = answer.json()
    info = audio_info(base64.b64decode(document["audio_base64"]))
    assert info.samplerate == document["sample_rate"] == 44100
    assert abs(info.duration - document["duration_s"]) < 1e-3
    chunks = document["chunks"]
    assert chunks and chunks[0]["start_s"] == 0.0
    assert chunks[-1]["end_s"] == pytest.approx(document["duration_s"], abs=1e-3)


def test_direct_invoke_returns_decodable_audio(app: Any, s3: Any) -> None:
    document = app.lambda_handler(load_event("direct_invoke"), LambdaContext())
    info = audio_info(base64.b64decode(document["audio_base64"]))
    assert info.samplerate == document["sample_rate"]
    assert abs(info.duration - document["duration_s"]) < 1e-3
    assert document["voice"] == "M4"


def _json_object(s3_client: Any, bucket: str, key: str) -> dict[str, Any]:
    import json

    return json.loads(s3_client.get_object(Bucket=bucket, Key=key)["Body"].read())
