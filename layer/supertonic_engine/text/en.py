"""English: numbers, dates, times, money, units and common abbreviations spelled out in words.

Acronyms stay as capital letters, which the model reads letter by letter.
"""

from __future__ import annotations

import re

from .numbers import (
    DOTTED_NUMBER,
    EN_CARDINAL_LIMIT,
    MINUS_SIGN,
    WHOLE_NUMBER,
    en_cardinal,
    en_digits,
    en_number,
    en_ordinal,
    en_written_ordinal,
    en_year,
    split_number,
    value_below,
)
from .rules import Rule, alternation, apply_rules

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTH_BY_NAME = (
    {name: number for number, name in enumerate(MONTHS, start=1)}
    | {name[:3]: number for number, name in enumerate(MONTHS, start=1)}
    | {"Sept": 9}
)
# Abbreviation -> expansion, and whether a sentence may end on it (so its period must stay).
ABBREVIATIONS = {
    "Mr.": ("Mister", False),
    "Mrs.": ("Missus", False),
    "Ms.": ("Miz", False),
    "Dr.": ("Doctor", False),
    "Prof.": ("Professor", False),
    "Mt.": ("Mount", False),
    "Jr.": ("Junior", True),
    "Sr.": ("Senior", True),
    "vs.": ("versus", False),
    "etc.": ("et cetera", True),
    "e.g.": ("for example", False),
    "i.e.": ("that is", False),
    "approx.": ("approximately", False),
    "Inc.": ("Incorporated", True),
    "Ltd.": ("Limited", True),
    "Co.": ("Company", True),
    "Corp.": ("Corporation", True),
    "Ave.": ("Avenue", True),
    "Blvd.": ("Boulevard", True),
    "Dept.": ("Department", True),
}
# Unit -> (singular, plural); "1 km" is one kilometer, "1.5 km" one point five kilometers.
UNITS = {
    "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "kg": ("kilogram", "kilograms"),
    "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"),
    "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "ft": ("foot", "feet"),
    "L": ("liter", "liters"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "ms": ("millisecond", "milliseconds"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "℃": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "℉": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
}
CURRENCIES = {  # symbol -> (unit, units, subunit, subunits)
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", None, None),
}
# Words after which a four-digit number is a year: "in 1999", "since 2010".
YEAR_CUES = "in since by from until till to through during before after around circa year early late mid".split()

_ABBREVIATION = "|".join(map(re.escape, ABBREVIATIONS))
_MONTH = "|".join(sorted(MONTH_BY_NAME, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"  # captures the day's number
_SCALE = "thousand|million|billion|trillion"
_YEAR = r"1[1-9]\d\d|20\d\d"
_MERIDIEM = r" ?(?P<meridiem>[AaPp])\.?[Mm]\.?"


def _ends_sentence(match: re.Match[str]) -> bool:
    """Whether the period a match swallowed also ended a sentence (end of text, or a capital follows)."""
    return re.match(r"\s*$|\s+[A-Z\"'(]", match.string[match.end() :]) is not None


def _abbreviation(match: re.Match[str]) -> str:
    word = match.group()
    if word == "St.":
        # Saint before a name (St. Louis), Street after one (Main St.).
        before = match.string[: match.start()]
        after = match.string[match.end() :]
        # A name on the same line or the next, never across a blank line (a title "St." ends its paragraph).
        street = re.search(r"[A-Z][a-z]*\s$", before) or not re.match(r"[^\S\n]*\n?[^\S\n]*[A-Z]", after) or not after[:1].isspace()
        expansion, may_end = ("Street", True) if street else ("Saint", False)
    else:
        expansion, may_end = ABBREVIATIONS[word]
    return expansion + ("." if may_end and _ends_sentence(match) else "")


def phone_words(text: str) -> str:
    """A phone number digit by digit, its groups apart: +1-555-0100 -> plus one, five five five, zero one zero zero."""
    groups = re.findall(r"\d+", text)
    spoken = ", ".join(en_digits(group) for group in groups)
    return ("plus " if text.startswith("+") else "") + spoken


def _phone(match: re.Match[str]) -> str:
    return phone_words(match.group())


def _month_day(month: str, day: str, year: str | None) -> str | None:
    if not 1 <= int(day) <= 31:
        return None
    spoken = f"{MONTHS[MONTH_BY_NAME[month] - 1]} {en_ordinal(int(day))}"
    return spoken + (f", {en_year(int(year))}" if year else "")


def _date_month_first(match: re.Match[str]) -> str:
    return _month_day(*match.groups()) or match.group()


def _date_day_first(match: re.Match[str]) -> str:
    day, month, year = match.groups()
    if not 1 <= int(day) <= 31:
        return match.group()
    spoken = f"the {en_ordinal(int(day))} of {MONTHS[MONTH_BY_NAME[month] - 1]}"
    return spoken + (f", {en_year(int(year))}" if year else "")


def _date_iso(match: re.Match[str]) -> str:
    year, month, day = match.groups()
    if not 1 <= int(month) <= 12:
        return match.group()
    return _month_day(MONTHS[int(month) - 1], day, year) or match.group()


def _month_year(match: re.Match[str]) -> str:
    month, year = match.groups()
    return f"{MONTHS[MONTH_BY_NAME[month] - 1]} {en_year(int(year))}"


def _time(match: re.Match[str]) -> str:
    parts = match.groupdict()
    meridiem = parts["meridiem"]
    hour, minute, second = (int(parts.get(name) or 0) for name in ("hour", "minute", "second"))
    if hour > 24 or minute > 59 or second > 59 or (meridiem and not 1 <= hour <= 12):
        return match.group()
    words = [en_cardinal(hour)]
    if minute:
        words.append(f"oh {en_cardinal(minute)}" if minute < 10 else en_cardinal(minute))
    elif not meridiem:
        words.append("o'clock" if hour <= 12 else "hundred")
    if second:
        words.append(f"and {en_cardinal(second)} second" + ("s" if second > 1 else ""))
    if meridiem:
        words.append(meridiem[0].upper() + "M")
    spoken = " ".join(words)
    return spoken + ("." if match.group().endswith(".") and _ends_sentence(match) else "")


def _currency(match: re.Match[str]) -> str:
    symbol, number, scale = match.groups()
    unit, units, subunit, subunits = CURRENCIES[symbol]
    integer, fraction = split_number(number)
    if scale:
        return f"{en_number(number)} {scale} {units}"
    major = value_below(integer, EN_CARDINAL_LIMIT)
    if subunit is None or not fraction or len(fraction) > 2 or major is None:
        return f"{en_number(number)} {unit if number == '1' else units}"
    minor = int(fraction.ljust(2, "0"))
    words = []
    if major or not minor:
        words.append(f"{en_cardinal(major)} {unit if major == 1 else units}")
    if minor:
        words.append(f"{en_cardinal(minor)} {subunit if minor == 1 else subunits}")
    return " and ".join(words)


def _plural(words: str) -> str:
    return words[:-1] + "ies" if words.endswith("y") else words + "s"


def _unit(match: re.Match[str]) -> str:
    number, unit = match.groups()
    singular, plural = UNITS[unit.strip()]
    return f"{en_number(number)} {singular if number == '1' else plural}"


RULES: tuple[Rule, ...] = (
    Rule("abbreviation", re.compile(rf"(?<![A-Za-z.])(?:{_ABBREVIATION}|St\.)"), _abbreviation),
    Rule("number sign", re.compile(r"(?<![\w&])(?:No\.|#) ?(?=\d)"), lambda m: "number "),
    Rule(
        "phone number",
        re.compile(r"(?<![\d-])(?:\+?1[-. ])?(?:\(\d{3}\) ?|\d{3}[-.])\d{3}[-.]\d{4}(?![\d-])|(?<![\d-])\d{3}-\d{4}(?![\d-])"),
        _phone,
    ),
    Rule("date, month first", re.compile(rf"\b({_MONTH})\.? {_DAY}\b(?:,? ({_YEAR})\b)?"), _date_month_first),
    Rule("date, day first", re.compile(rf"\b{_DAY} ({_MONTH})\.?\b(?:,? ({_YEAR})\b)?"), _date_day_first),
    Rule("date, numeric", re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])"), _date_iso),
    Rule("month and year", re.compile(rf"\b({_MONTH})\.? ({_YEAR})\b"), _month_year),
    Rule(
        "clock time",
        re.compile(rf"(?<![\d:])(?P<hour>\d{{1,2}}):(?P<minute>\d{{2}})(?::(?P<second>\d{{2}}))?(?:{_MERIDIEM})?(?![\w:])"),
        _time,
    ),
    Rule("hour", re.compile(rf"(?<![\d:.,])(?P<hour>\d{{1,2}}){_MERIDIEM}(?!\w)"), _time),
    Rule("dotted number", re.compile(DOTTED_NUMBER), lambda m: " dot ".join(en_number(part) for part in m.group().split("."))),
    Rule("currency", re.compile(rf"([$€£¥]) ?({WHOLE_NUMBER})(?: ({_SCALE})\b)?"), _currency),
    Rule("decade", re.compile(r"(?<!\d)(\d{2,3}0)s\b"), lambda m: _plural(en_year(int(m.group(1))))),
    Rule(
        "year range",
        re.compile(rf"(?<!\d)({_YEAR}) ?[-–] ?({_YEAR})(?!\d)"),
        lambda m: f"{en_year(int(m.group(1)))} to {en_year(int(m.group(2)))}",
    ),
    Rule("year", re.compile(rf"(?i:\b({'|'.join(YEAR_CUES)})) ({_YEAR})(?!\d|,\d)"), lambda m: f"{m.group(1)} {en_year(int(m.group(2)))}"),
    Rule("ordinal", re.compile(r"(?<!\d)(\d+)(?:st|nd|rd|th)\b"), lambda m: en_written_ordinal(m.group(1))),
    Rule("negative sign", re.compile(MINUS_SIGN), lambda m: "minus "),
    Rule("range", re.compile(r"(?<=\d)(?:[-–~]| ?[–~] ?)(?=\d)"), lambda m: " to "),
    Rule("unit", re.compile(rf"({WHOLE_NUMBER})( ?(?:{alternation(UNITS)}))"), _unit),
    Rule("number", re.compile(WHOLE_NUMBER), lambda m: en_number(m.group())),
    Rule("percent sign", re.compile(r"%"), lambda m: " percent"),
    Rule("ampersand", re.compile(r" ?& ?"), lambda m: " and "),
)


def normalize_english(text: str) -> str:
    """English text with numbers, dates, times, money, units and abbreviations in words."""
    return apply_rules(text, RULES)
