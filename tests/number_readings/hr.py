"""Croatian, from Hrvatski pravopis (Institut za hrvatski jezik i jezikoslovlje) on numbers: the
noun after 1 in the singular, after 2-4 in the paucal, after 5-20 in the genitive plural."""

READINGS = [
    ("cardinal", "Imam 25 knjiga.", "Imam dvadeset i pet knjiga."),
    ("cardinal", "Došlo je 1.000.000 ljudi.", "Došlo je jedan milijun ljudi."),
    ("cardinal", "Stranica 103 nedostaje.", "Stranica sto tri nedostaje."),
    ("decimal", "Vrijednost je 3,5 danas.", "Vrijednost je tri zarez pet danas."),
    ("other convention", "Vrijednost je 3.5 prema izvješću.", "Vrijednost je tri zarez pet prema izvješću."),
    ("negative", "Bilo je -5 vani.", "Bilo je minus pet vani."),
    ("percent", "Udio je bio 50 %.", "Udio je bio pedeset posto."),
    ("currency", "To košta 3,50 €.", "To košta tri eura i pedeset centi."),
    ("currency", "Cijena je 21 €.", "Cijena je dvadeset i jedan euro."),
    ("currency", "Platio sam 2 $.", "Platio sam dva dolara."),
    ("time", "Vlak polazi u 14:30.", "Vlak polazi u četrnaest i trideset."),
    ("time", "Počinjemo u 9:00.", "Počinjemo u devet."),
    ("unit", "Staza je duga 10 km.", "Staza je duga deset kilometara."),
    ("unit", "Kupio sam 2 l mlijeka.", "Kupio sam dvije litre mlijeka."),
    ("unit", "Voda ima 21 °C.", "Voda ima dvadeset i jedan stupanj Celzija."),
    ("unit", "Trajalo je 3 h.", "Trajalo je tri sata."),
    ("symbol", "Horvat & sinovi", "Horvat i sinovi"),
    ("symbol", "a + b", "a plus b"),
]
KEPT = {
    "ordinal": "written with a dot (3. mjesto) and said in the gender and case of its noun, which a rule cannot know",
    "year": "said as an ordinal in the case of its noun (2026. godine: dvije tisuće dvadeset šeste), which no CLDR rule set gives",
    "date": "day and year are ordinals in the genitive (24. kolovoza 2026.), which no CLDR rule set gives",
}
