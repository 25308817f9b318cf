"""Lithuanian: decimal comma, thousands grouped by a space, the noun in the nominative singular after
1, 21, the nominative plural after 2-9, 22-29 and the genitive plural after 10-20, 30 (penki eurai,
dešimt eurų), the genitive singular after a decimal amount (2,5 litro). Ordinals, years and dates
(2026 m., 2026-08-24) are said as ordinals in the case of their noun; CLDR has no Lithuanian ordinal
rule set, so their digits stay."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"


def _masculine(one: str, few: str, many: str, decimal: str) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=_MASCULINE)


def _feminine(one: str, few: str, many: str, decimal: str) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=_FEMININE)


_CENT = _masculine("centas", "centai", "centų", "cento")
_EURO = Currency(_masculine("euras", "eurai", "eurų", "euro"), _CENT)
_DOLLAR = Currency(_masculine("doleris", "doleriai", "dolerių", "dolerio"), _CENT)

LOCALE = NumberLocale(
    keeps=("ordinal", "year", "date", "time"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="lt",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="kablelis",
    minus_word="minus",
    plural="lithuanian",
    cardinal=_MASCULINE,
    year=None,
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR},
    units={
        "%": _masculine("procentas", "procentai", "procentų", "procento"),
        "km/h": _masculine("kilometras per valandą", "kilometrai per valandą", "kilometrų per valandą", "kilometro per valandą"),
        "km": _masculine("kilometras", "kilometrai", "kilometrų", "kilometro"),
        "m": _masculine("metras", "metrai", "metrų", "metro"),
        "cm": _masculine("centimetras", "centimetrai", "centimetrų", "centimetro"),
        "kg": _masculine("kilogramas", "kilogramai", "kilogramų", "kilogramo"),
        "g": _masculine("gramas", "gramai", "gramų", "gramo"),
        "l": _masculine("litras", "litrai", "litrų", "litro"),
        "ml": _masculine("mililitras", "mililitrai", "mililitrų", "mililitro"),
        "°C": _masculine("laipsnis Celsijaus", "laipsniai Celsijaus", "laipsnių Celsijaus", "laipsnio Celsijaus"),
        "°": _masculine("laipsnis", "laipsniai", "laipsnių", "laipsnio"),
        "h": _feminine("valanda", "valandos", "valandų", "valandos"),
        "min": _feminine("minutė", "minutės", "minučių", "minutės"),
        "s": _feminine("sekundė", "sekundės", "sekundžių", "sekundės"),
    },
    symbols={"&": "ir", "+": "plius", "=": "lygu", "№": "numeris", "%": "procentai"},
)
