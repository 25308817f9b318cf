"""Greek: decimal comma, thousands grouped by a dot, ordinals written with their ending (1ος, 2η, 3ο).

CLDR's Greek words are wrong in two places in every rule set: thousands from two thousand on carry
a stray accent (χίλιάδες for χιλιάδες) and ninety is spelled εννενήντα (ενενήντα in the standard
spelling, Λεξικό της κοινής νεοελληνικής, Ίδρυμα Τριανταφυλλίδη), its ordinal εννενηκοστός. So a number on
its own, with a unit, a currency or a percent, and years and dates keep their digits. Thirteen is
written without its accent (δεκατρεις for δεκατρείς) in the feminine and masculine, so clock times
(13:00, στις δεκατρείς) keep theirs too. What is read never reaches these words: ordinals up to 89."""

from ..number_locale import NumberLocale

LOCALE = NumberLocale(
    keeps=("year", "date", "time"),  # said in ways these rules cannot: their digits stay (tests/number_readings)
    lang="el",
    decimal_mark=",",
    group_marks=".",
    decimal_word="κόμμα",
    minus_word="μείον",
    cardinal=None,  # a number on its own keeps its digits; an ordinal is read by its own rule set
    year=None,
    # The ending gives the gender: ο δεύτερος, η δεύτερη, το δεύτερο (nominative only: 2ου, 2ης stay).
    ordinals=(
        (r"(?<![\d.,])(?P<n>[1-9]|[1-8]\d)ος(?!\w)", "spellout-ordinal-masculine"),
        (r"(?<![\d.,])(?P<n>[1-9]|[1-8]\d)η(?!\w)", "spellout-ordinal-feminine"),
        (r"(?<![\d.,])(?P<n>[1-9]|[1-8]\d)ο(?!\w)", "spellout-ordinal-neuter"),
    ),
    symbols={"&": "και", "+": "συν", "=": "ίσον", "№": "αριθμός"},
)
