"""Answers made as they are read: the audio file, or server-sent events, chunk by chunk.

A function URL in ``RESPONSE_STREAM`` mode sends each chunk's audio the moment it is encoded, so
the first audio waits for the first chunk only (a small one, see ``first_chunk_chars``), not for
the whole text. Everything that can be refused is refused before the answer starts: the request,
the forecast of the audio's length (the duration predictor, milliseconds a chunk), and the first
chunk itself is made before the status is sent, so a failure there is an ordinary HTTP error.
After that the status is 200 and said; a later failure (the deadline, an encoder error) ends the
stream with the runtime's error trailers, and a client that went away stops the synthesis at the
next chunk (the runtime loop closes the body).

What needs the end (the real-time factor, synthesis time) cannot be a header of an answer whose
headers go first: ``x-supertonic-duration-s`` is the forecast (exact unless silence is trimmed),
and the totals go to the log and the metrics when the stream ends.

The same events are the answer of ``stream_format: "sse"`` in ``BUFFERED`` mode too, whole.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from supertonic_engine import ChunkTiming, Deadline, Engine, Prepared, SpeechMark, StreamEncoder, content_type

from .config import FunctionConfig
from .rendering import described_headers, ignored_header
from .runtime import StreamedAnswer
from .telemetry import logger, metrics, record_synthesis

# Lambda's response streaming: "up to a soft limit of 200 MB"; "the first 6 MB of your function's
# response has uncapped bandwidth. After this initial burst, Lambda streams the response at a
# maximum rate of 2 MBps" (https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html).
# Decimal megabytes: the smaller reading of each.
STREAM_CAP_BYTES = 200_000_000
UNTHROTTLED_BYTES = 6_000_000
THROTTLED_BYTES_PER_S = 2_000_000
SSE_TYPE = "text/event-stream"
# The first chunk's first quarter second is encoded and sent alone: the first byte need not wait
# for the rest of the chunk's encoding, 20 ms a second of audio for mp3, 45 for opus and 15 for
# pcm's resampling (measured: 3.2 s of noise, 2-vCPU AMD EPYC), i.e. 60-140 ms of a 3 s chunk.
FIRST_PIECE_S = 0.25
# Each event is one `data:` line of JSON and a blank line (https://html.spec.whatwg.org/multipage/server-sent-events.html).
_EVENT_END = b"\n\n"


@dataclass(frozen=True)
class Plan:
    """A request about to be streamed: where its audio will be, from the duration predictor, and
    the one deadline the forecast and the synthesis both run under."""

    prepared: Prepared  # its audio bound checked on this forecast, so the engine does not forecast again
    timeline: list[ChunkTiming]
    frames: int  # samples ``Engine.stream`` will yield, exact unless silence is trimmed
    seconds: float
    max_bytes: int  # of the answer, at the streamed format's largest bitrate (base64 for events)
    events: bool  # server-sent events, else the file
    deadline: Deadline


def plan(engine: Engine, prepared: Prepared, *, budget_s: float | None, events: bool) -> Plan:
    """The forecast of ``prepared`` (milliseconds a chunk), under the deadline its synthesis will share."""
    deadline = Deadline(budget_s)
    timeline = engine.timeline(prepared, deadline=deadline)
    # The engine's own bound on the audio, on this forecast: it is what the engine would compute again.
    prepared.limits.check_audio(prepared.total_silence_s + sum(t.speech_s for t in timeline), text_chars=len(prepared.text))
    prepared = replace(prepared, limits=replace(prepared.limits, max_audio_s=None, after_s_per_audio_s=0.0))
    frames = engine.forecast_frames(prepared, timeline=timeline)
    seconds = frames / engine.sample_rate
    size = StreamEncoder.max_bytes_per_s(prepared.format, engine.sample_rate) * seconds + 1024
    if events:  # base64, and an event's JSON around each chunk's audio
        size = size * 4 / 3 + 256 * (len(timeline) + 1)
    return Plan(prepared, timeline, frames, seconds, int(size), events, deadline)


def delivery_s(answer_bytes: int) -> float:
    """Seconds Lambda takes to pass on ``answer_bytes`` at most: nothing for the first 6 MB."""
    return max(0, answer_bytes - UNTHROTTLED_BYTES) / THROTTLED_BYTES_PER_S


@dataclass(frozen=True)
class StreamSettings:
    """The deployment's flush policy (``FunctionConfig.stream_min_write_bytes``, ``sse_pad_bytes``)."""

    min_write_bytes: int = 0
    sse_pad_bytes: int = 0

    @classmethod
    def of(cls, config: FunctionConfig) -> StreamSettings:
        return cls(config.stream_min_write_bytes, config.sse_pad_bytes)


