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
