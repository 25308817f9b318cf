"""One request through the engine under the invocation's deadline, encoded and described.

Every source (HTTP, S3, direct) renders the same way: the budget is the time Lambda has left
minus a margin, handed to the engine's hard deadline, so a long text ends in ``DeadlineExceeded``
(a 504 or an error manifest) instead of Lambda killing the container mid-request and the next
caller paying a cold start. Everything that grows with the audio happens inside that budget: the
engine encodes as it synthesizes (Opus at a few tens of times real time is not free), and keeps
back the time delivering that much audio takes (base64, an upload to S3) once its length is
forecast. The margin covers the fixed rest: closing the file, building the response.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote

from supertonic_engine import AudioWriter, ChapterSplitter, Deadline, Engine, Prepared, SynthesisResult, content_type
from supertonic_engine.errors import NoTimeToStart

from .results import AudioSummary, ChunkEntry
from .telemetry import record_synthesis

# Bytes a second that delivering an answer moves after synthesis: base64 and the size check run at
# about 1 GB/s, while an answer over 6 MB is uploaded to S3, taken here at a conservative 20 MB/s
# for one PUT from Lambda; an S3 job's audio is uploaded the same way.
DELIVERY_BYTES_PER_S = 20e6


@dataclass(frozen=True)
class Rendered:
    """Finished audio and everything a response or a manifest says about it."""

    request: Prepared
    result: SynthesisResult
    audio: bytes | None  # None when the audio was encoded straight into ``audio_path``
    audio_path: Path | None
    size_bytes: int
    content_type: str
    extension: str
    sample_rate: int  # of the encoded file (Opus is always 48 kHz)
    encode_ms: float
    chapters: list[ChapterAudio] = field(default_factory=list)  # a book's, when asked for

    def summary(self, *, with_text: bool) -> AudioSummary:
        """What every document says of this audio; ``with_text``: each chunk with what the model
        read (a synchronous answer, whose text is bounded), else by its byte range alone."""
        r = self.result
        ranges = self.request.chunk_byte_ranges
        chunks = [ChunkEntry(c.index, *ranges[c.index], c.start_s, c.end_s, c.synth_ms, c.text if with_text else None) for c in r.chunks]
        return AudioSummary(
            format=self.request.format.name,
            content_type=self.content_type,
            size_bytes=self.size_bytes,
            duration_s=r.duration_s,
            sample_rate=self.sample_rate,
            synth_ms=r.synth_ms,
            encode_ms=self.encode_ms,
            model=r.model_kind,
            precision=r.precision,
            options=self.request.options,
            characters=len(self.request.text),
            chunks=chunks,
        )

    def headers(self) -> dict[str, str]:
        """Response headers that let a client use the audio without parsing it."""
        r = self.result
        return (
            {
                "content-type": self.content_type,
                "x-supertonic-duration-s": f"{r.duration_s:.3f}",
                "x-supertonic-sample-rate": str(self.sample_rate),
                "x-supertonic-rtf": f"{r.rtf:.4f}",
                "x-supertonic-synth-ms": f"{r.synth_ms:.0f}",
            }
            | described_headers(self.sample_rate, len(r.chunks), r.model_kind, r.precision, self.request.options.voice)
            | ignored_header(self.request)
        )


def ignored_header(request: Prepared) -> dict[str, str]:
    """``x-supertonic-ssml-ignored``: the SSML elements and attributes skipped (``"ssml": "lenient"``),
    such as ``prosody volume, emphasis``; no header when nothing was."""
    ignored = request.script.ignored
    # An element's name may be any XML name; a header value must be ASCII.
    return {"x-supertonic-ssml-ignored": ", ".join(quote(what, safe=":-. ") for what in ignored)} if ignored else {}


def described_headers(sample_rate: int, chunks: int, model_kind: str, precision: str, voice: str) -> dict[str, str]:
    """What every audio answer, whole or streamed, says of itself in its headers."""
    return {
        "x-supertonic-sample-rate": str(sample_rate),
        "x-supertonic-chunks": str(chunks),
        "x-supertonic-model": model_kind,
        "x-supertonic-precision": precision,
        # A custom voice's file name may be any text; a header value must be ASCII.
        "x-supertonic-voice": quote(voice, safe=":,."),
    }


@dataclass(frozen=True)
class ChapterAudio:
    """A chapter's own file, cut from the book's audio as it was made (``ChapterSplitter``)."""

    path: Path | None  # None: the chapter reads nothing aloud, so it has no file
    frames: int  # at the engine's rate

    @property
    def size_bytes(self) -> int | None:
        return None if self.path is None else self.path.stat().st_size


def render(
    engine: Engine,
    request: Prepared,
    *,
    budget_s: float | None,
    source: str,
    into: Path | None = None,
    upload_bytes_per_s: float | None = None,
    chapters: Sequence[range] = (),
) -> Rendered:
    """Synthesize and encode within ``budget_s``, chunk by chunk: into the file ``into`` (for long
    texts: memory stays flat), else into bytes. ``upload_bytes_per_s``: the budget also covers
    uploading that file at this rate (synthesis stops early enough for it). ``chapters`` (each
    one's chunks, ``chapter_chunks``; with ``into`` only): each chapter is also encoded into a file
    of its own beside ``into`` as it is made, and uploaded too."""
    if budget_s is not None and budget_s <= 0:
        raise NoTimeToStart(budget_s, 0.0, "delivering the answer")
    if chapters and into is None:
        raise ValueError("chapter files are written beside a file: pass into")
    fmt = request.format
    copies = 2 if chapters else 1  # the chapter files hold the book's audio again
    delivery = copies * fmt.max_bytes_per_s(engine.sample_rate) / DELIVERY_BYTES_PER_S
    request = replace(request, limits=replace(request.limits, after_s_per_audio_s=delivery))
    target = io.BytesIO() if into is None else into
    paths: dict[int, Path] = {}
    with AudioWriter(target, fmt, engine.sample_rate) as writer:
        # Shipping what is written so far is kept back from the deadline, so synthesis and the
        # upload together fit in the budget; the writer checks the same deadline before each block.
        shipping = (lambda: copies * writer.bytes_written / upload_bytes_per_s) if upload_bytes_per_s else None
        deadline = Deadline(budget_s, hold_back_s=shipping)
        writer.before_block = deadline.check

        def open_chapter(number: int) -> AudioWriter:
            paths[number] = Path(f"{into}-chapter-{number + 1:04d}")
            return AudioWriter(paths[number], fmt, engine.sample_rate, before_block=deadline.check)

        leads = [engine.frames(pause) for pause in request.pauses]
        with ChapterSplitter(writer, chapters, leads, open_chapter) as splitter:
            result = engine.synthesize(request, deadline=deadline, into=splitter if chapters else writer)
    audio: bytes | None
    if isinstance(target, io.BytesIO):
        audio = target.getvalue()
        size = len(audio)
    else:
        audio, size = None, target.stat().st_size
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
        content_type=content_type(fmt, result.sample_rate),
        extension=fmt.extension,
        sample_rate=fmt.sample_rate or result.sample_rate,
        encode_ms=result.encode_ms,
        chapters=[ChapterAudio(paths.get(number), frames) for number, frames in enumerate(splitter.frames)],
    )
