"""Per language, numbers as a reader says them: ``READINGS`` (category, as written, as read), written by
hand from the language's conventions (style guides, references), never copied from a library's
output, and ``KEPT`` (category -> why the digits stay as written). tests/test_number_readings.py
runs them and renders the README's reading table from them."""

CATEGORIES = (
    "cardinal",
    "decimal",
    "other convention",
    "ordinal",
    "negative",
    "percent",
    "currency",
    "year",
    "time",
    "date",
    "unit",
    "symbol",
)
