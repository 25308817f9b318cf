"""A model directory that holds the prepared graphs but not the stock ones: what the image ships.

It loads (fp32 and int8) when the manifest's key matches this process, it is verified against the
stock digests its manifest records and the release's published ones, and when a graph has neither a
matching prepared copy nor a stock file the error names what is missing and what to run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from supertonic_engine import Engine, SessionConfig, SynthesisOptions, prepared
from supertonic_engine.errors import ConfigurationError, GraphMissing, ModelCorrupt, ModelMissing
from supertonic_engine.files import file_sha256
from supertonic_engine.model_layout import CONFIG_FILE, GRAPHS
from supertonic_tools import fetch, optimize
from supertonic_tools.verify import MISSING, MODIFIED, REAL, STANDIN, ReleaseFile, check_model

SCRIPT = Path(sys.executable).parent / "supertonic-lambda"
ONE_THREAD = SessionConfig(intra_op_threads=1)
INT8 = SessionConfig(intra_op_threads=1, precision="int8")
OPTIONS = SynthesisOptions(steps=1, seed=0)


@pytest.fixture(scope="module")
def prepared_model(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny stand-in with its stock graphs and both prepared sets, as the image's build stage holds it."""
    root = Path(shutil.copytree(tiny_model_dir, tmp_path_factory.mktemp("model") / "tiny"))
    optimize.prepare_model(root)
    optimize.prepare_model(root, precision="int8", isa="avx2")
    return root


def _prepared_only(model: Path, target: Path) -> Path:
    """``model`` as the image's final stage copies it: everything but the stock graphs."""
    return Path(
        shutil.copytree(
            model, target, ignore=lambda directory, names: [n for n in names if n.endswith(".onnx") and Path(directory).name == "onnx"]
        )
    )


@pytest.fixture
def prepared_only(prepared_model: Path, tmp_path: Path) -> Path:
    return _prepared_only(prepared_model, tmp_path / "model")


def _manifest(directory: Path) -> dict:
    return json.loads((directory / prepared.MANIFEST).read_text())


def test_the_manifest_traces_each_prepared_graph_to_its_stock_graph_and_the_model(prepared_model: Path) -> None:
    for directory, names in ((prepared_model / "prepared", GRAPHS), (prepared_model / "prepared-int8", prepared.QUANTIZED_GRAPHS)):
        manifest = _manifest(directory)
        config = prepared_model / CONFIG_FILE
        assert manifest["model"] == {CONFIG_FILE: {"sha256": file_sha256(config), "size": config.stat().st_size}}
        assert set(manifest["graphs"]) == set(names)
        for name, entry in manifest["graphs"].items():
            stock = prepared_model / "onnx" / f"{name}.onnx"
            assert entry["source"]["path"] == f"onnx/{name}.onnx"
            assert (entry["source"]["sha256"], entry["source"]["size"]) == (file_sha256(stock), stock.stat().st_size)
            # Every file the prepared graph is made of, so a copy without its source can still be checked.
            written = {p.name for p in directory.iterdir() if p.name.startswith(f"{name}.onnx")}
            assert set(entry["files"]) == written and written >= {f"{name}.onnx", f"{name}.onnx.data"}
            for file, record in entry["files"].items():
                assert record == {"sha256": file_sha256(directory / file), "size": (directory / file).stat().st_size}


def test_a_prepared_only_directory_loads_and_speaks_as_the_full_one(prepared_model: Path, prepared_only: Path) -> None:
    assert not list((prepared_only / "onnx").glob("*.onnx"))
    full = Engine.load(prepared_model, session_config=ONE_THREAD)
    alone = Engine.load(prepared_only, session_config=ONE_THREAD)
    assert set(alone.sessions.prepared) == set(GRAPHS) and alone.model_kind == "stand-in"
    a, b = (e.synthesize("Only one copy of each graph.", OPTIONS) for e in (full, alone))
    assert a.audio is not None and b.audio is not None and np.array_equal(a.audio, b.audio)
    assert prepared.has_prepared(prepared_only) and prepared.has_prepared(prepared_only, "int8")


def test_an_int8_prepared_only_directory_loads(prepared_only: Path) -> None:
    engine = Engine.load(prepared_only, session_config=INT8)
    assert engine.precision == "int8" and set(engine.sessions.prepared) == set(GRAPHS)
    assert engine.synthesize("Quantized.", OPTIONS).duration_s > 0


