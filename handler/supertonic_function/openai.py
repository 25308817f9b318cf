"""``POST /v1/audio/speech`` in OpenAI's request shape, so existing client code can point at this function.

The shape (https://platform.openai.com/docs/api-reference/audio/createSpeech) is
``{model, input, voice, response_format, speed, instructions, stream_format}``. How it maps:
- ``input``: at most 4,096 characters, OpenAI's limit (whatever ``SUPERTONIC_SYNC_MAX_TEXT_CHARS``
  says for the function's own routes); the spoken-length and forecast-audio bounds still apply.
- ``model``: every name of the SDK's ``SpeechModel`` (openai 3.63: tts-1, tts-1-hd, gpt-4o-mini-tts,
  gpt-4o-mini-tts-2025-12-15) and ``supertonic-3``; ``tts-1`` favours speed (5 denoising steps),
  ``tts-1-hd`` quality (12 steps), the others render the model's default (8). Any other name is a 400.
- ``voice``: OpenAI names map onto the model's voices (see ``voices.py``).
- ``response_format``: mp3 (OpenAI's default, unless ``Accept`` names another audio type), opus,
  flac, wav, pcm (24 kHz, as OpenAI's); aac is refused by name.
- ``speed``: OpenAI's scale, 1.0 as normal, outside 0.25-4.0 refused as OpenAI does. The model's
  normal pace is 1.05 and it reads from 0.7 to 2.0, so the value is scaled by 1.05; a speed
  OpenAI allows whose scaled value the model cannot read (below 0.67, above 1.9) is refused too,
  naming the served range: held to the range, two different speeds would give the same audio.
- ``instructions`` (voice direction) must be text; no model here reads it, with any ``model``.
- ``stream_format``: ``audio`` (the file's bytes) or ``sse``: ``speech.audio.delta`` events with
  base64 audio, then ``speech.audio.done`` with ``usage``; as OpenAI, ``sse`` is refused with
  ``tts-1`` and ``tts-1-hd``. Both stream as they are made when the function URL is in
  ``RESPONSE_STREAM`` mode, and come whole in ``BUFFERED`` mode.
- ``lang`` is an extension: OpenAI detects the language, this model must be told (default ``en``).
A field sent as ``null`` means its default, as in ``POST /v1/tts``. Refusals carry OpenAI's error
shape, and OpenAI's 400 where the function's own routes answer 413 (``errors.openai_status``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from supertonic_engine import DEFAULT_SPEED, SPEED_RANGE, Limits, SynthesisOptions
from supertonic_engine.errors import InvalidParameter, quoted

from .request import TtsRequest, build_request, check_text

FIELDS = ("model", "input", "voice", "response_format", "speed", "instructions", "stream_format", "lang")
# The names of the SDK's SpeechModel (openai 3.63, openai/types/audio/speech_model.py) and the model's own.
MODEL_STEPS = {
    "tts-1": 5,
    "tts-1-hd": 12,
    "gpt-4o-mini-tts": SynthesisOptions.steps,
    "gpt-4o-mini-tts-2025-12-15": SynthesisOptions.steps,
    "supertonic-3": SynthesisOptions.steps,
}
DEFAULT_MODEL = "supertonic-3"
DEFAULT_RESPONSE_FORMAT = "mp3"
# OpenAI: speed "from 0.25 to 4.0. 1.0 is the default"; input "The maximum length is 4096
# characters" (createSpeech).
OPENAI_SPEED_RANGE = (0.25, 4.0)
OPENAI_MAX_INPUT_CHARS = 4096


# OpenAI: "sse is not supported for tts-1 or tts-1-hd" (createSpeech, stream_format).
MODELS_WITHOUT_SSE = ("tts-1", "tts-1-hd")


def parse_openai_request(
    data: object,
    *,
    voices: Sequence[str],
    limits: Limits | Callable[[int], Limits] | None,
    defaults: Mapping[str, Any] | None = None,
) -> TtsRequest:
    """``data`` in OpenAI's shape as a request; ``limits``: the bounds, or the deployment's bounds
    for a request rendered at so many steps (``FunctionConfig.sync_limits_at``), whose text bound
    becomes OpenAI's; ``defaults``: the deployment's fields (its chunking)."""
    if not isinstance(data, Mapping):
        raise InvalidParameter("the request must be a JSON object with at least 'input' and 'voice'", field="body")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise InvalidParameter(f"unknown field {quoted(unknown[0])}; fields are: {', '.join(FIELDS)}", field=unknown[0])
    data = {name: value for name, value in data.items() if value is not None}
    model = data.get("model", DEFAULT_MODEL)
    if not isinstance(model, str) or model not in MODEL_STEPS:
        raise InvalidParameter(f"model {quoted(model)} is not served here; use one of: {', '.join(MODEL_STEPS)}", field="model")
    stream_format = data.get("stream_format", "audio")
    if stream_format == "sse" and model in MODELS_WITHOUT_SSE:
        raise InvalidParameter(f"stream_format 'sse' is not supported with {model}; use 'audio' or another model", field="stream_format")
    if not isinstance(data.get("instructions", ""), str):
        raise InvalidParameter("instructions must be a string (no model here reads it)", field="instructions")
    text = check_text(data.get("input"), field="input")
    steps = MODEL_STEPS[model]
    values = {
        **(defaults or {}),
        "stream_format": stream_format,
        "voice": data.get("voice", SynthesisOptions.voice),
        "lang": data.get("lang", SynthesisOptions.lang),
        "steps": steps,
        "speed": model_speed(data.get("speed", 1.0)),
    }
    if "response_format" in data:
        values["format"] = data["response_format"]
    bounds = limits(steps) if callable(limits) else limits
    if bounds is not None:
        bounds = replace(bounds, max_text_chars=OPENAI_MAX_INPUT_CHARS)
    return build_request(text, values, voices, bounds, text_field="input", default_format=DEFAULT_RESPONSE_FORMAT)


def model_speed(openai_speed: object) -> float:
    """OpenAI's speed (1.0 = normal) as the model's speed (1.05 = normal); refused outside OpenAI's
    range, and inside it where the model cannot read the scaled value."""
    low, high = OPENAI_SPEED_RANGE
    if isinstance(openai_speed, bool) or not isinstance(openai_speed, (int, float)) or not low <= openai_speed <= high:
        raise InvalidParameter(f"speed must be a number from {low:g} to {high:g}, got {quoted(openai_speed)}", field="speed")
    speed = round(openai_speed * DEFAULT_SPEED, 4)
    if not SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]:
        served_low, served_high = served_speeds()
        raise InvalidParameter(
            f"speed {openai_speed:g} is outside what this model reads: send {served_low:g} to {served_high:g} "
            f"(its pace {SPEED_RANGE[0]:g} to {SPEED_RANGE[1]:g}, where OpenAI's 1.0 is its {DEFAULT_SPEED:g})",
            field="speed",
        )
    return speed


def served_speeds() -> tuple[float, float]:
    """OpenAI speeds the model reads, in hundredths rounded inward: every speed named is served."""
    low, high = (bound / DEFAULT_SPEED for bound in SPEED_RANGE)
    return math.ceil(low * 100) / 100, math.floor(high * 100) / 100
