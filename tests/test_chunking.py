"""Chunking: equal to the official chunker whenever every sentence fits; finer cuts only beyond that."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from supertonic import utils as official

from supertonic_engine.errors import InvalidParameter
from supertonic_engine.text import (
    DEFAULT_MAX_CHUNK_CHARS,
    DEFAULT_MAX_CHUNK_CHARS_KO,
    chunk_text,
    default_max_chunk_chars,
)
from supertonic_engine.text.tags import TAG

# Pieces that exercise every boundary the two chunkers know about.
WORDS = [
    "Hello",
    "world",
    "Mr.",
    "Dr.",
    "e.g.",
    "etc.",
    "U.S.",
    "A.",
    "3.14",
    "1,000",
    "안녕하세요",
    "서버를",
    "こんにちは",
    "你好",
    "<laugh>",
    "<breath>",
    "</ko>",
    "<ko>",
    "x" * 17,
]
PUNCTUATION = [".", "!", "?", ",", ";", ":", "。", "！", "？", "…", "、", "，", '"', ")"]
SPACES = [" ", " ", " ", "  ", "\n", "\n\n", " \n \n ", "\t"]

token = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(PUNCTUATION),
    st.sampled_from(SPACES),
    st.text(alphabet="abcXYZ가나다 .!?,", min_size=1, max_size=8),
)
texts = st.lists(token, max_size=60).map("".join)


def official_sentences(text: str) -> list[str]:
    """The sentences the official chunker packs, found with its own patterns."""
    sentences = []
    for paragraph in re.split(r"\n\s*\n+", text.strip()):
        sentences += [s.strip() for s in re.split(official._COMMON_ABBREVIATIONS_PATTERN, paragraph.strip())]
    return [s for s in sentences if s]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(text=texts, max_chars=st.integers(min_value=10, max_value=160))
def test_equals_official_chunker_when_every_sentence_fits(text: str, max_chars: int) -> None:
    assume(all(len(s) <= max_chars for s in official_sentences(text)))
    assert chunk_text(text, max_chars) == official.chunk_text(text, max_chars)


@settings(max_examples=300, deadline=None)
@given(text=texts, max_chars=st.integers(min_value=10, max_value=80))
def test_every_chunk_fits_is_non_empty_and_nothing_is_lost(text: str, max_chars: int) -> None:
    chunks = chunk_text(text, max_chars)
    assert all(0 < len(chunk) <= max_chars for chunk in chunks)
    assert all(chunk == chunk.strip() and chunk for chunk in chunks)
    assert "".join("".join(chunk.split()) for chunk in chunks) == "".join(text.split())
    # Every tag comes out whole, in order.
    assert [tag for chunk in chunks for tag in TAG.findall(chunk)] == TAG.findall(text)


@pytest.mark.parametrize(
    ("text", "max_chars", "expected"),
    [
        # Sentences that fit are packed exactly as the official chunker packs them.
        ("Mr. Smith went home. Dr. Who came. It rained!", 25, ["Mr. Smith went home.", "Dr. Who came. It rained!"]),
        ("First paragraph.\n\nSecond one.", 300, ["First paragraph.", "Second one."]),
        # A sentence that is too long is cut at clauses first...
        (
            "When the server starts, it loads the model; then it waits: forever and ever.",
            30,
            ["When the server starts,", "it loads the model;", "then it waits:", "forever and ever."],
        ),
        # ...then at spaces...
        ("one two three four five six seven eight nine ten eleven", 20, ["one two three four", "five six seven eight", "nine ten eleven"]),
        # ...and only a run without any boundary is cut at the limit.
        ("a" * 25, 10, ["a" * 10, "a" * 10, "a" * 5]),
        # CJK sentence marks need no space after them.
        ("第一句。第二句。第三句。", 10, ["第一句。第二句。", "第三句。"]),
        (
            "오늘은 날씨가 좋네요… 내일은 비가 온대요… 우산을 챙기세요.",
            20,
            ["오늘은 날씨가 좋네요…", "내일은 비가 온대요…", "우산을 챙기세요."],
        ),
        ("一、二、三、四、五、六、七、八", 10, ["一、二、三、四、五、", "六、七、八"]),
        # A quoted sentence end ends a sentence too when the sentence has to be cut.
        ('He said "stop." Then he left the room quietly.', 25, ['He said "stop."', "Then he left the room", "quietly."]),
    ],
)
def test_splits_at_the_most_natural_boundary(text: str, max_chars: int, expected: list[str]) -> None:
    assert chunk_text(text, max_chars) == expected


def test_a_hard_cut_moves_back_to_the_start_of_a_tag() -> None:
    assert chunk_text("abcdefgh<laugh>ijkl", 10) == ["abcdefgh", "<laugh>ijk", "l"]


def test_tags_stay_whole_when_cutting_at_spaces() -> None:
    chunks = chunk_text("so <laugh> that was <breath> really funny to watch", 12)
    assert all(len(c) <= 12 for c in chunks)
    assert [t for c in chunks for t in TAG.findall(c)] == ["<laugh>", "<breath>"]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text(" \n\n ", 300) == []


@pytest.mark.parametrize("max_chars", [9, 0, -5, 12.5, True])
def test_rejects_limits_below_ten(max_chars: object) -> None:
    with pytest.raises(InvalidParameter) as error:
        chunk_text("Hello.", max_chars)  # type: ignore[arg-type]
    assert error.value.field == "max_chunk_chars"


def test_defaults_are_the_official_ones() -> None:
    from supertonic import config

    assert DEFAULT_MAX_CHUNK_CHARS == config.DEFAULT_MAX_CHUNK_LENGTH == default_max_chunk_chars("en")
    assert DEFAULT_MAX_CHUNK_CHARS_KO == config.DEFAULT_MAX_CHUNK_LENGTH_KO == default_max_chunk_chars("ko")
    assert default_max_chunk_chars("ja") == 300
