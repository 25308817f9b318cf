"""One request through the engine under the invocation's deadline, encoded and described.

Every source (HTTP, S3, direct) renders the same way: the synthesis budget is the time Lambda
has left minus a margin for encoding and upload, handed to the engine's hard deadline, so a long
text ends in ``DeadlineExceeded`` (a 504 or an error manifest) instead of Lambda killing the
container mid-request and the next caller paying a cold start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from supertonic_engine import Engine, SynthesisResult
from supertonic_engine.audio import audio_format, content_type, encode
from supertonic_engine.errors import DeadlineExceeded

from .request import TtsRequest
from .telemetry import record_synthesis


class InvocationContext(Protocol):
    """The part of Lambda's context object the function uses."""

    aws_request_id: str

    def get_remaining_time_in_millis(self) -> int: ...


@dataclass(frozen=True)
class Rendered:
    """Finished audio and everything a response or a manifest says about it."""

    request: TtsRequest
    result: SynthesisResult
    audio: bytes | None  # None when the audio was encoded straight into ``audio_path``
    audio_path: Path | None
    size_bytes: int
    content_type: str
    extension: str
    sample_rate: int  # of the encoded file (Opus is always 48 kHz)
    encode_ms: float

    def summary(self) -> dict[str, Any]:
        """The JSON description shared by JSON responses, direct invokes and manifests."""
        r = self.result
        o = self.request.options
        return {
            "format": self.request.format,
            "content_type": self.content_type,
            "bytes": self.size_bytes,
            "duration_s": round(r.duration_s, 4),
            "sample_rate": self.sample_rate,
            "synth_ms": round(r.synth_ms, 1),
            "encode_ms": round(self.encode_ms, 1),
            "rtf": round(r.rtf, 4),
            "model": r.model_kind,
            "precision": r.precision,
            "voice": o.voice,
            "lang": o.lang,
            "steps": o.steps,
            "speed": o.speed,
            "seed": o.seed,
            "characters": len(self.request.text),
            "chunks": [
                {
                    "index": c.index,
                    "text": c.text,
                    "start_s": round(c.start_s, 4),
                    "end_s": round(c.end_s, 4),
                    "synth_ms": round(c.synth_ms, 1),
                }
                for c in r.chunks
            ],
        }

    def headers(self) -> dict[str, str]:
        """Response headers that let a client use the audio without parsing it."""
        r = self.result
        return {
            "content-type": self.content_type,
            "x-supertonic-duration-s": f"{r.duration_s:.3f}",
            "x-supertonic-sample-rate": str(self.sample_rate),
            "x-supertonic-rtf": f"{r.rtf:.4f}",
            "x-supertonic-synth-ms": f"{r.synth_ms:.0f}",
            "x-supertonic-chunks": str(len(r.chunks)),
            "x-supertonic-model": r.model_kind,
            "x-supertonic-precision": r.precision,
        }


def synthesis_budget_s(context: InvocationContext | None, margin_s: float) -> float | None:
    """Seconds synthesis may take in this invocation; None outside Lambda (no context, no deadline)."""
    if context is None:
        return None
    return context.get_remaining_time_in_millis() / 1000.0 - margin_s


def render(engine: Engine, request: TtsRequest, *, budget_s: float | None, source: str, into: Path | None = None) -> Rendered:
    """Synthesize and encode; with ``into`` the audio is encoded chunk by chunk into that file
    (for long texts: memory stays flat), else returned as bytes."""
    if budget_s is not None and budget_s <= 0:
        # Nothing is left beyond the margin: earlier work in this invocation (another record of
        # the same S3 event) used the time, or the timeout is not longer than the margin. A cold
        # start is no cause: Lambda does not count the init phase against the timeout.
        raise DeadlineExceeded(budget_s=max(budget_s, 0.0), elapsed_s=0.0)
    if into is None:
        result = engine.synthesize_with(request.text, request.options, timeout_s=budget_s)
        started = time.perf_counter()
        audio: bytes | None = encode(result.audio, result.sample_rate, request.format)
        encode_ms = (time.perf_counter() - started) * 1000.0
        size = len(audio)
    else:
        result = engine.synthesize_into(into, request.format, request.text, request.options, timeout_s=budget_s)
        audio, encode_ms, size = None, result.encode_ms, into.stat().st_size
    fmt = audio_format(request.format)
    record_synthesis(
        source=source,
        characters=len(request.text),
        audio_s=result.duration_s,
        synth_ms=result.synth_ms,
        rtf=result.rtf,
        model_kind=result.model_kind,
    )
    return Rendered(
        request=request,
        result=result,
        audio=audio,
        audio_path=into,
        size_bytes=size,
        content_type=content_type(request.format, result.sample_rate),
        extension=fmt.extension,
        sample_rate=fmt.sample_rate or result.sample_rate,
        encode_ms=encode_ms,
    )
