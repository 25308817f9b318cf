"""English normalization: real sentences in, words a reader would say out."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supertonic_engine.errors import EmptyText, UnknownLanguage
from supertonic_engine.text import normalize
from supertonic_engine.text.tags import TAG

ENGLISH = re.compile(r"[A-Za-z .,!?;:'\"()\-]")


def assert_reads_as_english(text: str) -> None:
    """Letters and punctuation only: every digit and symbol has become a word."""
    for char in TAG.sub(" ", text):
        assert ENGLISH.match(char), f"{char!r} in {text!r}"


SENTENCES = [
    # Numbers, decimals, negatives, digit strings.
    ("She beat 1,234 runners.", "She beat one thousand two hundred thirty-four runners."),
    ("It took 1,000,000 years.", "It took one million years."),
    ("Pi is about 3.14159.", "Pi is about three point one four one five nine."),
    ("The temperature fell to -5 degrees.", "The temperature fell to minus five degrees."),
    ("Agent 007 has 0 friends.", "Agent zero zero seven has zero friends."),
    ("Version 2.0.1 is out.", "Version two dot zero dot one is out."),
    # Ordinals.
    ("She finished 21st, he was 2nd, they were 3rd and 11th.", "She finished twenty-first, he was second, they were third and eleventh."),
    # Years in year contexts, decades, year ranges.
    ("It was founded in 1999 and relaunched in 2026.", "It was founded in nineteen ninety-nine and relaunched in twenty twenty-six."),
    ("Since 2005 and until 1900, nothing changed.", "Since two thousand five and until nineteen hundred, nothing changed."),
    ("Music of the 1980s.", "Music of the nineteen eighties."),
    ("The years 1999-2005 were good.", "The years nineteen ninety-nine to two thousand five were good."),
    ("We sold 2026 units.", "We sold two thousand twenty-six units."),
    # Dates.
    ("The meeting is on Aug 24, 2026.", "The meeting is on August twenty-fourth, twenty twenty-six."),
    ("We shipped it on 2026-08-24.", "We shipped it on August twenty-fourth, twenty twenty-six."),
    ("I was born on 4 July 1976.", "I was born on the fourth of July, nineteen seventy-six."),
    ("See you on March 3rd.", "See you on March third."),
    ("In May 2026 we met.", "In May twenty twenty-six we met."),
    # Times.
    ("Meet me at 10:30 am.", "Meet me at ten thirty AM."),
    ("The event starts at 7 p.m. Please arrive early.", "The event starts at seven PM. Please arrive early."),
    (
        "Lunch is at 12:00, the call at 14:00, the bus at 9:05.",
        "Lunch is at twelve o'clock, the call at fourteen hundred, the bus at nine oh five.",
    ),
    ("The record is 10:30:15.", "The record is ten thirty and fifteen seconds."),
    # Currency.
    ("Tickets cost $15.50 each.", "Tickets cost fifteen dollars and fifty cents each."),
    ("It was $1, then $0.99.", "It was one dollar, then ninety-nine cents."),
    ("Lunch was €3 and coffee £2.50.", "Lunch was three euros and coffee two pounds and fifty pence."),
    ("Revenue grew 12.5% to $3 billion.", "Revenue grew twelve point five percent to three billion dollars."),
    # Phone numbers, digit by digit.
    ("Call me at 555-123-4567.", "Call me at five five five, one two three, four five six seven."),
    ("Call +1 (555) 123-4567 today.", "Call plus one, five five five, one two three, four five six seven today."),
    # Units and ranges.
    ("It weighs 2.5 kg and is 1 ft tall.", "It weighs two point five kilograms and is one foot tall."),
    ("It is 30°C outside, or 86°F.", "It is thirty degrees Celsius outside, or eighty-six degrees Fahrenheit."),
    ("Download 1 GB or 10 MB.", "Download one gigabyte or ten megabytes."),
    ("Read pages 10-20 tonight; the score was 3–2.", "Read pages ten to twenty tonight; the score was three to two."),
    # Abbreviations; a sentence may end on some of them.
    ("Dr. Smith and Mr. Jones met Mrs. Lee.", "Doctor Smith and Mister Jones met Missus Lee."),
    ("Bring pens, paper, etc. Then leave.", "Bring pens, paper, et cetera. Then leave."),
    ("He lives on Baker St. in London, near St. Paul's.", "He lives on Baker Street in London, near Saint Paul's."),
    ("Room #12, item No. 7, e.g. this one.", "Room number twelve, item number seven, for example this one."),
    ("R&D costs money.", "R and D costs money."),
    # Acronyms stay letters the model reads.
    ("The NASA API uses JSON over HTTP.", "The NASA API uses JSON over HTTP."),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_english_sentences(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected
    assert_reads_as_english(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<laugh> That was 3 times funnier <breath>", "<laugh> That was three times funnier <breath>"),
        ("Hello<sigh>world", "Hello<sigh>world"),
        ("So   <laugh>   funny", "So <laugh> funny"),
        ("I said <ko>사과 3개</ko> twice.", "I said <ko>사과 세 개</ko> twice."),
    ],
)
def test_tags_pass_through_untouched(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected


def test_lexicon_argument_applies_to_english() -> None:
    assert normalize("Deploy with nginx.", "en", lexicon={"nginx": "engine x"}) == "Deploy with engine x."


def test_korean_lexicon_does_not_touch_english() -> None:
    assert normalize("The API and Python server.", "en") == "The API and Python server."


def test_three_less_than_five_is_not_a_tag() -> None:
    assert normalize("3 < 5 and 6 > 2", "en") == "three < five and six > two"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abdfhjklmnopquwxyz ABDFHJKLOQRUWXYZ.,!?;:'\"()-\n", min_size=1))
def test_text_without_numbers_or_symbols_is_left_as_written(text: str) -> None:
    if not text.strip():
        return
    assert normalize(text, "en").split() == text.split()


@pytest.mark.parametrize("text", ["", " ", "\n\n"])
def test_empty_text_is_refused(text: str) -> None:
    with pytest.raises(EmptyText):
        normalize(text, "en")


def test_unknown_language_is_refused() -> None:
    with pytest.raises(UnknownLanguage, match="'english' is not supported"):
        normalize("Hello.", "english")


# Past Python's 4,300-digit limit for int(): such a run once raised a bare ValueError (a 500).
LONG_DIGITS = "7" * 5000


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        (LONG_DIGITS, 1),
        (f"{LONG_DIGITS}th place", 1),
        (f"${LONG_DIGITS}", 1),
        (f"${LONG_DIGITS}.50", 1),
        (f"{LONG_DIGITS} km", 1),
        (f"-{LONG_DIGITS}", 1),
        (f"{LONG_DIGITS}-{LONG_DIGITS}", 2),
        (f"No. {LONG_DIGITS}", 1),
        (f"{LONG_DIGITS}.{LONG_DIGITS}.{LONG_DIGITS}", 3),
        (f"1.{LONG_DIGITS}", 1),
    ],
    ids=["bare", "ordinal", "currency", "currency-cents", "unit", "negative", "range", "number-sign", "dotted", "decimals"],
)
def test_a_run_of_thousands_of_digits_is_read_digit_by_digit(text: str, runs: int) -> None:
    spoken = normalize(text, "en")
    assert_reads_as_english(spoken)
    assert len(re.findall(r"\bseven", spoken)) == runs * len(LONG_DIGITS)


# --- units after numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("He ran 10km in 45 min.", "He ran ten kilometers in forty-five minutes."),
        ("It took 1 min, then 1 hr and 30 sec.", "It took one minute, then one hour and thirty seconds."),
        (
            "The flight is 3 hrs, the drive 2 hr, the reply 5 secs.",
            "The flight is three hours, the drive two hours, the reply five seconds.",
        ),
        ("Wait 10 min. before serving.", "Wait ten minutes before serving."),
        ("The limit is 90 kph, or 55 mph.", "The limit is ninety kilometers per hour, or fifty-five miles per hour."),
        ("She ran 26.2 mi and swam 1 yd, then 100 yds.", "She ran twenty-six point two miles and swam one yard, then one hundred yards."),
        ("He is 6 ft 2 in. tall.", "He is six feet two inches tall."),
        ("The screen is 5in wide; it measures 1 in.", "The screen is five inches wide; it measures one inch."),
        ("It draws 5 kW, 1 kW idle, and used 10 kWh.", "It draws five kilowatts, one kilowatt idle, and used ten kilowatt-hours."),
        ("The battery holds 5000 mAh.", "The battery holds five thousand milliamp-hours."),
        ("It ran 1.5 km at 3.2 GHz with 1 GB.", "It ran one point five kilometers at three point two gigahertz with one gigabyte."),
    ],
)
def test_a_unit_after_a_number_is_read_singular_for_one_plural_otherwise(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected
    assert_reads_as_english(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "in" after a space is the preposition unless a period follows it.
        ("Put 5 in the box.", "Put five in the box."),
        ("We won 3 in a row and 2 inches of rain fell.", "We won three in a row and two inches of rain fell."),
        ("The 10 minutes passed.", "The ten minutes passed."),
    ],
)
def test_words_that_look_like_units_stay_words(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected


# --- Roman numerals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Chapter IV begins.", "Chapter four begins."),
        ("He fought in World War II, his father in World War I.", "He fought in World War two, his father in World War one."),
        ("Act III, Scene II and Part I.", "Act three, Scene two and Part one."),
        ("See Volume XII, Book IX and Section XLIV.", "See Volume twelve, Book nine and Section forty-four."),
        ("CHAPTER XIX", "CHAPTER nineteen"),
        ("Queen Elizabeth II waved.", "Queen Elizabeth the second waved."),
        ("Louis XIV built Versailles; Henry VIII had six wives.", "Louis the fourteenth built Versailles; Henry the eighth had six wives."),
        ("King Charles I was tried. Pope John Paul II's visit.", "King Charles the first was tried. Pope John Paul the second's visit."),
        ("Elizabeth I, his daughter, reigned.", "Elizabeth the first, his daughter, reigned."),
    ],
)
def test_roman_numerals_read_as_cardinals_after_a_heading_and_as_ordinals_after_a_monarch(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected
    assert_reads_as_english(expected)


@pytest.mark.parametrize(
    "text",
    [
        "I am here, and I think Henry I know well.",
        "MIX IT UP, CIVIL DIV LIVID.",
        "Then I left. I CAN DO IT.",
        "See Appendix C and Part D.",  # letters that label, not numbers
        "Chapter IIII and Chapter IC are not numerals.",
        "Then Mark II and Final Fantasy VII.",  # not a monarch's name
    ],
)
def test_capital_letters_that_are_not_a_numeral_stay_as_written(text: str) -> None:
    assert normalize(text, "en") == text


# --- fractions, ratios and multiples ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Add 1/2 cup of sugar.", "Add one half cup of sugar."),
        (
            "Use 1/4 cup oil, 3/4 cup milk, 1/3 cup water, 2/3 cup juice and 5/8 cup flour.",
            "Use one quarter cup oil, three quarters cup milk, one third cup water, two thirds cup juice and five eighths cup flour.",
        ),
        ("Stir in 1 1/2 cups flour and 2 3/4 cups milk.", "Stir in one and a half cups flour and two and three quarters cups milk."),
        ("Then 1 1/3 cups and 3 1/8 tsp.", "Then one and a third cups and three and an eighth tsp."),
        (
            "½ cup, 1½ cups, 2 ¼ cups, ¾ cup, ⅓ cup, ⅔ cup.",
            "one half cup, one and a half cups, two and a quarter cups, three quarters cup, one third cup, two thirds cup.",
        ),
        ("The slope is -1/2.", "The slope is minus one half."),
        ("We are open 24/7.", "We are open twenty-four seven."),
        ("A 16:9 screen, mixed 1:100.", "A sixteen to nine screen, mixed one to one hundred."),
        ("It is 2x faster at 1920x1080.", "It is two times faster at one thousand nine hundred twenty by one thousand eighty."),
    ],
)
def test_fractions_ratios_and_multiples_read_as_a_reader_says_them(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected
    assert_reads_as_english(expected)


@pytest.mark.parametrize("text", ["Due 12/25.", "Due 12/25/2026.", "See you on 3/4.", "It is 0x1F."])
def test_slashes_that_are_not_fractions_are_not_read_as_fractions(text: str) -> None:
    spoken = normalize(text, "en")
    assert not re.search(r"half|quarter|third|fourth|fifth|eighth|times|\bby\b", spoken), spoken


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("John V. Smith signed.", "John V. Smith signed."),  # a middle initial, not a regnal number
        ("Henry V. was crowned.", "Henry the fifth. was crowned."),  # a capital after the dot: a name; a lower-case word: the king
        ("Prices rose 2-3x last year.", "Prices rose two to three times last year."),
    ],
)
def test_initials_and_ranges_of_multiples(text: str, expected: str) -> None:
    assert normalize(text, "en") == expected
