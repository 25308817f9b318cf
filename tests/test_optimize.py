"""Prepared graphs: the MatMul rewrite is exact, the engine's output is unchanged, stale copies are never used."""

from __future__ import annotations

import json
import logging
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from supertonic_engine import Engine, SessionConfig, SynthesisOptions, prepared
from supertonic_engine.errors import ModelError
from supertonic_engine.model_layout import GRAPHS
from supertonic_tools import optimize
from supertonic_tools.optimize.guidance import share_guidance_prefix
from supertonic_tools.optimize.pointwise import rewrite_pointwise_convs

TEXT = (
    "When the storm finally passed, the village gathered on the hill to watch the sky clear. "
    "Children pointed at the first stars while parents counted the boats returning to the harbour."
)


@pytest.fixture(scope="module")
def model_copy(tiny_model_dir, tmp_path_factory):
    """A private copy of the tiny stand-in (the shared one must keep loading stock graphs)."""
    root = tmp_path_factory.mktemp("model") / "tiny"
    shutil.copytree(tiny_model_dir, root)
    return root


@pytest.fixture(scope="module")
def prepared_model(model_copy):
    optimize.prepare_model(model_copy)
    return model_copy


def _run(model: onnx.ModelProto | str, feeds: dict) -> list[np.ndarray]:
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # compare the graphs, not ORT's fusions
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"]).run(None, feeds)


def _session(model_path) -> ort.InferenceSession:
    return ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("graph, pairs", [("vector_estimator", 28), ("vocoder", 10), ("text_encoder", 6), ("duration_predictor", 6)])
def test_every_convnext_mlp_becomes_matmuls_with_the_same_output(tiny_model_dir, graph, pairs):
    path = tiny_model_dir / "onnx" / f"{graph}.onnx"
    model = onnx.load(str(path))
    convs_before = sum(n.op_type == "Conv" for n in model.graph.node)
    assert rewrite_pointwise_convs(model) == pairs
    onnx.checker.check_model(model)
    assert sum(n.op_type == "Conv" for n in model.graph.node) == convs_before - 2 * pairs
    for tokens, frames in optimize.PROBE_SIZES:
        feeds = optimize.probe_inputs(_session(path), tokens, frames)
        for stock, rewritten in zip(_run(str(path), feeds), _run(model, feeds), strict=True):
            assert stock.shape == rewritten.shape
            np.testing.assert_allclose(rewritten, stock, atol=optimize.TOLERANCE, rtol=0)


