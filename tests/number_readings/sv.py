"""Swedish, from Språkrådet's Svenska skrivregler (siffror och tal, ordningstal, klockslag, datum)
and the readings of a Swedish reader: en before an en-word (en krona), ett when counting (ett, två, tre)."""

READINGS = [
    ("cardinal", "Jag har 25 böcker.", "Jag har tjugofem böcker."),
    ("cardinal", "Det kom 1 000 000 människor.", "Det kom en miljon människor."),
    ("cardinal", "Sidan 101 saknas.", "Sidan etthundraett saknas."),
    ("decimal", "Han väger 3,5 kg mer.", "Han väger tre komma fem kilo mer."),
    ("other convention", "Värdet är 3.5 enligt rapporten.", "Värdet är tre komma fem enligt rapporten."),
    ("ordinal", "Hon kom på 2:a plats.", "Hon kom på andra plats."),
    ("ordinal", "Det är hans 3:e försök.", "Det är hans tredje försök."),
    ("negative", "Det var -5 grader ute.", "Det var minus fem grader ute."),
    ("percent", "Andelen var 50 %.", "Andelen var femtio procent."),
    ("currency", "Det kostar 3,50 kr.", "Det kostar tre kronor och femtio öre."),
    ("currency", "Biljetten kostar 1 kr.", "Biljetten kostar en krona."),
    ("currency", "Priset är 20 €.", "Priset är tjugo euro."),
    ("year", "År 1999 var allt annorlunda.", "År nittonhundranittionio var allt annorlunda."),
    ("time", "Tåget går klockan 14.30.", "Tåget går klockan fjorton och trettio."),
    ("time", "Vi börjar klockan 9:00.", "Vi börjar klockan nio."),
    ("date", "Mötet hölls den 3.5.1998 i Lund.", "Mötet hölls den tredje maj nittonhundranittioåtta i Lund."),
    ("date", "Jag föddes den 24/8 1994.", "Jag föddes den tjugofjärde augusti nittonhundranittiofyra."),
    ("unit", "Sträckan är 10 km lång.", "Sträckan är tio kilometer lång."),
    ("unit", "Vattnet håller 21 °C.", "Vattnet håller tjugoen grader Celsius."),
    ("unit", "Det tar 1 h.", "Det tar en timme."),
    ("symbol", "Svensson & Son", "Svensson och Son"),
    (
        "cardinal",
        "Det tar 3–5 dagar.",
        "Det tar tre till fem dagar.",
    ),  # a range's dash is read till (Språkrådet: 3–5 dagar, tre till fem dagar)
]
KEPT: dict[str, str] = {}
