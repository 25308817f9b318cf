"""Latvian, from the agreement of a noun with its number: singular after 1, 21, 31, plural after the rest;
the sentences ask for the nominative, the case the rules say a noun in."""

READINGS = [
    ("cardinal", "Man ir 25 draugi.", "Man ir divdesmit pieci draugi."),
    ("cardinal", "Lapa 103 trūkst.", "Lapa simt trīs trūkst."),
    ("decimal", "Vērtība ir 3,5 šodien.", "Vērtība ir trīs komats pieci šodien."),
    ("other convention", "Vērtība ir 3.5 šodien.", "Vērtība ir trīs komats pieci šodien."),
    ("negative", "Ārā ir -5 grādi.", "Ārā ir mīnus pieci grādi."),
    ("percent", "Daļa bija 50 %.", "Daļa bija piecdesmit procenti."),
    ("percent", "Tikai 21 % piekrita.", "Tikai divdesmit viens procents piekrita."),
    ("currency", "Cena: 3,50 €.", "Cena: trīs eiro piecdesmit centi."),
    ("currency", "Cena ir 2 $.", "Cena ir divi dolāri."),
    ("time", "Vilciens atiet 14:30.", "Vilciens atiet četrpadsmit trīsdesmit."),
    ("time", "Pulkstenis ir 9:00.", "Pulkstenis ir deviņi."),
    ("unit", "Līdz pilsētai ir 10 km.", "Līdz pilsētai ir desmit kilometri."),
    ("unit", "Ūdens ir 21 °C.", "Ūdens ir divdesmit viens grāds pēc Celsija."),
    ("unit", "Palikušas 2 h.", "Palikušas divas stundas."),
    ("unit", "Palikusi 1 min.", "Palikusi viena minūte."),
    ("symbol", "Bērziņš & dēli", "Bērziņš un dēli"),
    ("symbol", "a + b", "a plus b"),
]
KEPT = {
    "ordinal": "written with a dot (3. vieta) and said in the gender and case of its noun; CLDR has no Latvian ordinal rule set",
    "year": "said as an ordinal (2026. gadā: divtūkstoš divdesmit sestajā gadā); CLDR has no Latvian ordinal rule set",
    "date": "written 2026. gada 24. augustā, its day and year ordinals; CLDR has no Latvian ordinal rule set",
}
