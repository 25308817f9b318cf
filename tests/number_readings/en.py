"""English (American), from The Chicago Manual of Style's chapter on numbers (9.2 spelled-out
cardinals, 9.6 ordinals, 9.36 years read in pairs, 9.16 fractions) and common broadcast reading:
no "and" inside a cardinal, "point" before decimals, phone numbers digit by digit."""

READINGS = [
    ("cardinal", "She beat 1,234 runners.", "She beat one thousand two hundred thirty-four runners."),
    ("cardinal", "It took 1,000,000 years.", "It took one million years."),
    ("decimal", "Pi is about 3.14.", "Pi is about three point one four."),
    ("other convention", "Add 1 1/2 cups of flour.", "Add one and a half cups of flour."),
    ("other convention", "Call 555-123-4567.", "Call five five five, one two three, four five six seven."),
    ("other convention", "Chapter IV begins.", "Chapter four begins."),
    ("other convention", "Queen Elizabeth II waved.", "Queen Elizabeth the second waved."),
    ("ordinal", "She finished 21st.", "She finished twenty-first."),
    ("negative", "It fell to -5 degrees.", "It fell to minus five degrees."),
    ("percent", "Revenue grew 12.5%.", "Revenue grew twelve point five percent."),
    ("currency", "Tickets cost $15.50.", "Tickets cost fifteen dollars and fifty cents."),
    ("currency", "Coffee was £2.", "Coffee was two pounds."),
    ("year", "It was founded in 1999.", "It was founded in nineteen ninety-nine."),
    ("year", "Since 2005, nothing changed.", "Since two thousand five, nothing changed."),
    ("time", "Meet me at 10:30 am.", "Meet me at ten thirty AM."),
    ("time", "The bus leaves at 9:05.", "The bus leaves at nine oh five."),
    ("date", "We met on Aug 24, 2026.", "We met on August twenty-fourth, twenty twenty-six."),
    ("date", "I was born on 4 July 1976.", "I was born on the fourth of July, nineteen seventy-six."),
    ("unit", "He ran 10km in 45 min.", "He ran ten kilometers in forty-five minutes."),
    ("unit", "It weighs 1 lb.", "It weighs one pound."),
    ("symbol", "R&D costs money.", "R and D costs money."),
    ("symbol", "Room #12 is open 24/7.", "Room number twelve is open twenty-four seven."),
]
KEPT: dict[str, str] = {}
