"""Voice blends in the engine: the weighted mix of the voices' style tensors, a canonical name, every refusal."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from supertonic_engine import Engine, Part, SessionConfig, SynthesisOptions
from supertonic_engine.assets import BLEND_CACHE_SIZE, load_assets
from supertonic_engine.errors import InvalidVoiceBlend, UnknownVoice, VoiceFileCorrupt
from supertonic_engine.preparation import Preparer
from supertonic_engine.voice_blend import MAX_BLEND_VOICES, parse_blend


@pytest.fixture(scope="module")
def assets(tiny_model_dir):
    return load_assets(tiny_model_dir)


def _file_tensors(model_dir, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A voice's two tensors read straight from its file, as the official package reads them."""
    data = json.loads((model_dir / "voice_styles" / f"{name}.json").read_text())
    return tuple(np.asarray(data[key]["data"], np.float32).reshape(data[key]["dims"]) for key in ("style_ttl", "style_dp"))


def test_a_bare_name_is_the_voice_file_bit_for_bit(assets, tiny_model_dir):
    ttl, dp = _file_tensors(tiny_model_dir, "F1")
    style = assets.voice("F1")
    assert style.name == "F1" and style.ttl.tobytes() == ttl.tobytes() and style.dp.tobytes() == dp.tobytes()
    assert assets.voice("F1:0.4") is style  # a blend of one voice is that voice


@pytest.mark.parametrize(
    "spec, weights, name",
    [
        ("F1:0.7,M2:0.3", {"F1": 0.7, "M2": 0.3}, "F1:0.7,M2:0.3"),
        ("F1:7,M2:3", {"F1": 0.7, "M2": 0.3}, "F1:0.7,M2:0.3"),  # normalized to sum 1
        (" M2 : 1 , F1 : 3 ", {"M2": 0.25, "F1": 0.75}, "M2:0.25,F1:0.75"),  # the order given is kept
        ("F1,M2", {"F1": 0.5, "M2": 0.5}, "F1:0.5,M2:0.5"),  # names only: equal weights
        ("F1:1,M2:2", {"F1": 0.333, "M2": 0.667}, "F1:0.333,M2:0.667"),
        ("F1,M2,F3", {"F1": 0.334, "M2": 0.333, "F3": 0.333}, "F1:0.334,M2:0.333,F3:0.333"),
    ],
)
def test_a_blend_is_the_weighted_mix_of_the_voices(assets, tiny_model_dir, spec, weights, name):
    style = assets.voice(spec)
    assert style.name == name
    files = {voice: _file_tensors(tiny_model_dir, voice) for voice in weights}
    for index, tensor in enumerate((style.ttl, style.dp)):
        expected = sum(weight * files[voice][index].astype(np.float64) for voice, weight in weights.items())
        assert tensor.dtype == np.float32 and tensor.shape == files["F1"][index].shape
        np.testing.assert_allclose(tensor, expected, rtol=1e-6, atol=1e-7)
        assert not any(np.array_equal(tensor, files[voice][index]) for voice in weights)


@pytest.mark.parametrize("spec", ["F1:1,M2:2", "F1,M2,F3", "F5:0.123456,M1:0.876544", "M1:3,F2:3,M3:1"])
def test_the_canonical_name_reads_back_as_the_same_blend(assets, spec):
    """A long job's parts are rendered elsewhere from the canonical name: it must give the same tensors."""
    style = assets.voice(spec)
    again = assets.voice(style.name)
    assert again.name == style.name and parse_blend(style.name) == parse_blend(spec)
    assert again.ttl.tobytes() == style.ttl.tobytes() and again.dp.tobytes() == style.dp.tobytes()


def test_a_hot_blend_is_mixed_once_and_the_cache_is_bounded(tiny_model_dir):
    assets = load_assets(tiny_model_dir)
    hot = assets.voice("F1:0.7,M2:0.3")
    assert assets.voice("F1:7,M2:3") is hot  # the same blend, however it is written
    for share in range(1, BLEND_CACHE_SIZE + 1):
        assets.voice(f"F2:{share},M3:{1000 - share}")
    assert len(assets._blends) == BLEND_CACHE_SIZE
    cold = assets.voice("F1:0.7,M2:0.3")
    assert cold is not hot and cold.ttl.tobytes() == hot.ttl.tobytes()


