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
    chunk_limit,
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


# --- a small first chunk, growing back to the usual size ---------------------------------------

# Words separated only by whitespace (no CJK marks, which cut without a space), so a word is a run without it.
LATIN_WORDS = [
    "Hello",
    "world",
    "Mr.",
    "e.g.",
    "U.S.",
    "3.14",
    "1,000",
    "<laugh>",
    "<breath>",
    "x" * 17,
    "ok,",
    "so;",
    "then:",
    "end.",
    "why?",
]
latin_texts = st.lists(
    st.one_of(st.sampled_from(LATIN_WORDS), st.text(alphabet="abcXYZ.!?,;:", min_size=1, max_size=6)),
    min_size=1,
    max_size=80,
).flatmap(
    lambda words: st.lists(st.sampled_from([" ", " ", " ", "\n", "\n\n", "  "]), min_size=len(words), max_size=len(words)).map(
        lambda spaces: "".join(w + s for w, s in zip(words, spaces, strict=True))
    )
)


@settings(max_examples=400, deadline=None)
@given(
    text=latin_texts,
    max_chars=st.integers(min_value=20, max_value=160),
    first_chars=st.integers(min_value=10, max_value=80),
    start_index=st.integers(min_value=0, max_value=3),
    pack=st.booleans(),
)
def test_a_small_first_chunk_keeps_every_word_whole_and_in_order(
    text: str, max_chars: int, first_chars: int, start_index: int, pack: bool
) -> None:
    chunks = chunk_text(text, max_chars, pack=pack, first_chars=first_chars, start_index=start_index)
    # Words in order, none split: every cut falls at whitespace (no word here is longer than max_chars).
    assert [word for chunk in chunks for word in chunk.split()] == text.split()
    for n, chunk in enumerate(chunks):
        assert chunk and chunk == chunk.strip()
        limit = chunk_limit(start_index + n, max_chars, first_chars)
        assert len(chunk) <= limit or len(chunk.split()) == 1, (n, limit, chunk)


@settings(max_examples=300, deadline=None)
@given(
    text=texts, max_chars=st.integers(min_value=10, max_value=80), first_chars=st.integers(min_value=10, max_value=80), pack=st.booleans()
)
def test_a_small_first_chunk_loses_nothing_and_splits_no_tag(text: str, max_chars: int, first_chars: int, pack: bool) -> None:
    chunks = chunk_text(text, max_chars, pack=pack, first_chars=first_chars)
    assert all(0 < len(chunk) <= max_chars and chunk == chunk.strip() for chunk in chunks)
    assert "".join("".join(chunk.split()) for chunk in chunks) == "".join(text.split())
    assert [tag for chunk in chunks for tag in TAG.findall(chunk)] == TAG.findall(text)
    # A word over its chunk's limit stays whole: any chunk past its limit holds no space.
    for n, chunk in enumerate(chunks):
        assert len(chunk) <= chunk_limit(n, max_chars, first_chars) or not any(c.isspace() for c in chunk)


@settings(max_examples=300, deadline=None)
@given(text=texts, max_chars=st.integers(min_value=10, max_value=160), extra=st.integers(min_value=0, max_value=300), pack=st.booleans())
def test_a_first_chunk_as_large_as_the_others_gives_the_official_chunks(text: str, max_chars: int, extra: int, pack: bool) -> None:
    usual = chunk_text(text, max_chars, pack=pack)
    assert chunk_text(text, max_chars, pack=pack, first_chars=None) == usual
    assert chunk_text(text, max_chars, pack=pack, first_chars=max_chars + extra) == usual
    # Past the chunks that grow, the limit is the usual one: a count that starts there changes nothing.
    assert chunk_text(text, max_chars, pack=pack, first_chars=10, start_index=max_chars.bit_length()) == usual


def test_the_limit_doubles_from_the_first_chunk_up_to_the_usual_size() -> None:
    assert [chunk_limit(n, 300, 60) for n in range(5)] == [60, 120, 240, 300, 300]
    assert [chunk_limit(n, 300, None) for n in range(3)] == [300, 300, 300]
    assert chunk_limit(10_000, 300, 10) == 300


@pytest.mark.parametrize(
    ("text", "first_chars", "expected"),
    [
        # A long first sentence is cut at its first clause that fits; the rest starts the next chunk.
        (
            "When the server starts, it loads the model and then it waits for requests. Then it answers.",
            30,
            ["When the server starts,", "it loads the model and then it waits for requests.", "Then it answers."],
        ),
        # Short sentences are packed while they fit the current limit (joining space counted).
        ("One. Two. Three four five. Six seven eight nine ten.", 10, ["One. Two.", "Three four five.", "Six seven eight nine ten."]),
        # With no clause, at spaces; a first word over the limit is the chunk, whole.
        ("Extraordinarily long words follow here today.", 10, ["Extraordinarily", "long words follow", "here today."]),
        # CJK sentence marks before clauses.
        ("第一句话很长。第二句，也很长。第三句。", 10, ["第一句话很长。", "第二句，也很长。第三句。"]),
        # Paragraphs are never joined, even when both would fit.
        ("Hi.\n\nYo.", 10, ["Hi.", "Yo."]),
        # An inline tag is never cut.
        ("<laugh> that was so funny, really.", 10, ["<laugh>", "that was so funny,", "really."]),
    ],
)
def test_a_small_first_chunk_cuts_at_the_coarsest_boundary(text: str, first_chars: int, expected: list[str]) -> None:
    assert chunk_text(text, 300, first_chars=first_chars) == expected


def test_a_first_word_past_the_usual_limit_is_still_cut_at_it() -> None:
    # Cut at max_chars (40), not at the first chunk's 10; the rest fits the second chunk's 20.
    assert chunk_text("a" * 45 + " bb cc", 40, first_chars=10) == ["a" * 40, "aaaaa bb cc"]


@pytest.mark.parametrize("first_chars", [9, 0, 12.5, True, "60"])
def test_rejects_first_chunks_below_ten(first_chars: object) -> None:
    with pytest.raises(InvalidParameter) as error:
        chunk_text("Hello.", 300, first_chars=first_chars)  # type: ignore[arg-type]
    assert error.value.field == "first_chunk_chars"
