"""French: decimal comma, thousands grouped by a (no-break) space, ordinals written 1er, 1re, 2e, times
written 14 h 30 or 14:30, the currency sign after the amount (Lexique des règles typographiques en usage
à l'Imprimerie nationale; Office québécois de la langue française, Banque de dépannage linguistique).
0 and 1 take the singular (zéro euro, un euro); CLDR's words hyphenate "vingt-et-un" as the 1990
rectifications of spelling do and keep "deux cents" unhyphenated as the older spelling does: both accepted."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE = "spellout-cardinal-masculine", "spellout-cardinal-feminine"
_DATE = r"(?P<d>{day})(?P<sep>[/.])(?P<m>[01]?\d)(?P=sep)(?P<y>\d{{4}})(?!\d)"

# A number agrees with the noun it counts (une maison, vingt-et-une pages): a noun in -tion, -sion,
# -ité, -ette, -ance, -ence, -ée (and their plurals) is feminine, save the listed masculine ones
# (comité, silence, musée); the listed feminine nouns with other endings too (fois, heure, page,
# maison). Any other word keeps the masculine reading (vingt-et-un ans).
_COUNTED_ENDINGS = (("", r".{2,}(?:tion|sion|ité|ette|ance|ence|ée)s?", _FEMININE),)
_COUNTED = {
    **dict.fromkeys("comité comités silence silences musée musées lycée lycées trophée trophées".split(), _MASCULINE),
    **dict.fromkeys(
        "fois heure heures minute minutes seconde secondes semaine semaines page pages personne personnes chose choses"
        " femme femmes fille filles maison maisons voiture voitures nuit nuits ville villes école écoles classe classes"
        " place places pièce pièces bouteille bouteilles tasse tasses pomme pommes langue langues question questions"
        " idée idées étape étapes partie parties équipe équipes chambre chambres porte portes table tables lettre lettres"
        " photo photos image images carte cartes fleur fleurs mère mères sœur sœurs tonne tonnes fin voix"
        " histoire histoires famille familles région régions".split(),
        _FEMININE,
    ),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    million_particle="de",  # a round million before its noun: un million de dollars, d'euros
    million_particle_before_vowel="d'",
    lang="fr",
    decimal_mark=",",
    group_marks=" ",
    decimal_word="virgule",
    range_word="à",
    score_word="à",
    minus_word="moins",
    plural="zero_one_other",
    cardinal=_MASCULINE,
    # CLDR's year rule set says 1999 "dix-neuf-cent quatre-vingt-dix-neuf", a spoken variant; the
    # cardinal (mille neuf cent ...) is the reading every reference gives.
    year=None,
    year_cues=("en", "depuis", "dès", "jusqu'en", "vers", "année", "l'an"),
    # 3,14 is said "trois virgule quatorze".
    fraction_as_number=True,
    currencies={
        "€": Currency(Noun("euros", one="euro", ruleset=_MASCULINE), Noun("centimes", one="centime", ruleset=_MASCULINE)),
        "EUR": Currency(Noun("euros", one="euro", ruleset=_MASCULINE), Noun("centimes", one="centime", ruleset=_MASCULINE)),
        "$": Currency(Noun("dollars", one="dollar", ruleset=_MASCULINE), Noun("cents", one="cent", ruleset=_MASCULINE)),
        "USD": Currency(Noun("dollars", one="dollar", ruleset=_MASCULINE), Noun("cents", one="cent", ruleset=_MASCULINE)),
        "£": Currency(Noun("livres", one="livre", ruleset=_FEMININE), Noun("pence", one="penny", ruleset=_MASCULINE)),
        "CHF": Currency(Noun("francs", one="franc", ruleset=_MASCULINE), Noun("centimes", one="centime", ruleset=_MASCULINE)),
    },
    money_with_minor="{major} {unit} et {minor} {subunit}",
    # A noun after a decimal takes the form of its whole (BDL): the singular below two (1,5 kilomètre),
    # the plural from two (3,5 kilomètres).
    decimal_noun_by_whole=True,
    units={
        "%": Noun("pour cent", ruleset=_MASCULINE),
        "km/h": Noun("kilomètres par heure", one="kilomètre par heure", ruleset=_MASCULINE),
        "km": Noun("kilomètres", one="kilomètre", ruleset=_MASCULINE),
        "m": Noun("mètres", one="mètre", ruleset=_MASCULINE),
        "cm": Noun("centimètres", one="centimètre", ruleset=_MASCULINE),
        "mm": Noun("millimètres", one="millimètre", ruleset=_MASCULINE),
        "kg": Noun("kilogrammes", one="kilogramme", ruleset=_MASCULINE),
        "g": Noun("grammes", one="gramme", ruleset=_MASCULINE),
        "mg": Noun("milligrammes", one="milligramme", ruleset=_MASCULINE),
        "l": Noun("litres", one="litre", ruleset=_MASCULINE),
        "ml": Noun("millilitres", one="millilitre", ruleset=_MASCULINE),
        "°C": Noun("degrés Celsius", one="degré Celsius", ruleset=_MASCULINE),
        "°": Noun("degrés", one="degré", ruleset=_MASCULINE),
        "h": Noun("heures", one="heure", ruleset=_FEMININE),
        "min": Noun("minutes", one="minute", ruleset=_FEMININE),
        "s": Noun("secondes", one="seconde", ruleset=_FEMININE),
    },
    ordinals=(
        (r"(?<![\d,.])(?P<n>1)(?:er|ᵉʳ)(?!\w)", "spellout-ordinal-masculine"),
        (r"(?<![\d,.])(?P<n>1)(?:re|ère|ʳᵉ)(?!\w)", "spellout-ordinal-feminine"),
        (r"(?<![\d,.])(?P<n>\d{1,4})(?:es|èmes)(?!\w)", "spellout-ordinal-masculine-plural"),
        (r"(?<![\d,.])(?P<n>\d{1,4})(?:e|ème|ᵉ)(?!\w)", "spellout-ordinal-masculine"),
    ),
    # 14 h 30 / 14:30 -> quatorze heures trente; heure is feminine (vingt-et-une heures), so are the
    # minutes (une). One form for every hour: 0 h and 1 h (zéro heure, une heure) take the plural here.
    time="{hour} {hours} {minute}",
    time_on_the_hour="{hour} {hours}",
    hour_noun=Noun("heures", one="heure"),  # 0 and 1 take the singular: zéro heure, une heure
    hour_ruleset=_FEMININE,
    minute_ruleset=_FEMININE,
    time_marks=":h",
    # The first of the month is "premier", every other day a cardinal (le 1er mai, le 2 mai).
    dates=(
        (r"(?<![\d/.])" + _DATE.format(day="0?1"), "spellout-ordinal-masculine"),
        (r"(?<![\d/.])" + _DATE.format(day=r"[0-3]?\d"), _MASCULINE),
    ),
    date="{day} {month} {year}",
    months=("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"),
    symbols={"&": "et", "+": "plus", "=": "égale", "№": "numéro", "n°": "numéro", "N°": "numéro", "%": "pour cent", "°": "degrés"},
)
