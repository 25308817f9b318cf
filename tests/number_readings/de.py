"""German, from Duden's rules for numbers (Schreibung der Zahlen; Kommasetzung bei Dezimalzahlen),
ordinals after articles and prepositions inflected for their case."""

READINGS = [
    ("cardinal", "Ich habe 25 Bücher.", "Ich habe fünfundzwanzig Bücher."),
    ("cardinal", "Es kamen 1.000.000 Menschen.", "Es kamen eine Million Menschen."),
    ("cardinal", "Seite 101 fehlt.", "Seite einhunderteins fehlt."),
    ("cardinal", "Nimm die 3. Sie fährt schneller.", "Nimm die drei. Sie fährt schneller."),  # a full stop, not an ordinal's dot
    ("decimal", "Er wiegt 3,5 kg mehr.", "Er wiegt drei Komma fünf Kilogramm mehr."),
    ("decimal", "Pi ist etwa 3,14.", "Pi ist etwa drei Komma eins vier."),
    ("other convention", "Der Wert ist 3.5 laut Bericht.", "Der Wert ist drei Komma fünf laut Bericht."),
    ("ordinal", "Der 2. Platz ging an sie.", "Der zweite Platz ging an sie."),
    ("ordinal", "Wir treffen uns am 3. Mai.", "Wir treffen uns am dritten Mai."),
    ("negative", "Es waren -5 Grad.", "Es waren minus fünf Grad."),
    ("percent", "Die Quote lag bei 50 %.", "Die Quote lag bei fünfzig Prozent."),
    ("percent", "Nur 1 % stimmte zu.", "Nur ein Prozent stimmte zu."),
    ("currency", "Das kostet 3,50 €.", "Das kostet drei Euro fünfzig."),
    ("currency", "Der Preis: 20 €.", "Der Preis: zwanzig Euro."),
    ("year", "Im Jahr 1999 war alles anders.", "Im Jahr neunzehnhundertneunundneunzig war alles anders."),
    ("year", "Seit 2010 wohne ich hier.", "Seit zweitausendzehn wohne ich hier."),
    ("time", "Der Zug fährt um 14:30 Uhr.", "Der Zug fährt um vierzehn Uhr dreißig."),
    ("time", "Wir beginnen um 9:00.", "Wir beginnen um neun Uhr."),
    ("time", "Geöffnet 14:00-16:00 Uhr.", "Geöffnet vierzehn Uhr bis sechzehn Uhr."),  # from one time to another: "bis", as for numbers
    ("time", "Sprechstunde 9:30 – 11:00 Uhr.", "Sprechstunde neun Uhr dreißig bis elf Uhr."),
    ("date", "Ich komme am 24.08.2026 an.", "Ich komme am vierundzwanzigsten August zweitausendsechsundzwanzig an."),
    ("unit", "Die Strecke ist 10 km lang.", "Die Strecke ist zehn Kilometer lang."),
    ("unit", "Das Wasser hat 21 °C.", "Das Wasser hat einundzwanzig Grad Celsius."),
    ("symbol", "Müller & Söhne", "Müller und Söhne"),
    ("cardinal", "Ich habe 1 Katze.", "Ich habe eine Katze."),  # a number agrees with the noun it counts
    ("cardinal", "Dort steht 1 Haus.", "Dort steht ein Haus."),
    ("cardinal", "Es war 1 Mann da.", "Es war ein Mann da."),
    ("cardinal", "Es ist 1 Uhr.", "Es ist ein Uhr."),
    ("decimal", "Es sind 1,5 km.", "Es sind eins Komma fünf Kilometer."),  # a decimal's whole is said as counted: eins
    ("decimal", "Es dauert 1,5 h.", "Es dauert eins Komma fünf Stunden."),
    (
        "cardinal",
        "Das dauert 3-5 Tage.",
        "Das dauert drei bis fünf Tage.",
    ),  # a range is read with bis (Duden: 3–5 Tage, drei bis fünf Tage)
    ("cardinal", "Geöffnet 9–17 Uhr.", "Geöffnet neun bis siebzehn Uhr."),
    ("cardinal", "Es kostet 5 – 10 €.", "Es kostet fünf bis zehn Euro."),
    ("cardinal", "Bayern gewann 2:1.", "Bayern gewann zwei zu eins."),  # a score or a ratio: "zu"
    ("cardinal", "Das Bild ist 16:9.", "Das Bild ist sechzehn zu neun."),
    (
        "year",
        "Er lebte 1990-2000 in Berlin.",
        "Er lebte neunzehnhundertneunzig bis zweitausend in Berlin.",
    ),  # two years joined: both said as years
    (
        "currency",
        "Es kostet 1500-2000 € im Monat.",
        "Es kostet eintausendfünfhundert bis zweitausend Euro im Monat.",
    ),  # an amount, not years
]
KEPT: dict[str, str] = {}
