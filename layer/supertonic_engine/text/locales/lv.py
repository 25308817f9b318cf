"""Latvian: decimal comma, thousands grouped by a space, the noun singular after 1, 21, 31 and plural
after the rest (viens kilometrs, divi kilometri, desmit kilometri). Ordinals, years and dates are
written with a dot (3. vieta, 2026. gadā, 2026. gada 24. augustā) and said as ordinals in the case
of their noun; CLDR has no Latvian ordinal rule set, so their digits stay."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"

# "eiro" does not decline.
_EURO = Currency(Noun("eiro", ruleset=_MASCULINE), Noun("centi", one="cents", ruleset=_MASCULINE))
_DOLLAR = Currency(Noun("dolāri", one="dolārs", ruleset=_MASCULINE), Noun("centi", one="cents", ruleset=_MASCULINE))


def _masculine(plural: str, singular: str) -> Noun:
    return Noun(plural, one=singular, ruleset=_MASCULINE)


def _feminine(plural: str, singular: str) -> Noun:
    return Noun(plural, one=singular, ruleset=_FEMININE)


LOCALE = NumberLocale(
    keeps=("ordinal", "year", "date"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="lv",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="komats",
    minus_word="mīnus",
    plural="latvian",
    cardinal=_MASCULINE,
    year=None,
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR},
    # The forms after a decimal amount and after 0 (nulle grādu?) are not settled here: the plural's is used.
    units={
        "%": _masculine("procenti", "procents"),
        "km/h": _masculine("kilometri stundā", "kilometrs stundā"),
        "km": _masculine("kilometri", "kilometrs"),
        "m": _masculine("metri", "metrs"),
        "cm": _masculine("centimetri", "centimetrs"),
        "kg": _masculine("kilogrami", "kilograms"),
        "g": _masculine("grami", "grams"),
        "l": _masculine("litri", "litrs"),
        "ml": _masculine("mililitri", "mililitrs"),
        "°C": _masculine("grādi pēc Celsija", "grāds pēc Celsija"),
        "°": _masculine("grādi", "grāds"),
        "h": _feminine("stundas", "stunda"),
        "min": _feminine("minūtes", "minūte"),
        "s": _feminine("sekundes", "sekunde"),
    },
    # 14:30 is said "četrpadsmit trīsdesmit"; 9:00 "deviņi".
    time="{hour} {minute}",
    time_on_the_hour="{hour}",
    hour_ruleset=_MASCULINE,
    minute_ruleset=_FEMININE,
    symbols={"&": "un", "+": "plus", "=": "vienāds ar", "№": "numurs", "%": "procenti"},
)
