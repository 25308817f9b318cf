"""Czech: decimal comma, thousands grouped by a space (Internetová jazyková příručka ÚJČ AV ČR,
Psaní číslic), the currency sign or word after the amount (3,50 Kč), years read as cardinals
(v roce tisíc devět set devadesát devět).

A noun after a number takes one form for 1 (jeden kilometr), another for 2-4 (dva kilometry) and
the genitive plural from 5 on, 21 included (pět, dvacet jedna kilometrů); after a decimal amount
the genitive singular (tři celé pět kilometru). CLDR's Czech rules as loaded here have no
ordinals, so ordinals (2. místo: druhé) and dates (24. 8.: dvacátého čtvrtého srpna) are not read."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _noun(one: str, few: str, many: str, decimal: str, ruleset: str = _MASCULINE) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=ruleset)


_CENT = _noun("cent", "centy", "centů", "centu")
_EURO = Currency(_noun("euro", "eura", "eur", "eura", _NEUTER), _CENT)
_DOLLAR = Currency(_noun("dolar", "dolary", "dolarů", "dolaru"), _CENT)
_CROWN = Currency(_noun("koruna", "koruny", "korun", "koruny", _FEMININE), _noun("haléř", "haléře", "haléřů", "haléře"))
_KMH = _noun("kilometr za hodinu", "kilometry za hodinu", "kilometrů za hodinu", "kilometru za hodinu")

# A number agrees with the noun it counts (ÚJČ: jedna žena, jedno místo, dvě knihy, dvě okna); from
# 5 on it does not. After 1 a noun (or its adjective) in -a/-á is feminine, one in -ost too, one in
# -o/-é neuter; after 2-4 a noun in -a is a neuter plural (dvě okna), while a masculine noun ends as
# a feminine one does (dva stoly, dvě knihy): only the listed feminine nouns read "dvě". Not a word
# in -la/-lo (a verb's past: byla), a short or a listed word: these keep the masculine reading.
_COUNTED_ENDINGS = (
    ("", r".*l[ao]|.{0,2}", _MASCULINE),
    ("one", r".*(?:[aá]|ost)", _FEMININE),
    ("one", r".*[oé]", _NEUTER),
    ("few", r".{2,}a", _NEUTER),
)
_COUNTED = {
    **dict.fromkeys("předseda kolega táta hrdina turista sluha starosta euro kakao také jenom málo hodně jako bylo".split(), _MASCULINE),
    **dict.fromkeys("škola síla včela strela skála".split(), _FEMININE),
    **dict.fromkeys("kolo křeslo číslo máslo čelo světlo".split(), _NEUTER),
    **dict.fromkeys(
        "knihy hodiny minuty sekundy ženy dívky osoby strany stránky koruny noci věci části kávy lahve sestry dcery matky"
        " ulice židle otázky".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    keeps=("ordinal", "date"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="cs",
    decimal_mark=",",
    group_marks=" ",
    # ÚJČ: 3,5 is "tři celé pět (desetin)", "celá" agreeing with the whole (jedna celá, dvě celé, pět
    # celých, nula celá), the whole and the fraction feminine as "celá" and "desetina" are.
    decimal_word="celá",
    decimal_words=Noun("celých", one="celá", few="celé", many="celých", zero="celá"),
    decimal_ruleset=_FEMININE,
    range_word="až",
    minus_word="minus",
    plural="west_slavic",
    fraction_as_number=True,
    year="spellout-numbering",
    year_cues=("v roce", "roku", "od roku", "do roku", "rok", "r."),
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR, "Kč": _CROWN, "CZK": _CROWN},
    units={
        "%": _noun("procento", "procenta", "procent", "procenta", _NEUTER),
        "km/h": _KMH,
        "km": _noun("kilometr", "kilometry", "kilometrů", "kilometru"),
        "m": _noun("metr", "metry", "metrů", "metru"),
        "cm": _noun("centimetr", "centimetry", "centimetrů", "centimetru"),
        "kg": _noun("kilogram", "kilogramy", "kilogramů", "kilogramu"),
        "g": _noun("gram", "gramy", "gramů", "gramu"),
        "l": _noun("litr", "litry", "litrů", "litru"),
        "ml": _noun("mililitr", "mililitry", "mililitrů", "mililitru"),
        "°C": _noun("stupeň Celsia", "stupně Celsia", "stupňů Celsia", "stupně Celsia"),
        "°": _noun("stupeň", "stupně", "stupňů", "stupně"),
        "h": _noun("hodina", "hodiny", "hodin", "hodiny", _FEMININE),
        "min": _noun("minuta", "minuty", "minut", "minuty", _FEMININE),
        "s": _noun("sekunda", "sekundy", "sekund", "sekundy", _FEMININE),
    },
    # 14:30 is said "čtrnáct třicet"; on the hour "devět nula nula" as timetables say it ("devět
    # hodin" would need the hour's plural, hodina/hodiny/hodin).
    time="{hour} {minute}",
    time_on_the_hour="{hour} nula nula",
    hour_ruleset=_FEMININE,
    time_suffixes=("h", "hod."),
    symbols={"&": "a", "+": "plus", "=": "rovná se", "№": "číslo", "%": "procento", "°": "stupeň"},
)
