"""English: numbers, dates, times, money, units and common abbreviations spelled out in words.

Acronyms stay as capital letters, which the model reads letter by letter. Roman numerals are read
only where the words before them make them numbers (Chapter IV, World War II, Queen Elizabeth II),
so a capital I or a word in capitals (MIX, CIVIL) is never taken for one. Fractions are read as a
recipe reader says them (1/2 one half, 1 1/2 one and a half); a slash that is not a fraction of a
common denominator (12/25, a date) keeps its digits as numbers.
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
    "sec": ("second", "seconds"),
    "secs": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "mi": ("mile", "miles"),
    "yd": ("yard", "yards"),
    "yds": ("yard", "yards"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt-hour", "kilowatt-hours"),
    # Said as "milliamp hours" by most readers rather than the SI name's "milliampere-hours".
    "mAh": ("milliamp-hour", "milliamp-hours"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "℃": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "℉": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
}
# "in" is an inch only where it cannot be the preposition: glued to its number (5in) or with its
# period (5 in.); in "5 in the box" it stays a word. (A sentence ending "put 5 in." is read as inches.)
INCH = ("inch", "inches")
CURRENCIES = {  # symbol -> (unit, units, subunit, subunits)
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", None, None),
}
# Words after which a Roman numeral is a number read as a cardinal: Chapter IV is chapter four.
NUMBERED_HEADINGS = (
    "Chapter",
    "Part",
    "Volume",
    "Book",
    "Act",
    "Scene",
    "Section",
    "Article",
    "Appendix",
    "Phase",
    "Episode",
    "World War",
    "Super Bowl",
)
# Given names borne by numbered monarchs and popes: after one a Roman numeral is a regnal number,
# read "the" and an ordinal (Elizabeth II, the second). A list, not any capitalised word, because
# sequels and models (Rocky II, Mark II, Final Fantasy VII) read as cardinals.
MONARCH_NAMES = (
    "Alexander Alfonso Amenhotep Anne Benedict Boniface Catherine Charles Christian Clement Constantine David Edward "
    "Elizabeth Ferdinand Francis Frederick Frederik George Gregory Gustaf Gustav Haakon Harald Henry Innocent Ivan James "
    "John Joseph Juan Leo Leopold Louis Malcolm Mary Napoleon Nicholas Olav Paul Peter Philip Pius Ramesses Richard "
    "Robert Sixtus Stephen Thutmose Urban Victor Wilhelm Willem William"
).split()
# A title before the name makes even a lone I a numeral (King Charles I); without one, "Henry I
# know" is the pronoun, so a lone I needs punctuation or a possessive after it (Elizabeth I, ...).
MONARCH_TITLES = "King Queen Pope Emperor Empress Tsar Czar Kaiser Pharaoh Prince Princess Duke Sultan".split()
ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
# Recipe and school usage (Merriam-Webster, "quarter" 1a): halves and quarters by those names,
# other parts by their ordinal. Only these denominators make a fraction of a slash: 12/25 is a date.
FRACTION_DENOMINATORS = (2, 3, 4, 5, 6, 8, 16)
UNICODE_FRACTIONS = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
}
# Words after which a four-digit number is a year: "in 1999", "since 2010".
YEAR_CUES = "in since by from until till to through during before after around circa year early late mid".split()

_ABBREVIATION = "|".join(map(re.escape, ABBREVIATIONS))
_MONTH = "|".join(sorted(MONTH_BY_NAME, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"  # captures the day's number
_SCALE = "thousand|million|billion|trillion"
_YEAR = r"1[1-9]\d\d|20\d\d"
_MERIDIEM = r" ?(?P<meridiem>[AaPp])\.?[Mm]\.?"
# Canonical Roman numerals I..MMMCMXCIX, standing alone (not the start of MIX or CIVIL).
_ROMAN = r"(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?![A-Za-z0-9])"
_HEADING = alternation(word for heading in NUMBERED_HEADINGS for word in (heading, heading.upper()))
# A period after a unit is the abbreviation's when the sentence goes on in lower case (10 min. later).
_UNIT_PERIOD = r"(?:\.(?=[^\S\n]+[a-z]))?"


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
    singular, plural = UNITS[unit] if unit else INCH
    return f"{en_number(number)} {singular if number == '1' else plural}"


def roman_value(numeral: str) -> int | None:
    """A canonical Roman numeral's value; None for a lone C, D, L or M, which label (Appendix C)."""
    if numeral in ("C", "D", "L", "M"):
        return None
    values = [ROMAN_VALUES[letter] for letter in numeral]
    return sum(-value if value < following else value for value, following in zip(values, [*values[1:], 0], strict=True))


def _heading_number(match: re.Match[str]) -> str:
    heading, numeral = match.groups()
    value = roman_value(numeral)
    return match.group() if value is None else f"{heading} {en_cardinal(value)}"


