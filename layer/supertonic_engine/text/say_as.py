"""SSML ``<say-as interpret-as="...">``: how a stretch of text is to be read, as words.

English and Korean have readings of their own (the same number words normalization uses);
every other language spells out characters and digits one by one and leaves cardinals,
ordinals and dates to the model, which reads digits as written in that language.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import InvalidSsml
from .en import MONTHS, normalize_english, phone_words
from .ko import LETTER_NAMES, normalize_korean
from .numbers import NUMBER, en_digits, en_number, en_written_ordinal, en_year, ko_digits, ko_native, ko_number, value_below

# Polly's names first, the W3C note's aliases after them.
INTERPRETATIONS = ("characters", "spell-out", "cardinal", "number", "ordinal", "digits", "date", "telephone")
DATE_FORMATS = ("mdy", "dmy", "ymd", "md", "dm", "ym", "my", "d", "m", "y", "yyyymmdd")
_SIGNED_NUMBER = re.compile(rf"([-−+]?)\s*({NUMBER})")
_DIGITS = re.compile(r"\d+")
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th|\.|번째|번|째)?")
_EN_DIGIT_WORDS = dict(zip("0123456789", en_digits("0123456789").split(), strict=True))
_KO_DIGIT_WORDS = dict(zip("0123456789", ko_digits("0123456789", zero="영"), strict=True))


def say_as(content: str, interpret_as: str, date_format: str | None, lang: str) -> str:
    """``content`` read as ``interpret_as`` in ``lang``; ``InvalidSsml`` when it cannot be read so."""
    content = " ".join(content.split())
    if not content:
        return ""
    kind = {"spell-out": "characters", "number": "cardinal"}.get(interpret_as, interpret_as)
    reader = _READERS[kind]
    return reader(content, lang, date_format)


def _characters(content: str, lang: str, _: str | None) -> str:
    if lang == "ko":
        names = [LETTER_NAMES.get(c.upper(), _KO_DIGIT_WORDS.get(c, c)) for c in content if not c.isspace()]
    elif lang == "en":
        names = [_EN_DIGIT_WORDS.get(c, c.upper()) for c in content if not c.isspace()]
    else:
        names = [c for c in content if not c.isspace()]
    return " ".join(names)


def _digits(content: str, lang: str, _: str | None) -> str:
    if not _DIGITS.search(content):
        raise _unreadable("digits", content, "digits such as 1203")
    words = {"en": _EN_DIGIT_WORDS, "ko": _KO_DIGIT_WORDS}.get(lang, {})
    return " ".join(words.get(c, c) for c in content if c.isdigit())


def _cardinal(content: str, lang: str, _: str | None) -> str:
    match = _SIGNED_NUMBER.fullmatch(content)
    if match is None:
        raise _unreadable("cardinal", content, "a number such as 1,234 or -3.5")
    sign, number = match.groups()
    if lang == "en":
        return {"-": "minus ", "−": "minus ", "+": "plus "}.get(sign, "") + en_number(number)
    if lang == "ko":
        return {"-": "마이너스 ", "−": "마이너스 ", "+": "플러스 "}.get(sign, "") + ko_number(number)
    return content


def _ordinal(content: str, lang: str, _: str | None) -> str:
    match = _ORDINAL.fullmatch(content)
    if match is None:
        raise _unreadable("ordinal", content, "a whole number such as 3 (or 3rd)")
    digits = match.group(1)
    if lang == "en":
        return en_written_ordinal(digits)
    if lang == "ko":
        value = value_below(digits, 100)
        if value == 1:
            return "첫 번째"
        return f"{ko_native(value) if value else ko_number(digits)} 번째"
    return digits


def _telephone(content: str, lang: str, _: str | None) -> str:
    groups = _DIGITS.findall(content)
    if not groups:
        raise _unreadable("telephone", content, "a number such as +1-555-0100")
    if lang == "en":
        return phone_words(content)
    plus = ("플러스 " if lang == "ko" else "+") if content.startswith("+") else ""
    if lang == "ko":
        said = [ko_digits(group) for group in groups]  # 공 for zero, as phone numbers are read
    else:
        said = [" ".join(group) for group in groups]
    return plus + ", ".join(said)


def _date(content: str, lang: str, date_format: str | None) -> str:
    fields = _DIGITS.findall(content)
    fmt = date_format or _default_date_format(fields, lang)
    if fmt == "yyyymmdd":
        if len(fields) != 1 or len(fields[0]) != 8:
            raise _unreadable("date", content, 'eight digits such as 20240305 for format="yyyymmdd"')
        fields, fmt = [fields[0][:4], fields[0][4:6], fields[0][6:]], "ymd"
    if len(fields) != len(fmt) or any(len(f) > 4 for f in fields):
        raise _unreadable("date", content, f'{len(fmt)} number(s) of at most 4 digits for format="{fmt}"')
    parts = dict(zip(fmt, (int(f) for f in fields), strict=True))
    if not 1 <= parts.get("m", 1) <= 12 or not 1 <= parts.get("d", 1) <= 31:
        raise _unreadable("date", content, f'a month from 1 to 12 and a day from 1 to 31 in the order "{fmt}"')
    year, month, day = parts.get("y"), parts.get("m"), parts.get("d")
    if lang == "en" and month is None and day is None and year is not None:
        return en_year(year)
    if lang == "en":
        written = " ".join(x for x in (MONTHS[month - 1] if month else "", f"{day}" if day else "") if x)
        if year is not None:
            written = f"{written}, {year}" if day and month else f"{written} {year}".strip()
        # "5" alone reads as a number, so a lone day is an ordinal ("the fifth").
        return normalize_english(written) if month or year is not None else f"the {en_written_ordinal(str(day))}"
    if lang == "ko":
        written = " ".join(f"{value}{unit}" for value, unit in ((year, "년"), (month, "월"), (day, "일")) if value is not None)
        return normalize_korean(written)
    return content


def _default_date_format(fields: list[str], lang: str) -> str:
    if len(fields) == 1 and len(fields[0]) == 8:
        return "yyyymmdd"
    if len(fields) == 3:
        return "ymd" if len(fields[0]) == 4 or lang in ("ko", "ja", "zh") else ("mdy" if lang == "en" else "dmy")
    raise _unreadable("date", " ".join(fields) or "(no digits)", 'a full date, or a format attribute such as format="md"')


def _unreadable(kind: str, content: str, wanted: str) -> InvalidSsml:
    return InvalidSsml(f'<say-as interpret-as="{kind}"> reads {wanted}; it holds {content[:40]!r}')


_READERS: dict[str, Callable[[str, str, str | None], str]] = {
    "characters": _characters,
    "cardinal": _cardinal,
    "ordinal": _ordinal,
    "digits": _digits,
    "date": _date,
    "telephone": _telephone,
}
