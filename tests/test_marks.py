"""Speech marks and captions: Polly's shape, byte offsets into the text as sent, and times that
match the audio synthesis really makes (the stand-in's audio is noise; its timings are real)."""

import itertools
import json
import re

import pytest

from supertonic_engine import Engine, Extras, InvalidParameter, SynthesisOptions
from supertonic_engine.marks import caption_cues, check_mark_types, json_lines

TEXT = "Hello, Dr. Smith. The café opened in 2024! Did you see it?\n\nIt costs $5 — cheap."


@pytest.fixture(scope="module")
def engine(tiny_model_dir):
    return Engine.load(tiny_model_dir)


def test_the_timeline_is_the_audio_synthesis_makes(engine):
    for chunking in ("packed", "sentence"):
        prepared = engine.prepare(TEXT * 3, SynthesisOptions(seed=3, steps=1, chunking=chunking))
        made = engine.synthesize(prepared)
        assert [(t.start_s, t.end_s) for t in engine.timeline(prepared)] == [(t.start_s, t.end_s) for t in made.chunks]
        assert made.chunks[-1].end_s == made.frames / made.sample_rate


def test_marks_name_each_sentence_and_word_by_its_utf8_bytes(engine):
    prepared = engine.prepare(TEXT, SynthesisOptions(seed=1, steps=1), extras=Extras(marks=["sentence", "word"]))
    marks = engine.marks(prepared)
    raw = TEXT.encode("utf-8")
    for mark in marks:
        assert raw[mark.start : mark.end].decode("utf-8") == mark.value
    sentences = [m.value for m in marks if m.type == "sentence"]
    assert sentences == ["Hello, Dr. Smith.", "The café opened in 2024!", "Did you see it?", "It costs $5 — cheap."]
    words = [m.value for m in marks if m.type == "word"]
    assert words[:4] == ["Hello", "Dr", "Smith", "The"] and "—" not in words  # a dash is not heard
    times = [m.time_ms for m in marks]
    assert times == sorted(times)
    assert set(marks[0].to_json()) == {"time", "type", "start", "end", "value", "estimated"}


def test_a_sentence_that_starts_a_chunk_is_exact_and_one_inside_a_chunk_says_it_is_estimated(engine):
    packed = engine.prepare(TEXT, SynthesisOptions(seed=1, steps=1))
    chunks = engine.timeline(packed)
    sentences = [m for m in engine.marks(packed, ["sentence"])]
    assert sentences[0].time_ms == 0 and not sentences[0].estimated
    assert any(m.estimated for m in sentences)  # the first paragraph's three sentences share one chunk
    starts = {round(t.start_s * 1000) for t in chunks}
    assert all(m.time_ms in starts for m in sentences if not m.estimated)

    alone = engine.prepare(TEXT, SynthesisOptions(seed=1, steps=1, chunking="sentence"))
    exact = engine.marks(alone, ["sentence"])
    assert not any(m.estimated for m in exact)
    assert [m.time_ms for m in exact] == [round(t.start_s * 1000) for t in engine.timeline(alone)]


def test_word_marks_are_estimates_inside_their_sentence(engine):
    prepared = engine.prepare("One two three four. Five six.", SynthesisOptions(seed=1, steps=1, chunking="sentence"))
    marks = engine.marks(prepared)
    first, second = [m for m in marks if m.type == "sentence"]
    words = [m for m in marks if m.type == "word"]
    assert not words[0].estimated and all(w.estimated for w in words[1:4])
    assert all(first.time_ms <= w.time_ms < first.end_ms for w in words[:4])
    assert words[4].time_ms == second.time_ms


def test_korean_marks_count_bytes_not_characters(engine):
    text = "안녕하세요. 반갑습니다."
    prepared = engine.prepare(text, SynthesisOptions(lang="ko", seed=1, steps=1))
    sentences = [m for m in engine.marks(prepared, ["sentence"])]
    assert [(m.start, m.end) for m in sentences] == [(0, 16), (17, 33)]


def test_captions_are_valid_srt_and_webvtt_cut_at_words_when_a_sentence_is_long(engine):
    long = "This sentence goes on and on with many words so that it cannot fit on the two lines a caption has. Short one."
    prepared = engine.prepare(long, SynthesisOptions(seed=1, steps=1))
    srt = engine.captions(prepared, "srt")
    blocks = srt.strip().split("\n\n")
    assert len(blocks) >= 3
    stamp = r"\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d"
    for number, block in enumerate(blocks, 1):
        lines = block.split("\n")
        assert lines[0] == str(number) and re.fullmatch(stamp, lines[1]) and 1 <= len(lines[2:]) <= 2
        assert all(len(line) <= 42 or " " not in line for line in lines[2:])
    vtt = engine.captions(prepared, "vtt")
    assert vtt.startswith("WEBVTT\n\n") and "-->" in vtt and "," not in vtt.split("\n")[2]
    cues = caption_cues(engine.marks(prepared))
    assert all(c.start_ms <= c.end_ms for c in cues) and [c.start_ms for c in cues] == sorted(c.start_ms for c in cues)


