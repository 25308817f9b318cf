"""Estonian, from Eesti Keele Instituut's advice on numbers (arvude kirjutamine, kellaajad) and the
readings of an Estonian reader: the partitive after a number other than one (kolm eurot, üks euro)."""

READINGS = [
    ("cardinal", "Mul on 25 raamatut.", "Mul on kakskümmend viis raamatut."),
    ("cardinal", "Kohale tuli 1 000 000 inimest.", "Kohale tuli üks miljon inimest."),
    ("cardinal", "Lehekülg 12 puudub.", "Lehekülg kaksteist puudub."),
    ("decimal", "Ta kaalub 3,5 kg rohkem.", "Ta kaalub kolm koma viis kilogrammi rohkem."),
    ("other convention", "Väärtus on 3.5 aruande järgi.", "Väärtus on kolm koma viis aruande järgi."),
    ("negative", "Väljas oli -5 kraadi.", "Väljas oli miinus viis kraadi."),
    ("percent", "Osakaal oli 50 %.", "Osakaal oli viiskümmend protsenti."),
    ("currency", "See maksab 3,50 €.", "See maksab kolm eurot ja viiskümmend senti."),
    ("currency", "Pilet maksab 1 €.", "Pilet maksab üks euro."),
    ("time", "Rong väljub kell 14.30.", "Rong väljub kell neliteist kolmkümmend."),
    ("time", "Alustame kell 9:00.", "Alustame kell üheksa."),
    ("unit", "Teekond on 10 km pikk.", "Teekond on kümme kilomeetrit pikk."),
    ("unit", "Vesi on 21 °C.", "Vesi on kakskümmend üks kraadi."),
    ("unit", "See kestab 1 h.", "See kestab üks tund."),
    ("symbol", "Tamm & Pojad", "Tamm ja Pojad"),
]
KEPT = {
    "ordinal": "CLDR has no Estonian ordinal rule set (5. mai: viies, in the case its noun takes)",
    "date": "an Estonian date's day is an ordinal (24.08.2026: kahekümne neljas august), and CLDR has no Estonian ordinal rule set",
    "year": "Estonian writes a year as an ordinal with the case of aasta (1999. aastal), and CLDR has no Estonian"
    " ordinal rule set; its year rule set says üheksateist sada for 1999",
}
