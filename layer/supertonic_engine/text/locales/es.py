"""Spanish: decimal comma, thousands grouped by a dot or a space (RAE, Ortografía 2010, 8.1.3.2: the
space is recommended, the dot still common), ordinals written 1.º / 1.ª, the euro sign after the amount.
Much of the Americas writes the other way (15,000.50), so a comma before exactly three digits groups
thousands and a dot before another count is a decimal point (``three_digits_group``)."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"

# A number agrees with the noun it counts (DPD, "uno" and "veintiuno": una casa, veintiuna páginas,
# doscientas personas). A noun in -a, -ión, -dad, -tad, -tud, -umbre (and their plurals) is
# feminine, save the listed masculine ones (día, problema, mapa, avión); the listed feminine nouns
# with other endings too (vez, noche, parte). Any other word keeps the masculine reading (un año).
_COUNTED_ENDINGS = (("", r".{2,}(?:as?|ión|iones|[dt]ad|[dt]ades|tud|tudes|umbres?)", _FEMININE),)
_COUNTED = {
    **dict.fromkeys(
        "día días mapa mapas problema problemas tema temas sistema sistemas programa programas idioma idiomas clima climas"
        " planeta planetas poema poemas drama dramas esquema esquemas dilema dilemas síntoma síntomas cometa cometas"
        " avión aviones camión camiones para hasta contra hacia ahora nunca cerca fuera apenas mientras nada cada era".split(),
        _MASCULINE,
    ),
    **dict.fromkeys(
        "vez veces noche noches parte partes clase clases gente mujer mujeres calle calles llave llaves frase frases"
        " imagen imágenes red redes luz luces flor flores ley leyes torre torres tarde tardes madre madres muerte".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    before_word="spellout-cardinal-masculine",  # 1 año: un año, not uno año
    million_particle="de",  # a round million before its noun
    lang="es",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="coma",
    range_word="a",
    score_word="a",
    minus_word="menos",
    year_cues=("en", "desde", "hasta", "de", "del año", "año"),
    fraction_as_number=True,
    three_digits_group=True,
    currencies={
        "€": Currency(Noun("euros", one="euro", ruleset=_MASCULINE), Noun("céntimos", one="céntimo", ruleset=_MASCULINE)),
        "EUR": Currency(Noun("euros", one="euro", ruleset=_MASCULINE), Noun("céntimos", one="céntimo", ruleset=_MASCULINE)),
        "$": Currency(Noun("dólares", one="dólar", ruleset=_MASCULINE), Noun("centavos", one="centavo", ruleset=_MASCULINE)),
        "USD": Currency(Noun("dólares", one="dólar", ruleset=_MASCULINE), Noun("centavos", one="centavo", ruleset=_MASCULINE)),
        "£": Currency(Noun("libras", one="libra", ruleset=_FEMININE), Noun("peniques", one="penique", ruleset=_MASCULINE)),
    },
    money_with_minor="{major} {unit} con {minor} {subunit}",
    units={
        "%": Noun("por ciento", ruleset=_MASCULINE),
        "km/h": Noun("kilómetros por hora", one="kilómetro por hora", ruleset=_MASCULINE),
        "km": Noun("kilómetros", one="kilómetro", ruleset=_MASCULINE),
        "m": Noun("metros", one="metro", ruleset=_MASCULINE),
        "cm": Noun("centímetros", one="centímetro", ruleset=_MASCULINE),
        "mm": Noun("milímetros", one="milímetro", ruleset=_MASCULINE),
        "kg": Noun("kilos", one="kilo", ruleset=_MASCULINE),
        "g": Noun("gramos", one="gramo", ruleset=_MASCULINE),
        "mg": Noun("miligramos", one="miligramo", ruleset=_MASCULINE),
        "l": Noun("litros", one="litro", ruleset=_MASCULINE),
        "ml": Noun("mililitros", one="mililitro", ruleset=_MASCULINE),
        "°C": Noun("grados centígrados", one="grado centígrado", ruleset=_MASCULINE),
        "°": Noun("grados", one="grado", ruleset=_MASCULINE),
        "h": Noun("horas", one="hora", ruleset=_FEMININE),
        "min": Noun("minutos", one="minuto", ruleset=_MASCULINE),
        "s": Noun("segundos", one="segundo", ruleset=_MASCULINE),
    },
    ordinals=(
        (r"(?<!\d)(?P<n>\d{1,4})\.?er(?!\w)", "spellout-ordinal-masculine-adjective"),  # 1.er lugar: primer
        (r"(?<!\d)(?P<n>\d{1,4})\.?[ºo](?!\w)", "spellout-ordinal-masculine"),
        (r"(?<!\d)(?P<n>\d{1,4})\.?ª", "spellout-ordinal-feminine"),
    ),
    # 14:30 -> las catorce treinta (the hours are feminine: la una, las dos).
    time="{hour} {minute}",
    time_on_the_hour="{hour} en punto",
    hour_ruleset=_FEMININE,
    time_suffixes=("h",),
    dates=((r"(?<![\d/])(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})(?!\d)", _MASCULINE),),
    date="{day} de {month} de {year}",
    months=("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"),
    symbols={"&": "y", "+": "más", "=": "igual a", "№": "número", "%": "por ciento"},
)
