"""Ukrainian, from Український правопис (2019) on numbers and the agreement of a noun after a number
(один кілометр, два кілометри, п'ять кілометрів). CLDR spells the apostrophe as U+02BC (пʼять), which
the model's table lacks and ``readable`` folds to the plain one before the model reads it; the
readings, checked before that fold, keep to numbers without it."""

READINGS = [
    ("cardinal", "У мене 24 книжки.", "У мене двадцять чотири книжки."),
    ("cardinal", "Прийшло 1 000 000 людей.", "Прийшло один мільйон людей."),
    ("cardinal", "Сторінка 101 зникла.", "Сторінка сто один зникла."),
    ("decimal", "Він важить на 3,2 кг більше.", "Він важить на три кома два кілограма більше."),
    ("other convention", "Значення 3.2 за звітом.", "Значення три кома два за звітом."),
    ("negative", "Надворі -3 градуси.", "Надворі мінус три градуси."),
    ("percent", "Частка зросла на 22 %.", "Частка зросла на двадцять два відсотки."),
    ("percent", "Погодився лише 1 %.", "Погодився лише один відсоток."),
    ("currency", "Це коштує 3,20 €.", "Це коштує три євро двадцять центів."),
    ("currency", "Квиток коштує 21 грн.", "Квиток коштує двадцять одна гривня."),
    ("currency", "Разом $3.", "Разом три долари."),
    ("unit", "Дорога завдовжки 10 км.", "Дорога завдовжки десять кілометрів."),
    ("unit", "Минуло 2 хв.", "Минуло дві хвилини."),
    ("unit", "Вода 21 °C.", "Вода двадцять один градус Цельсія."),
    ("unit", "Швидкість 80 км/год.", "Швидкість вісімдесят кілометрів на годину."),
    ("symbol", "Петренко & сини", "Петренко і сини"),
    ("cardinal", "У мене 21 книга.", "У мене двадцять одна книга."),  # a number agrees with the noun it counts
    ("cardinal", "Прочитав 2 книги.", "Прочитав дві книги."),
    ("cardinal", "Є 1 вікно.", "Є одне вікно."),
    ("cardinal", "Минуло 2 тижні.", "Минуло два тижні."),  # masculine: the default
]
KEPT = {
    "ordinal": "CLDR has no Ukrainian ordinal rule set (другий, третя)",
    "year": "a year is an ordinal in the case of рік after it (у двотисячному році), and CLDR has no Ukrainian ordinals",
    "date": "the day is an ordinal (двадцять четверте серпня), and CLDR has no Ukrainian ordinals",
    "time": "the hour is a feminine ordinal (о чотирнадцятій тридцять), and CLDR has no Ukrainian ordinals",
}
