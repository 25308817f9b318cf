"""``POST /v1/audio/speech`` held to what OpenAI documents and its Python SDK sends.

Input up to 4,096 characters is served and longer input is OpenAI's 400 ``invalid_request_error``;
a request whose forecast audio cannot be rendered inside the function's timeout is refused before
any audio is made, naming the limit; every model name in the SDK's ``SpeechModel`` is served;
``speed`` outside OpenAI's 0.25-4.0, or inside it but beyond what the model reads, is a 400 that
says which speeds are served; ``instructions`` must be text and is read by no model here.
Through the real handler, and through the local function URL with the real SDK.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any

import openai
import pytest
from fixtures_s3 import HttpAnswer, LambdaContext
from harness_fixtures.support import function_args
from openai.types.audio.speech_model import SpeechModel

from supertonic_function import openai as speech_route
from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.local import start_local_function

pytest_plugins = ["fixtures_s3"]

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank. "
# OpenAI: "The text to generate audio for. The maximum length is 4096 characters." (createSpeech, input)
LONGEST_INPUT = (SENTENCE * 70)[:4096]
SDK_MODELS = typing.get_args(SpeechModel)


def _speech(app: Any, body: dict[str, Any], accept: str = "application/json") -> HttpAnswer:
    from supertonic_harness.fronts.furl import http_to_event

    event = http_to_event(
        "POST", "/v1/audio/speech", [("content-type", "application/json"), ("accept", accept)], json.dumps(body).encode("utf-8")
    )
    return HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=120_000)))


def _openai_error(answer: HttpAnswer) -> dict[str, Any]:
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error" and error["message"]
    return error


# --- input length ----------------------------------------------------------------------------------


def test_input_over_4096_characters_is_openai_s_400_naming_input(app: Any, configure: Any) -> None:
    configure(function_timeout_s=120.0)
    answer = _speech(app, {"model": "tts-1", "input": LONGEST_INPUT + "x", "voice": "alloy"})
    error = _openai_error(answer)
    assert answer.status == 400
    assert (error["param"], error["code"]) == ("input", "text_too_long")
    assert "4,097" in error["message"] or "4097" in error["message"]
    assert "4096" in error["message"] or "4,096" in error["message"]


def test_a_short_request_the_timeout_cannot_render_is_refused_before_any_audio(app: Any, configure: Any) -> None:
    # 10 s of timeout, 2 kept back, 1 s of rendering per second of audio planned: at most 8 s of audio.
    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=1.0)
    body = {"model": "tts-1", "input": SENTENCE * 4, "voice": "alloy", "response_format": "wav"}
    answer = _speech(app, body)
    error = _openai_error(answer)
    assert answer.status == 400 and error["param"] == "input" and error["code"] == "text_too_long"
    assert "the limit is 8 s" in error["message"]


def test_input_the_timeout_cannot_render_is_refused_naming_input_and_how_many_characters_fit(app: Any, configure: Any) -> None:
    # OpenAI's clients split their text by characters: the refusal says how many would be served.
    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=1.0)
    text = SENTENCE * 12
    error = _openai_error(_speech(app, {"model": "tts-1", "input": text, "voice": "alloy", "response_format": "wav"}))
    other = _openai_error(_speech(app, {"model": "tts-2", "input": text, "voice": "alloy"}))
    assert error.keys() == other.keys()
    assert (error["field"], error["param"], error["code"]) == ("input", "input", "text_too_long")
    assert error["message"].startswith("input would make") and "the limit is 8 s" in error["message"]
    fits = re.search(r"About ([0-9,]+) characters of input fit", error["message"])
    assert fits is not None, error["message"]
    served = _speech(app, {"model": "tts-1", "input": text[: int(fits[1].replace(",", ""))], "voice": "alloy", "response_format": "wav"})
    assert served.status == 200


def test_the_render_bound_follows_the_steps_a_model_renders(app: Any, configure: Any) -> None:
    # tts-1-hd renders 12 steps where the plan's speed is for 8: 8 s of audio at 8 steps is 5 s at 12.
    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=1.0)
    assert speech_route.MODEL_STEPS["tts-1-hd"] == 12
    messages = {}
    for model in ("tts-1", "tts-1-hd"):
        answer = _speech(app, {"model": model, "input": SENTENCE * 4, "voice": "alloy"})
        assert answer.status == 400
        messages[model] = _openai_error(answer)["message"]
    assert "the limit is 8 s" in messages["tts-1"] and "the limit is 5 s" in messages["tts-1-hd"]


def test_the_function_s_own_route_has_the_same_render_bound(app: Any, configure: Any) -> None:
    from supertonic_harness.fronts.furl import http_to_event

    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=1.0)
    event = http_to_event("POST", "/v1/tts", [("content-type", "application/json")], json.dumps({"text": SENTENCE * 4}).encode())
    answer = HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=120_000)))
    assert answer.status == 413 and "the limit is 8 s" in answer.json()["error"]["message"]


# --- model, speed, instructions --------------------------------------------------------------------


@pytest.mark.parametrize("model", SDK_MODELS)
def test_every_model_the_sdk_names_is_served(app: Any, model: str) -> None:
    answer = _speech(app, {"model": model, "input": "Hello.", "voice": "alloy", "response_format": "wav"})
    assert answer.status == 200, answer.body[:300]
    assert answer.json()["steps"] == speech_route.MODEL_STEPS[model]


def test_a_model_no_one_serves_is_a_400_listing_the_served_ones(app: Any) -> None:
    answer = _speech(app, {"model": "tts-2", "input": "Hello.", "voice": "alloy"})
    error = _openai_error(answer)
    assert answer.status == 400 and error["param"] == "model"
    assert all(model in error["message"] for model in SDK_MODELS)


@pytest.mark.parametrize("speed", [0.25, 0.5, 0.66, 1.91, 3.0, 4.0])
def test_a_speed_openai_allows_but_the_model_cannot_read_is_refused_naming_the_served_range(app: Any, speed: float) -> None:
    # Held to the model's range these all made the audio of its slowest or fastest pace, unsaid.
    answer = _speech(app, {"model": "tts-1", "input": "Hello.", "voice": "alloy", "speed": speed})
    error = _openai_error(answer)
    low, high = speech_route.served_speeds()
    assert answer.status == 400 and error["param"] == "speed" and error["code"] == "invalid_parameter"
    assert f"{low:g} to {high:g}" in error["message"]


@pytest.mark.parametrize("speed", [0.1, 4.5])
def test_a_speed_outside_openai_s_range_is_refused_with_openai_s_range(app: Any, speed: float) -> None:
    error = _openai_error(_speech(app, {"model": "tts-1", "input": "Hello.", "voice": "alloy", "speed": speed}))
    assert error["param"] == "speed" and "0.25 to 4" in error["message"]


def test_the_served_speeds_are_exactly_those_the_model_reads(app: Any) -> None:
    low, high = speech_route.served_speeds()
    assert (low, high) == (0.67, 1.9)
    served = {
        speed: _speech(app, {"model": "tts-1", "input": "Hi.", "voice": "alloy", "speed": speed, "response_format": "wav"})
        for speed in (low, 1.0, high)
    }
    assert [answer.status for answer in served.values()] == [200, 200, 200]
    assert [answer.json()["speed"] for answer in served.values()] == [0.7035, 1.05, 1.995]


def test_instructions_are_text_and_read_by_no_model(app: Any) -> None:
    body = {"model": "gpt-4o-mini-tts", "input": "Hello.", "voice": "alloy", "response_format": "wav"}
    assert _speech(app, body | {"instructions": "Speak cheerfully."}).status == 200
    refused = _speech(app, body | {"instructions": {"tone": "cheerful"}})
    assert refused.status == 400 and _openai_error(refused)["param"] == "instructions"


# --- the real SDK through the local function URL ---------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Any:
    """OpenAI's SDK against the handler under RIE on the tiny model, with the template's Timeout and
    plan: 4,096 characters' audio (about 360 s on the stand-in) fits what (180 - 2) s renders at
    SUPERTONIC_SYNC_PLAN_RTF, so the defaults accept OpenAI's longest input."""
    from supertonic_tools.standin import ensure_standin

    args = function_args("--model", str(ensure_standin("tiny")))
    with start_local_function(args) as local:
        server = FunctionUrlServer(local).start()
        try:
            yield openai.OpenAI(base_url=server.url + "v1", api_key="x", max_retries=0, timeout=300)
        finally:
            server.stop()


