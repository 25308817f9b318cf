"""Danish, from Dansk Sprognævn's rules for numbers (Retskrivningsordbogen: tal, ordenstal, klokkeslæt,
datoer) and the readings of a Danish reader: en before a common-gender noun (en krone), et when counting."""

READINGS = [
    ("cardinal", "Jeg har 25 bøger.", "Jeg har femogtyve bøger."),
    ("cardinal", "Der kom 1.000.000 mennesker.", "Der kom en million mennesker."),
    ("cardinal", "Side 101 mangler.", "Side hundrede og et mangler."),
    ("decimal", "Han vejer 3,5 kg mere.", "Han vejer tre komma fem kilo mere."),
    ("other convention", "Værdien er 3.5 ifølge rapporten.", "Værdien er tre komma fem ifølge rapporten."),
    ("ordinal", "Hun kom på en 2. plads.", "Hun kom på en anden plads."),
    ("ordinal", "Vi mødes den 3. maj.", "Vi mødes den tredje maj."),
    ("negative", "Det var -5 grader.", "Det var minus fem grader."),
    ("percent", "Andelen var 50 %.", "Andelen var halvtreds procent."),
    ("currency", "Det koster 3,50 kr.", "Det koster tre kroner og halvtreds øre."),
    ("currency", "Billetten koster 1 kr.", "Billetten koster en krone."),
    ("currency", "Prisen er 20 €.", "Prisen er tyve euro."),
    ("time", "Toget kører klokken 14.30.", "Toget kører klokken fjorten tredive."),
    ("time", "Vi begynder klokken 9:00.", "Vi begynder klokken ni."),
    ("date", "Jeg kommer den 24.08.2026.", "Jeg kommer den fireogtyvende august to tusind og seksogtyve."),
    ("unit", "Turen er 10 km lang.", "Turen er ti kilometer lang."),
    ("unit", "Vandet er 21 °C.", "Vandet er enogtyve grader celsius."),
    ("unit", "Det tager 1 h.", "Det tager en time."),
    ("symbol", "Hansen & Søn", "Hansen og Søn"),
    ("cardinal", "Det tager 3-5 dage.", "Det tager tre til fem dage."),  # a range's dash is read til (3-5 dage, tre til fem dage)
]
KEPT = {
    "year": "CLDR's Danish year rules say tyvehundrede og seksogtyve for 2026 where Danes say to tusind og seksogtyve,"
    " and the cardinal says tusind nihundrede for 1999 where they say nittenhundrede",
}
