"""Dutch, from the Taalunie's advice on numbers (Taaladvies: getallen, rangtelwoorden, tijdsaanduiding)
and the readings of a Dutch reader: measures and money keep the singular after a number (tien kilometer, drie euro)."""

READINGS = [
    ("cardinal", "Ik heb 25 boeken.", "Ik heb vijfentwintig boeken."),
    ("cardinal", "Er kwamen 1.000.000 mensen.", "Er kwamen een miljoen mensen."),
    ("cardinal", "Bladzijde 101 ontbreekt.", "Bladzijde honderdeen ontbreekt."),
    ("decimal", "Hij weegt 3,5 kg meer.", "Hij weegt drie komma vijf kilo meer."),
    ("other convention", "De waarde is 3.5 volgens het rapport.", "De waarde is drie komma vijf volgens het rapport."),
    ("ordinal", "Ze werd 2e in de race.", "Ze werd tweede in de race."),
    ("ordinal", "Het is zijn 8ste verjaardag.", "Het is zijn achtste verjaardag."),
    ("negative", "Het was -5 graden.", "Het was min vijf graden."),
    ("percent", "Het aandeel was 50 %.", "Het aandeel was vijftig procent."),
    ("currency", "Dat kost € 3,50.", "Dat kost drie euro vijftig."),
    ("currency", "De prijs is 20 euro of $ 25.", "De prijs is twintig euro of vijfentwintig dollar."),
    ("year", "In 1999 was alles anders.", "In negentiennegenennegentig was alles anders."),
    ("year", "Sinds 2010 woon ik hier.", "Sinds tweeduizendtien woon ik hier."),
    ("time", "De trein vertrekt om 14:30 uur.", "De trein vertrekt om veertien uur dertig."),
    ("time", "We beginnen om 9:00.", "We beginnen om negen uur."),
    ("time", "Open 14:00-16:00.", "Open veertien uur tot zestien uur."),
    ("date", "Ik kom op 24-08-2026 aan.", "Ik kom op vierentwintig augustus tweeduizendzesentwintig aan."),
    ("unit", "De route is 10 km lang.", "De route is tien kilometer lang."),
    ("unit", "Het water is 21 °C.", "Het water is eenentwintig graden Celsius."),
    ("unit", "Het duurt 1 minuut of 3 min.", "Het duurt een minuut of drie minuten."),
    ("symbol", "Jansen & Zonen", "Jansen en Zonen"),
    ("cardinal", "Het duurt 3-5 dagen.", "Het duurt drie tot vijf dagen."),  # a range is read with tot (3 tot 5 dagen)
    ("year", "In 1990-2000 woonde hij hier.", "In negentiennegentig tot tweeduizend woonde hij hier."),
]
KEPT: dict[str, str] = {}
