"""Portuguese as CLDR's "pt" spells it, the Brazilian norm (dezesseis, quilômetro; Portugal writes
dezasseis, quilómetro): decimal comma, thousands grouped by a dot or a space, ordinals 1º / 1ª (1.º in
Portugal), times 14:30 or 14h30, the currency sign before the amount (R$ 3,50) or after (3,50 €)
(Academia Brasileira de Letras, VOLP; Acordo Ortográfico de 1990 for the lower-case months)."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"
_DATE = r"(?P<d>{day})(?P<sep>[/.])(?P<m>[01]?\d)(?P=sep)(?P<y>\d{{4}})(?!\d)"
_REAL = Currency(Noun("reais", one="real", ruleset=_MASCULINE), Noun("centavos", one="centavo", ruleset=_MASCULINE))
# Cêntimo is the euro's subunit in Portugal, where the euro is spent.
_EURO = Currency(Noun("euros", one="euro", ruleset=_MASCULINE), Noun("cêntimos", one="cêntimo", ruleset=_MASCULINE))
_DOLLAR = Currency(Noun("dólares", one="dólar", ruleset=_MASCULINE), Noun("centavos", one="centavo", ruleset=_MASCULINE))

# A number agrees with the noun it counts (uma casa, duas casas, duzentas pessoas). A noun in -a,
# -ção, -são, -dade, -agem (and their plurals) is feminine, save the listed masculine ones (dia,
# problema, mapa); the listed feminine nouns with other endings too (vez, noite, parte). Any other
# word keeps the masculine reading (um ano).
_COUNTED_ENDINGS = (("", r".{2,}(?:as?|ção|ções|são|sões|dade|dades|agem|agens)", _FEMININE),)
_COUNTED = {
    **dict.fromkeys(
        "dia dias mapa mapas problema problemas tema temas sistema sistemas programa programas idioma idiomas clima climas"
        " planeta planetas poema poemas drama dramas esquema esquemas cinema cinemas para agora nunca fora nada cada era".split(),
        _MASCULINE,
    ),
    **dict.fromkeys(
        "vez vezes noite noites parte partes mulher mulheres ponte pontes chave chaves frase frases flor flores"
        " lei leis torre torres tarde tardes mãe mães morte mortes rede redes".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    kept=(r"(?<!\d)\d{1,3}°(?=\s?[a-zà-ú])",),  # 1° maggio, 1° lugar: an ordinal typed with the degree sign
    before_word="spellout-cardinal-masculine",  # 1 año: un año, not uno año
    million_particle="de",  # a round million before its noun
    lang="pt",
    score_word="a",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="vírgula",
    range_word="a",
    minus_word="menos",
    cardinal=_MASCULINE,
    year_cues=("em", "desde", "até", "de", "ano", "no ano de"),
    # 3,14 is said "três vírgula catorze".
    fraction_as_number=True,
    currencies={"R$": _REAL, "BRL": _REAL, "€": _EURO, "EUR": _EURO, "$": _DOLLAR, "US$": _DOLLAR, "USD": _DOLLAR},
    money_with_minor="{major} {unit} e {minor} {subunit}",
    units={
        "%": Noun("por cento", ruleset=_MASCULINE),
        "km/h": Noun("quilômetros por hora", one="quilômetro por hora", ruleset=_MASCULINE),
        "km": Noun("quilômetros", one="quilômetro", ruleset=_MASCULINE),
        "m": Noun("metros", one="metro", ruleset=_MASCULINE),
        "cm": Noun("centímetros", one="centímetro", ruleset=_MASCULINE),
        "mm": Noun("milímetros", one="milímetro", ruleset=_MASCULINE),
        "kg": Noun("quilos", one="quilo", ruleset=_MASCULINE),
        # The gram is masculine in Portuguese: duzentos gramas.
        "g": Noun("gramas", one="grama", ruleset=_MASCULINE),
        "mg": Noun("miligramas", one="miligrama", ruleset=_MASCULINE),
        "l": Noun("litros", one="litro", ruleset=_MASCULINE),
        "ml": Noun("mililitros", one="mililitro", ruleset=_MASCULINE),
        "°C": Noun("graus Celsius", one="grau Celsius", ruleset=_MASCULINE),
        "°": Noun("graus", one="grau", ruleset=_MASCULINE),
        "h": Noun("horas", one="hora", ruleset=_FEMININE),
        "min": Noun("minutos", one="minuto", ruleset=_MASCULINE),
        "s": Noun("segundos", one="segundo", ruleset=_MASCULINE),
    },
    ordinals=(
        (r"(?<![\d,.])(?P<n>\d{1,4})\.?º", "spellout-ordinal-masculine"),
        (r"(?<![\d,.])(?P<n>\d{1,4})\.?ª", "spellout-ordinal-feminine"),
    ),
    # 14:30 -> catorze e trinta; the hours are feminine (duas, uma), the minutes masculine.
    # "Em ponto" on the hour holds for every hour, where "horas" would not for one o'clock.
    time="{hour} e {minute}",
    time_on_the_hour="{hour} em ponto",
    hour_ruleset=_FEMININE,
    minute_ruleset=_MASCULINE,
    time_marks=":h",
    # The first of the month is "primeiro" (primeiro de maio), every other day a cardinal.
    dates=(
        (r"(?<![\d/.])" + _DATE.format(day="0?1"), "spellout-ordinal-masculine"),
        (r"(?<![\d/.])" + _DATE.format(day=r"[0-3]?\d"), _MASCULINE),
    ),
    date="{day} de {month} de {year}",
    months=("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"),
    symbols={"&": "e", "+": "mais", "=": "igual a", "№": "número", "n.º": "número", "n°": "número", "%": "por cento", "°": "graus"},
)
