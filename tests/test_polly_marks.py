"""Speech marks as Polly documents them: a word mark names the word without the punctuation around
it, and a sentence does not end at an abbreviation or an initial.

Polly's own example (https://docs.aws.amazon.com/polly/latest/dg/sp-mks-example1.html): "Mary had a
little lamb." gives the sentence mark 0-23 and the word marks Mary 0-4, had 5-8, a 9-10, little
11-17, lamb 18-22 (byte offsets into the text as sent).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_handler_http import _call, _post

from supertonic_engine import Engine, Extras, SynthesisOptions
from supertonic_engine.marks import caption_cues

pytest_plugins = ["fixtures_s3"]

MARY = "Mary had a little lamb."
ABBREVIATED = "Dr. Smith arrived at 3 p.m. on Jan. 5th."


@pytest.fixture(scope="module")
def engine(tiny_model_dir):
    return Engine.load(tiny_model_dir)


def _marks(engine: Engine, text: str, lang: str = "en", chunking: str = "packed") -> list[Any]:
    prepared = engine.prepare(
        text, SynthesisOptions(lang=lang, seed=1, steps=1, chunking=chunking), extras=Extras(marks=["sentence", "word"])
    )
    return engine.marks(prepared)


def test_polly_documented_example_through_the_function_url(app: Any) -> None:
    answer = _call(app, _post({"text": MARY, "seed": 1, "steps": 1, "marks": ["sentence", "word"]}))
    assert answer.status == 200
    marks = [json.loads(line) for line in answer.body.decode("utf-8").splitlines()]
    assert [(m["type"], m["start"], m["end"], m["value"]) for m in marks] == [
        ("sentence", 0, 23, "Mary had a little lamb."),
        ("word", 0, 4, "Mary"),
        ("word", 5, 8, "had"),
        ("word", 9, 10, "a"),
        ("word", 11, 17, "little"),
        ("word", 18, 22, "lamb"),
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Hello, world!", ["Hello", "world"]),
        ('"Hi," she said. (Really?)', ["Hi", "she", "said", "Really"]),
        ("Wait… «ça» va; don't stop—go.", ["Wait", "ça", "va", "don't", "stop—go"]),
        ("We met at 5 p.m. in the U.S.", ["We", "met", "at", "5", "p.m.", "in", "the", "U.S."]),
    ],
)
def test_word_marks_leave_out_the_punctuation_around_a_word(engine: Engine, text: str, words: list[str]) -> None:
    marks = [m for m in _marks(engine, text) if m.type == "word"]
    assert [m.value for m in marks] == words
    raw = text.encode("utf-8")
    assert all(raw[m.start : m.end].decode("utf-8") == m.value for m in marks)


def test_korean_word_marks_leave_out_the_full_stop_and_count_bytes(engine: Engine) -> None:
    text = "안녕하세요. 반갑습니다."
    marks = _marks(engine, text, lang="ko")
    assert [(m.type, m.start, m.end, m.value) for m in marks] == [
        ("sentence", 0, 16, "안녕하세요."),
        ("word", 0, 15, "안녕하세요"),
        ("sentence", 17, 33, "반갑습니다."),
        ("word", 17, 32, "반갑습니다"),
    ]


@pytest.mark.parametrize("chunking", ["packed", "sentence"])
def test_a_sentence_does_not_end_at_an_abbreviation_or_an_initial(engine: Engine, chunking: str) -> None:
    marks = _marks(engine, ABBREVIATED, chunking=chunking)
    sentences = [m for m in marks if m.type == "sentence"]
    assert [(m.start, m.end, m.value) for m in sentences] == [(0, len(ABBREVIATED), ABBREVIATED)]
    assert sentences[0].time_ms == 0 and not sentences[0].estimated
    assert [c.text for c in caption_cues(marks)] == [ABBREVIATED]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("I met Jan. He was kind.", ["I met Jan.", "He was kind."]),
        ("We left at 5 p.m. Then it rained.", ["We left at 5 p.m.", "Then it rained."]),
        ("Say no. 5 of them did.", ["Say no.", "5 of them did."]),
        ("See Fig. 2 and Gen. Grant's map, e.g. this one.", ["See Fig. 2 and Gen. Grant's map, e.g. this one."]),
    ],
)
def test_a_sentence_still_ends_where_an_abbreviation_is_only_a_word(engine: Engine, text: str, sentences: list[str]) -> None:
    assert [m.value for m in _marks(engine, text) if m.type == "sentence"] == sentences


def test_the_english_abbreviations_are_english_only(engine: Engine) -> None:
    # "Gen." before a name is English; in a French text the stop ends the sentence, as the chunker has it.
    text = "Le mot est Gen. Marie arrive."
    assert [m.value for m in _marks(engine, text, lang="fr") if m.type == "sentence"] == ["Le mot est Gen.", "Marie arrive."]
    assert [m.value for m in _marks(engine, text, lang="en") if m.type == "sentence"] == [text]


def test_captions_cut_at_words_keep_the_punctuation_as_written(app: Any) -> None:
    text = "Well, this sentence, which is long, goes on and on; it cannot fit on the two lines a caption has, can it?"
    answer = _call(app, _post({"text": text, "format": "srt", "seed": 1, "steps": 1}))
    assert answer.status == 200
    cues = [block.split("\n", 2)[2] for block in answer.body.decode("utf-8").strip().split("\n\n")]
    assert len(cues) >= 2
    assert " ".join(" ".join(cue.split()) for cue in cues) == text
