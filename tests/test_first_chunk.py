"""A small first chunk at its own steps, and trimmed silence, through the engine on the tiny stand-in."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from supertonic_engine import Engine, Part, SessionConfig, SynthesisOptions
from supertonic_engine.errors import InvalidParameter
from supertonic_engine.text import chunk_limit

SR = 44_100
TEXT = "Hello there, my friend. This text is long enough to be cut into a few chunks of growing size. And a last sentence ends it."
SSML = '<speak>Short start, then more words here.<break time="700ms"/>A second section follows the break, <lang xml:lang="ko">안녕하세요</lang> and ends.<break time="1s"/></speak>'


@pytest.fixture(scope="module")
def engine(tiny_model_dir) -> Engine:
    return Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=2))


def test_the_first_chunk_has_its_own_steps():
    options = SynthesisOptions(steps=8, first_chunk_steps=4)
    assert [options.steps_for(i) for i in range(3)] == [4, 8, 8]
    assert [SynthesisOptions(steps=6).steps_for(i) for i in range(2)] == [6, 6]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"first_chunk_chars": 9}, "first_chunk_chars"),
        ({"first_chunk_chars": 401}, "first_chunk_chars"),
        ({"first_chunk_chars": 30.5}, "first_chunk_chars"),
        ({"first_chunk_chars": True}, "first_chunk_chars"),
        ({"first_chunk_steps": 0}, "first_chunk_steps"),
        ({"first_chunk_steps": 101}, "first_chunk_steps"),
        ({"first_chunk_steps": "4"}, "first_chunk_steps"),
        ({"trim_silence": 1}, "trim_silence"),
        ({"trim_silence": "yes"}, "trim_silence"),
    ],
)
def test_bad_first_chunk_options_name_their_field(kwargs, field):
    with pytest.raises(InvalidParameter) as err:
        SynthesisOptions(**kwargs)
    assert err.value.field == field


def test_the_first_chunk_renders_at_its_steps_and_the_rest_at_the_usual(engine):
    # Same chunks and noise; only the steps differ, so each chunk equals the run at its own steps.
    mixed = [c.samples for c in engine.stream(TEXT, SynthesisOptions(steps=2, first_chunk_steps=1, seed=4, max_chunk_chars=40))]
    fast = [c.samples for c in engine.stream(TEXT, SynthesisOptions(steps=1, seed=4, max_chunk_chars=40))]
    usual = [c.samples for c in engine.stream(TEXT, SynthesisOptions(steps=2, seed=4, max_chunk_chars=40))]
    assert len(mixed) > 2
    np.testing.assert_array_equal(mixed[0], fast[0])
    assert not np.array_equal(mixed[0], usual[0])
    for ours, theirs in zip(mixed[1:], usual[1:], strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_the_first_chunk_is_small_and_sections_continue_the_count(engine):
    prepared = engine.prepare(TEXT, SynthesisOptions(first_chunk_chars=15))
    assert prepared.chunks[0] == "Hello there,"
    assert all(len(c) <= chunk_limit(n, 300, 15) for n, c in enumerate(prepared.chunks))
    assert engine.prepare(TEXT, SynthesisOptions()).chunks == engine.prepare(TEXT, SynthesisOptions(first_chunk_chars=300)).chunks
    # The second section's first chunk is not small again: its limit is that of its place in the document.
    sections = engine.prepare(SSML, SynthesisOptions(first_chunk_chars=12))
    assert sections.chunks[:2] == ("Short start,", "then more words here.")
    assert sections.chunks[2] == "A second section follows the break,"
    assert 2 * 12 < len(sections.chunks[2]) <= chunk_limit(2, 300, 12)


OPTION_SETS = [
    SynthesisOptions(steps=2, seed=3, max_chunk_chars=40),
    SynthesisOptions(steps=2, seed=3, first_chunk_chars=12, first_chunk_steps=1),
    SynthesisOptions(steps=2, seed=3, first_chunk_chars=10, chunking="sentence", silence_s=0.1),
]


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("text", [TEXT, SSML, "One.", "A.\n\nB.\n\nC."])
def test_the_forecast_frames_are_the_frames_synthesis_makes(engine, options, text):
    prepared = engine.prepare(text, options)
    result = engine.synthesize(prepared)
    assert engine.forecast_frames(prepared) == result.frames
    assert engine.forecast_frames(prepared, engine.timeline(prepared)) == result.frames


@pytest.mark.parametrize("trim", [False, True])
def test_parts_render_each_chunk_as_the_stream_does(engine, trim):
    options = SynthesisOptions(steps=2, seed=9, first_chunk_chars=12, first_chunk_steps=1, trim_silence=trim)
    prepared = engine.prepare(TEXT, options)
    streamed = [c.samples[engine.frames(prepared.pauses[c.timing.index]) :] for c in engine.stream(prepared)]
    parts = engine.parts(prepared)
    for part in parts:
        again = Part.from_json(json.loads(json.dumps(part.to_json())))
        assert again == part and again.options.first_chunk_steps == 1 and again.options.trim_silence is trim
        np.testing.assert_array_equal(engine.render_part(again), streamed[part.index])


def test_a_part_written_before_the_first_chunk_options_still_loads(engine):
    part = engine.parts(engine.prepare("Short text.", SynthesisOptions(steps=1, seed=1)))[0]
    old = part.to_json()
    for name in ("first_chunk_chars", "first_chunk_steps", "trim_silence"):
        del old["options"][name]
    assert Part.from_json(old) == part


def test_trimmed_chunks_keep_their_timings_consistent(engine):
    options = SynthesisOptions(steps=1, seed=2, first_chunk_chars=12, trim_silence=True, silence_s=0.2)
    prepared = engine.prepare(SSML, options)
    chunks = list(engine.stream(prepared))
    result = engine.synthesize(prepared)
    assert [c.timing.end_s for c in chunks] == [c.end_s for c in result.chunks]
    position = 0
    for chunk, pause in zip(chunks, prepared.pauses, strict=True):
        lead = engine.frames(pause)
        assert round(chunk.timing.start_s * SR) == position + lead
        position = round(chunk.timing.end_s * SR)
    assert position + engine.frames(prepared.tail_s) == result.frames == result.audio.size
    for previous, current in itertools.pairwise(result.chunks):
        assert previous.end_s < current.start_s
    assert result.frames <= engine.forecast_frames(prepared)
    # Marks from the synthesis's timings follow the trimmed audio.
    marks = engine.marks(prepared, ("sentence",), timeline=result.chunks)
    assert marks[0].time_ms == 0 and marks[-1].end_ms <= result.duration_s * 1000


def test_synthesize_on_the_command_line_takes_the_first_chunk_options(tiny_model_dir, tmp_path, capsys):
    from supertonic_cli.main import main

    out = tmp_path / "out.wav"
    argv = ["synthesize", TEXT, "-o", str(out), "--model", str(tiny_model_dir), "--steps", "2", "--seed", "1", "--json"]
    assert main([*argv, "--first-chunk-chars", "15", "--first-chunk-steps", "1", "--trim-silence"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["chunks"][0]["text"] == "Hello there," and out.stat().st_size > 44
    assert main([*argv, "--first-chunk-chars", "5"]) == 2
    assert "first_chunk_chars" in capsys.readouterr().err
