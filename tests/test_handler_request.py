"""Requests parsed once, whatever they arrive as: JSON bodies, query strings, metadata, OpenAI's shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from supertonic_engine import Engine, Limits, SessionConfig
from supertonic_engine.errors import (
    EmptyText,
    InvalidParameter,
    TextTooLong,
    UnknownLanguage,
    UnknownVoice,
    UnsupportedFormat,
)
from supertonic_function import config, request
from supertonic_function.errors import InvalidJson, error_detail, http_status
from supertonic_function.openai import model_speed, parse_openai_request
from supertonic_function.request import parse_json, parse_request
from supertonic_function.voices import OPENAI_VOICES, resolve_voice

VOICES = ["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3", "M4", "M5"]


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Path) -> Engine:
    return Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=1))


def test_defaults() -> None:
    request = parse_request({"text": "Hello."}, voices=VOICES)
    o = request.options
    assert (o.voice, o.lang, o.steps, o.speed, o.seed, o.normalize) == ("M1", "en", 8, 1.05, None, True)
    assert (request.format, request.on_error) == ("wav", "json")


def test_round_trip_through_the_job_document() -> None:
    request = parse_request(
        {"text": "Hi.", "voice": "f2", "lang": "ko", "steps": 3, "speed": 1.2, "seed": 9, "format": "MP3", "normalize": False},
        voices=VOICES,
    )
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
        ({"text": "Hi.", "voice": "nobody"}, UnknownVoice, "voice"),
        ({"text": "Hi.", "on_error": "beep"}, InvalidParameter, "on_error"),
        ({"text": "Hi.", "lang": "xx"}, UnknownLanguage, "lang"),
        ({"text": "Hi.", "format": "aac"}, UnsupportedFormat, "format"),
        ({"text": 42}, InvalidParameter, "text"),
        ({"voice": "F1"}, EmptyText, "text"),
        ({"text": " \n "}, EmptyText, "text"),
        (["Hello."], InvalidParameter, "body"),
    ],
)
def test_field_errors_name_the_field(engine: Engine, data: Any, error: type[Exception], field: str) -> None:
    # The wire's shape is the request's to check, what the values mean the engine's (one place).
    with pytest.raises(error) as raised:
        parse_request(data, voices=VOICES).prepare(engine)
    assert raised.value.field == field
    assert 400 <= http_status(raised.value) < 500


def test_text_limit_points_at_jobs(engine: Engine) -> None:
    with pytest.raises(TextTooLong) as raised:
        parse_request({"text": "x" * 11}, voices=VOICES, limits=config.FunctionConfig(sync_max_text_chars=10).sync_limits).prepare(engine)
    assert http_status(raised.value) == 413
    # The engine's message names no route of the function's; the function's mapping adds its own.
    assert "job" not in raised.value.message
    assert error_detail(raised.value)["message"].endswith("For longer text use POST /v1/jobs or drop a .txt file in the input bucket.")


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


def test_text_fields_and_settings_read_yes_and_no_alike() -> None:
    # One reader for both: a spelling the environment takes is one a query string takes.
    assert request._STRING_CONVERTERS["normalize"] is config.true_or_false
    assert config.VARIABLES["warm_up"][1] is config.true_or_false
    assert [config.true_or_false(raw) for raw in ("On", " yes", "0", "FALSE")] == [True, True, False, False]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000, "nested too deeply"),  # past the parser's recursion limit: RecursionError
        ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"seed": ' + "9" * 5000 + "}", "number too long"),  # past int()'s 4,300-digit limit
        ('{"text": "Hi.",}', r"not valid JSON: Expecting property name .* \(line 1, column 16\)"),
    ],
    ids=["array", "inside-an-object", "long-integer", "syntax"],
)
def test_unreadable_json_is_bad_input_not_a_bug(text: str, says: str) -> None:
    with pytest.raises(InvalidJson, match=says) as raised:
        parse_json(text, "the job")
    assert raised.value.message.startswith("the job ") and http_status(raised.value) == 400


@pytest.mark.parametrize(("name", "expected"), [("F1", "F1"), ("m3", "M3"), ("nova", "F2"), ("Onyx", "M2"), ("Z9", "Z9")])
def test_voice_names_and_aliases(name: str, expected: str) -> None:
    assert resolve_voice(name, VOICES) == expected


def test_every_openai_alias_reaches_a_model_voice() -> None:
    assert set(OPENAI_VOICES.values()) <= set(VOICES)


def test_openai_shape() -> None:
    request = parse_openai_request(
        {"model": "tts-1", "input": "Hello.", "voice": "alloy", "instructions": "cheerful"},
        voices=VOICES,
        limits=Limits(max_text_chars=100),
    )
    assert (request.options.voice, request.options.steps, request.format, request.options.speed) == ("F1", 5, "mp3", 1.05)


@pytest.mark.parametrize(("speed", "expected"), [(1.0, 1.05), (0.67, 0.7035), (1.9, 1.995), (1.5, 1.575)])
def test_openai_speed_maps_onto_the_model_range(speed: float, expected: float) -> None:
    assert model_speed(speed) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"input": "Hi.", "voice": "alloy", "model": "tts-2"}, "model"),
        ({"input": "Hi.", "voice": "alloy", "speed": 5}, "speed"),
        ({"input": "Hi.", "voice": "alloy", "model": "tts-1", "stream_format": "sse"}, "stream_format"),
        ({"input": "Hi.", "voice": "alloy", "stream_format": "chunks"}, "stream_format"),
        ({"input": "Hi.", "voice": "alloy", "temperature": 1}, "temperature"),
        ({"input": "Hi.", "voice": "alloy", "model": ["tts-1"]}, "model"),
        ({"voice": "alloy"}, "input"),
        ({"input": None, "voice": "alloy"}, "input"),
        ({"input": " ", "voice": "alloy"}, "input"),
        ({"input": 7, "voice": "alloy"}, "input"),
        ({"input": "x" * 4097, "voice": "alloy"}, "input"),  # past OpenAI's 4,096, whatever the bounds passed
    ],
)
def test_openai_refusals_name_openai_fields(engine: Engine, data: dict[str, Any], field: str) -> None:
    with pytest.raises((InvalidParameter, EmptyText, TextTooLong)) as raised:
        parse_openai_request(data, voices=VOICES, limits=Limits(max_text_chars=100)).prepare(engine)
    assert raised.value.field == field
    if field == "input" and isinstance(raised.value, EmptyText):
        assert "'input'" in raised.value.message or raised.value.message.startswith("input ")


def test_openai_nulls_mean_the_defaults_as_in_tts() -> None:
    nulls = {"input": "Hi.", "voice": None, "speed": None, "lang": None, "model": None, "response_format": None, "stream_format": None}
    request = parse_openai_request(nulls, voices=VOICES, limits=Limits(max_text_chars=100))
    assert request == parse_openai_request({"input": "Hi."}, voices=VOICES, limits=Limits(max_text_chars=100))
    assert (request.options.voice, request.options.speed, request.options.lang, request.format) == ("M1", 1.05, "en", "mp3")
    tts = parse_request({"text": "Hi.", "voice": None, "speed": None, "lang": None}, voices=VOICES)
    assert (tts.options.voice, tts.options.speed, tts.options.lang) == (request.options.voice, request.options.speed, request.options.lang)
