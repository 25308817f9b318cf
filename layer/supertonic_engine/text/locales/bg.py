"""Bulgarian: decimal comma, thousands grouped by a space (Официален правописен речник на
българския език, БАН 2012: правопис на числата), ordinals written with a hyphenated ending
(1-ви, 2-ра, 3-то), the currency word after the amount (3,50 лв.), dates 24.08.2026 г.

A masculine noun after a number above one takes its count form (два километра, пет лева), others
their plural (две минути); a year is a feminine ordinal with "година" (през две хиляди двайсет и
шеста година). The words are CLDR's everyday ones (двайсет, трийсет); the literary двадесет,
тридесет are its "financial" rule sets."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"


def _masculine(one: str, count: str) -> Noun:
    return Noun(count, one=one, ruleset=_MASCULINE)


def _feminine(one: str, plural: str) -> Noun:
    return Noun(plural, one=one, ruleset=_FEMININE)


_CENT = _masculine("цент", "цента")
_EURO = Currency(Noun("евро", ruleset=_NEUTER), _CENT)
_DOLLAR = Currency(_masculine("долар", "долара"), _CENT)
_LEV = Currency(_masculine("лев", "лева"), _feminine("стотинка", "стотинки"))
_KM = _masculine("километър", "километра")
_KMH = _masculine("километър в час", "километра в час")
_HOUR = _masculine("час", "часа")
_MINUTE = _feminine("минута", "минути")

LOCALE = NumberLocale(
    lang="bg",
    decimal_mark=",",
    group_marks=" ",
    # The reading a text gives ("три цяло и пет десети") names the fraction's denominator, which
    # these rules cannot say; "запетая" is how a number's digits are read aloud.
    decimal_word="запетая",
    minus_word="минус",
    fraction_as_number=True,
    year="spellout-ordinal-feminine",
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR, "лв.": _LEV, "лв": _LEV, "BGN": _LEV},
    money_with_minor="{major} {unit} и {minor} {subunit}",
    units={
        "%": _masculine("процент", "процента"),
        "км/ч": _KMH,
        "km/h": _KMH,
        "км": _KM,
        "km": _KM,
        "м": _masculine("метър", "метра"),
        "m": _masculine("метър", "метра"),
        "см": _masculine("сантиметър", "сантиметра"),
        "cm": _masculine("сантиметър", "сантиметра"),
        "кг": _masculine("килограм", "килограма"),
        "kg": _masculine("килограм", "килограма"),
        # Not the Cyrillic "г" and "с": the year's abbreviation (1999 г.) and a preposition.
        "g": _masculine("грам", "грама"),
        "л": _masculine("литър", "литра"),
        "l": _masculine("литър", "литра"),
        "мл": _masculine("милилитър", "милилитра"),
        "ml": _masculine("милилитър", "милилитра"),
        "°C": _masculine("градус по Целзий", "градуса по Целзий"),
        "°": _masculine("градус", "градуса"),
        "ч": _HOUR,
        "h": _HOUR,
        "мин": _MINUTE,
        "min": _MINUTE,
        "сек": _feminine("секунда", "секунди"),
        "s": _feminine("секунда", "секунди"),
    },
    # The ending names the gender: -ви, -ри, -ти, -ми, -и masculine (2-ри етаж), -ва, -ра, -та, -ма, -а
    # feminine (3-та глава), -во, -ро, -то, -мо, -о neuter (1-во място). A year is feminine before година.
    ordinals=(
        (r"(?<![\d.,])(?P<n>1\d{3}|20\d{2})(?=\sгодина\b)", "spellout-ordinal-feminine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:ви|ри|ти|ми|и)(?!\w)", "spellout-ordinal-masculine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:ва|ра|та|ма|а)(?!\w)", "spellout-ordinal-feminine"),
        (r"(?<!\d)(?P<n>\d{1,4})-(?:во|ро|то|мо|о)(?!\w)", "spellout-ordinal-neuter"),
    ),
    # 14:30 is said "четиринайсет и трийсет"; on the hour "девет часа" (часа after any hour: в един часа).
    time="{hour} и {minute}",
    time_on_the_hour="{hour} часа",
    hour_ruleset=_MASCULINE,
    time_suffixes=("ч.", "ч"),
    # The day is a masculine ordinal, the month as it is (двайсет и четвърти август), the year a
    # feminine ordinal with година; the "г." after the year is part of what is read.
    dates=((r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)(?:\s?г\.)?", "spellout-ordinal-masculine"),),
    date="{day} {month} {year} година",
    months=("януари", "февруари", "март", "април", "май", "юни", "юли", "август", "септември", "октомври", "ноември", "декември"),
    symbols={"&": "и", "+": "плюс", "=": "равно", "№": "номер", "%": "процент", "°": "градус"},
)
