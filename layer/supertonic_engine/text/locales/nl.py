"""Dutch: decimal comma, thousands grouped by a dot or a space, ordinals written 1e, 2de, 8ste
(Taalunie, Taaladvies: getallen; rangtelwoorden in cijfers), the euro sign before the amount (€ 3,50)."""

from ..number_locale import Currency, Noun, NumberLocale

_EURO = Currency(Noun("euro"), Noun("cent"))
_DOLLAR = Currency(Noun("dollar"), Noun("cent"))

LOCALE = NumberLocale(
    lang="nl",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="komma",
    range_word="tot",
    minus_word="min",
    cardinal="spellout-cardinal",
    # CLDR's year rules leave honderd out (negentien negenennegentig), as speech commonly does;
    # negentienhonderdnegenennegentig is heard too. 2026 is tweeduizendzesentwintig.
    year_cues=("in het jaar", "in", "sinds", "vanaf", "tot", "van", "anno", "rond", "jaar"),
    currencies={
        "€": _EURO,
        "EUR": _EURO,
        "$": _DOLLAR,
        "USD": _DOLLAR,
        "£": Currency(Noun("pond"), Noun("pence")),
    },
    # Money, like measures, keeps the singular after a number: drie euro, vijftig cent; € 3,50 is drie euro vijftig.
    money_with_minor="{major} {unit} {minor}",
    units={
        "%": Noun("procent"),
        "procent": Noun("procent"),
        "km/h": Noun("kilometer per uur"),
        "km": Noun("kilometer"),
        "m": Noun("meter"),
        "cm": Noun("centimeter"),
        "mm": Noun("millimeter"),
        "kg": Noun("kilo"),
        "g": Noun("gram"),
        "mg": Noun("milligram"),
        "l": Noun("liter"),
        "ml": Noun("milliliter"),
        "°C": Noun("graden Celsius", one="graad Celsius"),
        "°": Noun("graden", one="graad"),
        "h": Noun("uur"),
        "min": Noun("minuten", one="minuut"),
        "s": Noun("seconden", one="seconde"),
    },
    ordinals=((r"(?<![\d.,])(?P<n>\d{1,4})(?:e|ste|de)(?!\w)", "spellout-ordinal"),),
    # The Taalunie writes 14.30 uur, but a dot before two digits is too often a decimal (3.14) to be read as a time.
    time="{hour} uur {minute}",
    time_on_the_hour="{hour} uur",
    time_suffixes=("uur",),
    # 24-08-2026, 24-8-2026 or 24/8/2026: the day is said as a cardinal (vierentwintig augustus).
    dates=((r"(?<![\d/-])(?P<d>[0-3]?\d)([-/])(?P<m>[01]?\d)\2(?P<y>\d{4})(?!\d)", "spellout-cardinal"),),
    date="{day} {month} {year}",
    months=("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"),
    symbols={"&": "en", "+": "plus", "=": "is gelijk aan", "№": "nummer", "%": "procent", "°": "graden"},
)
