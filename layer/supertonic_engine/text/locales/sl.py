"""Slovenian: its digits stay as written, its symbols are said.

CLDR's Slovenian words say dvajset ena where Slovenian says enaindvajset (Slovenski pravopis 2001,
§ 682), for most numbers from 21 to 99, and it has no Slovenian ordinals; the model reads the digits."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    lang="sl",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="vejica",
    minus_word="minus",
    plural="slovenian",
    cardinal=None,
    year=None,
    # Forms by the number's last two digits (Slovenski pravopis: 1 evro, 2 evra, 3 evri, 5 evrov).
    currencies={
        "€": Currency(Noun("evrov", one="evro", two="evra", few="evri")),
        "$": Currency(Noun("dolarjev", one="dolar", two="dolarja", few="dolarji")),
    },
    units={"%": Noun("odstotkov", one="odstotek", two="odstotka", few="odstotki")},
    symbols={"&": "in", "+": "plus", "=": "je enako", "№": "številka", "%": "odstotkov"},
)
