"""Numbers read aloud in a language from its ``NumberLocale``: the same rules for every language,
its facts and words where the grammar differs.

In order, as a reader meets them: numeric dates, clock times, ranges, money (the symbol before or after),
percentages, numbers with a unit, ordinals as the language marks them, years after a cue word,
the minus sign, then any number left, then symbols said aloud. A number the language's rules
cannot spell keeps its digits.

A number written in the other convention (an English-style ``3.5 kg`` in a Spanish text) is read by
one documented rule: in a language whose decimal mark is a comma, a dot followed by exactly three
digits groups thousands (``1.000`` is a thousand) and a dot followed by one digit or four or more is
a decimal point (``3.5`` is three and a half; a dot before exactly two digits stays as written,
``ALWAYS_KEPT`` says why); in a language whose decimal mark is a dot, the
same holds for the comma (``1,000`` a thousand, ``3,5`` three and a half). A comma followed by three
digits in a comma-decimal language is that language's own decimal (``1,234`` is one point two three four),
unless its locale says both conventions are common (``three_digits_group``: Spanish 15,000 is fifteen thousand).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from .number_locale import KEEPS, Noun, NumberLocale, locale_for
from .number_words import LARGEST, spell
from .numbers import MINUS_SIGN
from .rules import Rule, alternation, apply_rules

_SPACES = " \u00a0\u202f"  # a space, a no-break space, a narrow no-break space: how French and others group


# What no language's rules read, whatever its locale, because the digits are not one number or
# cannot be told apart: phone numbers (a country code or a leading 0: 030 1234567, +49 30 123456),
# ISBNs, dates written year first (2024-05-03), runs of colons (23:59:59), and, where the decimal mark
# is a comma, a dot before exactly two digits (14.30 is a time as often as 3.50 is a price) and a
# day and month without a year (am 3.5.). They stay as written; the model reads their digits.
ALWAYS_KEPT = (
    r"(?<![A-Za-z0-9_+.,/:-])(?<!\d )(?!(?:0?[1-9]|[12]\d|3[01])[./-](?:0?[1-9]|1[0-2])[./-]\d{2,4}(?!\d))"  # not a date: 01.03.2025
    r"(?:\+\d{1,3}|\(?0\d{1,4}\)?)(?:[ \-/.]?\(?\d{2,8}\)?){1,5}(?!\d)",
    r"(?<!\d)\(\d{2,3}\) ?\d{4,5}-\d{4}(?!\d)",
    # after a telephone's name or abbreviation, however it is grouped (tel. 601 234 567)
    r"(?i:(?<!\w)(?:tel|tél|tlf|puh|phone|telefon\w*|tel[eé]fono|téléphone|телефон\w*|тел)\.?:?\s*)\+?[\d(][\d ()/.\-]{5,}\d",
    r"(?<![\d-])8[ -]\(?\d{3}\)?[ -]\d{3}[ -]\d{2}[ -]\d{2}(?!\d)",
    r"ISBN(?:-1[03])?:?\s?(?:\d[\- ]?){9,12}[\dX]",
    r"(?<![\d.])\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)",
    r"(?<![\d:])\d+(?::\d+){2,}",
)
COMMA_DECIMAL_KEPT = (
    r"(?<![\d.,])\d{1,2}\.\d{2}(?!\d|[.,]\d)",
    r"(?<![\d.])(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?!\d)",
)
# Letters of the alphabets whose words a number glued to is part of (MP3, H2O, 12a): not Japanese or
# Hindi, whose counters follow a number with no space (3時, 5वां).
_GLUED = "A-Za-zÀ-ɏͰ-ϿЀ-ӿ"


class _Reader:
    """Spells the numbers of one locale; every method answers None where the digits must stay."""

    def __init__(self, locale: NumberLocale) -> None:
        self.locale = locale
        decimal = locale.decimal_mark
        self.other_mark = "." if decimal == "," else ","
        # Spaces group only where the language groups with them; commas and dots are read by ``split``.
        self.spaces = _SPACES if " " in locale.group_marks else ""
        marks = re.escape(".," + self.spaces)
        # A number: digits in groups of three with an optional decimal part, or digits with one mark;
        # never a piece of a longer run of digits and marks (1.2.3, 12:30:15), and never begun inside
        # one (a lookbehind that also sees a group space: a run of groups is matched once, not once a group).
        grouped = rf"\d{{1,3}}(?:[{marks}]\d{{3}})+(?:[.,]\d+)?"
        self.pattern = rf"(?<![\d.,])(?<!\d[{marks}])(?:{grouped}|\d+(?:[.,]\d+)?)(?!\d|[{marks}]\d)"
        self.endings = tuple((category, re.compile(ending), ruleset) for category, ending, ruleset in locale.counted_endings)
        self.label = re.compile(rf"(?<!\S)(?:{locale.counted_not_after})[ \u00a0]$") if locale.counted_not_after else None

    def category(self, digits: str) -> str:
        """The plural category of an integer as written (a number past 18 digits: as many)."""
        return self.locale.plural_of(int(digits) if len(digits) < 19 else 5)

    def counting(self, digits: str, word: str) -> str | None:
        """The rule set for the integer ``digits`` counting ``word`` (its gender), or None where the
        locale does not know the word: the default reading."""
        ruleset = self.locale.counted.get(word)
        if ruleset is not None or not self.endings:
            return ruleset
        category = self.category(digits)
        for wanted, ending, ruleset in self.endings:
            if wanted in ("", category) and ending.fullmatch(word):
                return ruleset
        return None

    def split(self, token: str) -> tuple[str, str]:
        """The integer digits and the decimal digits of a number as written (the module docstring's rule)."""
        if "," in token and "." in token:  # both marks: the last one is the decimal mark (1.234,5 or 1,234.5)
            last = max(token.rfind(","), token.rfind("."))
            return re.sub(r"\D", "", token[:last]), token[last + 1 :]
        pieces = re.split(r"\D", token)
        if len(pieces) > 2 and all(len(piece) == 3 for piece in pieces[1:]):  # 1 000 000, 1.000 000: groups
            return "".join(pieces), ""
        for space in self.spaces:  # a space only ever groups
            token = token.replace(space, "")
        mark = "," if "," in token else "." if "." in token else ""
        if not mark:
            return token, ""
        pieces = token.split(mark)
        if len(pieces) > 2:  # 1.000.000: groups (the pattern takes no other run of marks)
            return "".join(pieces), ""
        integer, fraction = pieces
        groups = len(fraction) == 3 and (mark == self.other_mark or self.locale.three_digits_group)
        return (integer + fraction, "") if groups else (integer, fraction)

    def integer(self, digits: str, ruleset: str | None = None) -> str | None:
        """Digits as one number, or one by one where people read them so (a leading zero, past ``LARGEST``)."""
        lang, rules = self.locale.lang, ruleset or self.locale.cardinal
        if rules is None:
            return None
        if (len(digits) > 1 and digits.startswith("0")) or len(digits) > len(str(LARGEST)):
            return self.digits(digits)
        return spell(int(digits), lang, rules)

    def digits(self, digits: str) -> str | None:
        if self.locale.cardinal is None:
            return None
        words = [spell(int(digit), self.locale.lang, self.locale.cardinal) for digit in digits]
        return None if None in words else self.locale.spacing.join(w for w in words if w)

    def number(self, token: str, ruleset: str | None = None) -> str | None:
        integer, fraction = self.split(token)
        locale = self.locale
        if not fraction:
            return self.integer(integer, ruleset)
        whole = self.integer(integer, locale.decimal_ruleset or ruleset)
        if whole is None:
            return None
        as_number = locale.fraction_as_number and len(fraction) <= 3 and not fraction.startswith("0")
        part = self.integer(fraction, locale.decimal_ruleset) if as_number else self.digits(fraction)
        mark, words = locale.decimal_word, locale.decimal_words
        if words is not None:  # jedna celá, dvě celé, pět celých; nula celá
            mark = words.zero if words.zero and not integer.strip("0") else words.form(self.category(integer or "0"))
        return None if part is None else locale.spacing.join((whole, mark, part))

    def with_noun(self, token: str, noun: Noun) -> str | None:
        """A number and the word after it, in the form the number asks for (3,5 km: the decimal form)."""
        integer, fraction = self.split(token)
        said = self.number(token, noun.ruleset)
        if said is None and self.locale.cardinal is None:
            said = token  # a language whose numbers keep their digits still says its noun, agreed with the number
        if said is None:
            return None
        if fraction and not self.locale.decimal_noun_by_whole:
            word = noun.decimal or noun.other
        else:
            word = noun.form(self.category(integer or "0"))
        if not fraction:
            word = self.counted(int(integer) if len(integer) < 19 else 0, word)
        if self.locale.percent_before and noun is self.locale.units.get("%"):  # tr 50%: yüzde elli, as %50
            return self.locale.spacing.join((word, said))
        return self.locale.spacing.join((said, word))

    def counted(self, value: int, noun: str) -> str:
        """``noun`` after ``value``, with the particle a round million asks for (un millón de euros, un million d'euros)."""
        particle, elided = self.locale.million_particle, self.locale.million_particle_before_vowel
        if not particle or value < 1_000_000 or value % 1_000_000:
            return noun
        if elided and noun[:1].lower() in "aeiouyéèêh":
            return elided + noun
        return f"{particle} {noun}"


def _or_kept(said: str | None, match: re.Match[str]) -> str:
    return match.group() if said is None else said


def build_rules(locale: NumberLocale) -> tuple[Rule, ...]:
    """The locale's rules, in the order the module docstring gives."""
    reader = _Reader(locale)
    number = reader.pattern
    rules: list[Rule] = []

    if locale.date and locale.months:
        for pattern, day_ruleset in locale.dates:
            rules.append(Rule("date, numeric", re.compile(pattern), _date_speller(reader, day_ruleset)))
    if locale.time:
        marks = re.escape(locale.time_marks)
        suffix = rf"(?:\s?(?:{alternation(locale.time_suffixes)})(?!\w))?" if locale.time_suffixes else ""
        clock = rf"(?P<hour{{n}}>[01]?\d|2[0-4])[{marks}](?P<minute{{n}}>[0-5]\d)(?![\d]|[{marks}]\d)"
        first, second = clock.format(n=""), clock.format(n="2")
        # From one time to another (14:00-16:00), said with the locale's range word, else a pause.
        span = rf"(?<![\d:.,]){first}(?:[-–]| – ){second}{suffix}"
        spell_time = _time_speller(reader)
        rules.append(Rule("clock time span", re.compile(span), spell_time))
        rules.append(Rule("clock time", re.compile(rf"(?<![\d:.,]){first}{suffix}"), spell_time))
    if locale.cardinal is not None:
        # A colon before a single digit is no clock time (its minutes have two): a score or a ratio
        # (2:1, 16:9), said with the locale's word for it, else side by side with a pause.
        score = r"(?<![\d:.,])(?P<a>\d{1,2}):(?P<b>\d)(?!\d|[:.,]\d)"
        rules.append(Rule("score", re.compile(score), _score_speller(reader)))
    if locale.range_word:
        # Two numbers joined by a hyphen or a dash (an en dash with spaces too), the second the
        # higher: a range, said with the locale's word (3-5 Tage: drei bis fünf Tage); what follows
        # reads the numbers. Not a score (2-1), a run of three (3-2-1), a number with a leading 0
        # (a phone's, a date's), a number glued to letters (COVID-19, A-4).
        value = rf"(?:[1-9]\d{{0,3}}|0)(?:{re.escape(locale.decimal_mark)}\d+)?"
        joined = rf"(?<![{_GLUED}\d.,:/–-])(?P<low>{value})(?:[-–]| – )(?P<high>{value})(?![{_GLUED}\d]|[.,:/–-]\d)(?=\s?(?P<after>\S*))"
        rules.append(Rule("range", re.compile(joined), _range_speller(reader)))
    # The minus sign before what reads an amount: -5 °C is minus five degrees.
    rules.append(Rule("minus sign", re.compile(MINUS_SIGN), lambda m: f"{locale.minus_word} "))
    if locale.currencies:
        symbols = alternation(locale.currencies)
        rules.append(Rule("money, sign first", re.compile(rf"(?P<sign>{symbols})\s?(?P<amount>{number})"), _money_speller(reader)))
        rules.append(Rule("money, sign after", re.compile(rf"(?P<amount>{number})\s?(?P<sign>{symbols})(?!\w)"), _money_speller(reader)))
    percent = locale.units.get("%")
    if percent is not None and locale.percent_before:
        rules.append(Rule("percent", re.compile(rf"%\s?(?P<amount>{number})"), lambda m: _or_kept(_percent_first(reader, m), m)))
    if locale.units:
        units = alternation(locale.units)
        rules.append(
            Rule(
                "number with a unit",
                re.compile(rf"(?P<amount>{number})\s?(?P<unit>{units})(?![\w%])"),
                lambda m: _or_kept(reader.with_noun(m.group("amount"), locale.units[m.group("unit")]), m),
            )
        )
    for pattern, ruleset in locale.ordinals:
        rules.append(Rule("ordinal", re.compile(pattern), _ordinal_speller(reader, ruleset)))
    if locale.year_cues:
        cues = "|".join(map(re.escape, locale.year_cues))
        year_rules = locale.year or locale.cardinal
        rules.append(
            Rule(
                "year",
                re.compile(rf"(?i:(?<!\w)(?P<cue>{cues}))\s(?P<year>1\d{{3}}|20\d{{2}})(?![\d]|[.,]\d)"),
                lambda m: f"{m.group('cue')} {_or_kept(reader.integer(m.group('year'), year_rules), m)}",
            )
        )
    glued = rf"(?<![{_GLUED}])(?:{number})(?![{_GLUED}])"  # a number that is part of a word (MP3, H2O, 12a) stays
    if locale.before_word or locale.counted or locale.counted_endings:
        rules.append(
            Rule(
                "number before a word",
                re.compile(rf"(?<![{_GLUED}])(?P<amount>{number})(?=[ \u00a0](?P<word>[^\W\d_]+))"),
                lambda m: _or_kept(_counting(reader, m), m),
            )
        )
    rules.append(Rule("number", re.compile(glued), lambda m: _or_kept(reader.number(m.group()), m)))
    # A currency sign without an amount is said as the currency's name (en €: en euros).
    said = {sign: currency.major.other for sign, currency in locale.currencies.items() if not sign.isalnum()} | dict(locale.symbols)
    if said:
        rules.append(Rule("symbol", re.compile(alternation(said)), lambda m: f" {said[m.group()]} "))
    return tuple(rules)


def _counting(reader: _Reader, match: re.Match[str]) -> str | None:
    """A number before a word: in the gender of a noun the locale knows, else ``before_word`` before a
    word in lower case (1 año: un año), else the cardinal."""
    token, word = match.group("amount"), match.group("word")
    integer, fraction = reader.split(token)
    label = reader.label is not None and reader.label.search(match.string, max(0, match.start() - 40), match.start())
    ruleset = None if fraction or label else reader.counting(integer, word)
    if ruleset is None and _LOWER.match(word):
        ruleset = reader.locale.before_word
    return reader.number(token, ruleset)


_LOWER = re.compile("[a-zà-ÿ]")


# Two years a range spans (1990-2000): four digits from 1100 to 2099, at most two centuries apart.
_YEAR = re.compile(r"1[1-9]\d{2}|20\d{2}")
_YEARS_APART = 200


def _range_speller(reader: _Reader) -> Callable[[re.Match[str]], str]:
    locale = reader.locale
    measures = {*locale.currencies, *locale.units}

    def value(written: str) -> float:
        return float(written.replace(locale.decimal_mark, "."))

    def spell_range(match: re.Match[str]) -> str:
        low, high = match.group("low"), match.group("high")
        if value(low) >= value(high):
            return match.group()
        # Years, not an amount (1500-2000 €): said as the locale says a year, which no later rule
        # would do without a cue word before them.
        if _YEAR.fullmatch(low) and _YEAR.fullmatch(high) and int(high) - int(low) <= _YEARS_APART and match.group("after") not in measures:
            said_low, said_high = (reader.integer(year, locale.year or locale.cardinal) for year in (low, high))
            if said_low is not None and said_high is not None:
                return _between(said_low, said_high, locale.range_word)
        return _between(low, high, locale.range_word)

    return spell_range


def _between(first: str, second: str, word: str) -> str:
    """Two readings joined by the language's word for what joins them, else side by side with a pause."""
    return f"{first} {word} {second}" if word else f"{first} – {second}"


def _score_speller(reader: _Reader) -> Callable[[re.Match[str]], str]:
    def spell_score(match: re.Match[str]) -> str:
        a, b = reader.integer(match.group("a")), reader.integer(match.group("b"))
        return match.group() if a is None or b is None else _between(a, b, reader.locale.score_word)

    return spell_score


def _percent_first(reader: _Reader, match: re.Match[str]) -> str | None:
    noun = reader.locale.units["%"]
    said = reader.number(match.group("amount"), noun.ruleset)
    return None if said is None else f"{noun.other} {said}"


def _money_speller(reader: _Reader) -> Callable[[re.Match[str]], str]:
    locale = reader.locale

    def spell_money(match: re.Match[str]) -> str:
        currency = locale.currencies[match.group("sign")]
        if locale.cardinal is None:  # the amount keeps its digits; the currency's word agrees with it
            return _or_kept(reader.with_noun(match.group("amount"), currency.major), match)
        integer, fraction = reader.split(match.group("amount"))
        if len(fraction) > 2 or (fraction and currency.minor is None and len(fraction) != 2):
            return _or_kept(reader.with_noun(match.group("amount"), currency.major), match)
        major = reader.integer(integer, currency.major.ruleset)
        if major is None:
            return match.group()
        value = int(integer) if len(integer) < 19 else 0
        unit = reader.counted(value, currency.major.form(locale.plural_of(value if value else 5)))
        cents = int(fraction.ljust(2, "0")) if fraction else 0
        if not cents:
            return locale.money.format(major=major, unit=unit)
        minor_rules = currency.minor.ruleset if currency.minor is not None else None
        minor = reader.integer(str(cents), minor_rules)
        if minor is None:
            return match.group()
        subunit = currency.minor.form(locale.plural_of(cents)) if currency.minor is not None else ""
        return " ".join(locale.money_with_minor.format(major=major, unit=unit, minor=minor, subunit=subunit).split())

    return spell_money


def _ordinal_speller(reader: _Reader, ruleset: str) -> Callable[[re.Match[str]], str]:
    def spell_ordinal(match: re.Match[str]) -> str:
        said = reader.integer(match.group("n"), ruleset)
        if said is None:
            return match.group()
        return match.group()[: match.start("n") - match.start()] + said

    return spell_ordinal


def _time_speller(reader: _Reader) -> Callable[[re.Match[str]], str]:
    locale = reader.locale

    def say(hour: int, minute: int) -> str | None:
        if hour == 24 and minute:
            return None
        said_hour = reader.integer(str(hour), locale.hour_ruleset)
        said_minute = reader.integer(str(minute), locale.minute_ruleset)
        if said_minute is not None and locale.minute_zero and 0 < minute < 10:
            said_minute = f"{locale.minute_zero} {said_minute}"
        if said_hour is None or said_minute is None:
            return None
        template = locale.time_on_the_hour if minute == 0 and locale.time_on_the_hour else locale.time
        hours = locale.hour_noun.form(locale.plural_of(hour)) if locale.hour_noun is not None else ""
        return template.format(hour=said_hour, minute=said_minute, hours=hours)  # type: ignore[union-attr]

    def spell_time(match: re.Match[str]) -> str:
        said = say(int(match.group("hour")), int(match.group("minute")))
        if said is None:
            return match.group()
        if "hour2" not in match.re.groupindex:
            return said
        until = say(int(match.group("hour2")), int(match.group("minute2")))
        return match.group() if until is None else _between(said, until, locale.range_word)

    return spell_time


def _date_speller(reader: _Reader, day_ruleset: str) -> Callable[[re.Match[str]], str]:
    locale = reader.locale

    def spell_date(match: re.Match[str]) -> str:
        day, month, year = int(match.group("d")), int(match.group("m")), match.group("y")
        if not (1 <= day <= 31 and 1 <= month <= 12):
            return match.group()
        said_day = reader.integer(str(day), day_ruleset)
        said_year = reader.integer(year, locale.year or locale.cardinal)
        # Where the locale keeps its years (said in hundreds before 2000: da nittenhundrede, hi उन्नीस सौ),
        # such a date stays as written: no rule could read the one without the other.
        if said_day is None or said_year is None or ("year" in locale.keeps and int(year) < 2000):
            return match.group()
        kept = match.group()[: min(match.start(group) for group in ("d", "m", "y")) - match.start()]  # a year-first date too
        return kept + locale.date.format(day=said_day, month=locale.months[month - 1], year=said_year)  # type: ignore[union-attr]

    return spell_date


@cache
def rules_for(lang: str) -> tuple[tuple[Rule, ...], re.Pattern[str]] | None:
    """``lang``'s number rules and what they must leave as written, built on its first text; None
    for a language without a locale."""
    locale = locale_for(lang)
    if locale is None:
        return None
    # A time cue (klockan, kl., klo) says a dot before two digits is a time, which the locale reads.
    cued = "".join(f"(?<!{re.escape(cue)} )" for cue in locale.time_cues)
    comma_decimal = [cued + pattern for pattern in COMMA_DECIMAL_KEPT] if locale.decimal_mark == "," else []
    kept = [*ALWAYS_KEPT, *comma_decimal, *(KEEPS[c] for c in locale.keeps), *locale.kept]
    return build_rules(locale), re.compile("|".join(f"(?:{pattern})" for pattern in kept))


def read_numbers(text: str, lang: str) -> str:
    """``text`` with its numbers, money, dates, times, units and symbols in ``lang``'s words; what
    its locale keeps is left as written, whatever rule would otherwise read it."""
    found = rules_for(lang)
    if found is None:
        return text
    rules, kept = found
    pieces, start = [], 0
    for match in kept.finditer(text):
        pieces += [apply_rules(text[start : match.start()], rules), match.group()]
        start = match.end()
    return "".join([*pieces, apply_rules(text[start:], rules)])