def test_a_prepared_set_for_another_runtime_without_stock_graphs_says_what_is_missing_and_what_to_run(prepared_only: Path) -> None:
    path = prepared_only / "prepared" / prepared.MANIFEST
    path.write_text(json.dumps(_manifest(prepared_only / "prepared") | {"onnxruntime": "1.0.0"}))
    with pytest.raises(GraphMissing) as caught:
        Engine.load(prepared_only, session_config=ONE_THREAD)
    message = caught.value.message
    assert isinstance(caught.value, ModelMissing) and caught.value.code == "model_missing"
    for name in GRAPHS:
        assert f"onnx/{name}.onnx" in message
    assert "onnxruntime '1.0.0'" in message and str(prepared_only / "prepared") in message
    assert "supertonic-lambda fetch-model" in message and "supertonic-lambda prepare-model" in message


def test_a_prepared_only_directory_whose_tts_json_changed_does_not_load(prepared_only: Path) -> None:
    config = prepared_only / CONFIG_FILE
    made_with = file_sha256(config)
    config.write_text(json.dumps(json.loads(config.read_text()) | {"another": 1}))
    with pytest.raises(GraphMissing) as caught:
        Engine.load(prepared_only, session_config=ONE_THREAD)
    message = caught.value.message
    assert made_with in message and file_sha256(config) in message and CONFIG_FILE in message
    assert "supertonic-lambda prepare-model" in message
    with pytest.raises(ConfigurationError, match="SUPERTONIC_PRECISION=int8"):
        Engine.load(prepared_only, session_config=INT8)


