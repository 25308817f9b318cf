"""Slovak: decimal comma, thousands grouped by a space (Pravidlá slovenského pravopisu, písanie
číslic), the currency sign after the amount (3,50 €), years read as cardinals (v roku tisíc
deväťsto deväťdesiatdeväť).

A noun after a number takes one form for 1 (jeden kilometer), another for 2-4 (dva kilometre)
and the genitive plural from 5 on (päť kilometrov); after a decimal amount the genitive singular
(tri celé päť kilometra). CLDR's Slovak rules as loaded here have no ordinals, so ordinals
(2. miesto: druhé) and dates (24. 8.: dvadsiateho štvrtého augusta) are not read."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _noun(one: str, few: str, many: str, decimal: str, ruleset: str = _MASCULINE) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=ruleset)


_CENT = _noun("cent", "centy", "centov", "centu")
_EURO = Currency(_noun("euro", "eurá", "eur", "eura", _NEUTER), _CENT)
_DOLLAR = Currency(_noun("dolár", "doláre", "dolárov", "dolára"), _CENT)
_KMH = _noun("kilometer za hodinu", "kilometre za hodinu", "kilometrov za hodinu", "kilometra za hodinu")

# A number agrees with the noun it counts (jedna žena, jedno miesto, dve knihy, dve mestá); from 5 on
# it does not. After 1 a noun (or its adjective) in -a/-á is feminine, one in -o/-e/-ie neuter; after
# 2-4 a noun in -a/-á is a neuter plural (dve mestá), while a masculine noun ends as a feminine one
# does (dva stoly, dve knihy): only the listed feminine nouns read "dve". Not a word in -la/-lo (a
# verb's past: bola), a short or a listed word: these keep the masculine reading.
_COUNTED_ENDINGS = (
    ("", r".*l[ao]|.{0,2}", _MASCULINE),
    ("one", r".*[aá]", _FEMININE),
    ("one", r".*[oeé]", _NEUTER),
    ("few", r".{2,}[aá]", _NEUTER),
)
_COUNTED = {
    **dict.fromkeys("hrdina kolega sudca vodca správca otecko tato euro kakao tiež iba málo veľa ako bolo".split(), _MASCULINE),
    **dict.fromkeys("škola sila včela strela skala".split(), _FEMININE),
    **dict.fromkeys("kolo kreslo číslo maslo čelo svetlo".split(), _NEUTER),
    **dict.fromkeys(
        "knihy hodiny minúty sekundy ženy osoby strany stránky koruny noci veci časti kávy fľaše sestry dcéry matky"
        " ulice stoličky otázky".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    keeps=("ordinal", "date"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="sk",
    decimal_mark=",",
    group_marks=" ",
    # 3,5 is "tri celé päť (desatín)", "celá" agreeing with the whole (jedna celá, dve celé, päť
    # celých, nula celá), the whole and the fraction feminine as "celá" and "desatina" are.
    decimal_word="celá",
    decimal_words=Noun("celých", one="celá", few="celé", many="celých", zero="celá"),
    decimal_ruleset=_FEMININE,
    range_word="až",
    minus_word="mínus",
    plural="west_slavic",
    fraction_as_number=True,
    year="spellout-numbering",
    year_cues=("v roku", "roku", "od roku", "do roku", "rok", "r."),
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR},
    units={
        "%": _noun("percento", "percentá", "percent", "percenta", _NEUTER),
        "km/h": _KMH,
        "km": _noun("kilometer", "kilometre", "kilometrov", "kilometra"),
        "m": _noun("meter", "metre", "metrov", "metra"),
        "cm": _noun("centimeter", "centimetre", "centimetrov", "centimetra"),
        "kg": _noun("kilogram", "kilogramy", "kilogramov", "kilogramu"),
        "g": _noun("gram", "gramy", "gramov", "gramu"),
        "l": _noun("liter", "litre", "litrov", "litra"),
        "ml": _noun("mililiter", "mililitre", "mililitrov", "mililitra"),
        "°C": _noun("stupeň Celzia", "stupne Celzia", "stupňov Celzia", "stupňa Celzia"),
        "°": _noun("stupeň", "stupne", "stupňov", "stupňa"),
        "h": _noun("hodina", "hodiny", "hodín", "hodiny", _FEMININE),
        "min": _noun("minúta", "minúty", "minút", "minúty", _FEMININE),
        "s": _noun("sekunda", "sekundy", "sekúnd", "sekundy", _FEMININE),
    },
    # 14:30 is said "štrnásť tridsať"; on the hour "deväť nula nula" as timetables say it ("deväť
    # hodín" would need the hour's plural, hodina/hodiny/hodín).
    time="{hour} {minute}",
    time_on_the_hour="{hour} nula nula",
    hour_ruleset=_FEMININE,
    time_suffixes=("h", "hod."),
    symbols={"&": "a", "+": "plus", "=": "rovná sa", "№": "číslo", "%": "percento", "°": "stupeň"},
)
