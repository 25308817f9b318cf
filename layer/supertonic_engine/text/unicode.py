"""The model's own text processing: what Supertonic does to text before it becomes token ids.

This reproduces the official pipeline step by step (NFKD, emoji removal, symbol folding, spacing,
a final period, the ``<lang>…</lang>`` wrapper) so the same text gives the same ids, and adds
what a service needs on top: characters the model cannot read are reported by name instead of
being silently mapped to id -1.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from ..errors import UnsupportedCharacters

_EMOJI = re.compile(
    "[\U0001f600-\U0001f64f\U0001f300-\U0001f5ff\U0001f680-\U0001f6ff\U0001f700-\U0001f77f"
    "\U0001f780-\U0001f7ff\U0001f800-\U0001f8ff\U0001f900-\U0001f9ff\U0001fa00-\U0001fa6f"
    "\U0001fa70-\U0001faff\u2600-\u26ff\u2700-\u27bf\U0001f1e6-\U0001f1ff]+"
)
_SYMBOLS = {
    "\u2013": "-",
    "\u2011": "-",
    "\u2014": "-",
    "\u00af": " ",
    "_": " ",
    "\u201c": '"',
    "\u201d": '"',
    "\u2018": "'",
    "\u2019": "'",
    "\u00b4": "'",
    "`": "'",
    "[": " ",
    "]": " ",
    "|": " ",
    "/": " ",
    "#": " ",
    "\u2192": " ",
    "\u2190": " ",
}
_DECORATIONS = re.compile(r"[♥☆♡©\\]")
_EXPANSIONS = (("@", " at "), ("e.g.,", "for example, "), ("i.e.,", "that is, "))
_SPACE_BEFORE = re.compile(r" ([,.!?;:'])")
_REPEATED_QUOTES = re.compile(r'(["\'`])\1+')
_WHITESPACE = re.compile(r"\s+")
_ENDS_SENTENCE = re.compile(r"[.!?;:,'\"')\]}…。」』】〉》›»]$")


def model_text(text: str, lang: str | None) -> str:
    """The exact string the model reads for ``text`` (language tags included when ``lang`` is given)."""
    text = _fold(text)
    if not _ENDS_SENTENCE.search(text):
        text += "."
    return f"<{lang}>{text}</{lang}>" if lang is not None else text


def says_nothing(text: str) -> bool:
    """Whether the model would read nothing of ``text`` but the full stop it is given (only emoji,
    symbols it drops, punctuation): such a chunk is not sent to it."""
    return not model_text(text, None).strip(". ")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = _EMOJI.sub("", text)
    for old, new in _SYMBOLS.items():
        text = text.replace(old, new)
    text = _DECORATIONS.sub("", text)
    for old, new in _EXPANSIONS:
        text = text.replace(old, new)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _REPEATED_QUOTES.sub(r"\1", text)
    return _WHITESPACE.sub(" ", text).strip()


class TextEncoder:
    """Turns text into the ``text_ids``/``text_mask`` pair the graphs take, using the model's indexer."""

    def __init__(self, indexer: np.ndarray) -> None:
        self._indexer = indexer

    def readable(self, char: str) -> bool:
        code = ord(char)
        return code < len(self._indexer) and self._indexer[code] >= 0

    def check(self, text: str) -> None:
        """Raise ``UnsupportedCharacters`` naming each input character the model cannot read."""
        unreadable = set()
        for char in set(text):
            # A character may become several (NFKD) or nothing (emoji); judge what it becomes.
            if any(not self.readable(c) for c in _fold(char)):
                unreadable.add(char)
        if unreadable:
            raise UnsupportedCharacters(unreadable)

    def encode(self, text: str, lang: str | None) -> tuple[np.ndarray, np.ndarray]:
        """``text_ids`` int64 [1, T] and ``text_mask`` float32 [1, 1, T] for one chunk."""
        prepared = model_text(text, lang)
        codes = np.fromiter((ord(c) for c in prepared), dtype=np.int64, count=len(prepared))
        known = codes < len(self._indexer)
        ids = np.where(known, self._indexer[np.where(known, codes, 0)], -1)
        if (ids < 0).any():
            raise UnsupportedCharacters({prepared[i] for i in np.flatnonzero(ids < 0)})
        ids = ids.reshape(1, -1)
        mask = np.ones((1, 1, ids.shape[1]), dtype=np.float32)
        return ids, mask
