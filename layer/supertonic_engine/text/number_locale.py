"""How a language writes and says its numbers: the facts ``number_rules`` reads them by.

One ``NumberLocale`` per language, in ``locales/<code>.py`` (its ``LOCALE``), loaded on the
language's first text: separators, the words around numbers (minus, the decimal mark, percent),
the CLDR rule sets that spell each kind of number (``number_words``), currencies and units with
their plural forms, clock times, numeric dates, ordinals as the language marks them, and symbols
said aloud. What a locale leaves empty is not read: its digits stay as written, never read wrongly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

# Plural categories as CLDR names them (https://cldr.unicode.org/index/cldr-spec/plural-rules),
# decided from the number's integer value; a decimal amount takes ``decimal``'s form.
PluralRule = Callable[[int], str]


def _one_other(n: int) -> str:
    return "one" if n == 1 else "other"


def _zero_one_other(n: int) -> str:  # fr, hi: 0 and 1 take the singular
    return "one" if n in (0, 1) else "other"


def _invariant(n: int) -> str:  # the noun does not change after a number (tr, hu, ja, id, vi, et's partitive aside)
    return "other"


def _east_slavic(n: int) -> str:  # ru, uk, hr, bs: 1, 21 / 2-4, 22-24 / 5-20, 25-30
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


def _west_slavic(n: int) -> str:  # cs, sk: 1 / 2-4 / 5 and more
    return "one" if n == 1 else "few" if 2 <= n <= 4 else "many"


def _polish(n: int) -> str:  # pl: 1 / 2-4, 22-24 / the rest
    if n == 1:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


def _lithuanian(n: int) -> str:  # lt: 1, 21 / 2-9, 22-29 / 10-20, 30
    if n % 10 == 1 and not 11 <= n % 100 <= 19:
        return "one"
    if 2 <= n % 10 <= 9 and not 11 <= n % 100 <= 19:
        return "few"
    return "many"


def _latvian(n: int) -> str:  # lv: 0, 10-20, 30 / 1, 21 / the rest
    if n % 10 == 0 or 11 <= n % 100 <= 19:
        return "zero"
    return "one" if n % 10 == 1 and n % 100 != 11 else "other"


def _slovenian(n: int) -> str:  # sl: 1, 101 / 2, 102 / 3-4 / the rest
    return {1: "one", 2: "two", 3: "few", 4: "few"}.get(n % 100, "other")


def _romanian(n: int) -> str:  # ro: 1 / 0, 2-19, 102-119 / 20 and more ("douăzeci de")
    if n == 1:
        return "one"
    return "few" if n == 0 or 1 <= n % 100 <= 19 else "other"


PLURALS: Mapping[str, PluralRule] = {
    "one_other": _one_other,
    "zero_one_other": _zero_one_other,
    "invariant": _invariant,
    "east_slavic": _east_slavic,
    "west_slavic": _west_slavic,
    "polish": _polish,
    "lithuanian": _lithuanian,
    "latvian": _latvian,
    "slovenian": _slovenian,
    "romanian": _romanian,
}


@dataclass(frozen=True)
class Noun:
    """A word said after a number (a unit, a currency), in each plural form the language has, and
    the rule set its number is spelled with (a feminine noun takes a feminine number: una hora)."""

    other: str
    one: str | None = None
    few: str | None = None
    many: str | None = None
    two: str | None = None
    zero: str | None = None
    decimal: str | None = None  # after a decimal amount (3,5 km); else ``other``
    ruleset: str | None = None  # None: the locale's cardinal rule set

    def form(self, category: str) -> str:
        return getattr(self, category, None) or self.other


@dataclass(frozen=True)
class Currency:
    """A currency's words and how an amount is said: ``major`` (euro), ``minor`` (cent) or None
    when cents are said as a bare number ("drei Euro fünfzig")."""

    major: Noun
    minor: Noun | None = None


@dataclass(frozen=True)
class NumberLocale:
    lang: str
    decimal_mark: str  # "," or "."
    group_marks: str  # characters that group thousands: ".", " " (and NBSP, thin space), "," or "'"
    decimal_word: str  # said for the decimal mark: Komma, coma, virgule
    minus_word: str
    plural: str = "one_other"  # a key of PLURALS
    spacing: str = " "  # between a number's words and the word after it; Japanese writes none (十キロメートル)
    # Said between a round million (or more) and the noun it counts: un millón de euros, un million d'euros.
    million_particle: str = ""
    million_particle_before_vowel: str = ""  # French elides it: d'euros
    # The rule set for a number on its own; None: every number keeps its digits (CLDR's words for the
    # language are wrong too often), and only symbols are read.
    cardinal: str | None = "spellout-numbering"
    # For a number before a word in lower case, most often the noun it counts (1 año: un año, 21 años:
    # veintiún años); None: the cardinal. A noun ``counted`` or ``counted_endings`` name takes its own.
    before_word: str | None = None
    # A number before a noun it counts is spelled in the noun's gender (una casa, двадцать одна книга,
    # dvě okna). No list holds every noun: ``counted`` names words as written after a number (the
    # commonest feminine and neuter nouns, and masculine ones an ending would mislead: día, папа) with
    # their rule set; ``counted_endings`` are (the number's plural category, or "" for any; a regex
    # the whole word matches; rule set), the first that fits deciding, where the language's endings
    # tell a gender reliably. A word neither names keeps ``before_word`` or the cardinal (masculine).
    counted: Mapping[str, str] = field(default_factory=dict)
    counted_endings: tuple[tuple[str, str, str], ...] = ()
    # A regex for the word before a number that makes it a label, not a count (German: Seite 1
    # Einleitung, Linie 1 Richtung Bahnhof): the number keeps its default reading.
    counted_not_after: str = ""
    year: str | None = "spellout-numbering-year"  # for a year after a cue word; None: the cardinal
    year_cues: tuple[str, ...] = ()  # words after which four digits are a year: im, seit, en, desde
    # Digits after the decimal mark: read as one number (tres coma catorce) or one by one (drei Komma eins vier).
    fraction_as_number: bool = False
    # The rule set of a decimal's whole (and of its fraction read as a number), whatever noun follows:
    # German counts "eins Komma fünf", Czech agrees with "celá" (jedna celá pět); None: the noun's.
    decimal_ruleset: str | None = None
    # The decimal mark's word in the form the whole asks for (jedna celá, dvě celé, pět celých; its
    # ``zero`` for 0); None: ``decimal_word``.
    decimal_words: Noun | None = None
    # Whether a noun after a decimal takes the form of the decimal's whole (French: 1,5 kilomètre,
    # 2,5 kilomètres) rather than the noun's ``decimal`` form.
    decimal_noun_by_whole: bool = False
    # Whether the decimal mark before exactly three digits groups thousands instead: Spanish is
    # written with a decimal comma in Spain and a decimal point in much of the Americas (15,000 euros).
    three_digits_group: bool = False
    percent_before: bool = False  # the sign before the number, tr %50 (yüzde elli); its word is units["%"]
    currencies: Mapping[str, Currency] = field(default_factory=dict)  # symbol or ISO code -> words
    # How an amount reads: {major} the number, {unit} the currency's word, {minor} the cents' number,
    # {subunit} their word. Without cents only ``money``.
    money: str = "{major} {unit}"
    money_with_minor: str = "{major} {unit} {minor} {subunit}"
    units: Mapping[str, Noun] = field(default_factory=dict)  # %, km, kg, °C ... -> words
    # Ordinals as the language writes them: regexes whose group "n" holds the digits, each with the
    # rule set that spells them (a feminine ordinal: 1.ª -> primera).
    ordinals: tuple[tuple[str, str], ...] = ()
    # Clock time hh:mm: {hour} spelled by ``hour_ruleset``, {minute} by ``minute_ruleset``, {hours}
    # the word for hours in the form the hour asks for (``hour_noun``: une heure, deux heures).
    time: str | None = None
    time_on_the_hour: str | None = None  # minute 00
    hour_ruleset: str | None = None  # None: the cardinal
    hour_noun: Noun | None = None
    minute_ruleset: str | None = None
    minute_zero: str = ""  # said before a minute below ten: девять ноль пять
    time_marks: str = ":"  # what separates hours from minutes (fi, da, sv also write 14.30)
    time_suffixes: tuple[str, ...] = ()  # words after a time that its reading already says: Uhr, h
    time_cues: tuple[str, ...] = ()  # words before a time written with a dot (klockan 14.30): elsewhere 14.30 stays as written
    # Numeric dates: regexes with groups "d", "m" and "y" (4 digits), each with the rule set its day
    # is spelled by (the case a preposition before it asks for: am 3. -> am dritten), read by
    # ``date``: {day}, {month} from ``months``, {year} by ``year``. What a regex matches before the
    # group "d" is kept as written.
    dates: tuple[tuple[str, str], ...] = ()
    date: str | None = None
    months: tuple[str, ...] = ()
    # Said for the hyphen or dash of a range, two numbers the higher second (3-5 Tage: drei bis fünf
    # Tage); empty where the language says such numbers side by side (ru два-три дня, it tre-quattro).
    range_word: str = ""
    # Said for the colon of a score or a ratio (2:1, 16:9: zwei zu eins); empty where the two numbers
    # are said side by side, with a pause (ru два — один, cs dva jedna).
    score_word: str = ""
    # Symbols said as a person says them: & + = ° № ... (a currency or percent is read with its number).
    symbols: Mapping[str, str] = field(default_factory=dict)
    # What the language says in a way these rules cannot (an ordinal in its noun's case, a year said
    # as an ordinal): categories of KEEPS whose digits stay as written, and regexes of its own.
    keeps: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()

    @property
    def plural_of(self) -> PluralRule:
        return PLURALS[self.plural]


# What each kept category looks like as written: left as it is, no rule reads its digits.
KEEPS: Mapping[str, str] = {
    "time": r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])",
    "date": (
        r"(?<![\d.])(?:0?[1-9]|[12]\d|3[01])\.\s?(?:0?[1-9]|1[0-2])\.(?:\s?\d{2,4})?(?!\d)"  # 24.8.2026, 24. 8. 2026
        r"|(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])"  # 2026-08-24
        r"|(?<![\d/])\d{1,2}/\d{1,2}/\d{2,4}(?![\d/])"  # 24/8/2026
        r"|(?<![\d.])\d{4}\.\s?\d{1,2}\.\s?\d{1,2}\.?"  # 2026. 08. 24.
    ),
    # A year (1990-2000 too), and a date whose year is before 2000, where years are said in hundreds.
    "year": r"(?<![\d.,/])(?:1\d|20)\d{2}(?![\d/]|[.,]\d|-\d\d-)|(?<![\d/.-])\d{1,2}[./-]\d{1,2}[./-]1\d{3}(?!\d)",
    # A number with an ordinal's dot before a word in lower case (5. mail, 3. místo), or with a
    # written ending (5-й, 21-го).
    "ordinal": r"(?<![\d.])\d{1,4}\.(?=[ \u00a0]+[a-zß-öø-ÿāăąćčďđēėęěğīįıķĺļľłńņňőœŕřśşšţťūůűųźżžа-яёіїєґ])|(?<!\d)\d+-[^\W\d_]{1,4}(?!\w)",
}


@cache
def locale_for(lang: str) -> NumberLocale | None:
    """``lang``'s locale, imported on first use; None for a language without one (its digits stay)."""
    try:
        module = importlib.import_module(f"{__package__}.locales.{lang}")
    except ModuleNotFoundError:
        return None
    locale: NumberLocale = module.LOCALE
    return locale
