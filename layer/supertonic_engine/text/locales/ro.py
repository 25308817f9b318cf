"""Romanian: its digits stay as written, its symbols are said.

CLDR spells Romanian numbers with the cedilla letters ş and ţ where the Romanian Academy writes ș and ț
(DOOM 3), in almost every number past twenty, and has no Romanian ordinals; the model reads the digits."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    lang="ro",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="virgulă",
    minus_word="minus",
    plural="romanian",
    cardinal=None,
    year=None,
    # From twenty on a noun takes "de" (DOOM 3: douăzeci de euro); below, it follows the number.
    currencies={
        "€": Currency(Noun("de euro", one="euro", few="euro")),
        "$": Currency(Noun("de dolari", one="dolar", few="dolari")),
    },
    units={"%": Noun("la sută")},
    symbols={"&": "și", "+": "plus", "=": "egal", "№": "numărul", "%": "la sută", "€": "euro", "$": "dolari"},
)
