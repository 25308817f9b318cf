"""The function URL in RESPONSE_STREAM mode: answers made as they are read, on the tiny stand-in.

The handler returns a ``StreamedAnswer`` (prelude and body); these tests read its body as the
runtime loop does, piece by piece. What happens on the wire (framing, trailers, the local front)
is tested with the runtime loop and the harness.
"""

from __future__ import annotations

import base64
import io
import json
import time
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from fixtures_s3 import LambdaContext

from supertonic_engine import available_formats
from supertonic_engine.errors import ConfigurationError, DeadlineExceeded
from supertonic_function.config import FunctionConfig
from supertonic_function.runtime import StreamedAnswer
from supertonic_function.streamed import FIRST_PIECE_S
from supertonic_harness.fronts.furl import http_to_event

pytest_plugins = ["fixtures_s3"]

# Several chunks with a small first one: 24 characters, then 48, 96, ...
TEXT = "Hello there, my friend. This answer is read in several chunks, each sent the moment it is made. The last one comes at the end."
SMALL_FIRST = {"first_chunk_chars": 24, "first_chunk_steps": 2, "steps": 2, "seed": 7}


def _post(body: dict[str, Any], path: str = "/v1/tts") -> dict[str, Any]:
    return http_to_event("POST", path, [("content-type", "application/json")], json.dumps(body).encode())


def _call(app: Any, event: dict[str, Any], remaining_ms: int = 60_000) -> Any:
    return app.lambda_handler(event, LambdaContext(remaining_ms=remaining_ms))


def _events(body: bytes) -> list[dict[str, Any]]:
    """Server-sent events' data, comment lines skipped."""
    found = []
    for block in body.decode("utf-8").split("\n\n"):
        data = [line[len("data: ") :] for line in block.split("\n") if line.startswith("data: ")]
        if data:
            found.append(json.loads("\n".join(data)))
    return found


def test_streamed_audio_equals_the_buffered_answer_byte_for_byte(app: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"text": TEXT, "format": "wav", **SMALL_FIRST}))
    assert isinstance(answer, StreamedAnswer)
    prelude = answer.prelude
    assert prelude is not None and prelude["statusCode"] == 200
    headers = prelude["headers"]
    assert headers["content-type"] == "audio/wav" and "x-supertonic-rtf" not in headers
    chunks = int(headers["x-supertonic-chunks"])
    assert chunks >= 3
    # The first piece was made before the answer started; the rest as the body is read.
    assert counted_chunks == [0]
    pieces = []
    for piece in answer.body:
        pieces.append(piece)
        assert len(counted_chunks) == max(1, len(pieces) - 1)  # each piece leaves before the next chunk is made
    # The first chunk comes in two pieces, its first quarter second alone (after the 44-byte header).
    assert len(pieces) == chunks + 1
    assert len(pieces[0]) == 44 + 2 * int(44100 * FIRST_PIECE_S)
    streamed = b"".join(pieces)

    configure(invoke_mode="BUFFERED")
    buffered = _call(app, _post({"text": TEXT, "format": "wav", **SMALL_FIRST}))
    assert base64.b64decode(buffered["body"]) == streamed
    samples, rate = sf.read(io.BytesIO(streamed))
    assert float(headers["x-supertonic-duration-s"]) == pytest.approx(samples.size / rate, abs=1e-3)


@pytest.mark.parametrize("fmt", [f for f in ("mp3", "opus", "ogg", "flac", "pcm") if f in available_formats()])
def test_every_format_streams_a_file_that_decodes(app: Any, configure: Any, fmt: str) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"text": TEXT, "format": fmt, **SMALL_FIRST}))
    pieces = list(answer.body)
    assert len(pieces) >= 2 and all(pieces)
    data = b"".join(pieces)
    duration = float(answer.prelude["headers"]["x-supertonic-duration-s"])
    if fmt == "pcm":
        seconds = len(data) / 2 / 24_000
    else:
        info = sf.info(io.BytesIO(data))
        samples, rate = sf.read(io.BytesIO(data))
        seconds = samples.shape[0] / rate
        assert info.channels == 1
    # Lossy codecs pad their last frame: a few tens of milliseconds at most.
    assert seconds == pytest.approx(duration, abs=0.1)


