"""A book's chapters as files of their own, cut from the book's audio where each chapter is first heard.

A chapter begins a chunk (chapters are apart by a blank line, which the chunker never reads
across), so the book's audio is cut at the start of speech of each chapter's first chunk:
chapter ``c``'s file runs from there to where chapter ``c + 1`` is first heard, so it begins with
its first word and ends with the pause after its last (the first chapter's file begins at the
book's start, the last one ends at the book's end). Put end to end, the chapter files hold exactly
the book's samples, and a chapter's ``start_s`` in the book is where its file's time 0 sits.

The same cut serves a book made in one invocation (``ChapterSplitter`` beside the book's writer)
and one made in parts (a part is a chunk: a chapter is a run of parts, ``chapter_chunks``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from .audio import SampleSink
from .marks import SpeechMark, _ms
from .text.book import ChapterMark


def chapter_chunks(chapters: Sequence[ChapterMark], chunk_byte_ranges: Sequence[tuple[int, int]]) -> list[range]:
    """The chunks each chapter reads, from ``chapter_marks`` and the chunks' byte ranges in the
    same text: from the first chunk ending past the chapter's start up to the next chapter's
    first. The first chapter starts at the first chunk; a chapter that normalizes to nothing
    reads none (an empty range), so every chunk belongs to exactly one chapter."""
    ends = [end for _, end in chunk_byte_ranges]
    firsts = [bisect_right(ends, chapter.start) for chapter in chapters]
    if firsts:
        firsts[0] = 0
    out = []
    for number, first in enumerate(firsts):
        following = firsts[number + 1] if number + 1 < len(firsts) else len(ends)
        out.append(range(first, max(first, following)))
    return out


def chapter_start_frames(chapters: Sequence[range], speech_starts: Sequence[int]) -> list[int | None]:
    """Where each chapter's file begins in the book, in frames: where its first chunk is first
    heard (``speech_starts``: each chunk's, after the silence before it), the book's start for
    the first chapter; None for a chapter that reads no chunk."""
    return [None if not chunks else 0 if number == 0 else speech_starts[chunks.start] for number, chunks in enumerate(chapters)]


def marks_in_chapter(marks: Sequence[SpeechMark], start_s: float, end_s: float | None) -> list[SpeechMark]:
    """The marks heard in a chapter's file (from ``start_s`` of the book up to ``end_s``, None:
    the end), timed on that file's own clock."""
    start_ms, end_ms = _ms(start_s), None if end_s is None else _ms(end_s)
    return [
        replace(mark, time_ms=mark.time_ms - start_ms, end_ms=max(mark.end_ms - start_ms, 0))
        for mark in marks
        if mark.time_ms >= start_ms and (end_ms is None or mark.time_ms < end_ms)
    ]


class ChapterSplitter:
    """Passes a book's audio to its writer and each chapter's share to a file of its own.

    ``write`` takes one chunk's samples a call, in order, as ``Engine.synthesize(into=...)`` writes
    them: the silence before the chunk (``leads[index]`` frames), its speech, and after the last one
    the silence at the end. A chapter's first chunk is cut after its silence, which ends the chapter
    before (module docstring). ``open_chapter(number)`` makes chapter ``number``'s writer when its
    first samples come; each one is closed when the next one opens, and the last by ``close``. A
    chapter that reads no chunk gets no file. ``frames``: each chapter's, at the engine's rate."""

    def __init__(
        self, book: SampleSink, chapters: Sequence[range], leads: Sequence[int], open_chapter: Callable[[int], SampleSink]
    ) -> None:
        self.book = book
        self.frames = [0] * len(chapters)
        self._firsts = {chunks.start: number for number, chunks in enumerate(chapters) if chunks}
        self._leads = leads
        self._open_chapter = open_chapter
        self._chunk = 0
        self._number: int | None = None
        self._writer: SampleSink | None = None

    def write(self, samples: np.ndarray) -> None:
        self.book.write(samples)
        index, self._chunk = self._chunk, self._chunk + 1
        starts = self._firsts.get(index)
        if starts is not None:
            cut = 0 if starts == 0 else min(self._leads[index], samples.size)
            self._to_chapter(samples[:cut])
            self._next_chapter(starts)
            samples = samples[cut:]
        self._to_chapter(samples)

    def _to_chapter(self, samples: np.ndarray) -> None:
        if self._writer is not None and self._number is not None and samples.size:
            self._writer.write(samples)
            self.frames[self._number] += samples.size

    def _next_chapter(self, number: int) -> None:
        self._close_chapter()
        self._number, self._writer = number, self._open_chapter(number)

    def _close_chapter(self) -> None:
        writer, self._writer = self._writer, None
        close = getattr(writer, "close", None)
        if close is not None:
            close()

    def close(self) -> None:
        self._close_chapter()

    def __enter__(self) -> ChapterSplitter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
