"""The model directory: every missing or corrupt file is named, with the command that fixes it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest

from supertonic_engine.assets import load_assets, resolve_model_dir
from supertonic_engine.errors import ModelCorrupt, ModelMissing, UnknownVoice


@pytest.fixture()
def model_copy(tiny_model_dir, tmp_path):
    target = tmp_path / "model"
    shutil.copytree(tiny_model_dir, target)
    return target


def test_the_stand_in_loads_as_a_stand_in(tiny_model_dir):
    assets = load_assets(tiny_model_dir)
    assert assets.sample_rate == 44_100 and assets.samples_per_frame == 3072 and assets.latent_channels == 144
    assert len(assets.indexer) == 65_536
    voice = assets.voice("F3")
    assert voice.ttl.shape == (1, 50, 256) and voice.dp.shape == (1, 8, 16)
    assert assets.voice("F3") is voice  # loaded once


def _unmark(graph: Path) -> None:
    model = onnx.load(graph)
    del model.metadata_props[:]
    onnx.save(model, graph)


def test_one_marked_graph_makes_the_model_a_stand_in_and_none_makes_it_real(model_copy):
    from supertonic_engine import Engine

    graphs = sorted((model_copy / "onnx").glob("*.onnx"))
    for graph in graphs[:-1]:
        _unmark(graph)
    assert Engine.load(model_copy).model_kind == "stand-in"  # the real JSON files decide nothing
    _unmark(graphs[-1])
    assert Engine.load(model_copy).model_kind == "real"


def test_a_stand_in_of_the_first_generator_is_refused_with_the_fix(model_copy):
    """Its graphs carry no mark and its JSON files were guesses: served, it would pass for the real model."""
    for graph in (model_copy / "onnx").glob("*.onnx"):
        _unmark(graph)
    path = model_copy / "onnx" / "tts.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"stand_in": {"generator_version": "1", "size": "tiny"}}))
    with pytest.raises(ModelCorrupt, match="earlier generator") as err:
        load_assets(model_copy)
    assert "make-model" in err.value.message and "fetch-model" in err.value.message


def test_the_engine_says_what_its_loaded_graphs_are(model_copy, caplog):
    """Real JSON beside stand-in graphs runs as a stand-in; with every mark gone it runs as real."""
    from supertonic_engine import Engine

    assert Engine.load(model_copy).model_kind == "stand-in"
    for graph in (model_copy / "onnx").glob("*.onnx"):
        _unmark(graph)
    with caplog.at_level("INFO", logger="supertonic_engine.sessions"):
        engine = Engine.load(model_copy)
    assert engine.model_kind == "real" and engine.sessions.kind == "real"
    assert any("of the real model ready" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    "relative",
    ["onnx/vector_estimator.onnx", "onnx/tts.json", "onnx/unicode_indexer.json", "onnx/duration_predictor.onnx"],
)
def test_a_missing_file_is_named_with_the_fix(model_copy, relative):
    (model_copy / relative).unlink()
    with pytest.raises(ModelMissing) as err:
        load_assets(model_copy)
    assert relative in err.value.message and "fetch-model" in err.value.message


def test_missing_voices_are_reported(model_copy):
    shutil.rmtree(model_copy / "voice_styles")
    with pytest.raises(ModelMissing, match=r"voice_styles/\*\.json"):
        load_assets(model_copy)


def test_a_missing_directory_is_reported(tmp_path):
    with pytest.raises(ModelMissing, match="does not exist"):
        load_assets(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "relative, content", [("onnx/tts.json", "{not json"), ("onnx/tts.json", '{"ae": {}}'), ("onnx/unicode_indexer.json", '{"a": 1}')]
)
def test_corrupt_json_is_named(model_copy, relative, content):
    (model_copy / relative).write_text(content)
    with pytest.raises(ModelCorrupt) as err:
        _ = load_assets(model_copy).indexer  # the property reads and checks the file
    assert relative.split("/")[-1] in err.value.message


def test_an_empty_graph_is_corrupt(model_copy):
    (model_copy / "onnx" / "text_encoder.onnx").write_bytes(b"")
    with pytest.raises(ModelCorrupt, match="text_encoder.onnx is empty"):
        load_assets(model_copy)


@pytest.mark.parametrize(
    "voice",
    [
        {"style_dp": {"data": [0.0] * 128, "dims": [1, 8, 16]}},
        {"style_ttl": {"data": [0.0] * 10, "dims": [1, 50, 256]}, "style_dp": {"data": [0.0] * 128, "dims": [1, 8, 16]}},
        {"style_ttl": {"data": [0.0] * 12800, "dims": [1, 256, 50]}, "style_dp": {"data": [0.0] * 128, "dims": [1, 8, 16]}},
    ],
)
def test_a_malformed_voice_is_corrupt(model_copy, voice):
    (model_copy / "voice_styles" / "M1.json").write_text(json.dumps(voice))
    with pytest.raises(ModelCorrupt, match="M1.json"):
        load_assets(model_copy).voice("M1")


def test_unknown_voice_lists_the_available_ones(tiny_model_dir):
    with pytest.raises(UnknownVoice) as err:
        load_assets(tiny_model_dir).voice("alloy")
    assert err.value.field == "voice" and "F1, F2" in err.value.message


def test_model_dir_precedence():
    assert resolve_model_dir("/a", {"SUPERTONIC_MODEL_DIR": "/b"}).as_posix() == "/a"
    assert resolve_model_dir(None, {"SUPERTONIC_MODEL_DIR": "/b"}).as_posix() == "/b"
    assert resolve_model_dir(None, {}) is None


def test_the_config_is_read_as_the_official_sdk_reads_it(tiny_model_dir):
    """supertonic 1.3.1 takes four numbers from the release's tts.json (core.Supertonic.__init__);
    the engine derives its frame and latent sizes from the same four."""
    from supertonic.loader import load_configs

    sdk = load_configs(tiny_model_dir)
    assets = load_assets(tiny_model_dir)
    assert assets.tts_config == sdk
    assert assets.sample_rate == sdk["ae"]["sample_rate"] == 44_100
    assert assets.samples_per_frame == sdk["ae"]["base_chunk_size"] * sdk["ttl"]["chunk_compress_factor"]
    assert assets.latent_channels == sdk["ttl"]["latent_dim"] * sdk["ttl"]["chunk_compress_factor"]
