"""Croatian: decimal comma, thousands grouped by a dot or a space, the noun after a number in the
singular (1, 21), the paucal (2-4, 22-24) or the genitive plural (5-20, 25-30) (Hrvatski pravopis,
Institut za hrvatski jezik i jezikoslovlje: brojevi). Ordinals, years and dates are written with a
dot (3. mjesto, 2026. godine, 24. 8. 2026.) and said as ordinals in the gender and case of their
noun, which a rule cannot know: their digits stay as written."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"

_EURO = Currency(Noun("eura", one="euro", ruleset=_MASCULINE), Noun("centi", one="cent", few="centa", ruleset=_MASCULINE))
_DOLLAR = Currency(Noun("dolara", one="dolar", ruleset=_MASCULINE), Noun("centi", one="cent", few="centa", ruleset=_MASCULINE))

LOCALE = NumberLocale(
    keeps=("ordinal", "year", "date"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="hr",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="zarez",
    minus_word="minus",
    plural="east_slavic",
    cardinal=_MASCULINE,
    year=None,
    currencies={
        "€": _EURO,
        "EUR": _EURO,
        "$": _DOLLAR,
        "USD": _DOLLAR,
        # The kuna, the currency until 2023, in older texts.
        "kn": Currency(Noun("kuna", few="kune", ruleset=_FEMININE), Noun("lipa", few="lipe", ruleset=_FEMININE)),
    },
    money_with_minor="{major} {unit} i {minor} {subunit}",
    # After a decimal amount the noun's form is not settled here (2,5 litre or litara): the plural's is used.
    units={
        "%": Noun("posto"),
        "km/h": Noun("kilometara na sat", one="kilometar na sat", few="kilometra na sat", ruleset=_MASCULINE),
        "km": Noun("kilometara", one="kilometar", few="kilometra", ruleset=_MASCULINE),
        "m": Noun("metara", one="metar", few="metra", ruleset=_MASCULINE),
        "cm": Noun("centimetara", one="centimetar", few="centimetra", ruleset=_MASCULINE),
        "kg": Noun("kilograma", one="kilogram", ruleset=_MASCULINE),
        "g": Noun("grama", one="gram", ruleset=_MASCULINE),
        "l": Noun("litara", one="litra", few="litre", ruleset=_FEMININE),
        "ml": Noun("mililitara", one="mililitra", few="mililitre", ruleset=_FEMININE),
        "°C": Noun("stupnjeva Celzija", one="stupanj Celzija", few="stupnja Celzija", ruleset=_MASCULINE),
        "°": Noun("stupnjeva", one="stupanj", few="stupnja", ruleset=_MASCULINE),
        "h": Noun("sati", one="sat", few="sata", ruleset=_MASCULINE),
        "min": Noun("minuta", few="minute", ruleset=_FEMININE),
        "s": Noun("sekundi", one="sekunda", few="sekunde", ruleset=_FEMININE),
    },
    # 14:30 is said "četrnaest i trideset"; 9:00 "devet" (u devet), the minute a feminine (minuta).
    time="{hour} i {minute}",
    time_on_the_hour="{hour}",
    hour_ruleset=_MASCULINE,
    minute_ruleset=_FEMININE,
    time_suffixes=("h",),
    symbols={"&": "i", "+": "plus", "=": "jednako", "№": "broj", "%": "posto"},
)
