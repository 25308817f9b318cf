"""Italian: decimal comma, thousands grouped by a dot or a space, ordinals written 1º / 1ª, the euro
invariable (tre euro), times 14:30 said "quattordici e trenta" (Treccani, Enciclopedia dell'italiano:
numerali; Accademia della Crusca, consulenza linguistica on "euro" and on the hours)."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"
_DATE = r"(?P<d>{day})(?P<sep>[/.])(?P<m>[01]?\d)(?P=sep)(?P<y>\d{{4}})(?!\d)"

# One agrees with the noun it counts (una casa, una volta): a noun in -a, -zione, -sione, -tà, -tù is
# feminine, save the listed masculine ones (problema, tema, sistema); the listed feminine nouns with
# other endings too (notte, parte, mano). Any other word keeps "un" (un libro). Only 1: whether 21
# before a feminine noun is "ventuno" or "ventuna" is a matter of usage (Treccani gives both).
_COUNTED_ENDINGS = (("one", r".{2,}(?:a|zione|sione|tà|tù)", _FEMININE),)
_COUNTED = {
    **dict.fromkeys(
        "problema sistema tema programma clima pianeta poeta papà cinema dramma schema diploma panorama"
        " sopra ancora prima senza contro era questa quella".split(),
        _MASCULINE,
    ),
    **dict.fromkeys("notte parte mano chiave classe madre foto radio moto auto fine".split(), _FEMININE),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    kept=(r"(?<!\d)\d{1,3}°(?=\s?[a-zà-ú])",),  # 1° maggio, 1° lugar: an ordinal typed with the degree sign
    before_word="spellout-cardinal-masculine",  # 1 año: un año, not uno año
    million_particle="di",  # a round million before its noun
    lang="it",
    score_word="a",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="virgola",
    minus_word="meno",
    year_cues=("nel", "dal", "al", "del", "anno", "entro il", "fino al"),
    # 3,14 is said "tre virgola quattordici".
    fraction_as_number=True,
    currencies={
        "€": Currency(Noun("euro", ruleset=_MASCULINE), Noun("centesimi", one="centesimo", ruleset=_MASCULINE)),
        "EUR": Currency(Noun("euro", ruleset=_MASCULINE), Noun("centesimi", one="centesimo", ruleset=_MASCULINE)),
        "$": Currency(Noun("dollari", one="dollaro", ruleset=_MASCULINE), Noun("centesimi", one="centesimo", ruleset=_MASCULINE)),
        "USD": Currency(Noun("dollari", one="dollaro", ruleset=_MASCULINE), Noun("centesimi", one="centesimo", ruleset=_MASCULINE)),
        "£": Currency(Noun("sterline", one="sterlina", ruleset=_FEMININE), Noun("penny", ruleset=_MASCULINE)),
        "CHF": Currency(Noun("franchi", one="franco", ruleset=_MASCULINE), Noun("centesimi", one="centesimo", ruleset=_MASCULINE)),
    },
    money_with_minor="{major} {unit} e {minor} {subunit}",
    # One hour is "un'ora" with the article's elision, which a number and a noun side by side cannot
    # write: 1 h reads "una ora".
    units={
        "%": Noun("per cento", ruleset="spellout-numbering"),  # l'1 % -> l'uno per cento
        "km/h": Noun("chilometri orari", one="chilometro orario", ruleset=_MASCULINE),
        "km": Noun("chilometri", one="chilometro", ruleset=_MASCULINE),
        "m": Noun("metri", one="metro", ruleset=_MASCULINE),
        "cm": Noun("centimetri", one="centimetro", ruleset=_MASCULINE),
        "mm": Noun("millimetri", one="millimetro", ruleset=_MASCULINE),
        "kg": Noun("chilogrammi", one="chilogrammo", ruleset=_MASCULINE),
        "g": Noun("grammi", one="grammo", ruleset=_MASCULINE),
        "mg": Noun("milligrammi", one="milligrammo", ruleset=_MASCULINE),
        "l": Noun("litri", one="litro", ruleset=_MASCULINE),
        "ml": Noun("millilitri", one="millilitro", ruleset=_MASCULINE),
        "°C": Noun("gradi Celsius", one="grado Celsius", ruleset=_MASCULINE),
        # A degree sign after a number is read as degrees; the ordinal written with it (1° posto, for
        # 1º) reads as degrees too.
        "°": Noun("gradi", one="grado", ruleset=_MASCULINE),
        "h": Noun("ore", one="ora", ruleset=_FEMININE),
        "min": Noun("minuti", one="minuto", ruleset=_MASCULINE),
        "s": Noun("secondi", one="secondo", ruleset=_MASCULINE),
    },
    ordinals=(
        (r"(?<![\d,.])(?P<n>\d{1,4})\.?º", "spellout-ordinal-masculine"),
        (r"(?<![\d,.])(?P<n>\d{1,4})\.?ª", "spellout-ordinal-feminine"),
    ),
    # Hours and minutes as numbers (alle ventuno, e un quarto aside); 1 o'clock is "l'una", which after
    # "alle" the text's own article cannot become: 1:00 reads "uno". The 14.30 some write is not read
    # as a time: it is a decimal in the other convention as well.
    time="{hour} e {minute}",
    time_on_the_hour="{hour}",
    # The first of the month is "primo" (il primo maggio), every other day a cardinal.
    dates=(
        (r"(?<![\d/.])" + _DATE.format(day="0?1"), "spellout-ordinal-masculine"),
        (r"(?<![\d/.])" + _DATE.format(day=r"[0-3]?\d"), "spellout-numbering"),
    ),
    date="{day} {month} {year}",
    months=(
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ),
    symbols={"&": "e", "+": "più", "=": "uguale a", "№": "numero", "n°": "numero", "N°": "numero", "%": "per cento", "°": "gradi"},
)