def _pointwise_mlp(leak_intermediate: bool) -> onnx.ModelProto:
    """x [1, N, 4] -> Transpose -> Conv k1 (4->8) -> Relu -> Conv k1 (8->4); optionally the Relu output is a graph output too."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((8, 4, 1)).astype(np.float32), "w1"),
        numpy_helper.from_array(rng.standard_normal((4, 8, 1)).astype(np.float32), "w2"),
        numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b2"),
    ]
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
        helper.make_node("Conv", ["xt", "w1"], ["h"], kernel_shape=[1]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Conv", ["r", "w2", "b2"], ["y"], kernel_shape=[1]),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if leak_intermediate:
        outputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "n", 4])], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def test_a_chain_whose_middle_is_read_elsewhere_is_left_alone():
    # The channel-last middle would reach the other reader in the wrong layout.
    assert rewrite_pointwise_convs(_pointwise_mlp(leak_intermediate=True)) == 0
    model = _pointwise_mlp(leak_intermediate=False)
    x = {"x": np.random.default_rng(1).standard_normal((1, 7, 4)).astype(np.float32)}
    expected = _run(model, x)
    assert rewrite_pointwise_convs(model) == 1
    assert [n.op_type for n in model.graph.node] == ["MatMul", "Relu", "MatMul", "Add", "Transpose"]
    np.testing.assert_allclose(_run(model, x)[0], expected[0], atol=1e-5, rtol=0)


def test_prepared_engine_reads_the_same_audio_as_the_stock_one(prepared_model):
    fast = Engine.load(prepared_model, session_config=SessionConfig(intra_op_threads=2))
    stock = Engine.load(prepared_model, session_config=SessionConfig(intra_op_threads=2, prepared=False))
    assert fast.sessions.prepared == GRAPHS and stock.sessions.prepared == ()
    for steps in (2, 8):
        a = fast.synthesize(TEXT, SynthesisOptions(voice="F1", steps=steps, seed=11, max_chunk_chars=90))
        b = stock.synthesize(TEXT, SynthesisOptions(voice="F1", steps=steps, seed=11, max_chunk_chars=90))
        assert len(a.chunks) > 1 and a.audio.shape == b.audio.shape
        assert np.max(np.abs(a.audio - b.audio)) <= optimize.TOLERANCE


def test_prepared_fp32_weights_are_stored_once_and_mapped_as_they_are(prepared_model):
    """ONNX Runtime re-packs saved pre-packed weights from the originals to check them, reading both:
    the fp32 set stores each weight once, and its sessions leave it unpacked in the mapped file."""
    directory = prepared.prepared_dir(prepared_model)
    for name in GRAPHS:
        graph = onnx.load(str(directory / f"{name}.onnx"), load_external_data=False)
        keys = {entry.key for tensor in graph.graph.initializer for entry in tensor.external_data}
        assert "location" in keys and not any(key.startswith("prepacked") for key in keys), name
    engine = Engine.load(prepared_model, session_config=SessionConfig(intra_op_threads=2))
    assert [_prepacking(getattr(engine.sessions, name)) for name in GRAPHS] == ["0"] * len(GRAPHS)
    stock = Engine.load(prepared_model, session_config=SessionConfig(intra_op_threads=2, prepared=False))
    assert _prepacking(stock.sessions.vocoder) == "1"  # the stock graphs keep SUPERTONIC_PREPACKING's default
    # Asked for, prepacking applies to the prepared set too (speed for anonymous memory and load time).
    packed = Engine.load(prepared_model, session_config=SessionConfig.from_env({"SUPERTONIC_PREPACKING": "1"}, intra_op_threads=2))
    assert [_prepacking(getattr(packed.sessions, name)) for name in GRAPHS] == ["1"] * len(GRAPHS)
    unpacked = Engine.load(
        prepared_model, session_config=SessionConfig.from_env({"SUPERTONIC_PREPACKING": "0"}, intra_op_threads=2, prepared=False)
    )
    assert _prepacking(unpacked.sessions.vocoder) == "0"


def _prepacking(session: ort.InferenceSession) -> str:
    """ "0" where the session was made with ``session.disable_prepacking=1``, else "1"."""
    try:
        disabled = session.get_session_options().get_session_config_entry("session.disable_prepacking")
    except RuntimeError:  # ONNX Runtime's answer for a key never set
        return "1"
    return "0" if disabled == "1" else "1"


def test_manifest_records_what_each_graph_was_made_from(prepared_model):
    manifest = json.loads((prepared_model / "prepared" / prepared.MANIFEST).read_text())
    assert manifest["onnxruntime"] == ort.__version__ and manifest["recipe"] == prepared.recipe()
    for name in GRAPHS:
        entry = manifest["graphs"][name]
        source = prepared_model / "onnx" / f"{name}.onnx"
        assert entry["source"]["sha256"] == prepared.file_sha256(source)
        assert entry["max_abs_diff"] <= optimize.TOLERANCE
        assert (prepared_model / "prepared" / entry["file"]).is_file()


def _sources(root):
    return {name: root / "onnx" / f"{name}.onnx" for name in GRAPHS}


def test_a_changed_source_graph_is_detected_even_with_its_old_size(prepared_model, tmp_path, caplog):
    model = tmp_path / "model"
    shutil.copytree(prepared_model, model)
    vocoder = model / "onnx" / "vocoder.onnx"
    data = bytearray(vocoder.read_bytes())
    data[-1] ^= 0xFF  # same size, new bytes, new mtime
    vocoder.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        found = prepared.find_prepared(_sources(model), model / "prepared")
    assert set(found) == set(GRAPHS) - {"vocoder"}
    assert "vocoder" in caplog.text and "changed since it was prepared" in caplog.text


def test_a_touched_but_unchanged_source_is_rehashed_and_still_used(prepared_model, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(prepared_model, model)  # copytree keeps mtimes; touch one
    source = model / "onnx" / "text_encoder.onnx"
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    assert set(prepared.find_prepared(_sources(model), model / "prepared")) == set(GRAPHS)


@pytest.mark.parametrize("key, value", [("onnxruntime", "1.0.0"), ("recipe", "000000000000"), ("machine", "sparc64"), ("format", 0)])
def test_prepared_graphs_for_another_runtime_or_recipe_are_not_used(prepared_model, tmp_path, caplog, key, value):
    model = tmp_path / "model"
    shutil.copytree(prepared_model, model)
    path = model / "prepared" / prepared.MANIFEST
    manifest = json.loads(path.read_text())
    manifest[key] = value
    path.write_text(json.dumps(manifest))
    with caplog.at_level(logging.WARNING):
        assert prepared.find_prepared(_sources(model), model / "prepared") == {}
    assert key in caplog.text and "prepare-model" in caplog.text


def test_where_the_optimizer_is_not_installed_its_recipe_is_not_checked(prepared_model, tmp_path, monkeypatch):
    # The image: its graphs were prepared by the same build, and it holds no optimizer code to hash.
    model = tmp_path / "model"
    shutil.copytree(prepared_model, model)
    path = model / "prepared" / prepared.MANIFEST
    path.write_text(json.dumps(json.loads(path.read_text()) | {"recipe": "000000000000"}))
    monkeypatch.setattr(prepared, "OPTIMIZER_PACKAGE", "not_installed_here")
    prepared.recipe.cache_clear()
    try:
        assert prepared.recipe() is None
        assert set(prepared.find_prepared(_sources(model), model / "prepared")) == set(GRAPHS)
    finally:
        prepared.recipe.cache_clear()


def test_an_unloadable_prepared_graph_falls_back_to_the_stock_one(prepared_model, tmp_path, caplog):
    model = tmp_path / "model"
    shutil.copytree(prepared_model, model)
    (model / "prepared" / "vector_estimator.onnx.data").write_bytes(b"")  # truncated weights
    with caplog.at_level(logging.WARNING):
        engine = Engine.load(model, session_config=SessionConfig(intra_op_threads=1))
    assert "vector_estimator" not in engine.sessions.prepared and len(engine.sessions.prepared) == 3
    assert "not using the prepared vector_estimator" in caplog.text
    assert engine.synthesize("Still speaks.", SynthesisOptions(steps=1, seed=0)).duration_s > 0


def test_the_prepared_folder_can_live_elsewhere(prepared_model, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(prepared_model / "prepared", elsewhere)
    env = {"SUPERTONIC_PREPARED_DIR": str(elsewhere)}
    assert prepared.prepared_dir(prepared_model, env) == elsewhere
    assert set(prepared.find_prepared(_sources(prepared_model), prepared.prepared_dir(prepared_model, env))) == set(GRAPHS)
    assert prepared.find_prepared(_sources(prepared_model), tmp_path / "nothing-here") == {}


def test_a_prepared_graph_that_disagrees_with_its_source_is_refused(model_copy, tmp_path, monkeypatch):
    monkeypatch.setattr(optimize, "compare_outputs", lambda stock, candidate: (0.5, 20.0))
    target = tmp_path / "prepared"
    with pytest.raises(ModelError, match="differs from"):
        optimize.prepare_model(model_copy, target, graphs=("duration_predictor",))
    assert not target.exists() and not list(tmp_path.glob(".prepared.*"))


def test_an_int8_graph_too_far_from_its_source_is_refused(model_copy, tmp_path, monkeypatch):
    monkeypatch.setattr(optimize, "compare_outputs", lambda stock, candidate: (0.5, optimize.INT8_MIN_SNR_DB - 1))
    target = tmp_path / "prepared-int8"
    with pytest.raises(ModelError, match="keep fp32"):
        optimize.prepare_model(model_copy, target, graphs=("text_encoder",), precision="int8")
    assert not target.exists() and not list(tmp_path.glob(".prepared-int8.*"))


def test_prepare_model_command_writes_where_it_is_told(model_copy, tmp_path, capsys):
    from supertonic_cli.main import main

    assert main(["prepare-model", "--model", str(model_copy), "--out", str(tmp_path / "out")]) == 0
    assert "vector_estimator: 28 pointwise pairs as MatMul" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / prepared.MANIFEST).read_text())["graphs"].keys() == set(GRAPHS)


# --- guidance halves ---------------------------------------------------------------------------------


def test_the_estimator_runs_its_blocks_before_the_text_on_one_guidance_half(tiny_model_dir):
    from supertonic_tools.standin import graph_flops

    path = tiny_model_dir / "onnx" / "vector_estimator.onnx"
    model = onnx.load(str(path))
    before = graph_flops(model, 60, 40)
    assert share_guidance_prefix(model) > 0
    onnx.checker.check_model(model)
    assert graph_flops(model, 60, 40) < 0.97 * before  # proj_in and five ConvNeXt blocks at batch 1 (8 % on the full size)
    stock = _session(path)
    for batch in (1, 2):
        feeds = optimize.probe_inputs(stock, 37, 23)
        if batch == 2:  # two different requests in one batch: each must keep its own halves
            rng = np.random.default_rng(3)
            feeds = {
                k: np.concatenate(
                    [v, rng.standard_normal(v.shape).astype(v.dtype) if k in ("noisy_latent", "text_emb", "style_ttl") else v]
                )
                for k, v in feeds.items()
            }
        np.testing.assert_allclose(_run(model, feeds)[0], _run(str(path), feeds)[0], atol=1e-5, rtol=0)


def _doubled_graph(constant: np.ndarray) -> onnx.ModelProto:
    """x [B, 3] -> Tile x2 -> Relu -> Mul(constant) -> ReduceSum over the batch axis."""
    nodes = [
        helper.make_node("Tile", ["x", "twice"], ["both"]),
        helper.make_node("Relu", ["both"], ["r"]),
        helper.make_node("Mul", ["r", "c"], ["m"]),
        helper.make_node("ReduceSum", ["m", "axis0"], ["y"], keepdims=1),
    ]
    inits = [
        numpy_helper.from_array(np.array([2, 1], np.int64), "twice"),
        numpy_helper.from_array(constant.astype(np.float32), "c"),
        numpy_helper.from_array(np.array([0], np.int64), "axis0"),
    ]
    graph = helper.make_graph(
        nodes,
        "doubled",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


@pytest.mark.parametrize("constant, moved", [(np.array([1.0, 2.0, 3.0]), 2), (np.array([[1.0], [-1.0]]), 1)])
def test_only_nodes_that_treat_each_batch_item_alike_move_to_one_half(constant, moved):
    # A [2, 1] constant weighs the two halves differently: the Mul must see both halves.
    model = _doubled_graph(constant)
    x = {"x": np.random.default_rng(0).standard_normal((1, 3)).astype(np.float32)}
    expected = _run(model, x)[0]
    assert share_guidance_prefix(model) == moved
    assert [n.op_type for n in model.graph.node].count("Concat") == 1  # doubled again where needed
    np.testing.assert_allclose(_run(model, x)[0], expected, rtol=1e-6)


def test_graphs_without_guidance_are_left_alone(tiny_model_dir):
    model = onnx.load(str(tiny_model_dir / "onnx" / "vocoder.onnx"))
    nodes = len(model.graph.node)
    assert share_guidance_prefix(model) == 0 and len(model.graph.node) == nodes