def test_every_answer_is_a_stream_with_its_status_in_the_prelude(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    health = _call(app, http_to_event("GET", "/health", [], b""))
    assert isinstance(health, StreamedAnswer) and health.prelude["statusCode"] == 200
    assert json.loads(b"".join(health.body))["status"] == "ok"

    refused = _call(app, _post({"text": TEXT, "voice": "nobody"}))
    assert isinstance(refused, StreamedAnswer) and refused.prelude["statusCode"] == 422
    assert json.loads(b"".join(refused.body))["error"]["field"] == "voice"

    head = _call(app, http_to_event("HEAD", "/?text=Hi%20there.&steps=1", [], b""))
    assert head.prelude["statusCode"] == 200 and b"".join(head.body) == b""
    assert int(head.prelude["headers"]["content-length"]) > 0


def test_a_failure_in_the_first_chunk_is_an_http_error_not_a_broken_stream(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM", deadline_margin_s=0.0)
    # Too little time for even the first chunk: the status says so before any audio.
    answer = _call(app, _post({"text": TEXT, "steps": 100, "first_chunk_chars": 200}), remaining_ms=50)
    assert answer.prelude["statusCode"] == 504
    assert json.loads(b"".join(answer.body))["error"]["code"] == "deadline_exceeded"


def test_a_deadline_mid_stream_ends_it_with_an_error_after_a_valid_prefix(
    app: Any, configure: Any, counted_chunks: list[int], json_logs: Any
) -> None:
    configure(invoke_mode="RESPONSE_STREAM", deadline_margin_s=0.0)
    request = {"text": TEXT, "format": "pcm", "first_chunk_chars": 24, "first_chunk_steps": 1, "steps": 100}
    # What the first chunk costs here, then a budget of several times that: ample for it, far
    # from enough for the second chunk at 100 steps (twice the text, a hundred times the steps).
    started = time.perf_counter()
    list(_call(app, _post(request | {"steps": 1})).body)
    first_s = (time.perf_counter() - started) / len(counted_chunks)
    counted_chunks.clear()
    answer = _call(app, _post(request), remaining_ms=int(1000 * (0.3 + 4 * first_s)))
    assert answer.prelude["statusCode"] == 200
    body = iter(answer.body)
    prefix = next(body)
    with pytest.raises(DeadlineExceeded):
        for piece in body:
            prefix += piece
    assert len(prefix) % 2 == 0 and len(prefix) > 0  # whole 16-bit samples of the first chunk(s)
    cut = next(entry for entry in json_logs() if entry.get("message") == "stream cut")
    assert cut["audio_s_sent"] > 0 and cut["error"] == "DeadlineExceeded"


def test_a_client_that_goes_away_stops_the_synthesis(app: Any, configure: Any, counted_chunks: list[int], json_logs: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"text": TEXT * 3, "format": "mp3", **SMALL_FIRST}))
    body = iter(answer.body)
    next(body)
    made = len(counted_chunks)
    answer.close()  # what the runtime loop does when a write fails
    assert len(counted_chunks) == made < int(answer.prelude["headers"]["x-supertonic-chunks"])
    assert list(answer.body) == []  # closed: no chunk is made any more
    assert any(entry.get("message") == "stream stopped: the client went away" for entry in json_logs())


def test_server_sent_events_carry_the_audio_then_the_usage(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"text": TEXT, "format": "pcm", "stream_format": "sse", **SMALL_FIRST}))
    assert answer.prelude["headers"]["content-type"].startswith("text/event-stream")
    events = _events(b"".join(answer.body))
    deltas = [e for e in events if e["type"] == "speech.audio.delta"]
    done = events[-1]
    assert done["type"] == "speech.audio.done" and done["usage"]["input_tokens"] > 0
    audio = b"".join(base64.b64decode(e["audio"]) for e in deltas)
    assert len(deltas) >= 3 and done["duration_s"] == pytest.approx(len(audio) / 2 / 24_000, abs=1e-3)


