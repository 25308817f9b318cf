"""Czech, from the Internetová jazyková příručka (ÚJČ AV ČR): writing numbers, a noun's form after a
number (dva kilometry, pět kilometrů), years read as cardinals."""

READINGS = [
    ("cardinal", "Mám 25 knih.", "Mám dvacet pět knih."),
    ("cardinal", "Přišlo 3 000 lidí.", "Přišlo tři tisíce lidí."),
    ("cardinal", "Přišlo 105 lidí.", "Přišlo sto pět lidí."),
    ("decimal", "Váží o 3,5 kg víc.", "Váží o tři celé pět kilogramu víc."),
    ("other convention", "Hodnota 3.5 podle zprávy.", "Hodnota tři celé pět podle zprávy."),
    ("negative", "Venku je -5 stupňů.", "Venku je minus pět stupňů."),
    ("percent", "Podíl vzrostl o 2 %.", "Podíl vzrostl o dvě procenta."),
    ("percent", "Souhlasilo jen 5 %.", "Souhlasilo jen pět procent."),
    ("currency", "Stojí to 3,50 Kč.", "Stojí to tři koruny padesát haléřů."),
    ("currency", "Lístek stojí 2 €.", "Lístek stojí dvě eura."),
    ("currency", "Celkem $5.", "Celkem pět dolarů."),
    ("year", "V roce 1999 bylo všechno jinak.", "V roce tisíc devět set devadesát devět bylo všechno jinak."),
    ("time", "Vlak jede ve 14:30.", "Vlak jede ve čtrnáct třicet."),
    ("time", "Začínáme v 9:00.", "Začínáme v devět nula nula."),
    ("unit", "Cesta měří 10 km.", "Cesta měří deset kilometrů."),
    ("unit", "Zbyly 2 min.", "Zbyly dvě minuty."),
    ("unit", "Zbývá 1 h.", "Zbývá jedna hodina."),
    ("symbol", "Novák & synové", "Novák a synové"),
    ("cardinal", "Mám 2 knihy.", "Mám dvě knihy."),  # a number agrees with the noun it counts
    ("cardinal", "Je tu 1 žena.", "Je tu jedna žena."),
    ("cardinal", "Jsou tam 2 okna.", "Jsou tam dvě okna."),
    ("cardinal", "Zbylo 1 místo.", "Zbylo jedno místo."),
    ("cardinal", "Mám 2 psy.", "Mám dva psy."),  # masculine: the default
    ("decimal", "Je to 1,5 km.", "Je to jedna celá pět kilometru."),  # celá agrees with the whole (ÚJČ)
    ("decimal", "Je to 2,5 km.", "Je to dvě celé pět kilometru."),
    ("decimal", "Je to 5,5 km.", "Je to pět celých pět kilometru."),
    ("cardinal", "Trvá to 3-5 dní.", "Trvá to tři až pět dní."),  # a range is read with až (3 až 5 dní)
]
KEPT = {
    "ordinal": "CLDR's Czech rules as loaded have no ordinals (druhé místo)",
    "date": "the day is an ordinal in the genitive (dvacátého čtvrtého srpna), and there are no Czech ordinals",
}
