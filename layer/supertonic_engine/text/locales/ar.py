"""Arabic: its digits stay as written, its symbols are said.

CLDR's Arabic words are wrong too often to read numbers with them: the hundreds 300-900 are written
apart (خمسة مائة for خمسمائة, also inside 1999), 2000 is ألفي, and no noun agrees with its number.
The model reads the digits; what a person says for a symbol is read here (مجمع اللغة العربية usage)."""

from ..number_locale import Currency, Noun, NumberLocale

LOCALE = NumberLocale(
    lang="ar",
    decimal_mark="٫",
    group_marks="٬,",
    decimal_word="فاصلة",
    minus_word="ناقص",
    cardinal=None,
    year=None,
    # A currency sign is said as its name, after the amount's digits (the name does not agree: the
    # noun's case and number after a numeral are beyond these rules).
    currencies={"€": Currency(Noun("يورو")), "$": Currency(Noun("دولار")), "£": Currency(Noun("جنيه"))},
    units={"%": Noun("بالمئة"), "٪": Noun("بالمئة")},
    symbols={"&": "و", "+": "زائد", "=": "يساوي", "№": "رقم", "%": "بالمئة", "٪": "بالمئة"},
)
