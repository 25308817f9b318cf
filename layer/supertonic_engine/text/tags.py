"""Inline tags such as ``<laugh>``, ``<breath>`` or ``<en>…</en>``: found once, never rewritten or split.

A tag is ``<`` + optional ``/`` + a name that starts with a letter and holds no spaces or
sentence punctuation + ``>``. Requiring the letter keeps comparisons like ``3 < 5`` out, and
the absence of spaces means no sentence or clause boundary can fall inside a tag.
"""

from __future__ import annotations

import re
from typing import NamedTuple

TAG = re.compile(r"</?[A-Za-z][\w:.=-]{0,47}/?>")


class Segment(NamedTuple):
    text: str
    is_tag: bool


def split_tags(text: str) -> list[Segment]:
    """``text`` cut into tags and the plain text between them, in order, nothing dropped."""
    segments: list[Segment] = []
    position = 0
    for match in TAG.finditer(text):
        if match.start() > position:
            segments.append(Segment(text[position : match.start()], False))
        segments.append(Segment(match.group(), True))
        position = match.end()
    if position < len(text):
        segments.append(Segment(text[position:], False))
    return segments


def tag_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every tag in ``text``."""
    return [match.span() for match in TAG.finditer(text)]


def language_of_tag(tag: str) -> tuple[str, bool]:
    """``("en", False)`` for ``<en>``, ``("en", True)`` for ``</en>``: the tag's name and whether it closes."""
    closing = tag.startswith("</")
    return tag[2 if closing else 1 : -1].rstrip("/"), closing