def answer(engine: Engine, planned: Plan, settings: StreamSettings) -> StreamedAnswer:
    """The audio as it is made: the file, or (``planned.events``) server-sent events, OpenAI's
    ``speech.audio.delta``/``.done`` with each chunk's speech marks (``speech.marks``) before its
    audio when the request asks for marks. The first chunk is made here, before the answer starts:
    a failure there is still an ordinary HTTP error."""
    planned.deadline.keep_back(delivery_s(planned.max_bytes), f"streaming about {planned.max_bytes / 1e6:,.1f} MB")
    synthesis = _Synthesis(engine, planned)
    if planned.events:
        pieces = _padded(synthesis.events(), settings.sse_pad_bytes)
    else:
        pieces = _coalesced(synthesis.audio(), settings.min_write_bytes)
    first = _first(pieces)
    return StreamedAnswer(_prelude(200, answer_headers(engine, planned)), _after(first, pieces))


def answer_headers(engine: Engine, planned: Plan) -> dict[str, str]:
    """The headers ``answer`` starts with, known before any synthesis (HEAD answers with them too)."""
    prepared = planned.prepared
    headers = described_headers(
        prepared.format.sample_rate or engine.sample_rate, len(prepared.chunks), engine.model_kind, engine.precision, prepared.options.voice
    )
    headers["cache-control"] = "no-store"
    headers |= ignored_header(prepared)
    if not prepared.options.trim_silence:  # trimmed, the length is known only at the end
        headers["x-supertonic-duration-s"] = f"{planned.seconds:.3f}"
    audio_type = content_type(prepared.format, engine.sample_rate)
    if planned.events:
        return headers | {"content-type": f"{SSE_TYPE}; charset=utf-8", "x-supertonic-audio-type": audio_type}
    return headers | {"content-type": audio_type}


def as_streamed(response: Mapping[str, Any]) -> StreamedAnswer:
    """A whole (buffered-shape) function URL response as the prelude and body a stream carries."""
    body = response.get("body") or ""
    raw = base64.b64decode(body) if response.get("isBase64Encoded") else str(body).encode("utf-8")
    prelude = _prelude(response["statusCode"], response.get("headers") or {}, response.get("cookies") or [])
    return StreamedAnswer(prelude, iter([raw] if raw else []))


def joined(answer: StreamedAnswer) -> bytes:
    """All of a streamed answer's body, for a buffered function URL."""
    return b"".join(answer.body)


# --- the synthesis behind a stream -------------------------------------------------------------------


