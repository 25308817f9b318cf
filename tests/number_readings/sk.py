"""Slovak, from the Pravidlá slovenského pravopisu (numbers) and the agreement of a noun after a
number (dva kilometre, päť kilometrov); years read as cardinals."""

READINGS = [
    ("cardinal", "Mám 25 kníh.", "Mám dvadsaťpäť kníh."),
    ("cardinal", "Prišlo 3 000 ľudí.", "Prišlo tri tisíce ľudí."),
    ("cardinal", "Prišlo 48 ľudí.", "Prišlo štyridsaťosem ľudí."),
    ("decimal", "Váži o 3,5 kg viac.", "Váži o tri celé päť kilogramu viac."),
    ("other convention", "Hodnota 3.5 podľa správy.", "Hodnota tri celé päť podľa správy."),
    ("negative", "Vonku je -5 stupňov.", "Vonku je mínus päť stupňov."),
    ("percent", "Podiel vzrástol o 2 %.", "Podiel vzrástol o dve percentá."),
    ("percent", "Súhlasilo len 5 %.", "Súhlasilo len päť percent."),
    ("currency", "Stojí to 3,50 €.", "Stojí to tri eurá päťdesiat centov."),
    ("currency", "Spolu $5.", "Spolu päť dolárov."),
    ("year", "V roku 1999 bolo všetko inak.", "V roku tisíc deväťsto deväťdesiatdeväť bolo všetko inak."),
    ("time", "Vlak ide o 14:30.", "Vlak ide o štrnásť tridsať."),
    ("time", "Začíname o 9:00.", "Začíname o deväť nula nula."),
    ("unit", "Cesta má 10 km.", "Cesta má desať kilometrov."),
    ("unit", "Zostali 2 min.", "Zostali dve minúty."),
    ("unit", "Zostáva 1 h.", "Zostáva jedna hodina."),
    ("symbol", "Novák & synovia", "Novák a synovia"),
    ("cardinal", "Mám 2 knihy.", "Mám dve knihy."),  # a number agrees with the noun it counts
    ("cardinal", "Je tam 1 žena.", "Je tam jedna žena."),
    ("cardinal", "Zostalo 1 miesto.", "Zostalo jedno miesto."),
    ("decimal", "Je to 1,5 km.", "Je to jedna celá päť kilometra."),  # celá agrees with the whole
    ("decimal", "Je to 2,5 km.", "Je to dve celé päť kilometra."),
    ("decimal", "Je to 5,5 km.", "Je to päť celých päť kilometra."),
    ("cardinal", "Trvá to 3-5 dní.", "Trvá to tri až päť dní."),  # a range is read with až (3 až 5 dní)
]
KEPT = {
    "ordinal": "CLDR's Slovak rules as loaded have no ordinals (druhé miesto)",
    "date": "the day is an ordinal in the genitive (dvadsiateho štvrtého augusta), and there are no Slovak ordinals",
}
