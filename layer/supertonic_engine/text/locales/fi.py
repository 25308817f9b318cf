"""Finnish: decimal comma, thousands grouped by a space, ordinals written 3., times written 14.30,
dates 24.8.2026, the euro sign after the amount (Kielitoimiston ohjepankki: luvut, päivämäärät,
kellonajat, rahasummat). After a number other than one a noun takes the partitive singular
(kaksi kilometriä, yksi kilometri): the plural forms here are nominative for one, partitive else."""

from ..number_locale import Currency, Noun, NumberLocale

_EURO = Currency(Noun("euroa", one="euro"), Noun("senttiä", one="sentti"))
_DOLLAR = Currency(Noun("dollaria", one="dollari"), Noun("senttiä", one="sentti"))

LOCALE = NumberLocale(
    time_cues=("klo", "kello", "Klo", "Kello"),  # a dot time is read after these
    lang="fi",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="pilkku",
    minus_word="miinus",
    cardinal="spellout-cardinal",
    # Years are read as cardinals (tuhat yhdeksänsataa...); the case goes on vuosi: vuonna, vuodesta, vuoteen.
    year=None,
    year_cues=("vuonna", "vuodesta", "vuoteen", "vuosi", "vuoden"),
    currencies={"€": _EURO, "EUR": _EURO, "$": _DOLLAR, "USD": _DOLLAR},
    money_with_minor="{major} {unit} ja {minor} {subunit}",
    units={
        "%": Noun("prosenttia", one="prosentti"),
        "km/h": Noun("kilometriä tunnissa", one="kilometri tunnissa"),
        "km": Noun("kilometriä", one="kilometri"),
        "m": Noun("metriä", one="metri"),
        "cm": Noun("senttimetriä", one="senttimetri"),
        "mm": Noun("millimetriä", one="millimetri"),
        "kg": Noun("kiloa", one="kilo"),
        "g": Noun("grammaa", one="gramma"),
        "mg": Noun("milligrammaa", one="milligramma"),
        "l": Noun("litraa", one="litra"),
        "ml": Noun("millilitraa", one="millilitra"),
        "°C": Noun("celsiusastetta", one="celsiusaste"),
        "°": Noun("astetta", one="aste"),
        "h": Noun("tuntia", one="tunti"),
        "min": Noun("minuuttia", one="minuutti"),
        "s": Noun("sekuntia", one="sekunti"),
    },
    # An ordinal takes its noun's case (3. kerroksessa: kolmannessa), which the digits do not show:
    # read only before a noun in the nominative, where the nominative ordinal is right.
    ordinals=(
        (
            r"(?<![\d.,])(?P<n>\d{1,3})\.(?= (?:sija|kerros|luokka|painos|osa|kierros|vuosisata|kausi|tuotantokausi)\b)",
            "spellout-ordinal",
        ),
    ),
    # klo 14.30 is kello neljätoista kolmekymmentä; on the hour only the hour.
    time="{hour} {minute}",
    time_on_the_hour="{hour}",
    time_marks=".:",
    # 24.8.2026 is kahdeskymmenesneljäs elokuuta...: an ordinal day and the month in the partitive.
    dates=((r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)", "spellout-ordinal"),),
    date="{day} {month} {year}",
    months=(
        "tammikuuta",
        "helmikuuta",
        "maaliskuuta",
        "huhtikuuta",
        "toukokuuta",
        "kesäkuuta",
        "heinäkuuta",
        "elokuuta",
        "syyskuuta",
        "lokakuuta",
        "marraskuuta",
        "joulukuuta",
    ),
    symbols={"&": "ja", "+": "plus", "=": "on yhtä kuin", "№": "numero", "%": "prosenttia", "°": "astetta"},
)
