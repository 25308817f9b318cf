"""Requests parsed once, whatever they arrive as: JSON bodies, query strings, metadata, OpenAI's shape."""

from __future__ import annotations

from typing import Any

import pytest
from supertonic_engine.errors import EmptyText, InvalidParameter, TextTooLong, UnknownLanguage, UnsupportedFormat
from supertonic_function.errors import http_status
from supertonic_function.openai import model_speed, parse_openai_request
from supertonic_function.request import parse_request
from supertonic_function.voices import OPENAI_VOICES, resolve_voice

VOICES = ["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3", "M4", "M5"]


def test_defaults() -> None:
    request = parse_request({"text": "Hello."}, voices=VOICES)
    o = request.options
    assert (o.voice, o.lang, o.steps, o.speed, o.seed, o.normalize) == ("M1", "en", 8, 1.05, None, True)
    assert (request.format, request.on_error) == ("wav", "json")


def test_round_trip_through_the_job_document() -> None:
    request = parse_request({"text": "Hi.", "voice": "f2", "lang": "ko", "steps": 3, "speed": 1.2, "seed": 9, "format": "MP3", "normalize": False}, voices=VOICES)
    assert request.options.voice == "F2" and request.format == "mp3"
    assert parse_request(request.to_json(), voices=VOICES) == request


@pytest.mark.parametrize(
    ("data", "error", "field"),
    [
        ({"text": "Hi.", "txt": "typo"}, InvalidParameter, "txt"),
        ({"text": "Hi.", "steps": True}, InvalidParameter, "steps"),
        ({"text": "Hi.", "steps": "8"}, InvalidParameter, "steps"),
        ({"text": "Hi.", "steps": 0}, InvalidParameter, "steps"),
        ({"text": "Hi.", "speed": 9}, InvalidParameter, "speed"),
        ({"text": "Hi.", "seed": -1}, InvalidParameter, "seed"),
        ({"text": "Hi.", "normalize": "yes"}, InvalidParameter, "normalize"),
        ({"text": "Hi.", "voice": 3}, InvalidParameter, "voice"),
        ({"text": "Hi.", "on_error": "beep"}, InvalidParameter, "on_error"),
        ({"text": "Hi.", "lang": "xx"}, UnknownLanguage, "lang"),
        ({"text": "Hi.", "format": "aac"}, UnsupportedFormat, "format"),
        ({"text": 42}, InvalidParameter, "text"),
        ({"voice": "F1"}, EmptyText, "text"),
        ({"text": " \n "}, EmptyText, "text"),
        (["Hello."], InvalidParameter, "body"),
    ],
)
def test_field_errors_name_the_field(data: Any, error: type[Exception], field: str) -> None:
    with pytest.raises(error) as raised:
        parse_request(data, voices=VOICES)
    assert raised.value.field == field
    assert 400 <= http_status(raised.value) < 500


def test_text_limit_points_at_jobs() -> None:
    with pytest.raises(TextTooLong, match="POST /v1/jobs") as raised:
        parse_request({"text": "x" * 11}, voices=VOICES, max_text_chars=10)
    assert http_status(raised.value) == 413


def test_query_strings_and_metadata_are_coerced_and_extra_keys_ignored() -> None:
    request = parse_request(
        {"text": "Hi.", "steps": "3", "speed": "1.5", "seed": "4", "normalize": "0", "cachebuster": "123"},
        voices=VOICES,
        from_strings=True,
    )
    o = request.options
    assert (o.steps, o.speed, o.seed, o.normalize) == (3, 1.5, 4, False)
    with pytest.raises(InvalidParameter, match="steps='many' is not a valid whole number"):
        parse_request({"text": "Hi.", "steps": "many"}, voices=VOICES, from_strings=True)


@pytest.mark.parametrize(("name", "expected"), [("F1", "F1"), ("m3", "M3"), ("nova", "F2"), ("Onyx", "M2"), ("Z9", "Z9")])
def test_voice_names_and_aliases(name: str, expected: str) -> None:
    assert resolve_voice(name, VOICES) == expected


def test_every_openai_alias_reaches_a_model_voice() -> None:
    assert set(OPENAI_VOICES.values()) <= set(VOICES)


def test_openai_shape() -> None:
    request = parse_openai_request(
        {"model": "tts-1", "input": "Hello.", "voice": "alloy", "instructions": "cheerful"}, voices=VOICES, max_text_chars=100
    )
    assert (request.options.voice, request.options.steps, request.format, request.options.speed) == ("F1", 5, "mp3", 1.05)


@pytest.mark.parametrize(("speed", "expected"), [(1.0, 1.05), (0.25, 0.7), (4.0, 2.0), (1.5, 1.575)])
def test_openai_speed_maps_onto_the_model_range(speed: float, expected: float) -> None:
    assert model_speed(speed) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"input": "Hi.", "voice": "alloy", "model": "tts-2"}, "model"),
        ({"input": "Hi.", "voice": "alloy", "speed": 5}, "speed"),
        ({"input": "Hi.", "voice": "alloy", "stream_format": "sse"}, "stream_format"),
        ({"input": "Hi.", "voice": "alloy", "temperature": 1}, "temperature"),
        ({"voice": "alloy"}, "text"),
    ],
)
def test_openai_refusals(data: dict[str, Any], field: str) -> None:
    with pytest.raises((InvalidParameter, EmptyText)) as raised:
        parse_openai_request(data, voices=VOICES, max_text_chars=100)
    assert raised.value.field == field
