"""Characters of ordinary text that the model's table cannot read, written as characters it can.

The official pipeline (``unicode.py``) already folds curly quotes, dashes, spaces and compatibility
forms (NFKD), but some characters that ordinary text of a supported language holds still map to
id -1 in Supertonic 3's ``unicode_indexer.json``: German, Polish or Czech „low quotes“, a soft
hyphen, Hindi's double danda, the Arabic semicolon. Each is written here as what the model reads.
This step runs on everything the model reads, normalized or not (``Script`` applies it to the
spoken text), and touches only characters the official pipeline cannot read, so the ids of any
text the official SDK reads correctly stay the SDK's. docs/readable-characters.md lists every
such character and what becomes of it.
"""

from __future__ import annotations

from collections.abc import Mapping

# Each key maps to id -1 after the official pipeline; each value is read (tests/test_readable.py checks both).
FOLDS: Mapping[str, str] = {
    # Quotation marks the official symbol table misses: low-9 („…“ ‚…‘), reversed, single guillemets
    # (Swiss ‹…›) and primes, as the plain quotes it gives their curly neighbours (“ → ", ‘ → ').
    "\u201e": '"',
    "\u201f": '"',
    "\u201a": "'",
    "\u201b": "'",
    "\u2039": "'",
    "\u203a": "'",
    "\u2032": "'",
    "\u2033": '"',
    # The modifier letter apostrophe, Ukrainian's official apostrophe (мʼята), as the plain one.
    "\u02bc": "'",
    # Invisible format characters carry no sound: the soft hyphen of copied web text, the joiners
    # Hindi and Arabic typing inserts, right-to-left and embedding marks, the byte order mark. (The
    # table has ids for U+200B, U+200E and U+202B, which therefore pass as they are.)
    "\u00ad": "",
    "\u200c": "",
    "\u200d": "",
    "\u200f": "",
    "\u061c": "",
    "\u202a": "",
    "\u202c": "",
    "\u202d": "",
    "\u202e": "",
    "\u2060": "",
    "\u2066": "",
    "\u2067": "",
    "\u2068": "",
    "\u2069": "",
    "\ufeff": "",
    # German capital sharp s (all-caps text): the same letter as ß, which the model reads.
    "\u1e9e": "\u00df",
    # Hindi: the double danda ends a verse as the danda ends a sentence; the abbreviation sign is a
    # period (डॉ॰); independent vowel ऋ is said "ri" in Hindi (its vowel sign ृ is in the table); ॐ is "om".
    "\u0965": "\u0964",
    "\u0970": ".",
    "\u090b": "\u0930\u093f",
    "\u0950": "\u0913\u092e\u094d",
    **{chr(0x0966 + digit): str(digit) for digit in range(10)},  # Devanagari digits, as the digits the model reads
    # Arabic: the semicolon as the Arabic comma (the pause the model knows in Arabic script), the
    # decimal and thousands separators as the Western ones.
    "\u061b": "\u060c",
    "\u066b": ".",
    "\u066c": ",",
    # Japanese brackets and marks: tortoise shell brackets as parentheses, white lenticular as black
    # ones, the alternate closing double prime as the usual one; the postal mark 〒 is not read aloud.
    "\u3014": "(",
    "\u3015": ")",
    "\u3016": "\u3010",
    "\u3017": "\u3011",
    "\u301e": "\u301f",
    "\u3012": "",
    # Currency signs of supported languages' countries the table lacks (₹ € ₩ are read): the
    # abbreviation that country's text writes without the sign.
    "\u20bd": "руб.",
    "\u20b4": "грн",
    "\u20ba": "TL",
    "\u20ab": "đ",
}
_TABLE = str.maketrans(dict(FOLDS))


def readable(text: str) -> str:
    """``text`` with each character of ``FOLDS`` written as the model reads it."""
    return text.translate(_TABLE)
