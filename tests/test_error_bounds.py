"""Error answers stay small whatever the request quoted, and a malformed voice file is a 503 naming it.

A synchronous invoke may carry 6 MB and answer 6 MB (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html,
/work/shared/lambda-notes.md 2.2); a result over 6,291,556 bytes is refused and the caller gets a 502
(lambda-notes.md 2.1). An error that quoted a 3 MB value back, escaped as the runtime sends it, would be that.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fixtures_s3 import HttpAnswer, LambdaContext

from supertonic_engine.errors import InvalidVoiceBlend, UnknownVoice
from supertonic_function.errors import UnknownEvent
from supertonic_function.responses import size_of
from supertonic_harness.fronts.furl import http_to_event

pytest_plugins = ["fixtures_s3"]

# 3 MB as UTF-8, 6 MB as the runtime's \uXXXX escapes: one copy of it in an answer is over the limit.
HUGE = "한" * 1_000_000
SMALL_ANSWER = 4_096  # bytes, escaped as the runtime sends it


def _post(body: dict[str, Any], path: str = "/v1/tts") -> dict[str, Any]:
    return http_to_event("POST", path, [("content-type", "application/json")], json.dumps(body, ensure_ascii=False).encode("utf-8"))


def _invoke(app: Any, event: dict[str, Any]) -> tuple[Any, int]:
    result = app.lambda_handler(event, LambdaContext(remaining_ms=60_000))
    return result, size_of(result)


@pytest.mark.parametrize(("path", "text_field"), [("/v1/tts", "text"), ("/v1/audio/speech", "input")])
def test_an_unknown_field_of_megabytes_is_a_small_400_naming_it(app: Any, path: str, text_field: str, json_logs: Any) -> None:
    body = {text_field: "Hello.", "voice": "F1", HUGE: 1}
    result, size = _invoke(app, _post(body, path))
    answer = HttpAnswer.of(result)
    error = answer.json()["error"]
    assert answer.status == 400 and error["code"] == "invalid_parameter", error
    assert size < SMALL_ANSWER, size
    assert error["field"].startswith("한" * 20) and error["field"].endswith("… (1,000,000 characters)")
    assert "…' (1,000,000 characters); fields are:" in error["message"]
    refusal = next(entry for entry in json_logs() if entry.get("message") == "request refused")
    assert len(json.dumps(refusal, ensure_ascii=True)) < SMALL_ANSWER


@pytest.mark.parametrize(
    ("voice", "code"),
    [
        (HUGE, "unknown_voice"),
        (f"F1:0.5,{HUGE}:0.5", "unknown_voice"),
        (f"F1:0.5,M1:{HUGE}", "invalid_voice_blend"),
        (f"F1:0.5,{HUGE}", "invalid_voice_blend"),
        (f"F1:{'9' * 1_000_000},M1:1", "invalid_voice_blend"),
        (f"F1:-{'0' * 1_000_000},M1:1", "invalid_voice_blend"),
        (f"{HUGE},F1,M1,F2,M2,F3,M3,F4,M4", "invalid_voice_blend"),
    ],
)
def test_a_voice_or_blend_of_megabytes_is_a_small_422_naming_the_voice(app: Any, voice: str, code: str) -> None:
    result, size = _invoke(app, _post({"text": "Hello.", "voice": voice}))
    answer = HttpAnswer.of(result)
    error = answer.json()["error"]
    assert answer.status == 422 and (error["code"], error["field"]) == (code, "voice"), error
    assert size < SMALL_ANSWER, size
    assert "characters)" in error["message"]


def test_a_direct_invoke_of_a_huge_voice_is_a_small_result(app: Any) -> None:
    result, size = _invoke(app, {"text": "Hello.", "voice": HUGE})
    assert result["status"] == 422 and result["error"]["field"] == "voice"
    assert size < SMALL_ANSWER, size


@pytest.mark.parametrize("field", ["steps", "on_error", "marks"])
def test_any_other_value_of_megabytes_is_clipped_where_errors_become_answers(app: Any, field: str) -> None:
    # These messages quote the value whole; the mapping clips them to MESSAGE_LIMIT characters.
    result, size = _invoke(app, _post({"text": "Hello.", field: HUGE}))
    answer = HttpAnswer.of(result)
    error = answer.json()["error"]
    assert answer.status == 400 and error["field"] == field, error
    assert size < 2 * SMALL_ANSWER, size
    assert error["message"].endswith("characters)")


def test_an_unknown_route_of_megabytes_is_a_small_404(app: Any) -> None:
    result, size = _invoke(app, http_to_event("GET", f"/{HUGE}", [], b""))
    assert HttpAnswer.of(result).status == 404 and size < SMALL_ANSWER, size


def test_an_unknown_event_is_raised_with_a_short_message(app: Any) -> None:
    # Raised so Lambda retries it; the runtime reports the message as the invocation's error.
    with pytest.raises(UnknownEvent) as raised:
        app.lambda_handler({HUGE: 1, "other": 2}, LambdaContext(remaining_ms=60_000))
    assert len(str(raised.value)) < 1_000 and "(1,000,007 characters)" in str(raised.value)


@pytest.mark.parametrize(
    "error",
    [
        UnknownVoice(HUGE, ["F1"], blend=HUGE),
        InvalidVoiceBlend(HUGE, "a problem"),
    ],
)
def test_every_quoting_error_quotes_a_bounded_part(error: Exception) -> None:
    assert len(str(error)) < 1_000
