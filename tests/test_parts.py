"""A long text's chunks rendered one by one, anywhere, equal its sequential synthesis sample for sample."""

import json

import numpy as np
import pytest

from supertonic_engine import Engine, Part, SessionConfig, SynthesisOptions


@pytest.fixture(scope="module")
def engine(tiny_model_dir) -> Engine:
    return Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=2))


TEXT = "The first sentence is here. A second one follows it, then a third! And one more to end the text?"


@pytest.mark.parametrize("seed", [7, None])
def test_parts_rendered_alone_and_stitched_equal_the_sequential_audio(engine, seed):
    options = SynthesisOptions(voice="F2", steps=2, seed=seed, max_chunk_chars=30)
    prepared = engine.prepare(TEXT, options)
    parts = engine.parts(prepared)
    assert len(parts) == len(prepared.chunks) > 2
    assert len({p.options.seed for p in parts}) == 1 and parts[0].options.seed is not None
    # Each part goes through JSON (an SQS message) and is rendered in reverse order: no hidden state.
    rendered = {p.index: engine.render_part(Part.from_json(json.loads(json.dumps(p.to_json())))) for p in reversed(parts)}
    stitched = np.concatenate([piece for p in parts for piece in (np.zeros(engine.frames(p.pause_s), np.float32), rendered[p.index])])
    sequential = engine.synthesize(engine.prepare(TEXT, parts[0].options)).audio
    np.testing.assert_array_equal(stitched, sequential)


def test_a_noise_state_that_is_not_one_is_refused(engine):
    part = engine.parts(engine.prepare("Short text.", SynthesisOptions(steps=1, seed=1)))[0]
    broken = part.to_json() | {"noise": part.noise | {"keys": "AAAA"}}
    with pytest.raises(ValueError):
        engine.render_part(Part.from_json(broken))


def test_a_part_is_as_long_as_its_plan_says_whatever_this_machine_forecasts(engine):
    # Every part's place in a file joined from parts comes from the plan: a worker whose duration
    # predictor differed in the last bit (another CPU's kernels) must still make the planned length.
    import dataclasses

    text = "A first sentence is here. A second one follows it, a little longer than the first."
    prepared = engine.prepare(text, SynthesisOptions(voice="M1", steps=1, seed=3, max_chunk_chars=40))
    parts = engine.parts(prepared)
    spans = engine.part_spans([p.speech_s for p in parts], [p.pause_s for p in parts], prepared.tail_s)
    for part, span in zip(parts, spans, strict=True):
        assert engine.render_part(part).size == span.frames - span.lead - (engine.frames(prepared.tail_s) if span.last else 0)
    longer = dataclasses.replace(parts[0], speech_s=parts[0].speech_s * 2)
    (span,) = engine.part_spans([longer.speech_s], [0.0], 0.0)
    assert engine.render_part(longer).size == span.frames
