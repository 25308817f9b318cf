"""Lithuanian, from the agreement of a noun with its number (nominative singular after 1, 21; nominative
plural after 2-9; genitive plural after 10-20, 30; genitive singular after a decimal amount); the
sentences ask for the nominative, the case the rules say a noun in."""

READINGS = [
    ("cardinal", "Atėjo 25 žmonės.", "Atėjo dvidešimt penki žmonės."),
    ("cardinal", "Trūksta puslapio 103 ir kitų.", "Trūksta puslapio šimtas trys ir kitų."),
    ("decimal", "Reikšmė yra 3,5 šiandien.", "Reikšmė yra trys kablelis penki šiandien."),
    ("other convention", "Reikšmė yra 3.5 šiandien.", "Reikšmė yra trys kablelis penki šiandien."),
    ("negative", "Lauke -5 laipsniai.", "Lauke minus penki laipsniai."),
    ("percent", "Dalis buvo 50 %.", "Dalis buvo penkiasdešimt procentų."),
    ("percent", "Liko 2,5 %.", "Liko du kablelis penki procento."),
    ("currency", "Kaina: 3,50 €.", "Kaina: trys eurai penkiasdešimt centų."),
    ("currency", "Kaina: 21 €.", "Kaina: dvidešimt vienas euras."),
    ("currency", "Kaina: 10 $.", "Kaina: dešimt dolerių."),
    ("unit", "Iki miesto 10 km.", "Iki miesto dešimt kilometrų."),
    ("unit", "Vandens temperatūra 21 °C.", "Vandens temperatūra dvidešimt vienas laipsnis Celsijaus."),
    ("unit", "Liko 2 h.", "Liko dvi valandos."),
    ("unit", "Liko 5 min.", "Liko penkios minutės."),
    ("symbol", "Jonaitis & sūnūs", "Jonaitis ir sūnūs"),
    ("symbol", "a + b", "a plius b"),
]
KEPT = {
    "ordinal": "said in the gender and case of its noun; CLDR has no Lithuanian ordinal rule set",
    "year": "said as an ordinal (2026 m.: du tūkstančiai dvidešimt šeštieji metai); CLDR has no Lithuanian ordinal rule set",
    "date": "written 2026-08-24 and said with ordinals (rugpjūčio dvidešimt ketvirtoji); CLDR has no Lithuanian ordinal rule set",
    "time": "the hour is said as a feminine ordinal (devinta valanda) in the case of its preposition; CLDR has no Lithuanian ordinal rule set",
}
