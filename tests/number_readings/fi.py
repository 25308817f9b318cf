"""Finnish, from Kielitoimiston ohjepankki (luvut, järjestysluvut, päivämäärät, kellonajat) and the
readings of a Finnish reader: the partitive after a number other than one (kolme euroa, yksi euro)."""

READINGS = [
    ("cardinal", "Minulla on 25 kirjaa.", "Minulla on kaksikymmentäviisi kirjaa."),
    ("cardinal", "Paikalle tuli 1 000 000 ihmistä.", "Paikalle tuli yksi miljoona ihmistä."),
    ("cardinal", "Sivu 101 puuttuu.", "Sivu satayksi puuttuu."),
    ("decimal", "Hän painaa 3,5 kg enemmän.", "Hän painaa kolme pilkku viisi kiloa enemmän."),
    ("other convention", "Arvo on 3.5 raportin mukaan.", "Arvo on kolme pilkku viisi raportin mukaan."),
    ("ordinal", "Talon 8. kerros on uusi.", "Talon kahdeksas kerros on uusi."),
    ("ordinal", "Joukkue oli 3. sija.", "Joukkue oli kolmas sija."),
    ("negative", "Ulkona oli -5 astetta.", "Ulkona oli miinus viisi astetta."),
    ("percent", "Osuus oli 50 %.", "Osuus oli viisikymmentä prosenttia."),
    ("currency", "Se maksaa 3,50 €.", "Se maksaa kolme euroa ja viisikymmentä senttiä."),
    ("currency", "Lippu maksaa 1 €.", "Lippu maksaa yksi euro."),
    ("year", "Vuonna 1999 kaikki oli toisin.", "Vuonna tuhatyhdeksänsataayhdeksänkymmentäyhdeksän kaikki oli toisin."),
    ("time", "Juna lähtee klo 14.30.", "Juna lähtee klo neljätoista kolmekymmentä."),
    ("time", "Aloitamme kello 9:00.", "Aloitamme kello yhdeksän."),
    ("date", "Tulen 24.8.2026.", "Tulen kahdeskymmenesneljäs elokuuta kaksituhattakaksikymmentäkuusi."),
    ("unit", "Matka on 10 km pitkä.", "Matka on kymmenen kilometriä pitkä."),
    ("unit", "Vesi on 21 °C.", "Vesi on kaksikymmentäyksi celsiusastetta."),
    ("unit", "Se kestää 1 h.", "Se kestää yksi tunti."),
    ("symbol", "Virtanen & Pojat", "Virtanen ja Pojat"),
]
KEPT: dict[str, str] = {}
