"""What a request says, as written and as read: the one place text turns into what the model reads.

A ``Script`` is the text as written (for SSML, the document's words with the markup taken out),
cut into sections that are each read in one language and separated by pauses (an SSML
``<break>``; a ``<lang>`` switch). Inside a section, stretches may be said as something else
(``<sub alias>``, ``<say-as>``); the rest is normalized as the section's language. Chunks are
made from what each section reads, and speech marks measure any stretch of the written text by
reading it the same way, so both always agree. Byte offsets point into the input as sent.

Plain text is a script of one section, read exactly as ``normalize`` reads it. Whatever is read,
characters the model's table lacks are then written as ones it reads (``readable.py``).
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from ..errors import EmptyText
from .normalize import collapse_whitespace, normalize
from .readable import readable

BLANK_LINE = re.compile(r"\n\s*\n")  # a paragraph break


@dataclass(frozen=True)
class Said:
    """``text[start:end]`` of the script is said as ``words`` (already as the model reads them)."""

    start: int
    end: int
    words: str


@dataclass(frozen=True)
class Section:
    """``text[start:end]`` read in ``lang``; ``pause_s`` is the silence before it (None: the usual one)."""

    start: int
    end: int
    lang: str
    pause_s: float | None = None
    said: tuple[Said, ...] = ()  # in order, never overlapping

    @functools.cached_property
    def said_ends(self) -> list[int]:
        return [said.end for said in self.said]


@dataclass(frozen=True)
class NamedMark:
    """An SSML ``<mark name>``: heard where ``text[position:]`` begins; ``start``/``end`` its bytes in ``source``."""

    position: int
    start: int
    end: int
    name: str


@dataclass(frozen=True)
class Script:
    text: str  # as written: the input itself, or an SSML document's words
    source: str  # the input as sent
    sections: tuple[Section, ...]
    normalize: bool = True  # whether plain stretches are normalized (``said`` stretches always are read as said)
    tail_s: float = 0.0  # silence after the last section (a break at the end)
    # Per character of ``text``: its bytes in the UTF-8 ``source`` (start, end); None when ``text`` is ``source``.
    byte_spans: tuple[tuple[int, int], ...] | None = None
    is_ssml: bool = False
    ignored: tuple[str, ...] = ()  # SSML elements ("emphasis") and attributes ("prosody volume") skipped, in order
    named_marks: tuple[NamedMark, ...] = ()
    rate: float = 1.0  # a factor of the speed the text asks for (SSML ``<prosody rate>`` around every word)

    @classmethod
    def plain(cls, text: str, lang: str, *, normalize: bool = True) -> Script:
        return cls(text, text, (Section(0, len(text), lang),), normalize)

    def spoken(self, start: int = 0, end: int | None = None) -> str:
        """``text[start:end]`` as the model would read it, sections joined by a blank line."""
        end = len(self.text) if end is None else end
        first = max(0, bisect_right(self._section_starts, start) - 1)
        last = bisect_left(self._section_starts, end)
        pieces = [
            self._read(section, max(start, section.start), min(end, section.end))
            for section in self.sections[first:last]
            if section.start < end and start < section.end
        ]
        return _tidy("\n\n".join(pieces), self._collapse)

    def section_spoken(self, section: Section) -> str:
        """What one section reads: the text its chunks are made from."""
        return _tidy(self._read(section, section.start, section.end), self._collapse)

    def lang_at(self, position: int) -> str:
        """The language of the section that holds ``text[position]`` (the last section's past its end)."""
        return self.sections[max(0, bisect_right(self._section_starts, position) - 1)].lang

    def byte_range(self, start: int, end: int) -> tuple[int, int]:
        """The UTF-8 bytes of ``source`` that ``text[start:end]`` was written as (Polly's mark offsets)."""
        if self.byte_spans is None:
            return self._byte_prefix[start], self._byte_prefix[end]
        first = self.byte_spans[start][0] if start < len(self.byte_spans) else len(self.source.encode("utf-8"))
        last = self.byte_spans[end - 1][1] if end > start else first
        return first, last

    @functools.cached_property
    def _byte_prefix(self) -> list[int]:
        prefix = [0]
        for char in self.text:
            prefix.append(prefix[-1] + len(char.encode("utf-8", "surrogatepass")))
        return prefix

    @functools.cached_property
    def _section_starts(self) -> list[int]:
        return [section.start for section in self.sections]

    @property
    def _collapse(self) -> bool:
        # Markup's whitespace is layout, never meaning; plain text sent with normalize off stays as sent.
        return self.normalize or self.is_ssml

    def _read(self, section: Section, start: int, end: int) -> str:
        pieces, position = [], start
        first = bisect_right(section.said_ends, start)
        for said in section.said[first:]:
            if said.start >= end:
                break
            pieces.append(self._normalized(self.text[position : max(position, said.start)], section.lang))
            pieces.append(_share(said, start, end))
            position = max(position, said.end)
        pieces.append(self._normalized(self.text[position:end], section.lang))
        return "".join(pieces)

    def _normalized(self, text: str, lang: str) -> str:
        if not self.normalize or not text:
            return text
        core = text.strip()
        if not core:
            return _space(text)
        lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
        return _space(lead) + read_as(core, lang) + _space(trail)


def read_as(text: str, lang: str) -> str:
    """``text`` normalized as ``lang``; nothing when nothing in it is said (symbols only)."""
    try:
        return normalize(text, lang)
    except EmptyText:
        return ""


def _share(said: Said, start: int, end: int) -> str:
    """The part of ``said.words`` that ``text[start:end]`` covers: all of it when the stretch lies
    inside, else the same share of its characters (a word inside a ``<sub>`` of several words), so
    the shares of neighbouring stretches add up to the whole."""
    if start <= said.start and said.end <= end:
        return said.words
    length, size = said.end - said.start, len(said.words)
    first = round(size * (max(start, said.start) - said.start) / length)
    last = round(size * (min(end, said.end) - said.start) / length)
    return said.words[first:last]


def _space(whitespace: str) -> str:
    """Whitespace as the text's layout: a blank line stays a paragraph break, anything else one space."""
    if not whitespace:
        return ""
    return "\n\n" if BLANK_LINE.search(whitespace) else " "


def _tidy(text: str, collapse: bool) -> str:
    # Characters the model's table lacks are written as ones it reads whatever the options: --no-normalize
    # skips the rewriting into words, not this.
    text = readable(text)
    return collapse_whitespace(text) if collapse else text
