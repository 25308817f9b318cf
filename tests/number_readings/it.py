"""Italian, from Treccani's Enciclopedia dell'italiano (numerali: ventun anni, ventitré, milleno-
vecentonovantanove in one word; ordinals 1º / 1ª) and the Accademia della Crusca's answers on the
invariable "euro" and on reading the hours (alle quattordici e trenta)."""

READINGS = [
    ("cardinal", "Ho 25 anni.", "Ho venticinque anni."),
    ("cardinal", "Sono venute 1.000.000 di persone.", "Sono venute un milione di persone."),
    ("cardinal", "Vedi pagina 23.", "Vedi pagina ventitré."),
    ("decimal", "Pesa 3,5 kg.", "Pesa tre virgola cinque chilogrammi."),
    ("decimal", "Pi greco vale circa 3,14.", "Pi greco vale circa tre virgola quattordici."),
    ("other convention", "Il valore è 3.5 secondo il rapporto.", "Il valore è tre virgola cinque secondo il rapporto."),
    ("ordinal", "È arrivato 1º.", "È arrivato primo."),
    ("ordinal", "È la 2ª volta.", "È la seconda volta."),
    ("negative", "Ci sono -5 gradi.", "Ci sono meno cinque gradi."),
    ("percent", "È salito del 50%.", "È salito del cinquanta per cento."),
    ("currency", "Costa 3,50 €.", "Costa tre euro e cinquanta centesimi."),
    ("currency", "Costa € 20.", "Costa venti euro."),
    ("currency", "Sono $21.", "Sono ventun dollari."),
    ("year", "Sono nato nel 1999.", "Sono nato nel millenovecentonovantanove."),
    ("time", "Partiamo alle 14:30.", "Partiamo alle quattordici e trenta."),
    ("time", "Apriamo alle 9:00.", "Apriamo alle nove."),
    ("date", "Arrivo il 24/08/2026.", "Arrivo il ventiquattro agosto duemilaventisei."),
    ("date", "Il 1/5/2026 è festa.", "Il primo maggio duemilaventisei è festa."),
    ("unit", "Ho corso 10 km.", "Ho corso dieci chilometri."),
    ("unit", "L'acqua è a 21 °C.", "L'acqua è a ventun gradi Celsius."),
    ("symbol", "Rossi & Figli", "Rossi e Figli"),
    ("cardinal", "Ho 1 casa.", "Ho una casa."),  # a number agrees with the noun it counts
    ("cardinal", "C'è 1 problema.", "C'è un problema."),  # problema, tema, sistema: masculine in -a
    (
        "cardinal",
        "Ci vogliono 3-4 giorni.",
        "Ci vogliono tre-quattro giorni.",
    ),  # an approximate range is said with the numbers side by side (tre-quattro giorni)
]
KEPT: dict[str, str] = {}
