"""Slovenian: digits stay as written (CLDR's words say dvajset ena for enaindvajset); symbols, currency
and percent words are said, in the form the number asks for (Slovenski pravopis: 1 evro, 2 evra, 3 evri, 5 evrov)."""

_KEPT = "CLDR's Slovenian words say dvajset ena where Slovenian says enaindvajset (21-99), and it has no ordinals: the digits stay"

READINGS = [
    ("currency", "Stane 1 €.", "Stane 1 evro."),
    ("currency", "Stane 2 €.", "Stane 2 evra."),
    ("currency", "Stane 25 €.", "Stane 25 evrov."),
    ("percent", "Popust je 10 %.", "Popust je 10 odstotkov."),
    ("percent", "Le 1 % ljudi.", "Le 1 odstotek ljudi."),
    ("symbol", "Novak & sinovi", "Novak in sinovi"),
    ("symbol", "Cene v € rastejo.", "Cene v evrov rastejo."),  # the sign alone takes the counted form; unsure for the locative
]
KEPT = {category: _KEPT for category in ("cardinal", "decimal", "other convention", "ordinal", "negative", "year", "time", "date", "unit")}
