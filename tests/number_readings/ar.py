"""Arabic: digits stay as written (CLDR writes the hundreds apart: خمسة مائة for خمسمائة); the names of
symbols and currencies are said after them, unagreed (a noun's case and number after a numeral are
beyond these rules)."""

_KEPT = "CLDR writes the hundreds 300-900 apart (خمسة مائة for خمسمائة), 2000 as ألفي, and no noun agrees with its number: the digits stay"

READINGS = [
    ("currency", "السعر 25 €.", "السعر 25 يورو."),
    ("currency", "الثمن 10 $.", "الثمن 10 دولار."),  # unsure: دولارات would agree after 3-10
    ("percent", "خصم 10 %.", "خصم 10 بالمئة."),
    ("percent", "نمو 5 ٪.", "نمو 5 بالمئة."),
    ("symbol", "أحمد & أولاده", "أحمد و أولاده"),
]
KEPT = {category: _KEPT for category in ("cardinal", "decimal", "other convention", "ordinal", "negative", "year", "time", "date", "unit")}
