"""Hungarian: decimal comma, thousands grouped by a space, the noun singular after any number
(öt kilométer), and before a noun the attributive two (két euró) (A magyar helyesírás szabályai,
12th edition, 289-295: a számok írása). Ordinals are written with a dot (3. hely). Dates are written
year first with the day's possessive ending (2026. augusztus 24-e: huszonnegyedike), which the shared
date rule does not read: their digits stay."""

from ..number_locale import Currency, Noun, NumberLocale

# "két" before a noun, "kettő" on its own: CLDR's cardinal-initial gives két for 2 (and kétezer),
# but huszonkettő for 22 where a reader says huszonkét.
_BEFORE_NOUN = "spellout-cardinal-initial"

_MONTHS = (
    "január",
    "február",
    "március",
    "április",
    "május",
    "június",
    "július",
    "augusztus",
    "szeptember",
    "október",
    "november",
    "december",
)


def _noun(word: str) -> Noun:
    return Noun(word, ruleset=_BEFORE_NOUN)


LOCALE = NumberLocale(
    # A date: the year first with its dot, the day with its ending (2026. augusztus 24-én): kept as written.
    kept=(
        r"(?<!\d)\d{4}\.(?= (?:január|február|március|április|május|június|július|augusztus|szeptember|október|november|december))",
        r"(?:január|február|március|április|május|június|július|augusztus|szeptember|október|november|december) \d{1,2}(?:\.|-\w+)",
    ),
    keeps=("date",),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="hu",
    decimal_mark=",",
    group_marks=" ",
    # 3,5 is said "három egész öt" (the formal reading adds the fraction's name: öt tized).
    decimal_word="egész",
    minus_word="mínusz",
    plural="invariant",
    fraction_as_number=True,
    # A year is said as a cardinal (ezerkilencszázkilencvenkilenc), so a year is read as any number.
    year=None,
    currencies={
        "€": Currency(_noun("euró"), _noun("cent")),
        "EUR": Currency(_noun("euró"), _noun("cent")),
        "$": Currency(_noun("dollár"), _noun("cent")),
        "USD": Currency(_noun("dollár"), _noun("cent")),
        "Ft": Currency(_noun("forint"), _noun("fillér")),
        "HUF": Currency(_noun("forint"), _noun("fillér")),
    },
    units={
        "%": _noun("százalék"),
        "km/h": _noun("kilométer per óra"),
        "km": _noun("kilométer"),
        "m": _noun("méter"),
        "cm": _noun("centiméter"),
        "kg": _noun("kilogramm"),
        "g": _noun("gramm"),
        "l": _noun("liter"),
        "ml": _noun("milliliter"),
        "°C": _noun("Celsius-fok"),
        "°": _noun("fok"),
        "h": _noun("óra"),
        "min": _noun("perc"),
        "s": _noun("másodperc"),
    },
    # A number with a dot before a lower-case word is an ordinal (a 3. hely); not before a month,
    # where it is a year (2026. augusztus) or, after one, a day said with its ending (május 1.).
    # Up to 999: CLDR's ordinal past a thousand is wrong (ezr).
    ordinals=(
        (
            r"(?<![\d.,])(?<!"
            + r" )(?<!".join(_MONTHS)
            + r" )(?P<n>[1-9]\d{0,2})\.(?=\s(?!(?:"
            + "|".join(_MONTHS)
            + r")\b)[a-záéíóöőúüű])",
            "spellout-ordinal",
        ),
    ),
    time="{hour} óra {minute} perc",
    time_on_the_hour="{hour} óra",
    hour_ruleset=_BEFORE_NOUN,
    minute_ruleset=_BEFORE_NOUN,
    symbols={"&": "és", "+": "plusz", "=": "egyenlő", "№": "szám", "%": "százalék"},
)