def test_speech_marks_come_before_the_audio_they_describe(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    request = {"text": TEXT, "format": "pcm", "stream_format": "sse", "marks": ["word"], **SMALL_FIRST}
    events = _events(b"".join(_call(app, _post(request)).body))
    sent_s = 0.0
    words = []
    for event in events:
        if event["type"] == "speech.marks":
            for mark in event["marks"]:
                assert mark["time"] / 1000 >= sent_s - 1e-3  # never a mark of audio already sent
                words.append(mark["value"])
        elif event["type"] == "speech.audio.delta":
            sent_s += len(base64.b64decode(event["audio"])) / 2 / 24_000
    configure(invoke_mode="BUFFERED")
    described = _call(app, _post({k: v for k, v in request.items() if k != "stream_format"}))
    assert words == [json.loads(line)["value"] for line in described["body"].splitlines()]


def test_server_sent_events_come_whole_from_a_buffered_url(app: Any, configure: Any) -> None:
    configure(invoke_mode="BUFFERED")
    answer = _call(app, _post({"input": "Hello there.", "voice": "alloy", "stream_format": "sse"}, path="/v1/audio/speech"))
    assert answer["statusCode"] == 200 and answer["headers"]["content-type"].startswith("text/event-stream")
    events = _events(base64.b64decode(answer["body"]))
    assert events[0]["type"] == "speech.audio.delta" and events[-1]["type"] == "speech.audio.done"
    assert answer["headers"]["x-supertonic-audio-type"] == "audio/mpeg"


def test_openai_refuses_events_with_the_models_that_have_none(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"model": "tts-1", "input": "Hi.", "voice": "alloy", "stream_format": "sse"}, path="/v1/audio/speech"))
    assert answer.prelude["statusCode"] == 400
    assert json.loads(b"".join(answer.body))["error"]["param"] == "stream_format"


def test_the_deployment_chunking_applies_in_both_modes(app: Any, configure: Any) -> None:
    bodies = []
    for mode in ("BUFFERED", "RESPONSE_STREAM"):
        configure(invoke_mode=mode, first_chunk_chars=24, first_chunk_steps=2)
        answer = _call(app, _post({"text": TEXT, "format": "wav", "steps": 2, "seed": 3}))
        bodies.append(base64.b64decode(answer["body"]) if isinstance(answer, dict) else b"".join(answer.body))
    assert bodies[0] == bodies[1]
    configure(invoke_mode="BUFFERED")
    official = base64.b64decode(_call(app, _post({"text": TEXT, "format": "wav", "steps": 2, "seed": 3}))["body"])
    assert official != bodies[0]  # another chunking: other audio


def test_the_invoke_mode_and_chunk_settings_are_checked_at_init() -> None:
    with pytest.raises(ConfigurationError) as refused:
        FunctionConfig.from_env({"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "STREAMING"})
    assert refused.value.field == "SUPERTONIC_FUNCTION_URL_INVOKE_MODE"
    config = FunctionConfig.from_env({"SUPERTONIC_FIRST_CHUNK_CHARS": "0", "SUPERTONIC_FIRST_CHUNK_STEPS": "4"})
    assert config.synthesis_defaults() == {"first_chunk_steps": 4}
    assert FunctionConfig.from_env({"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "response_stream"}).streams
    with pytest.raises(ConfigurationError):
        FunctionConfig.from_env({"SUPERTONIC_FIRST_CHUNK_CHARS": "5"})


def test_trimmed_audio_streams_as_a_wav_of_unknown_length(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    answer = _call(app, _post({"text": TEXT, "format": "wav", "trim_silence": True, **SMALL_FIRST}))
    assert "x-supertonic-duration-s" not in answer.prelude["headers"]
    data = b"".join(answer.body)
    samples, _ = sf.read(io.BytesIO(data))
    assert samples.size > 0 and np.isfinite(samples).all()


def test_an_api_gateway_http_api_gets_whole_answers_from_a_streaming_function(app: Any, configure: Any) -> None:
    # The same payload format, but an HTTP API reads the answer whole: only a function URL's may stream.
    configure(invoke_mode="RESPONSE_STREAM")
    event = _post({"text": "Hello there.", "format": "wav", "steps": 1})
    event["requestContext"]["domainName"] = "abc123.execute-api.us-east-1.amazonaws.com"
    answer = _call(app, event)
    assert isinstance(answer, dict) and answer["statusCode"] == 200 and answer["isBase64Encoded"]
    assert sf.info(io.BytesIO(base64.b64decode(answer["body"]))).frames > 0


def test_events_too_large_for_a_whole_answer_are_refused_before_any_synthesis(app: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure(invoke_mode="BUFFERED", sync_max_text_chars=20_000)
    answer = _call(app, _post({"text": TEXT * 8, "format": "wav", "stream_format": "sse", "steps": 1}))
    assert answer["statusCode"] == 413 and json.loads(answer["body"])["error"]["code"] == "response_too_large"
    assert counted_chunks == []
