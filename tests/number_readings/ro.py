"""Romanian: digits stay as written (CLDR spells ş ţ where the Romanian Academy writes ș ț); symbols,
currency and percent words are said, with "de" from twenty on (DOOM 3: douăzeci de euro)."""

_KEPT = "CLDR spells Romanian numbers with the cedilla letters ş ţ (the Academy writes ș ț) and has no Romanian ordinals: the digits stay"

READINGS = [
    ("currency", "Costă 1 €.", "Costă 1 euro."),
    ("currency", "Costă 5 €.", "Costă 5 euro."),
    ("currency", "Costă 25 €.", "Costă 25 de euro."),
    ("percent", "Reducere de 10 %.", "Reducere de 10 la sută."),
    ("symbol", "Popescu & fiii", "Popescu și fiii"),
    ("symbol", "Prețurile în € cresc.", "Prețurile în euro cresc."),
]
KEPT = {category: _KEPT for category in ("cardinal", "decimal", "other convention", "ordinal", "negative", "year", "time", "date", "unit")}
