"""onnx/unicode_indexer.json: code point -> token id (0..8321) or -1, for the whole BMP.

Coverage follows what the real model reads after the host's NFKD normalisation: the scripts of
its 31 languages, combining diacritics, Hangul conjoining jamo (composed syllables decompose into
them, so the syllables themselves map to -1), kana, CJK punctuation, fullwidth forms, and the
most common CJK ideographs (taken from the GB 2312 and JIS X 0208 character sets) to fill the
vocabulary. Control, format, private-use and unassigned code points and emoji map to -1.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from .dims import VOCAB_SIZE

BMP_SIZE = 0x10000
UNSUPPORTED = -1

# (first, last) code point of each supported block.
SCRIPT_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x0020, 0x007E),  # ASCII printable, with the < > / of the <xx>...</xx> language tags
    (0x00A0, 0x00FF),  # Latin-1 supplement
    (0x0100, 0x024F),  # Latin Extended-A and -B
    (0x0300, 0x036F),  # combining diacritical marks (NFKD output of accented letters)
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x04FF),  # Cyrillic
    (0x0600, 0x06FF),  # Arabic
    (0x0900, 0x097F),  # Devanagari
    (0x1100, 0x11FF),  # Hangul conjoining jamo (NFKD output of Hangul syllables)
    (0x2010, 0x205E),  # general punctuation: dashes, quotes, ellipsis, ...
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xFF00, 0xFFEF),  # fullwidth and halfwidth forms
)
CJK_IDEOGRAPHS = (0x4E00, 0x9FFF)
# Categories that never name a speakable character: unassigned, control, format, surrogate,
# private use, line and paragraph separators.
_SKIPPED_CATEGORIES = frozenset({"Cn", "Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def build_indexer() -> list[int]:
    """The 65,536-entry list; ids are given in code-point order, so every id below 8322 is used."""
    supported = set(_script_characters())
    budget = VOCAB_SIZE - len(supported)
    for code in _common_ideographs():
        if budget == 0:
            break
        if code not in supported:
            supported.add(code)
            budget -= 1
    indexer = [UNSUPPORTED] * BMP_SIZE
    for token_id, code in enumerate(sorted(supported)):
        indexer[code] = token_id
    return indexer


def _script_characters() -> Iterator[int]:
    for first, last in SCRIPT_BLOCKS:
        for code in range(first, last + 1):
            if unicodedata.category(chr(code)) not in _SKIPPED_CATEGORIES:
                yield code


def _common_ideographs() -> Iterator[int]:
    """CJK ideographs, most common first: GB 2312 level 1, JIS X 0208 level 1, then level 2 of both.

    Each level lists its characters in rows of 94 (lead bytes), decoded through Python's codecs.
    """
    levels = (("gb2312", 0xB0, 0xD7), ("euc_jp", 0xB0, 0xCF), ("gb2312", 0xD8, 0xF7), ("euc_jp", 0xD0, 0xF4))
    for codec, first_row, last_row in levels:
        for row in range(first_row, last_row + 1):
            for cell in range(0xA1, 0xFF):
                try:
                    char = bytes((row, cell)).decode(codec)
                except UnicodeDecodeError:
                    continue  # the last row of a level is not full
                if CJK_IDEOGRAPHS[0] <= ord(char) <= CJK_IDEOGRAPHS[1]:
                    yield ord(char)