def test_the_sdk_gets_speech_for_4096_characters(client: Any) -> None:
    speech = client.audio.speech.create(model="tts-1", voice="alloy", input=LONGEST_INPUT, response_format="mp3")
    assert float(speech.response.headers["x-supertonic-duration-s"]) > 60 and speech.content


@pytest.mark.parametrize(
    ("fields", "param", "code"),
    [
        ({"input": LONGEST_INPUT + "x"}, "input", "text_too_long"),
        ({"speed": 0.25}, "speed", "invalid_parameter"),
        ({"speed": 4.0}, "speed", "invalid_parameter"),
        ({"instructions": ["calm"]}, "instructions", "invalid_parameter"),
    ],
)
def test_the_sdk_raises_its_bad_request_error(client: Any, fields: dict[str, Any], param: str, code: str) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client.audio.speech.create(**({"model": "tts-1", "voice": "alloy", "input": "Hello.", "response_format": "pcm"} | fields))
    assert (raised.value.type, raised.value.param, raised.value.code) == ("invalid_request_error", param, code)


@pytest.mark.parametrize("model", SDK_MODELS)
def test_the_sdk_s_models_are_served_through_the_sdk(client: Any, model: str) -> None:
    speech = client.audio.speech.create(model=model, voice="alloy", input="Hello.", response_format="pcm", instructions="Calm.")
    assert speech.content


def test_the_function_s_own_routes_bound_the_steps_a_request_sends(app: Any, configure: Any) -> None:
    from supertonic_harness.fronts.furl import http_to_event

    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=1.0)
    body = {"text": SENTENCE * 4, "steps": 16}  # twice the default steps: half the audio, 4 s
    event = http_to_event("POST", "/v1/tts", [("content-type", "application/json")], json.dumps(body).encode())
    answer = HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=120_000)))
    assert answer.status == 413 and "the limit is 4 s" in answer.json()["error"]["message"]
    direct = app.lambda_handler(body, LambdaContext(remaining_ms=120_000))
    assert direct["status"] == 413 and "the limit is 4 s" in direct["error"]["message"]


def test_a_plan_of_0_leaves_the_deadline_alone_to_stop_a_request(app: Any, configure: Any) -> None:
    from supertonic_function.config import FunctionConfig

    assert FunctionConfig.from_env({"SUPERTONIC_SYNC_PLAN_RTF": "0", "AWS_LAMBDA_FUNCTION_TIMEOUT": "10"}).sync_limits.max_audio_s == 600
    configure(function_timeout_s=10.0, deadline_margin_s=2.0, sync_plan_rtf=None)
    assert _speech(app, {"model": "tts-1", "input": SENTENCE * 4, "voice": "alloy", "response_format": "wav"}).status == 200