class _Synthesis:
    """One request's synthesis, read chunk by chunk as the answer is sent; logs and counts it at the end."""

    def __init__(self, engine: Engine, planned: Plan) -> None:
        self.engine, self.planned, self.prepared = engine, planned, planned.prepared
        self.audio_sent_s = 0.0
        self.chunks_sent = 0
        self.synth_s = 0.0

    def audio(self) -> Iterator[bytes]:
        """The file's bytes, one piece per chunk (the header with the first)."""
        encoded = self._encoded()
        try:
            for _timing, data in encoded:
                if data:
                    yield data
        finally:
            _close(encoded)  # closed with this one: its synthesis stops now, not when collected

    def events(self) -> Iterator[bytes]:
        encoded = self._encoded()
        try:
            yield from self._events(encoded)
        finally:
            _close(encoded)

    def _events(self, encoded: Iterator[tuple[ChunkTiming | None, bytes]]) -> Iterator[bytes]:
        kinds = self.prepared.extras.marks
        timeline = list(self.planned.timeline)
        for timing, data in encoded:
            if kinds and timing is not None:
                # The forecast timeline with the chunks made so far in place (they differ only when
                # silence is trimmed): this chunk's marks, where its audio really is.
                timeline[timing.index] = timing
                shift = timing.end_s - self.planned.timeline[timing.index].end_s
                later = [_shifted(t, shift) for t in self.planned.timeline[timing.index + 1 :]]
                marks = self.engine.marks(self.prepared, kinds, timeline=timeline[: timing.index + 1] + later)
                own = _marks_within(marks, timing, later[0].start_s if later else None)
                if own:
                    yield _event({"type": "speech.marks", "marks": [m.to_json() for m in own]})
            if data:
                yield _event({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})
        yield _event({"type": "speech.audio.done", "usage": self._usage()} | self._totals())

    def _encoded(self) -> Iterator[tuple[ChunkTiming | None, bytes]]:
        """Each chunk's bytes with its timing; the first chunk's come in two pieces, the second
        with None (more of the same chunk)."""
        engine, prepared, deadline = self.engine, self.prepared, self.planned.deadline
        exact = not prepared.options.trim_silence
        encoder = StreamEncoder(
            prepared.format, engine.sample_rate, total_frames=self.planned.frames if exact else None, before_block=deadline.check
        )
        chunks = engine.stream(prepared, deadline=deadline)
        started = time.perf_counter()
        last = len(prepared.chunks) - 1
        try:
            for chunk in chunks:
                timing = chunk.timing
                head = engine.frames(FIRST_PIECE_S) if timing.index == 0 else chunk.samples.size
                pieces = [chunk.samples[:head], chunk.samples[head:]] if chunk.samples.size > head else [chunk.samples]
                for n, samples in enumerate(pieces):
                    data = encoder.write(samples)
                    if timing.index == last and n == len(pieces) - 1:
                        data += encoder.close()
                    self.synth_s = time.perf_counter() - started
                    self.audio_sent_s = encoder.frames / engine.sample_rate
                    self.chunks_sent = timing.index + (n == len(pieces) - 1)  # a chunk counts once all of it is out
                    yield (timing if n == 0 else None), data
        except GeneratorExit:
            logger.warning("stream stopped: the client went away", extra=self._progress())
            raise
        except Exception as error:
            logger.warning("stream cut", extra=self._progress() | {"error": type(error).__name__})
            raise
        finally:
            _close(chunks)  # the engine's deadline timer goes with it
        self.synth_s = time.perf_counter() - started
        self._record()

    def _progress(self) -> dict[str, Any]:
        return {"audio_s_sent": round(self.audio_sent_s, 3), "chunks_sent": self.chunks_sent, "chunks": len(self.prepared.chunks)}

    def _totals(self) -> dict[str, Any]:
        return {
            "duration_s": round(self.audio_sent_s, 3),
            "synth_ms": round(self.synth_s * 1000.0, 1),
            "rtf": round(self.synth_s / self.audio_sent_s, 4) if self.audio_sent_s else None,
            "chunks": self.chunks_sent,
        }

    def _usage(self) -> dict[str, int]:
        # The model reads characters (its tokens are characters) and has no audio tokens.
        read = sum(len(chunk) for chunk in self.prepared.chunks)
        return {"input_tokens": read, "output_tokens": 0, "total_tokens": read}

    def _record(self) -> None:
        record_synthesis(
            source="http-stream",
            characters=len(self.prepared.text),
            audio_s=self.audio_sent_s,
            synth_ms=self.synth_s * 1000.0,
            rtf=self.synth_s / self.audio_sent_s if self.audio_sent_s else 0.0,
            model_kind=self.engine.model_kind,
        )
        # Flushed here: a streamed answer outlives the handler's return, where the invocation's
        # metrics are flushed (a buffered answer's events flush them a little early, nothing lost).
        metrics.flush_metrics()


def _first(pieces: Iterator[bytes]) -> bytes:
    """The first piece, made before the answer starts; a body that has none is one empty piece."""
    return next(pieces, b"")


def _after(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """``first``, then ``rest``; closing it closes ``rest`` at once (the synthesis behind it stops)."""
    try:
        yield first
        yield from rest
    finally:
        _close(rest)


def _coalesced(pieces: Iterator[bytes], min_bytes: int) -> Iterator[bytes]:
    """Pieces held until at least ``min_bytes`` are ready (the last one whatever its size)."""
    pending = b""
    try:
        for piece in pieces:
            pending += piece
            if len(pending) >= min_bytes:
                yield pending
                pending = b""
        if pending:
            yield pending
    finally:
        _close(pieces)


def _padded(events: Iterator[bytes], pad_bytes: int) -> Iterator[bytes]:
    """Each event, with a comment line before it (which every client ignores) when it is shorter than ``pad_bytes``."""
    try:
        for event in events:
            short = pad_bytes - len(event)
            yield (b":" + b" " * max(0, short - 2) + b"\n" + event) if short > 2 else event
    finally:
        _close(events)


def _close(pieces: Iterator[object]) -> None:
    close = getattr(pieces, "close", None)
    if close is not None:
        close()


def _event(data: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + _EVENT_END


def _shifted(timing: ChunkTiming, seconds: float) -> ChunkTiming:
    return ChunkTiming(timing.index, timing.text, timing.start_s + seconds, timing.end_s + seconds, timing.speech_s, timing.synth_ms)


def _marks_within(marks: list[SpeechMark], chunk: ChunkTiming, next_start_s: float | None) -> list[SpeechMark]:
    """The marks that fall in ``chunk``'s audio or the silence after it, before the next chunk."""
    start_ms = 0 if chunk.index == 0 else round(chunk.start_s * 1000)
    end_ms = None if next_start_s is None else round(next_start_s * 1000)
    return [m for m in marks if m.time_ms >= start_ms and (end_ms is None or m.time_ms < end_ms)]


def _prelude(status: int, headers: Mapping[str, str], cookies: list[str] | None = None) -> dict[str, Any]:
    return {"statusCode": status, "headers": dict(headers), "cookies": list(cookies or [])}
