"""Estonian: decimal comma, thousands grouped by a space, times written 14.30, the euro sign after
the amount (Eesti Keele Instituut, keelenõuanne: arvud, kellaajad). After a number other than one a
noun takes the partitive singular (kaks kilomeetrit, üks kilomeeter): nominative for one, partitive else.
CLDR has no Estonian ordinal rule set, so ordinals (5. mai, 1999. aastal) and numeric dates are not read,
and its year rule set (üheksateist sada üheksakümmend üheksa) is not how Estonian reads a year."""

from ..number_locale import Currency, Noun, NumberLocale

_EURO = Currency(Noun("eurot", one="euro"), Noun("senti", one="sent"))
_DOLLAR = Currency(Noun("dollarit", one="dollar"), Noun("senti", one="sent"))

LOCALE = NumberLocale(
    time_cues=("kell", "Kell"),  # a dot time is read after these
    keeps=("ordinal", "date", "year"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="et",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="koma",
    minus_word="miinus",
    cardinal="spellout-cardinal",
    year=None,
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR},
    money_with_minor="{major} {unit} ja {minor} {subunit}",
    units={
        "%": Noun("protsenti", one="protsent"),
        "km/h": Noun("kilomeetrit tunnis", one="kilomeeter tunnis"),
        "km": Noun("kilomeetrit", one="kilomeeter"),
        "m": Noun("meetrit", one="meeter"),
        "cm": Noun("sentimeetrit", one="sentimeeter"),
        "mm": Noun("millimeetrit", one="millimeeter"),
        "kg": Noun("kilogrammi", one="kilogramm"),
        "g": Noun("grammi", one="gramm"),
        "mg": Noun("milligrammi", one="milligramm"),
        "l": Noun("liitrit", one="liiter"),
        "ml": Noun("milliliitrit", one="milliliiter"),
        "°C": Noun("kraadi", one="kraad"),  # said without the scale, as in a weather report (kakskümmend kraadi sooja)
        "°": Noun("kraadi", one="kraad"),
        "h": Noun("tundi", one="tund"),
        "min": Noun("minutit", one="minut"),
        "s": Noun("sekundit", one="sekund"),
    },
    # kell 14.30 is kell neliteist kolmkümmend; on the hour only the hour.
    time="{hour} {minute}",
    time_on_the_hour="{hour}",
    time_marks=".:",
    symbols={"&": "ja", "+": "pluss", "=": "võrdub", "№": "number", "%": "protsenti", "°": "kraadi"},
)