@pytest.mark.parametrize("value", ["viseme", ["word", "viseme"], [1], {"a": 1}])
def test_unknown_mark_types_are_refused_naming_the_field(value):
    for check in (lambda: Extras(marks=value), lambda: check_mark_types(value)):
        with pytest.raises(InvalidParameter) as caught:
            check()
        assert caught.value.field == "marks"
    with pytest.raises(InvalidParameter) as caught:
        Extras(captions=value)
    assert caught.value.field == "captions"


@pytest.mark.parametrize("value", [None, [], (), "", " , "])
def test_an_empty_list_of_mark_types_asks_for_none_everywhere(engine, value):
    # One rule for every caller: nothing named is nothing wanted, as leaving the field out.
    assert Extras(marks=value, captions=value) == Extras() and not Extras(marks=value)
    assert check_mark_types(value) == ()
    if value is not None:  # None asks for the request's own types (else sentences and words)
        assert engine.marks(engine.prepare("Hello.", SynthesisOptions(steps=1)), value) == []


def test_marks_from_a_query_string_and_json_lines(engine):
    prepared = engine.prepare("Hi there, café. Bye.", extras=Extras(marks=" Word, sentence ,word"))
    assert prepared.extras == Extras(marks=("sentence", "word"))
    marks = engine.marks(prepared)
    lines = json_lines(marks)
    # Polly's stream: one object a line, each line ended, text as UTF-8 rather than \u escapes.
    assert lines.endswith("\n") and "café" in lines
    assert [json.loads(line) for line in lines.splitlines()] == [m.to_json() for m in marks]
    assert {m.type for m in marks} == {"sentence", "word"}


# --- each chunk's place in the text as sent --------------------------------------------------------------


def _read(text: str, ranges: tuple[tuple[int, int], ...]) -> list[str]:
    raw = text.encode("utf-8")
    return [raw[start:end].decode("utf-8") for start, end in ranges]


def test_a_sentence_a_chunk_reads_its_sentence_as_written(engine):
    prepared = engine.prepare(TEXT, SynthesisOptions(chunking="sentence"))
    assert _read(TEXT, prepared.chunk_byte_ranges) == [
        "Hello, Dr. Smith.",
        "The café opened in 2024!",
        "Did you see it?",
        "It costs $5 — cheap.",
    ]


def test_packed_chunks_cover_the_text_in_order_starting_where_exact_marks_start(engine):
    text = TEXT * 4
    prepared = engine.prepare(text, SynthesisOptions(steps=1, max_chunk_chars=60))
    ranges = prepared.chunk_byte_ranges
    assert len(ranges) == len(prepared.chunks) > 3
    assert ranges[0][0] == 0 and ranges[-1][1] == len(text.encode("utf-8"))
    assert all(a < b <= c < d for (a, b), (c, d) in itertools.pairwise(ranges))
    # A chunk starts with a sentence exactly where speech marks say a sentence's time is exact.
    exact = [m.start for m in engine.marks(prepared, ["sentence"]) if not m.estimated]
    assert exact == [start for start, _ in ranges]
    # Between two chunks lies only the whitespace between their sentences.
    raw = text.encode("utf-8")
    assert all(not raw[b:c].strip() for (_, b), (c, _) in itertools.pairwise(ranges))


def test_ranges_count_bytes_of_multibyte_text(engine):
    text = "안녕하세요. 오늘은 날씨가 좋네요. 내일 다시 만나요."
    prepared = engine.prepare(text, SynthesisOptions(lang="ko", chunking="sentence"))
    ranges = prepared.chunk_byte_ranges
    assert _read(text, ranges) == ["안녕하세요.", "오늘은 날씨가 좋네요.", "내일 다시 만나요."]
    assert ranges[1][0] == len("안녕하세요. ".encode()) != len("안녕하세요. ")


def test_ranges_of_ssml_point_into_the_document_as_sent(engine):
    ssml = (
        '<speak>Café <sub alias="double you three see">W3C</sub> &amp; friends.<break time="700ms"/>'
        '<p>Zweite <say-as interpret-as="digits">42</say-as> Zeile.</p></speak>'
    )
    prepared = engine.prepare(ssml, SynthesisOptions(steps=1))
    assert _read(ssml, prepared.chunk_byte_ranges) == [
        'Café <sub alias="double you three see">W3C</sub> &amp; friends.',
        'Zweite <say-as interpret-as="digits">42</say-as> Zeile.',
    ]
