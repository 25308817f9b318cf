"""Polish, from the Wielki słownik ortograficzny PWN's rules for numbers and the Poradnia językowa
PWN on a noun's form after a number (dwa kilometry, pięć kilometrów, dwadzieścia jeden kilometrów)."""

READINGS = [
    ("cardinal", "Mam 25 książek.", "Mam dwadzieścia pięć książek."),
    ("cardinal", "Przyszło 1 000 000 osób.", "Przyszło milion osób."),
    ("cardinal", "Strona 101 zginęła.", "Strona sto jeden zginęła."),
    ("decimal", "Waży o 3,5 kg więcej.", "Waży o trzy przecinek pięć kilograma więcej."),
    ("other convention", "Wartość 3.5 według raportu.", "Wartość trzy przecinek pięć według raportu."),
    ("negative", "Na dworze -5 stopni.", "Na dworze minus pięć stopni."),
    ("percent", "Udział wzrósł o 22 %.", "Udział wzrósł o dwadzieścia dwa procent."),
    ("currency", "To kosztuje 3,50 zł.", "To kosztuje trzy złote pięćdziesiąt groszy."),
    ("currency", "Bilet kosztuje 21 zł.", "Bilet kosztuje dwadzieścia jeden złotych."),
    ("currency", "Razem 5 €.", "Razem pięć euro."),
    ("unit", "Droga ma 10 km.", "Droga ma dziesięć kilometrów."),
    ("unit", "Minęły 2 min.", "Minęły dwie minuty."),
    ("unit", "Została 1 h.", "Została jedna godzina."),
    ("unit", "Woda ma 22 °C.", "Woda ma dwadzieścia dwa stopnie Celsjusza."),
    ("unit", "Jechał 12 km/h.", "Jechał dwanaście kilometrów na godzinę."),
    ("symbol", "Kowalski & Synowie", "Kowalski i Synowie"),
    ("cardinal", "Mam 2 książki.", "Mam dwie książki."),  # a number agrees with the noun it counts
    ("cardinal", "Jest 1 kobieta.", "Jest jedna kobieta."),
    ("cardinal", "Zostało 1 miejsce.", "Zostało jedno miejsce."),
    ("cardinal", "Mam 2 koty.", "Mam dwa koty."),  # masculine: the default
    (
        "cardinal",
        "To trwa 2-3 dni.",
        "To trwa dwa-trzy dni.",
    ),  # an approximate range is said with the numbers side by side (dwa-trzy dni); od ... do asks for the genitive
]
KEPT = {
    "ordinal": "CLDR's Polish rules as loaded have no ordinals (drugi, trzecia)",
    "year": "a year is an ordinal (w roku tysiąc dziewięćset dziewięćdziesiątym dziewiątym), and there are no Polish ordinals",
    "date": "the day is an ordinal in the genitive (dwudziestego czwartego sierpnia), and there are no Polish ordinals",
    "time": "the hour is a feminine ordinal (czternasta trzydzieści), and there are no Polish ordinals",
}
