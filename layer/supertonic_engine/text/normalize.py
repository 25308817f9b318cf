"""Making text speakable before the model's own character processing.

Per language, what a reader would say replaces what is written: numbers, dates, times, money,
units and known words (see ``ko.py``, ``en.py``). Nothing the model can read is deleted. Inline
tags (``<laugh>``, ``<en>…</en>``) pass through untouched, and text inside a language tag is
normalized as that language. Whitespace is collapsed; paragraph breaks stay as one blank line
so chunking can still split at them. The other languages read their numbers by ``number_rules``, from
their locale's facts; a language without a locale keeps its digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ..errors import EmptyText, InvalidParameter
from .en import normalize_english
from .ko import normalize_korean
from .languages import LANGUAGES, check_language
from .lexicon import Lexicon, checked_entries, korean_lexicon, with_extra
from .number_rules import read_numbers
from .tags import language_of_tag, split_tags

LANGUAGE_RULES: dict[str, Callable[[str], str]] = {"ko": normalize_korean, "en": normalize_english}
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_NO_LEXICON = Lexicon({})
# URLs and e-mail addresses are kept as written: the lexicon and the number rules would tear them
# apart (https -> 에이치티티피에스, a/1/2 -> a/이분의 일). They end before trailing punctuation.
_URL_OR_EMAIL = re.compile(
    r"(?:https?://|www\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]*[A-Za-z0-9/_=#-]"
    r"|(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
)


def normalize(text: str, lang: str, *, lexicon: Mapping[str, str] | None = None) -> str:
    """``text`` as the model should read it in ``lang``; ``lexicon`` adds word -> reading entries for this call.

    Raises ``EmptyText`` for empty or blank text, ``UnknownLanguage`` for a code the model does
    not know, ``InvalidParameter`` for a malformed lexicon.
    """
    if not isinstance(text, str):
        raise InvalidParameter(f"text must be a string, got {type(text).__name__}", field="text")
    if not text.strip():
        raise EmptyText()
    check_language(lang)
    extra = tuple(checked_entries(lexicon, "lexicon", "lexicon").items()) if lexicon else ()

    spoken = []
    languages = [lang]  # innermost language tag last
    for segment in split_tags(text):
        if segment.is_tag:
            name, closing = language_of_tag(segment.text)
            if name in LANGUAGES:
                if not closing:
                    languages.append(name)
                elif len(languages) > 1 and languages[-1] == name:
                    languages.pop()
            spoken.append(segment.text)
        else:
            spoken.append(_normalize_plain(segment.text, languages[-1], extra))
    return collapse_whitespace("".join(spoken))


def _normalize_plain(text: str, lang: str, extra: tuple[tuple[str, str], ...]) -> str:
    spoken: list[str] = []
    start = 0
    for match in _URL_OR_EMAIL.finditer(text):
        spoken += [_normalize_words(text[start : match.start()], lang, extra), match.group()]
        start = match.end()
    spoken.append(_normalize_words(text[start:], lang, extra))
    return "".join(spoken)


def _normalize_words(text: str, lang: str, extra: tuple[tuple[str, str], ...]) -> str:
    # Lexicon first: its entries may hold digits (B2B, S3) that the number rules would take.
    base = korean_lexicon() if lang == "ko" else _NO_LEXICON
    text = with_extra(base, extra).apply(text)
    rules = LANGUAGE_RULES.get(lang)
    return rules(text) if rules else read_numbers(text, lang)


def collapse_whitespace(text: str) -> str:
    """Runs of whitespace as one space; a blank line stays, as one, so chunking still splits there."""
    paragraphs = (" ".join(paragraph.split()) for paragraph in _PARAGRAPH_BREAK.split(text))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)