def _regnal_number(match: re.Match[str]) -> str:
    title, name, numeral = match.groups()
    value = roman_value(numeral)
    after = match.string[match.end() :]
    lone_i_is_a_pronoun = numeral == "I" and not title and not re.match(r"['’]s\b|[,.;:!?)]|\s*$", after)
    # One letter, a dot and a capitalized word is a middle initial: John V. Smith.
    an_initial = len(numeral) == 1 and re.match(r"\. [A-Z]", after) is not None and not title
    if value is None or lone_i_is_a_pronoun or an_initial:
        return match.group()
    return match.group()[: match.start(3) - match.start()] + f"the {en_ordinal(value)}"


def _fraction_part(numerator: int, denominator: int) -> str:
    name = {2: "half", 4: "quarter"}.get(denominator) or en_ordinal(denominator)
    if numerator == 1:
        return name
    return "halves" if denominator == 2 else name + "s"


def fraction_words(whole: str | None, numerator: int, denominator: int) -> str:
    """3/4 -> three quarters; with a whole number, "and" and a single part as "a": 1 1/2 -> one and a half."""
    part = _fraction_part(numerator, denominator)
    if whole is None:
        return f"{en_cardinal(numerator)} {part}"
    count = ("an" if part[0] in "aeiou" else "a") if numerator == 1 else en_cardinal(numerator)
    return f"{en_number(whole)} and {count} {part}"


def _fraction(match: re.Match[str]) -> str:
    whole, numerator, denominator = match.group(1), int(match.group(2)), int(match.group(3))
    if denominator not in FRACTION_DENOMINATORS or numerator >= denominator:
        return match.group()
    return fraction_words(whole, numerator, denominator)


def _unicode_fraction(match: re.Match[str]) -> str:
    return fraction_words(match.group(1), *UNICODE_FRACTIONS[match.group(2)])


RULES: tuple[Rule, ...] = (
    Rule("abbreviation", re.compile(rf"(?<![A-Za-z.])(?:{_ABBREVIATION}|St\.)"), _abbreviation),
    Rule("numbered heading", re.compile(rf"\b({_HEADING}) ({_ROMAN})"), _heading_number),
    Rule(
        "regnal number",
        re.compile(rf"\b(?:({alternation(MONARCH_TITLES)}) (?:[A-Z][a-z]+ )?)?({alternation(MONARCH_NAMES)}) ({_ROMAN})"),
        _regnal_number,
    ),
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
    # A colon that cannot be a clock time (one digit, or three or more, after it) is a ratio: 16:9.
    Rule(
        "ratio", re.compile(r"(?<![\d:.,])(\d+):(\d|\d{3,})(?![\d:]|\.\d)"), lambda m: f"{en_number(m.group(1))} to {en_number(m.group(2))}"
    ),
    # Dimensions and resolutions glued to an x (3x4, 1920x1080) are "by"; a number glued before an
    # x alone is a multiple (2x faster). 0x1F is hexadecimal and stays.
    Rule(
        "dimensions", re.compile(r"(?<![\w.])([1-9]\d*)x(\d+)(?!\w|\.\d)"), lambda m: f"{en_number(m.group(1))} by {en_number(m.group(2))}"
    ),
    # 2-3x: a range of multiples (the range's "to" read here, since this rule runs first).
    Rule(
        "multiple",
        re.compile(r"(?<![\w.])(?:([1-9]\d*)[-–])?([1-9]\d*(?:\.\d+)?)x(?![A-Za-z0-9])"),
        lambda m: (f"{en_number(m.group(1))} to " if m.group(1) else "") + f"{en_number(m.group(2))} times",
    ),
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
    Rule("around the clock", re.compile(r"(?<![\w/])24/7(?![\w/])"), lambda m: "twenty-four seven"),
    # "on 3/4" is a date in American writing, so a slash after "on" is left alone.
    Rule(
        "fraction",
        re.compile(r"(?<![\w/.:,-])(?<!\b[Oo]n )(?:(\d{1,3}) )?([1-9]\d?)/(\d{1,2})(?![\w/⁄]|[.,]\d)"),
        _fraction,
    ),
    Rule("fraction character", re.compile(rf"(?:(?<![\d.,])(\d{{1,3}}) ?)?([{''.join(UNICODE_FRACTIONS)}])"), _unicode_fraction),
    Rule("range", re.compile(r"(?<=\d)(?:[-–~]| ?[–~] ?)(?=\d)"), lambda m: " to "),
    Rule("unit", re.compile(rf"({WHOLE_NUMBER})(?: ?({alternation(UNITS)})|in(?![A-Za-z0-9])| in(?=\.)){_UNIT_PERIOD}"), _unit),
    Rule("number", re.compile(WHOLE_NUMBER), lambda m: en_number(m.group())),
    Rule("percent sign", re.compile(r"%"), lambda m: " percent"),
    Rule("ampersand", re.compile(r" ?& ?"), lambda m: " and "),
)


def normalize_english(text: str) -> str:
    """English text with numbers, dates, times, money, units and abbreviations in words."""
    return apply_rules(text, RULES)
