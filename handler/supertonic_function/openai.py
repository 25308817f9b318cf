"""``POST /v1/audio/speech`` in OpenAI's request shape, so existing client code can point at this function.

The shape (https://platform.openai.com/docs/api-reference/audio/createSpeech) is
``{model, input, voice, response_format, speed, instructions, stream_format}``. How it maps:
- ``model``: ``tts-1`` favours speed (5 denoising steps), ``tts-1-hd`` quality (12 steps),
  ``gpt-4o-mini-tts`` and ``supertonic-3`` the model's default (8).
- ``voice``: OpenAI names map onto the model's voices (see ``voices.py``).
- ``response_format``: mp3 (OpenAI's default, unless ``Accept`` names another audio type), opus,
  flac, wav, pcm (24 kHz, as OpenAI's); aac is refused by name.
- ``speed``: OpenAI's 0.25-4.0 with 1.0 as normal; the model's normal pace is 1.05 and it reads
  from 0.7 to 2.0, so the value is scaled by 1.05 and held inside that range.
- ``instructions`` (voice direction) has no counterpart in this model and is ignored.
- ``stream_format``: ``audio`` (the file's bytes) or ``sse``: ``speech.audio.delta`` events with
  base64 audio, then ``speech.audio.done`` with ``usage``; as OpenAI, ``sse`` is refused with
  ``tts-1`` and ``tts-1-hd``. Both stream as they are made when the function URL is in
  ``RESPONSE_STREAM`` mode, and come whole in ``BUFFERED`` mode.
- ``lang`` is an extension: OpenAI detects the language, this model must be told (default ``en``).
A field sent as ``null`` means its default, as in ``POST /v1/tts``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from supertonic_engine import DEFAULT_SPEED, SPEED_RANGE, Limits, SynthesisOptions
from supertonic_engine.errors import InvalidParameter, quoted

from .request import TtsRequest, build_request, check_text

FIELDS = ("model", "input", "voice", "response_format", "speed", "instructions", "stream_format", "lang")
MODEL_STEPS = {"tts-1": 5, "tts-1-hd": 12, "gpt-4o-mini-tts": SynthesisOptions.steps, "supertonic-3": SynthesisOptions.steps}
DEFAULT_MODEL = "supertonic-3"
DEFAULT_RESPONSE_FORMAT = "mp3"
OPENAI_SPEED_RANGE = (0.25, 4.0)


# OpenAI: "sse is not supported for tts-1 or tts-1-hd" (createSpeech, stream_format).
MODELS_WITHOUT_SSE = ("tts-1", "tts-1-hd")


def parse_openai_request(
    data: object, *, voices: Sequence[str], limits: Limits | None, defaults: Mapping[str, Any] | None = None
) -> TtsRequest:
    """``data`` in OpenAI's shape as a request; ``defaults``: the deployment's fields (its chunking)."""
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
    text = check_text(data.get("input"), field="input")
    values = {
        **(defaults or {}),
        "stream_format": stream_format,
        "voice": data.get("voice", SynthesisOptions.voice),
        "lang": data.get("lang", SynthesisOptions.lang),
        "steps": MODEL_STEPS[model],
        "speed": model_speed(data.get("speed", 1.0)),
    }
    if "response_format" in data:
        values["format"] = data["response_format"]
    return build_request(text, values, voices, limits, text_field="input", default_format=DEFAULT_RESPONSE_FORMAT)


def model_speed(openai_speed: object) -> float:
    """OpenAI's speed (1.0 = normal) as the model's speed (1.05 = normal), held inside the model's range."""
    low, high = OPENAI_SPEED_RANGE
    if isinstance(openai_speed, bool) or not isinstance(openai_speed, (int, float)) or not low <= openai_speed <= high:
        raise InvalidParameter(f"speed must be a number from {low} to {high}, got {quoted(openai_speed)}", field="speed")
    return round(min(max(openai_speed * DEFAULT_SPEED, SPEED_RANGE[0]), SPEED_RANGE[1]), 4)
