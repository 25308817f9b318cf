"""Hungarian, from A magyar helyesírás szabályai (12th edition) on numbers: the noun singular after a
number, két before a noun, ordinals written with a dot."""

READINGS = [
    ("cardinal", "Van 25 könyvem.", "Van huszonöt könyvem."),
    ("cardinal", "Eljött 1 000 000 ember.", "Eljött egymillió ember."),
    ("cardinal", "A 2 szerinted sok?", "A kettő szerinted sok?"),
    ("decimal", "Az érték 3,5 lett.", "Az érték három egész öt lett."),
    ("other convention", "Az érték 3.5 lett.", "Az érték három egész öt lett."),
    ("ordinal", "Ez a 3. hely.", "Ez a harmadik hely."),
    ("ordinal", "A 21. században élünk.", "A huszonegyedik században élünk."),
    ("negative", "Kint -5 fok van.", "Kint mínusz öt fok van."),
    ("percent", "Az arány 50% volt.", "Az arány ötven százalék volt."),
    ("currency", "Ez 3,50 € lesz.", "Ez három euró ötven cent lesz."),
    ("currency", "Ez 2 € lesz.", "Ez két euró lesz."),
    ("currency", "Az ára 500 Ft.", "Az ára ötszáz forint."),
    ("year", "A forradalom 1848 óta jelkép.", "A forradalom ezernyolcszáznegyvennyolc óta jelkép."),
    ("time", "A vonat 14:30 körül indul.", "A vonat tizennégy óra harminc perc körül indul."),
    ("time", "Kezdés 2:00 körül.", "Kezdés két óra körül."),
    ("unit", "Az út 10 km hosszú.", "Az út tíz kilométer hosszú."),
    ("unit", "A víz 21 °C meleg.", "A víz huszonegy Celsius-fok meleg."),
    ("unit", "Vettem 2 kg almát.", "Vettem két kilogramm almát."),
    ("symbol", "Kovács & fia", "Kovács és fia"),
    ("symbol", "a + b", "a plusz b"),
]
KEPT = {
    "date": "written year first with the day's possessive ending (2026. augusztus 24-én: huszonnegyedikén), which the shared date rule does not read",
}
