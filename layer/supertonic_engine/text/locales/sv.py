"""Swedish: decimal comma, thousands grouped by a space, ordinals written 1:a, 3:e, times written
14.30 or 14:30, the krona written kr after the amount (Språkrådet, Svenska skrivregler: siffror och tal)."""

from ..number_locale import Currency, Noun, NumberLocale

# En-words (utrum) take en before them: en krona, en timme; ett-words take ett: ett gram.
_COMMON, _NEUTER = "spellout-cardinal-reale", "spellout-cardinal-neuter"
_KRONA = Currency(Noun("kronor", one="krona", ruleset=_COMMON), Noun("öre", ruleset=_NEUTER))
_EURO = Currency(Noun("euro", ruleset=_COMMON), Noun("cent", ruleset=_COMMON))
_DOLLAR = Currency(Noun("dollar", ruleset=_COMMON), Noun("cent", ruleset=_COMMON))

LOCALE = NumberLocale(
    time_cues=("klockan", "kl.", "Klockan", "Kl."),  # a dot time is read after these
    lang="sv",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="komma",
    range_word="till",
    minus_word="minus",
    # 1999 is nittonhundranittionio. For 2000 and after CLDR says tjugohundra... (2026: tjugohundratjugosex);
    # tvåtusentjugosex is at least as common, and which a reader prefers is not settled here.
    year_cues=("år", "året", "sedan", "från", "till", "i", "sommaren", "hösten", "våren", "vintern"),
    currencies={
        # kr, not kr.: the abbreviation's dot is often the sentence's full stop as well, and stays.
        "kr": _KRONA,
        "SEK": _KRONA,
        "€": _EURO,
        "EUR": _EURO,
        "$": _DOLLAR,
        "USD": _DOLLAR,
    },
    money_with_minor="{major} {unit} och {minor} {subunit}",
    units={
        "%": Noun("procent", ruleset=_COMMON),
        "procent": Noun("procent", ruleset=_COMMON),
        "km/h": Noun("kilometer i timmen", ruleset=_COMMON),
        "km": Noun("kilometer", ruleset=_COMMON),
        "m": Noun("meter", ruleset=_COMMON),
        "cm": Noun("centimeter", ruleset=_COMMON),
        "mm": Noun("millimeter", ruleset=_COMMON),
        "kg": Noun("kilo", ruleset=_NEUTER),
        "g": Noun("gram", ruleset=_NEUTER),
        "mg": Noun("milligram", ruleset=_NEUTER),
        "l": Noun("liter", ruleset=_COMMON),
        "ml": Noun("milliliter", ruleset=_COMMON),
        "°C": Noun("grader Celsius", one="grad Celsius", ruleset=_COMMON),
        "°": Noun("grader", one="grad", ruleset=_COMMON),
        "h": Noun("timmar", one="timme", ruleset=_COMMON),
        "min": Noun("minuter", one="minut", ruleset=_COMMON),
        "s": Noun("sekunder", one="sekund", ruleset=_COMMON),
    },
    # 1:a, 2:a, 3:e, 21:a (Svenska skrivregler: ordningstal med kolon och ändelse).
    ordinals=((r"(?<![\d.,:])(?P<n>\d{1,4}):[ae](?!\w)", "spellout-ordinal-reale"),),
    # 14.30 is said fjorton och trettio; on the hour only the hour: klockan nio.
    time="{hour} och {minute}",
    time_on_the_hour="{hour}",
    time_marks=".:",
    # The day is an ordinal: den 24/8 is den tjugofjärde augusti (the den as written). 24/8 2026 and 24.8.2026 are read;
    # the standard 2026-08-24 (Svenska skrivregler) is not, since the rules keep what a date's regex
    # matches before its day as written.
    dates=((r"(?<![\d/.])(?P<d>[0-3]?\d)([/.])(?P<m>[01]?\d)(?:\2| )(?P<y>\d{4})(?!\d)", "spellout-ordinal-reale"),),
    date="{day} {month} {year}",
    months=("januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"),
    symbols={"&": "och", "+": "plus", "=": "är lika med", "№": "nummer", "%": "procent", "°": "grader"},
)
