"""Error answers stay small whatever the request quoted, and a malformed voice file is a 503 naming it.

A synchronous invoke may carry 6 MB and answer 6 MB (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html,
/work/shared/lambda-notes.md 2.2); a result over 6,291,556 bytes is refused and the caller gets a 502
(lambda-notes.md 2.1). An error that quoted a 3 MB value back, escaped as the runtime sends it, would be that.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fixtures_s3 import HttpAnswer, LambdaContext

from supertonic_engine.errors import InvalidVoiceBlend, UnknownVoice
from supertonic_function.config import FunctionConfig
from supertonic_function.errors import UnknownEvent
from supertonic_function.responses import size_of
from supertonic_function.service import Service
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


# A voice file's data the JSON reader takes but no float32 tensor can hold, or that nests past
# Python's recursion limit; and the other shapes that are not the official one.
BIG_INTEGER = "1" + "0" * 400
DEEP = "[" * 100_000 + "]" * 100_000


def _voice_text(ttl_data: str, ttl_dims: str = "[1, 50, 256]", extra: str = "") -> str:
    dp = json.dumps({"dims": [1, 8, 16], "data": [[[0.0] * 16] * 8], "type": "float32"})
    return f'{{"style_ttl": {{"dims": {ttl_dims}, "data": {ttl_data}{extra}}}, "style_dp": {dp}}}'


ZEROS = json.dumps([[[0.0] * 256] * 50])
MALFORMED_VOICES = {
    "overflow": _voice_text(f"[{BIG_INTEGER}]"),
    "overflow_among_floats": _voice_text(ZEROS[: -len("0.0]]]")] + f"{BIG_INTEGER}]]]"),
    "deep": _voice_text(DEEP),
    "strings": _voice_text(json.dumps([[["0.5"] * 256] * 50])),
    "booleans": _voice_text(json.dumps([[[True] * 256] * 50])),
    "wrong_type": _voice_text(ZEROS, extra=', "type": "int8"'),
    "negative_dims": _voice_text(ZEROS, ttl_dims="[-1, 50, 256]"),
    "huge_dims": _voice_text(ZEROS, ttl_dims=f"[{BIG_INTEGER}, 50, 256]"),
    "not_a_list": _voice_text('{"a": 1}'),
    "infinite": _voice_text(json.dumps([[[1e300] * 256] * 50])),
}


@pytest.fixture
def malformed_voices(app: Any, tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = Path(shutil.copytree(tiny_model_dir, tmp_path / "model"))
    for name, text in MALFORMED_VOICES.items():
        (model / "voice_styles" / f"{name}.json").write_text(text)
    monkeypatch.setattr(app, "service", Service.start(FunctionConfig(warm_up=False), model_dir=model))


@pytest.mark.parametrize("name", sorted(MALFORMED_VOICES))
@pytest.mark.parametrize("as_blend", [False, True], ids=["alone", "in_a_blend"])
def test_a_malformed_custom_voice_is_a_503_naming_its_file(app: Any, malformed_voices: None, name: str, as_blend: bool) -> None:
    voice = f"F1:0.5,{name}:0.5" if as_blend else name
    answer = HttpAnswer.of(app.lambda_handler(_post({"text": "Hello.", "voice": voice, "steps": 1}), LambdaContext(remaining_ms=60_000)))
    error = answer.json()["error"]
    assert answer.status == 503 and (error["code"], error["field"]) == ("voice_corrupt", "voice"), error
    assert f"voice_styles/{name}.json" in error["message"]
    assert len(error["message"]) < 1_000
    fine = app.lambda_handler(_post({"text": "Still here.", "voice": "F1", "steps": 1}), LambdaContext(remaining_ms=60_000))
    assert HttpAnswer.of(fine).status == 200
