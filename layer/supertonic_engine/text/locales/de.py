"""German: decimal comma, thousands grouped by a dot (or a space), ordinals written 3. (Duden, Schreibung der Zahlen)."""

from ..number_locale import Currency, Noun, NumberLocale

_MASCULINE, _FEMININE, _NEUTER = "spellout-cardinal-masculine", "spellout-cardinal-feminine", "spellout-cardinal-neuter"

# Words that begin a sentence far more often than they follow an ordinal: pronouns, articles, adverbs.
_STARTS = "Sie|Er|Es|Ich|Wir|Ihr|Du|Man|Das|Der|Die|Dann|Aber|Und|Doch|Jetzt|Heute|Morgen|Danach|Damit|Dort|Hier|So|Nun|Auch|Nur"

# "1" before a noun it counts is the article-like "ein"/"eine" (eine Katze, ein Haus, ein Uhr), not
# the counted "eins". A noun in -ung, -heit, -keit, -schaft, -ion, -tät or -e is feminine (eine), save
# the listed masculine and neuter ones (Name, Junge, Auge, Ende); any other capitalized word is
# masculine or neuter (ein; the accusative "einen" is the sentence's, not the noun's). Where a noun
# names the number (Seite 1 Einleitung, Linie 1 Richtung ...) it is a label, not a count: ``counted_not_after``.
_COUNTED_ENDINGS = (
    ("one", r"[A-ZÄÖÜ]\w*(?:ung|heit|keit|schaft|ion|tät|e)", _FEMININE),
    ("one", r"[A-ZÄÖÜ]\w+", _MASCULINE),
)
_COUNTED = {
    **dict.fromkeys(_STARTS.split("|"), "spellout-numbering"),  # begins a sentence: not counted
    **dict.fromkeys(
        "Name Junge Käse Auge Ende Gebäude Löwe Kunde Kollege Affe Hase Deutsche Experte Gedanke Glaube Buchstabe"
        " Friede Wille Erbe Interesse Gemüse Finale Pfennig Uhr".split(),
        _MASCULINE,
    ),
    **dict.fromkeys("Frau Stadt Nacht Zeit Hand Welt Tür Kuh Maus Mutter Tochter Schwester Person Firma".split(), _FEMININE),
}

LOCALE = NumberLocale(
    counted=_COUNTED,
    counted_endings=_COUNTED_ENDINGS,
    counted_not_after=r"[A-ZÄÖÜ]\w*",
    decimal_ruleset="spellout-numbering",  # eins Komma fünf, whatever the noun
    lang="de",
    decimal_mark=",",
    group_marks=". ",
    decimal_word="Komma",
    range_word="bis",
    score_word="zu",
    minus_word="minus",
    year_cues=("im Jahr", "im Jahre", "seit", "bis", "von", "ab", "anno", "um", "Jahr", "Sommer", "Winter", "Herbst", "Frühjahr"),
    currencies={
        "€": Currency(Noun("Euro", ruleset=_MASCULINE), Noun("Cent", ruleset=_MASCULINE)),
        "EUR": Currency(Noun("Euro", ruleset=_MASCULINE), Noun("Cent", ruleset=_MASCULINE)),
        "$": Currency(Noun("Dollar", ruleset=_MASCULINE), Noun("Cent", ruleset=_MASCULINE)),
        "USD": Currency(Noun("Dollar", ruleset=_MASCULINE), Noun("Cent", ruleset=_MASCULINE)),
        "£": Currency(Noun("Pfund", ruleset=_NEUTER), Noun("Pence", one="Penny", ruleset=_MASCULINE)),
        "CHF": Currency(Noun("Franken", ruleset=_MASCULINE), Noun("Rappen", ruleset=_MASCULINE)),
    },
    # "3,50 €" is said "drei Euro fünfzig".
    money_with_minor="{major} {unit} {minor}",
    units={
        "%": Noun("Prozent", ruleset=_NEUTER),
        "Prozent": Noun("Prozent", ruleset=_NEUTER),
        "km/h": Noun("Kilometer pro Stunde", ruleset=_MASCULINE),
        "km": Noun("Kilometer", ruleset=_MASCULINE),
        "m": Noun("Meter", ruleset=_MASCULINE),
        "cm": Noun("Zentimeter", ruleset=_MASCULINE),
        "mm": Noun("Millimeter", ruleset=_MASCULINE),
        "kg": Noun("Kilogramm", ruleset=_NEUTER),
        "g": Noun("Gramm", ruleset=_NEUTER),
        "mg": Noun("Milligramm", ruleset=_NEUTER),
        "l": Noun("Liter", ruleset=_MASCULINE),
        "ml": Noun("Milliliter", ruleset=_MASCULINE),
        "°C": Noun("Grad Celsius", ruleset=_MASCULINE),
        "°": Noun("Grad", ruleset=_MASCULINE),
        "h": Noun("Stunden", one="Stunde", ruleset=_FEMININE),
        "min": Noun("Minuten", one="Minute", ruleset=_FEMININE),
        "s": Noun("Sekunden", one="Sekunde", ruleset=_FEMININE),
    },
    # An ordinal is a number with a dot before a lower-case word or a month ("am 3. Mai", "der 2. Platz"
    # after an article); a dot before a capital that starts a sentence is a full stop.
    ordinals=(
        # The case an article or preposition asks for: am/im/vom/zum/beim/dem/den 3. -> dritten, der/die/das 3. -> dritte.
        # Not before a word that starts a sentence (Nimm die 3. Sie fährt schneller.): there the dot is a full stop.
        (rf"\b(?i:am|im|vom|zum|zur|beim|dem|den|des) (?P<n>\d{{1,4}})\.(?=\s)(?!\s(?:{_STARTS})\b)", "spellout-ordinal-n"),
        (rf"\b(?i:der|die|das) (?P<n>\d{{1,4}})\.(?=\s)(?!\s(?:{_STARTS})\b)", "spellout-ordinal"),
        (
            r"(?<![\d.])(?P<n>[1-9]|[12]\d|3[01])\.(?=\s(?:Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember)\b)",
            "spellout-ordinal-r",
        ),
    ),
    time="{hour} Uhr {minute}",
    time_on_the_hour="{hour} Uhr",
    hour_ruleset=_MASCULINE,  # ein Uhr
    time_suffixes=("Uhr",),
    # After am, vom, zum, bis zum, den (a letter's "Berlin, den 24.08.2026") the day is dative or
    # accusative: am vierundzwanzigsten August; alone it is nominative: vierundzwanzigster August.
    dates=(
        (r"\b(?i:am|vom|zum|bis zum|den|seit dem) (?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)", "spellout-ordinal-n"),
        (r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>\d{4})(?!\d)", "spellout-ordinal-r"),
    ),
    date="{day} {month} {year}",
    months=("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"),
    symbols={"&": "und", "+": "plus", "=": "gleich", "№": "Nummer", "§": "Paragraf", "%": "Prozent"},
)
