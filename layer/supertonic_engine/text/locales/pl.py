"""Polish: decimal comma, thousands grouped by a space (Wielki słownik ortograficzny PWN, zasady
pisowni, liczebniki), the currency word or sign after the amount (3,50 zł).

A noun after a number takes one form for 1 (jeden kilometr), another for 2-4, 22-24 (dwa
kilometry) and the genitive plural for the rest, 12-14 and 21 among them (pięć, dwadzieścia jeden
kilometrów); after a decimal amount the genitive singular (trzy przecinek pięć kilometra). CLDR's
Polish rules as loaded here have no ordinals, so ordinals, dates, years and clock times (all said
with ordinals: czternasta trzydzieści) are not read."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _noun(one: str, few: str, many: str, decimal: str, ruleset: str = _MASCULINE) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=ruleset)


_CENT = _noun("cent", "centy", "centów", "centa")
_EURO = Currency(Noun("euro", ruleset=_NEUTER), _CENT)
_DOLLAR = Currency(_noun("dolar", "dolary", "dolarów", "dolara"), _CENT)
_ZLOTY = Currency(_noun("złoty", "złote", "złotych", "złotego"), _noun("grosz", "grosze", "groszy", "grosza"))
_KMH = _noun("kilometr na godzinę", "kilometry na godzinę", "kilometrów na godzinę", "kilometra na godzinę")

# A number agrees with the noun it counts (jedna kobieta, jedno miejsce, dwie książki); from 5 on, and
# in 21, 31 ... (dwadzieścia jeden), it does not. After 1 a noun in -a is feminine and one in -o,
# -e, -ę, -um neuter; after 2-4 a masculine noun ends as a feminine one does (dwa koty, dwie kobiety),
# so only the listed feminine nouns read "dwie". Not a word in -ła/-ło (a verb's past: była), a short
# or a listed word: these keep the masculine reading.
_COUNTED_ENDINGS = (
    ("", r".*ł[ao]|.{0,2}", _MASCULINE),
    ("one", r".*a", _FEMININE),
    ("one", r".*(?:[oeę]|um)", _NEUTER),
)
_COUNTED = {
    **dict.fromkeys(
        "mężczyzna kolega tata poeta sędzia dentysta turysta kierowca euro około także tylko jeszcze prawie było".split(), _MASCULINE
    ),
    **dict.fromkeys("szkoła siła pszczoła strzała skała igła".split(), _FEMININE),
    **dict.fromkeys("koło masło skrzydło ciało światło krzesło".split(), _NEUTER),
    **dict.fromkeys(
        "książki strony godziny minuty sekundy doby noce osoby kobiety dziewczyny rzeczy części kawy butelki filiżanki"
        " siostry córki matki ulice sztuki złotówki".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    keeps=("ordinal", "year", "date", "time"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="pl",
    decimal_mark=",",
    group_marks=" ",
    # The reading a text gives ("trzy i pięć dziesiątych") names the fraction's denominator, which
    # these rules cannot say; "przecinek" is how a number's digits are read aloud.
    decimal_word="przecinek",
    minus_word="minus",
    plural="polish",
    fraction_as_number=True,
    year=None,
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR, "zł": _ZLOTY, "PLN": _ZLOTY},
    units={
        # "procent" does not change after a number (Poradnia językowa PWN: dwa procent, pięć procent).
        "%": Noun("procent", ruleset=_MASCULINE),
        "km/h": _KMH,
        "km": _noun("kilometr", "kilometry", "kilometrów", "kilometra"),
        "m": _noun("metr", "metry", "metrów", "metra"),
        "cm": _noun("centymetr", "centymetry", "centymetrów", "centymetra"),
        "kg": _noun("kilogram", "kilogramy", "kilogramów", "kilograma"),
        "g": _noun("gram", "gramy", "gramów", "grama"),
        "l": _noun("litr", "litry", "litrów", "litra"),
        "ml": _noun("mililitr", "mililitry", "mililitrów", "mililitra"),
        "°C": _noun("stopień Celsjusza", "stopnie Celsjusza", "stopni Celsjusza", "stopnia Celsjusza"),
        "°": _noun("stopień", "stopnie", "stopni", "stopnia"),
        "h": _noun("godzina", "godziny", "godzin", "godziny", _FEMININE),
        "min": _noun("minuta", "minuty", "minut", "minuty", _FEMININE),
        "s": _noun("sekunda", "sekundy", "sekund", "sekundy", _FEMININE),
    },
    symbols={"&": "i", "+": "plus", "=": "równa się", "№": "numer", "%": "procent", "°": "stopień"},
)
