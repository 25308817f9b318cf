"""Danish: decimal comma, thousands grouped by a dot, ordinals written 3. (as German), times written
14.30 or 14:30, the krone written kr. after the amount (Dansk Sprognævn, Retskrivningsordbogen:
tal og tegn)."""

from ..number_locale import Currency, Noun, NumberLocale

# Common-gender nouns take en before them (en krone, en time), neuter nouns et (et gram). CLDR's
# common rule set drops the en of en million and en milliard (1.000.000 kr. reads "million kroner"),
# a fault kept for the sake of en krone, en time, which the neuter rule set would say et.
_COMMON, _NEUTER = "spellout-cardinal-common", "spellout-cardinal-neuter"
_KRONE = Currency(Noun("kroner", one="krone", ruleset=_COMMON), Noun("øre", ruleset=_COMMON))
_EURO = Currency(Noun("euro", ruleset=_COMMON), Noun("cent", ruleset=_COMMON))
# Retskrivningsordbogen's plural is dollars; the unchanged dollar is heard too.
_DOLLAR = Currency(Noun("dollars", one="dollar", ruleset=_COMMON), Noun("cent", ruleset=_COMMON))

LOCALE = NumberLocale(
    time_cues=("klokken", "kl.", "Kl."),  # a dot time is read after these
    keeps=("year",),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="da",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="komma",
    range_word="til",
    minus_word="minus",
    # No year cue: CLDR's year rules say nittenhundrede og nioghalvfems for 1999, as Danes do, but
    # tyvehundrede og seksogtyve for 2026, where Danes say to tusind og seksogtyve. A date's year is
    # read by the cardinal, right for 2000 and after.
    year=None,
    currencies={
        # kr, not kr.: the abbreviation's dot is often the sentence's full stop as well, and stays.
        "kr": _KRONE,
        "DKK": _KRONE,
        "€": _EURO,
        "EUR": _EURO,
        "$": _DOLLAR,
        "USD": _DOLLAR,
    },
    money_with_minor="{major} {unit} og {minor} {subunit}",
    units={
        "%": Noun("procent", ruleset=_COMMON),
        "procent": Noun("procent", ruleset=_COMMON),
        "km/t": Noun("kilometer i timen", ruleset=_COMMON),
        "km/h": Noun("kilometer i timen", ruleset=_COMMON),
        "km": Noun("kilometer", ruleset=_COMMON),
        "m": Noun("meter", ruleset=_COMMON),
        "cm": Noun("centimeter", ruleset=_COMMON),
        "mm": Noun("millimeter", ruleset=_COMMON),
        "kg": Noun("kilo", ruleset=_NEUTER),
        "g": Noun("gram", ruleset=_NEUTER),
        "mg": Noun("milligram", ruleset=_NEUTER),
        "l": Noun("liter", ruleset=_COMMON),
        "ml": Noun("milliliter", ruleset=_COMMON),
        "°C": Noun("grader celsius", one="grad celsius", ruleset=_COMMON),
        "°": Noun("grader", one="grad", ruleset=_COMMON),
        "h": Noun("timer", one="time", ruleset=_COMMON),
        "min": Noun("minutter", one="minut", ruleset=_COMMON),
        "s": Noun("sekunder", one="sekund", ruleset=_COMMON),
        "sek": Noun("sekunder", one="sekund", ruleset=_COMMON),
    },
    # An ordinal is a number with a dot before a lower-case word (den 3. maj, 2. plads; months are
    # written lower-case); a dot before a capital is a full stop.
    ordinals=((r"(?<![\d.,])(?P<n>\d{1,4})\.(?= [a-zæøå])", "spellout-ordinal-common"),),
    # 14.30 is said fjorten tredive; on the hour only the hour: klokken ni.
    time="{hour} {minute}",
    time_on_the_hour="{hour}",
    time_marks=".:",
    # 24.08.2026, 24/8/2026 or 24-08-2026; the day is an ordinal: den fireogtyvende august.
    dates=((r"(?<![\d/.-])(?P<d>[0-3]?\d)([./-])(?P<m>[01]?\d)\2(?P<y>\d{4})(?!\d)", "spellout-ordinal-common"),),
    date="{day} {month} {year}",
    months=("januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december"),
    symbols={"&": "og", "+": "plus", "=": "lig med", "№": "nummer", "%": "procent", "°": "grader"},
)