@pytest.mark.parametrize(
    "spec, error, fragment",
    [
        ("F1:0.5,Z9:0.5", UnknownVoice, "voice 'Z9' (in the blend 'F1:0.5,Z9:0.5') not found; available: F1, F2"),
        ("F1:0,M2:1", InvalidVoiceBlend, "the weight of 'F1' is 0; weights must be greater than 0"),
        ("F1:-0.2,M2:1", InvalidVoiceBlend, "the weight of 'F1' is -0.2"),
        ("F1:nan,M2:1", InvalidVoiceBlend, "'nan', is not a number"),
        ("F1:inf,M2:1", InvalidVoiceBlend, "'inf', is not a number"),
        ("F1:1e3,M2:1", InvalidVoiceBlend, "'1e3', is not a number"),
        ("F1:,M2:1", InvalidVoiceBlend, "'', is not a number"),
        (f"F1:{'9' * 400},M2:1", InvalidVoiceBlend, "too large"),
        ("F1:1000,M2:0.0001", InvalidVoiceBlend, "too small to hear"),
        ("F1:0.5,F1:0.5", InvalidVoiceBlend, "voice 'F1' appears twice"),
        ("F1,M2,F1", InvalidVoiceBlend, "voice 'F1' appears twice"),
        (
            ",".join(["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3", "M4"]),
            InvalidVoiceBlend,
            f"9 voices; a blend mixes at most {MAX_BLEND_VOICES}",
        ),
        ("F1,,M2", InvalidVoiceBlend, "item 2 is empty"),
        ("F1,", InvalidVoiceBlend, "item 2 is empty"),
        (":0.5,F1:0.5", InvalidVoiceBlend, "item 1 ':0.5' has no voice name"),
        ("F1:0.7,M2", InvalidVoiceBlend, "some voices have a weight and some do not"),
    ],
)
def test_a_bad_blend_is_refused_naming_the_voice_field(assets, spec, error, fragment):
    with pytest.raises(error) as err:
        Preparer(assets).prepare("Hello.", SynthesisOptions(voice=spec))
    assert err.value.field == "voice" and fragment in err.value.message
    assert type(err.value) is error


def test_eight_voices_may_be_blended(assets):
    spec = ",".join(["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3"])
    assert assets.voice(spec).name == "F1:0.125,F2:0.125,F3:0.125,F4:0.125,F5:0.125,M1:0.125,M2:0.125,M3:0.125"


def test_the_prepared_request_carries_the_canonical_name_and_synthesizes(tiny_model_dir):
    engine = Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=1))
    prepared = engine.prepare("Blended voices.", SynthesisOptions(voice="F1:1,M2:2", steps=1, seed=3))
    assert prepared.options.voice == prepared.style.name == "F1:0.333,M2:0.667"
    blended = engine.synthesize(prepared)
    assert blended.options.voice == "F1:0.333,M2:0.667"
    plain = engine.synthesize("Blended voices.", SynthesisOptions(voice="F1", steps=1, seed=3))
    assert blended.audio is not None and plain.audio is not None and not np.array_equal(blended.audio, plain.audio)
    # A long job's part is rendered in another process (no cached blend) from the stored options.
    (part,) = engine.parts(prepared)
    elsewhere = Engine(load_assets(tiny_model_dir), engine.sessions)
    assert np.array_equal(elsewhere.render_part(Part.from_json(part.to_json())), blended.audio)


# --- custom voices: a file of the official shape in voice_styles/ ---------------------------------------


@pytest.fixture()
def model_with_custom_voices(tiny_model_dir, tmp_path):
    target = shutil.copytree(tiny_model_dir, tmp_path / "model")
    voices = target / "voice_styles"
    shutil.copy(voices / "F3.json", voices / "narrator.json")
    (voices / "broken.json").write_text(json.dumps({"style_ttl": {"data": [0.0] * 10, "dims": [1, 50, 256]}}))
    shutil.copy(voices / "F3.json", voices / "bad,name.json")
    return target


def test_a_custom_voice_is_listed_usable_and_blendable(model_with_custom_voices):
    assets = load_assets(model_with_custom_voices)
    assert "narrator" in assets.voices and "broken" in assets.voices
    assert "bad,name" not in assets.voices  # a blend could not spell it: skipped with a warning
    assert assets.voice("narrator").ttl.tobytes() == assets.voice("F3").ttl.tobytes()
    assert assets.voice("narrator:0.5,M1:0.5").name == "narrator:0.5,M1:0.5"


def test_a_malformed_custom_voice_fails_only_itself_naming_its_file(model_with_custom_voices):
    assets = load_assets(model_with_custom_voices)
    for spec in ("broken", "F1:0.5,broken:0.5"):
        with pytest.raises(VoiceFileCorrupt) as err:
            assets.voice(spec)
        assert err.value.field == "voice" and "voice file voice_styles/broken.json" in err.value.message
        assert str(model_with_custom_voices) not in err.value.message  # no path on disk
    assert assets.voice("F1").name == "F1"