def test_a_prepared_only_set_that_records_no_tts_json_does_not_load(prepared_only: Path) -> None:
    manifest = _manifest(prepared_only / "prepared")
    del manifest["model"]
    (prepared_only / "prepared" / prepared.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(GraphMissing, match=f"records no {CONFIG_FILE}"):
        Engine.load(prepared_only, session_config=ONE_THREAD)


def test_a_prepared_set_made_with_another_tts_json_still_stands_in_beside_its_stock_graphs(prepared_model: Path, tmp_path: Path) -> None:
    # With the stock graphs there, their stamps say whether a copy still matches; tts.json configures
    # the engine, not the graphs, so it takes nothing away from copies the stamps vouch for.
    model = Path(shutil.copytree(prepared_model, tmp_path / "model"))
    config = model / CONFIG_FILE
    config.write_text(json.dumps(json.loads(config.read_text()) | {"another": 1}))
    assert set(Engine.load(model, session_config=ONE_THREAD).sessions.prepared) == set(GRAPHS)


def test_a_missing_prepared_file_without_its_stock_graph_is_named(prepared_only: Path) -> None:
    (prepared_only / "prepared" / "vocoder.onnx").unlink()
    with pytest.raises(GraphMissing, match=r"onnx/vocoder\.onnx.*prepared/vocoder\.onnx is missing") as caught:
        Engine.load(prepared_only, session_config=ONE_THREAD)
    assert "duration_predictor" not in caught.value.message


def test_prepared_graphs_turned_off_without_stock_graphs_name_the_setting(prepared_only: Path) -> None:
    with pytest.raises(GraphMissing, match="SUPERTONIC_PREPARED=0"):
        Engine.load(prepared_only, session_config=SessionConfig(intra_op_threads=1, prepared=False))


def test_an_unloadable_prepared_graph_without_its_stock_graph_is_corrupt(prepared_only: Path) -> None:
    (prepared_only / "prepared" / "vocoder.onnx.data").write_bytes(b"")
    with pytest.raises(ModelCorrupt, match=r"prepared/vocoder\.onnx"):
        Engine.load(prepared_only, session_config=ONE_THREAD)


def test_int8_without_its_set_or_stock_graphs_is_the_operators_error(prepared_only: Path) -> None:
    shutil.rmtree(prepared_only / "prepared-int8")
    with pytest.raises(ConfigurationError, match="SUPERTONIC_PRECISION=int8"):
        Engine.load(prepared_only, session_config=INT8)


def test_the_stock_graphs_are_needed_to_prepare(prepared_only: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelMissing, match=r"onnx/vocoder\.onnx"):
        optimize.prepare_model(prepared_only, tmp_path / "again")


def test_verify_checks_a_prepared_only_stand_in_by_its_records(prepared_only: Path) -> None:
    result = check_model(prepared_only, fetch.RELEASE_FILES)
    graphs = {f.path: f for f in result.files if f.path.endswith(".onnx")}
    assert {f.status for f in graphs.values()} == {STANDIN}
    assert all(f.prepared for f in graphs.values())
    assert "prepared/" in graphs["onnx/vocoder.onnx"].describe()
    proc = subprocess.run([str(SCRIPT), "verify-model", str(prepared_only)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "verdict: stand-in model" in proc.stdout


def test_verify_traces_a_prepared_graph_to_the_releases_digest(prepared_only: Path) -> None:
    # A table that publishes the stock vocoder the set was made from: its record is the release's.
    entry = _manifest(prepared_only / "prepared")["graphs"]["vocoder"]["source"]
    table = dict(fetch.RELEASE_FILES) | {"onnx/vocoder.onnx": ReleaseFile(entry["size"], entry["sha256"])}
    check = {f.path: f for f in check_model(prepared_only, table).files}["onnx/vocoder.onnx"]
    assert check.status == REAL and check.sha256 == entry["sha256"] and check.size == entry["size"]
    assert "prepared/vocoder.onnx" in check.describe()


def test_verify_finds_a_changed_prepared_file_and_a_record_of_another_graph(prepared_only: Path) -> None:
    data = prepared_only / "prepared" / "vocoder.onnx.data"
    raw = bytearray(data.read_bytes())
    raw[100] ^= 1
    data.write_bytes(bytes(raw))
    path = prepared_only / "prepared-int8" / prepared.MANIFEST
    manifest = _manifest(prepared_only / "prepared-int8")
    manifest["graphs"]["text_encoder"]["source"]["sha256"] = "0" * 64
    path.write_text(json.dumps(manifest))
    checks = {f.path: f for f in check_model(prepared_only, fetch.RELEASE_FILES).files}
    assert checks["onnx/vocoder.onnx"].status == MODIFIED and "vocoder.onnx.data" in checks["onnx/vocoder.onnx"].describe()
    assert checks["onnx/text_encoder.onnx"].status == MODIFIED and "prepared-int8" in checks["onnx/text_encoder.onnx"].describe()
    assert checks["onnx/vector_estimator.onnx"].status == STANDIN


def test_verify_finds_a_set_prepared_from_another_models_config(prepared_only: Path) -> None:
    config = prepared_only / CONFIG_FILE
    config.write_text(json.dumps(json.loads(config.read_text()) | {"another": 1}))
    checks = {f.path: f for f in check_model(prepared_only, fetch.RELEASE_FILES).files}
    assert checks["onnx/vocoder.onnx"].status == MODIFIED and "tts.json" in checks["onnx/vocoder.onnx"].describe()


def test_prepared_sets_elsewhere_are_found_by_load_and_verify_through_the_env_they_are_given(prepared_only: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("prepared", "prepared-int8"):
        shutil.move(prepared_only / name, elsewhere / name)
    env = {"SUPERTONIC_PREPARED_DIR": str(elsewhere / "prepared")}  # given, not set in os.environ
    for session_config in (ONE_THREAD, INT8):
        assert set(Engine.load(prepared_only, session_config=session_config, env=env).sessions.prepared) == set(GRAPHS)
    graphs = [f for f in check_model(prepared_only, fetch.RELEASE_FILES, env).files if f.path.endswith(".onnx")]
    assert {f.status for f in graphs} == {STANDIN} and all(f.prepared for f in graphs)


def test_verify_says_missing_where_neither_copy_is_there(prepared_only: Path) -> None:
    shutil.rmtree(prepared_only / "prepared-int8")
    path = prepared_only / "prepared" / prepared.MANIFEST
    manifest = _manifest(prepared_only / "prepared")
    del manifest["graphs"]["vocoder"]
    path.write_text(json.dumps(manifest))
    checks = {f.path: f for f in check_model(prepared_only, fetch.RELEASE_FILES).files}
    assert checks["onnx/vocoder.onnx"].status == MISSING and not checks["onnx/vocoder.onnx"].prepared
