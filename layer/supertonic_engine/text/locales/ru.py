"""Russian: decimal comma, thousands grouped by a space (ГОСТ 8.417 and Розенталь, Справочник по
правописанию и стилистике, § on numbers), ordinals written with a hyphenated ending (2-я, 5-го),
the currency sign or word after the amount, dates written 24.08.2026.

A noun after a number takes one form for 1, 21 (один километр), another for 2-4, 22-24 (два
километра) and the genitive plural for the rest (пять километров); after a decimal amount the
genitive singular (три запятая пять километра)."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _noun(one: str, few: str, many: str, ruleset: str = _MASCULINE) -> Noun:
    return Noun(many, one=one, few=few, many=many, decimal=few, ruleset=ruleset)


_EURO = Currency(Noun("евро", ruleset=_MASCULINE), _noun("цент", "цента", "центов"))
_DOLLAR = Currency(_noun("доллар", "доллара", "долларов"), _noun("цент", "цента", "центов"))
_RUBLE = Currency(_noun("рубль", "рубля", "рублей"), _noun("копейка", "копейки", "копеек", _FEMININE))
_KM = ("километр", "километра", "километров")

# A number agrees with the noun it counts (Розенталь: двадцать одна книга, две недели, одно окно):
# 1 and 2 change with the gender, the rest do not. After 1, 21 ... a noun (or its adjective) in -а/-я
# is feminine and one in -о/-е neuter; after 2-4 one in -ы/-и is feminine (a masculine or neuter noun
# takes -а/-я there). Not a word in -ла/-ло (a verb's past: страница 1 пропала), nor a short or a
# listed word (и, или, папа, года): these keep the masculine reading, as does every other word.
_COUNTED_ENDINGS = (
    ("", r".*л[ао]|.{0,2}|.*(?:ого|его|ому|ему)", _MASCULINE),
    ("one", r".*[ая]", _FEMININE),
    ("one", r".*[оеё]", _NEUTER),
    ("few", r".{3,}[ыи]", _FEMININE),
)
_NOT_COUNTED = (
    # Masculine nouns in -а/-я, masculine nouns' genitives after "до 1 года", and words that are not nouns.
    "папа дядя дедушка мужчина юноша судья слуга года дня раза часа месяца миллиона миллиарда рубля доллара человека"
    " евро кофе около после более менее также тоже только даже либо почти это было всего уже"
)
_COUNTED = {word: _MASCULINE for word in _NOT_COUNTED.split()} | {
    # Nouns in -ла/-ло, and feminine accusatives (через одну минуту), which the endings cannot tell.
    **dict.fromkeys("школа сила пчела стрела скала игла метла мгла".split(), _FEMININE),
    **dict.fromkeys("село число масло крыло дело весло стекло тепло".split(), _NEUTER),
    **dict.fromkeys(
        "минуту неделю секунду книгу страницу штуку копейку тонну ночь часть вещь дверь".split(), "spellout-cardinal-feminine-accusative"
    ),
}

LOCALE = NumberLocale(
    lang="ru",
    decimal_mark=",",
    group_marks=" ",
    # The reading a text gives ("три целых пять десятых") names the fraction's denominator, which these
    # rules cannot say; "запятая" is how a number's digits are read aloud (three comma five).
    decimal_word="запятая",
    minus_word="минус",
    plural="east_slavic",
    fraction_as_number=True,
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    # Years are ordinals in the case of the "год" after them; see ``ordinals``. No cue word: the case
    # is the noun's, not the preposition's (с 2010 года, в 2010 году).
    year="spellout-numbering-year",
    currencies={
        "€": _EURO,
        "EUR": _EURO,
        "$": _DOLLAR,
        "USD": _DOLLAR,
        "₽": _RUBLE,
        "руб.": _RUBLE,
        "RUB": _RUBLE,
    },
    # Not the one-letter Cyrillic "г" and "с": they are also the year's abbreviation (1999 г.) and a
    # preposition (5 с половиной), so only the Latin g and s are read as gram and second.
    units={
        "%": _noun("процент", "процента", "процентов"),
        "км/ч": _noun(*(f"{w} в час" for w in _KM)),
        "km/h": _noun(*(f"{w} в час" for w in _KM)),
        "км": _noun(*_KM),
        "km": _noun(*_KM),
        "м": _noun("метр", "метра", "метров"),
        "m": _noun("метр", "метра", "метров"),
        "см": _noun("сантиметр", "сантиметра", "сантиметров"),
        "cm": _noun("сантиметр", "сантиметра", "сантиметров"),
        "кг": _noun("килограмм", "килограмма", "килограммов"),
        "kg": _noun("килограмм", "килограмма", "килограммов"),
        "g": _noun("грамм", "грамма", "граммов"),
        "л": _noun("литр", "литра", "литров"),
        "l": _noun("литр", "литра", "литров"),
        "мл": _noun("миллилитр", "миллилитра", "миллилитров"),
        "ml": _noun("миллилитр", "миллилитра", "миллилитров"),
        "°C": _noun("градус Цельсия", "градуса Цельсия", "градусов Цельсия"),
        "°": _noun("градус", "градуса", "градусов"),
        "ч": _noun("час", "часа", "часов"),
        "h": _noun("час", "часа", "часов"),
        "мин": _noun("минута", "минуты", "минут", _FEMININE),
        "min": _noun("минута", "минуты", "минут", _FEMININE),
        "s": _noun("секунда", "секунды", "секунд", _FEMININE),
    },
    # An ending names the ordinal's form; where it names several, the commonest: "-й" is read as the
    # masculine nominative (5-й этаж), though it is also the feminine's oblique cases (в 5-й главе:
    # пятой); "-е" is neuter (3-е место) but plural before "годы" (90-е годы); "-х" is the plural's
    # genitive and locative alike (в 90-х).
    ordinals=(
        # A year is an ordinal agreeing with "год" after it (Розенталь: в 1999 году, с 2010 года, 2026 год).
        (r"(?<![\d.,])(?P<n>1\d{3}|20\d{2})(?=\s(?:году|годе)\b)", "spellout-ordinal-masculine-locative"),
        (r"(?<![\d.,])(?P<n>1\d{3}|20\d{2})(?=\s(?:года|годов)\b)", "spellout-ordinal-masculine-genitive"),
        (r"(?<![\d.,])(?P<n>1\d{3}|20\d{2})(?=\sгодом\b)", "spellout-ordinal-masculine-ablative"),
        (r"(?<![\d.,])(?P<n>1\d{3}|20\d{2})(?=\sгод\b)", "spellout-ordinal-masculine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:й|ый|ой|ий)(?!\w)", "spellout-ordinal-masculine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:го|ого)(?!\w)", "spellout-ordinal-masculine-genitive"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:му|ому)(?!\w)", "spellout-ordinal-masculine-dative"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:я|ая)(?!\w)", "spellout-ordinal-feminine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:ю|ую)(?!\w)", "spellout-ordinal-feminine-accusative"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:е|ые)(?=\sгоды\b)", "spellout-ordinal-plural"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:е|ое)(?!\w)", "spellout-ordinal-neuter"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:х|ых)(?!\w)", "spellout-ordinal-plural-genitive"),
    ),
    # 14:30 is said "четырнадцать тридцать", 9:05 "девять ноль пять"; on the hour "девять часов", the
    # hour's noun by its plural (один час, два часа, пять часов), as the radio's time signal says it
    # ("Московское время — девять часов"); the timetable's "девять ноль-ноль" is a professional jargon.
    time="{hour} {minute}",
    time_on_the_hour="{hour} {hours}",
    hour_noun=Noun("часов", one="час", few="часа", many="часов"),
    minute_zero="ноль",
    # A date is the day's neuter ordinal (число), the month in the genitive and the year's genitive
    # ordinal with "года": двадцать четвёртое августа две тысячи двадцать шестого года; after до, с,
    # от, после, около the day is genitive too (до двадцать четвёртого августа).
    dates=(
        (
            r"\b(?i:до|с|со|от|после|около|начиная с) (?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)",
            "spellout-ordinal-neuter-genitive",
        ),
        (r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)", "spellout-ordinal-neuter"),
    ),
    date="{day} {month} {year} года",
    months=("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"),
    symbols={"&": "и", "+": "плюс", "=": "равно", "№": "номер", "%": "процент", "°": "градус"},
)
