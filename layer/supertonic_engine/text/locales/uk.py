"""Ukrainian: decimal comma, thousands grouped by a space (Український правопис 2019, and ДСТУ 3582
for units), the currency sign or word after the amount.

A noun after a number takes one form for 1, 21 (один кілометр), another for 2-4, 22-24 (два
кілометри) and the genitive plural for the rest (п'ять кілометрів); after a decimal amount the
genitive singular (три кома п'ять кілометра). CLDR has no Ukrainian ordinal rule set, so ordinals,
dates and years (read as ordinals: у тисяча дев'ятсот дев'яносто дев'ятому році) are not read."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _noun(one: str, few: str, many: str, decimal: str, ruleset: str = _MASCULINE) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=decimal, ruleset=ruleset)


_CENT = _noun("цент", "центи", "центів", "цента")
# "євро" does not change after a number; its gender is unsure (masculine in use, neuter in some
# dictionaries), which only "один/одне" shows.
_EURO = Currency(Noun("євро", ruleset=_MASCULINE), _CENT)
_DOLLAR = Currency(_noun("долар", "долари", "доларів", "долара"), _CENT)
_HRYVNIA = Currency(_noun("гривня", "гривні", "гривень", "гривні", _FEMININE), _noun("копійка", "копійки", "копійок", "копійки", _FEMININE))
_KM = _noun("кілометр", "кілометри", "кілометрів", "кілометра")
_KMH = _noun("кілометр на годину", "кілометри на годину", "кілометрів на годину", "кілометра на годину")
_M = _noun("метр", "метри", "метрів", "метра")
_CM = _noun("сантиметр", "сантиметри", "сантиметрів", "сантиметра")
_KG = _noun("кілограм", "кілограми", "кілограмів", "кілограма")
_L = _noun("літр", "літри", "літрів", "літра")
_ML = _noun("мілілітр", "мілілітри", "мілілітрів", "мілілітра")
_HOUR = _noun("година", "години", "годин", "години", _FEMININE)
_MINUTE = _noun("хвилина", "хвилини", "хвилин", "хвилини", _FEMININE)

# A number agrees with the noun it counts (Український правопис: двадцять одна книга, дві книги,
# одне вікно): 1 and 2 change with the gender. After 1, 21 ... a noun in -а/-я is feminine, save the
# neuter -ння, -ття (одне завдання), and one in -о/-е neuter; after 2-4 a masculine noun ends in -и
# too (два столи), so only the listed feminine nouns read "дві". Not a word in -ла/-ло (a verb's past:
# сторінка 101 зникла), a short or a listed word: these keep the masculine reading.
_COUNTED_ENDINGS = (
    ("", r".*л[ао]|.{0,2}", _MASCULINE),
    ("one", r".*(?:нн|тт|сс|лл|зз|чч|жж|шш|дд|цц)я", _NEUTER),
    ("one", r".*[ая]", _FEMININE),
    ("one", r".*[оеє]", _NEUTER),
)
_COUNTED = {
    **dict.fromkeys("тато дядько батько дідусь суддя євро кафе після більше менше також тільки лише навіть було вже".split(), _MASCULINE),
    **dict.fromkeys("школа сила бджола стріла скеля".split(), _FEMININE),
    **dict.fromkeys("село число крило масло тепло".split(), _NEUTER),
    **dict.fromkeys(
        "книги сторінки години хвилини секунди доби ночі гривні копійки особи жінки дівчини речі частини кімнати"
        " машини пляшки чашки ручки сестри дочки доньки мами квартири".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    keeps=("ordinal", "year", "date", "time"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="uk",
    decimal_mark=",",
    group_marks=" ",
    # The reading a text gives ("три цілих п'ять десятих") names the fraction's denominator, which
    # these rules cannot say; "кома" is how a number's digits are read aloud.
    decimal_word="кома",
    minus_word="мінус",
    plural="east_slavic",
    fraction_as_number=True,
    year=None,
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR, "₴": _HRYVNIA, "грн": _HRYVNIA, "UAH": _HRYVNIA},
    units={
        "%": _noun("відсоток", "відсотки", "відсотків", "відсотка"),
        "км/год": _KMH,
        "km/h": _KMH,
        "км": _KM,
        "km": _KM,
        "м": _M,
        "m": _M,
        "см": _CM,
        "cm": _CM,
        "кг": _KG,
        "kg": _KG,
        # Not the Cyrillic "г" and "с": the year's abbreviation and a preposition.
        "g": _noun("грам", "грами", "грамів", "грама"),
        "л": _L,
        "l": _L,
        "мл": _ML,
        "ml": _ML,
        "°C": _noun("градус Цельсія", "градуси Цельсія", "градусів Цельсія", "градуса Цельсія"),
        "°": _noun("градус", "градуси", "градусів", "градуса"),
        "год": _HOUR,
        "h": _HOUR,
        "хв": _MINUTE,
        "min": _MINUTE,
        "s": _noun("секунда", "секунди", "секунд", "секунди", _FEMININE),
    },
    symbols={"&": "і", "+": "плюс", "=": "дорівнює", "№": "номер", "%": "відсоток", "°": "градус"},
)
