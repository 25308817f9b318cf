"""The stand-in model: the real I/O contract, bounded noise, faithful size and compute, safe writes."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from published_assets import published_assets

from supertonic_engine.errors import InvalidParameter
from supertonic_engine.standin_marker import graph_metadata
from supertonic_tools.fetch import RELEASE_FILES
from supertonic_tools.standin import (
    GENERATOR_VERSION,
    STANDIN_KEY,
    ensure_standin,
    graph_flops,
    make_model,
    standin_mark,
    writer,
)
from supertonic_tools.standin.dims import (
    SIZES,
    STYLE_KEY_DIM,
    STYLE_TOKENS,
    TEXT_KERNEL,
    TTS_CONFIG,
    VOCAB_SIZE,
    VOCODER_HEAD_KERNEL,
    VOCODER_KERNEL,
)
from supertonic_tools.standin.release import RELEASE_DIR, SMALL_FILES
from supertonic_tools.standin.writer import GRAPHS, REQUIRED_FILES, build_graph, cached_standin_dir

FRAME = 3072
SR = 44_100
TINY = SIZES["tiny"]
FULL = SIZES["full"]

# §2 of the model spec: (name, element type, shape) of every input and output.
CONTRACT = {
    "duration_predictor": (
        [
            ("text_ids", "int64", ["batch_size", "text_length"]),
            ("style_dp", "float", ["batch_size", 8, 16]),
            ("text_mask", "float", ["batch_size", 1, "text_length"]),
        ],
        [("duration", "float", ["batch_size"])],
    ),
    "text_encoder": (
        [
            ("text_ids", "int64", ["batch_size", "text_length"]),
            ("style_ttl", "float", ["batch_size", 50, 256]),
            ("text_mask", "float", ["batch_size", 1, "text_length"]),
        ],
        [("text_emb", "float", ["batch_size", 256, "text_length"])],
    ),
    "vector_estimator": (
        [
            ("noisy_latent", "float", ["batch_size", 144, "latent_length"]),
            ("text_emb", "float", ["batch_size", 256, "text_length"]),
            ("style_ttl", "float", ["batch_size", 50, 256]),
            ("text_mask", "float", ["batch_size", 1, "text_length"]),
            ("latent_mask", "float", ["batch_size", 1, "latent_length"]),
            ("current_step", "float", ["batch_size"]),
            ("total_step", "float", ["batch_size"]),
        ],
        [("denoised_latent", "float", ["batch_size", 144, "latent_length"])],
    ),
    "vocoder": (
        [("latent", "float", ["batch_size", 144, "latent_length"])],
        [("wav_tts", "float", ["batch_size", "wav_length"])],
    ),
}


# --- fixtures ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sessions(tiny_model_dir) -> dict[str, ort.InferenceSession]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return {name: ort.InferenceSession(str(tiny_model_dir / "onnx" / f"{name}.onnx"), options) for name in CONTRACT}


def _inputs(batch: int, text_length: int, latent_length: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    text_mask = np.ones((batch, 1, text_length), np.float32)
    latent_mask = np.ones((batch, 1, latent_length), np.float32)
    if batch > 1:  # the last row is shorter, as in a padded batch
        text_mask[-1, :, max(1, text_length // 2) :] = 0
        latent_mask[-1, :, max(1, latent_length // 2) :] = 0
    return {
        "text_ids": rng.integers(0, 8322, (batch, text_length)),
        "text_mask": text_mask,
        "latent_mask": latent_mask,
        "style_dp": rng.standard_normal((batch, 8, 16), dtype=np.float32) * np.float32(0.1),
        "style_ttl": rng.standard_normal((batch, 50, 256), dtype=np.float32) * np.float32(0.1),
        "noisy_latent": rng.standard_normal((batch, 144, latent_length), dtype=np.float32) * latent_mask,
        "text_emb": rng.standard_normal((batch, 256, text_length), dtype=np.float32),
        "current_step": np.zeros(batch, np.float32),
        "total_step": np.full(batch, 8, np.float32),
        "latent": rng.standard_normal((batch, 144, latent_length), dtype=np.float32),
    }


def _run(session: ort.InferenceSession, feeds: dict[str, np.ndarray]) -> np.ndarray:
    (out,) = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})
    return out


def _synthesize(sessions, text_ids: np.ndarray, text_mask: np.ndarray, style_ttl, style_dp, steps: int, seed: int = 0):
    """The SDK's pipeline (§0): duration -> latent length -> text -> Euler steps -> vocoder."""
    duration = _run(sessions["duration_predictor"], {"text_ids": text_ids, "style_dp": style_dp, "text_mask": text_mask}) / 1.05
    text_emb = _run(sessions["text_encoder"], {"text_ids": text_ids, "style_ttl": style_ttl, "text_mask": text_mask})
    latent_length = int((duration.max() * SR + FRAME - 1) / FRAME)
    frames = -(-(duration * SR).astype(np.int64) // FRAME)
    latent_mask = (np.arange(latent_length) < frames[:, None]).astype(np.float32)[:, None, :]
    x = np.random.default_rng(seed).standard_normal((len(duration), 144, latent_length), dtype=np.float32) * latent_mask
    for step in range(steps):
        x = _run(
            sessions["vector_estimator"],
            {
                "noisy_latent": x,
                "text_emb": text_emb,
                "style_ttl": style_ttl,
                "text_mask": text_mask,
                "latent_mask": latent_mask,
                "current_step": np.full(len(x), step, np.float32),
                "total_step": np.full(len(x), steps, np.float32),
            },
        )
    return _run(sessions["vocoder"], {"latent": x}), duration


# --- the I/O contract -----------------------------------------------------------------------------------


def _signature(values) -> list[tuple[str, str, list]]:
    out = []
    for v in values:
        t = v.type.tensor_type
        dims = [d.dim_param if d.dim_param else d.dim_value for d in t.shape.dim]
        out.append((v.name, onnx.helper.tensor_dtype_to_string(t.elem_type).split(".")[-1].lower(), dims))
    return out


@pytest.mark.parametrize("graph", CONTRACT)
def test_graphs_declare_the_published_io_contract(tiny_model_dir, graph):
    model = onnx.load(str(tiny_model_dir / "onnx" / f"{graph}.onnx"))
    assert (_signature(model.graph.input), _signature(model.graph.output)) == CONTRACT[graph]
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [19]
    assert all(t.data_location == onnx.TensorProto.DEFAULT for t in model.graph.initializer)  # weights inline
    onnx.checker.check_model(model, full_check=True)


@pytest.mark.parametrize("batch, text_length, latent_length", [(1, 12, 17), (3, 40, 55)])
def test_outputs_have_the_contract_shapes_for_any_batch_and_length(sessions, batch, text_length, latent_length):
    feeds = _inputs(batch, text_length, latent_length)
    expected = {
        "duration_predictor": (batch,),
        "text_encoder": (batch, 256, text_length),
        "vector_estimator": (batch, 144, latent_length),
        "vocoder": (batch, latent_length * FRAME),
    }
    for graph, shape in expected.items():
        out = _run(sessions[graph], feeds)
        assert out.shape == shape and out.dtype == np.float32 and np.isfinite(out).all(), graph


def test_batch_rows_do_not_mix(sessions):
    """Row b of a batch equals a batch of one: the in-graph [cond; uncond] doubling keeps rows apart."""
    feeds = _inputs(2, 20, 30)
    feeds["text_mask"][:] = 1
    feeds["latent_mask"][:] = 1
    for graph in CONTRACT:
        together = _run(sessions[graph], feeds)
        for row in range(2):
            alone = _run(sessions[graph], {k: v[row : row + 1] for k, v in feeds.items()})
            np.testing.assert_allclose(together[row : row + 1], alone, rtol=1e-4, atol=1e-5, err_msg=graph)


def test_lengths_up_to_1000_stay_finite(sessions):
    feeds = _inputs(1, 1000, 1000)
    for graph in CONTRACT:
        assert np.isfinite(_run(sessions[graph], feeds)).all(), graph


def test_the_estimator_takes_one_guided_euler_step(sessions):
    """denoised = (noisy + v / total_step) * latent_mask, with v computed inside the graph."""
    feeds = _inputs(1, 16, 24)
    feeds["latent_mask"][..., 20:] = 0
    feeds["noisy_latent"] *= feeds["latent_mask"]
    step_of_8 = _run(sessions["vector_estimator"], feeds) - feeds["noisy_latent"]
    feeds["total_step"][:] = 4  # current_step is 0, so the time input is unchanged: only the division
    step_of_4 = _run(sessions["vector_estimator"], feeds) - feeds["noisy_latent"]
    np.testing.assert_allclose(step_of_4, 2 * step_of_8, rtol=1e-4, atol=1e-6)
    assert not step_of_8[..., 20:].any() and np.abs(step_of_8[..., :20]).mean() > 1e-3


# --- what the graphs are made of ------------------------------------------------------------------------------


def _op_counts(model: onnx.ModelProto) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts


def test_the_estimator_has_the_real_operator_mix(tiny_model_dir):
    model = onnx.load(str(tiny_model_dir / "onnx" / "vector_estimator.onnx"))
    ops = _op_counts(model)
    # §6: 28 depthwise + 56 pointwise (kept as Conv k=1, not MatMul) + proj_in/out; 28 + 8 LayerNorms.
    assert ops["Conv"] == 86 and ops["LayerNormalization"] == 36 and ops["Erf"] == 28
    assert ops["Pad"] == 28 and {"Sin", "Cos", "Softplus", "Tanh", "Softmax", "Split"} <= set(ops)
    [tile] = [n for n in model.graph.node if n.op_type == "Tile" and n.input[0] == "noisy_latent"]
    repeats = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}[tile.input[1]]
    assert repeats.tolist() == [2, 1, 1]
    pads = [n for n in model.graph.node if n.op_type == "Pad"]
    assert all(a.s == b"edge" for n in pads for a in n.attribute if a.name == "mode")


def test_the_vocoder_has_the_real_operator_mix(tiny_model_dir):
    ops = _op_counts(onnx.load(str(tiny_model_dir / "onnx" / "vocoder.onnx")))
    assert ops["Conv"] == 1 + 3 * 10 + 2 and ops["LayerNormalization"] == 10
    assert ops["BatchNormalization"] == 1 and ops["PRelu"] == 1 and "MatMul" not in ops


# --- outputs a host can use -----------------------------------------------------------------------------------


def test_durations_follow_the_english_pace_within_ten_percent(sessions):
    lengths = np.array([12, 40, 100, 300])
    feeds = _inputs(len(lengths), 300, 1)
    feeds["text_mask"] = (np.arange(300) < lengths[:, None]).astype(np.float32)[:, None, :]
    seconds = _run(sessions["duration_predictor"], feeds)
    pace = 1.05 * (0.9 + 0.084 * (lengths - 9))  # 9 characters are the <xx>...</xx> tags
    assert np.all(np.abs(seconds / pace - 1) <= 0.11)
    assert np.array_equal(seconds, _run(sessions["duration_predictor"], feeds))  # deterministic
    frames = seconds / 1.05 * SR / FRAME
    assert np.all((frames[1:] / lengths[1:] > 0.9) & (frames[1:] / lengths[1:] < 1.4))


def test_the_pipeline_gives_bounded_noise(sessions, tiny_model_dir):
    voice = json.loads((tiny_model_dir / "voice_styles" / "F1.json").read_text())
    style_ttl = np.array(voice["style_ttl"]["data"], np.float32)
    style_dp = np.array(voice["style_dp"]["data"], np.float32)
    ids = np.random.default_rng(3).integers(0, 8322, (1, 60))
    wav, duration = _synthesize(sessions, ids, np.ones((1, 1, 60), np.float32), style_ttl, style_dp, steps=8)
    rms = float(np.sqrt(np.mean(wav**2)))
    assert np.isfinite(wav).all() and np.abs(wav).max() <= 1.0 and 0.05 <= rms <= 0.3
    assert wav.shape[1] >= duration[0] * SR


# --- the official package reads the directory -------------------------------------------------------------------


@pytest.mark.parametrize("text, lang", [("Hello there, this is a short test.", "en"), ("안녕하세요, 반갑습니다.", "ko")])
def test_the_official_package_loads_and_synthesizes(tiny_model_dir, text, lang):
    from supertonic import TTS

    tts = TTS(model_dir=tiny_model_dir, auto_download=False, intra_op_num_threads=1)
    wav, duration = tts.synthesize(text, voice_style=tts.get_voice_style("M3"), lang=lang, total_steps=2)
    assert wav.shape[0] == 1 and wav.shape[1] % FRAME == 0 and wav.shape[1] >= duration[0] * SR > 0.9 * SR
    assert np.isfinite(wav).all() and np.abs(wav).max() <= 1.0 and wav.std() > 0.01


# --- the release's small files, the graphs' mark ----------------------------------------------------------------------


@pytest.mark.parametrize("relative", SMALL_FILES)
def test_the_json_files_are_the_vendored_release_byte_for_byte(tiny_model_dir, relative):
    assert (tiny_model_dir / relative).read_bytes() == (RELEASE_DIR / relative).read_bytes()


def test_the_vendored_release_is_the_published_one():
    shared = published_assets()
    for relative in SMALL_FILES:
        if relative != "LICENSE":  # not among the shared files; its digest is checked in test_fetch
            assert (RELEASE_DIR / relative).read_bytes() == (shared / relative).read_bytes(), relative


def test_the_full_widths_are_read_from_the_real_tts_json():
    full, vf = SIZES["full"], TTS_CONFIG["ttl"]["vector_field"]
    assert (full.estimator.width, full.estimator.hidden) == (vf["proj_in"]["odim"], vf["last_convnext"]["intermediate_dim"]) == (512, 2048)
    assert (full.estimator.text_units, full.estimator.text_heads) == (512, 8)
    assert (full.duration.width, full.text.width, full.vocoder.width) == (64, 256, 512)
    # The real indexer's ids all fit the graphs' character tables.
    indexer = json.loads((RELEASE_DIR / "onnx" / "unicode_indexer.json").read_text())
    assert max(indexer) < VOCAB_SIZE


@pytest.mark.parametrize("filename", GRAPHS)
def test_every_graph_carries_the_mark_with_its_own_dims(tiny_model_dir, filename):
    mark = standin_mark(tiny_model_dir / "onnx" / filename)
    assert mark is not None and (mark["size"], mark["seed"], mark["generator_version"]) == ("tiny", 0, GENERATOR_VERSION)
    assert "noise, not speech" in str(mark["note"])
    part = {"duration_predictor": TINY.duration, "text_encoder": TINY.text, "vector_estimator": TINY.estimator, "vocoder": TINY.vocoder}
    assert mark["dims"] == dataclasses.asdict(part[filename.removesuffix(".onnx")])
    assert "stand_in" not in json.loads((tiny_model_dir / "onnx" / "tts.json").read_text())


def _marked(path: Path) -> bool:
    return STANDIN_KEY in graph_metadata(path)


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_the_mark_survives_preparation(tiny_model_dir, tmp_path, precision):
    from supertonic_tools.optimize import prepare_model

    results = prepare_model(tiny_model_dir, tmp_path / precision, precision=precision)
    assert results and all(_marked(r.path) for r in results)


def test_the_mark_survives_the_onnx_runtime_optimizer(tiny_model_dir, tmp_path):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    ort.InferenceSession(str(tiny_model_dir / "onnx" / "vector_estimator.onnx"), options, providers=["CPUExecutionProvider"])
    assert _marked(tmp_path / "optimized.onnx")


def test_real_voice_styles_have_the_measured_spread(tiny_model_dir):
    """The release's voices: style_ttl values spread about 0.0625, style_dp about 0.25 (measured: 0.0625 and 0.249 to 0.250)."""
    for path in sorted((tiny_model_dir / "voice_styles").glob("*.json")):
        voice = json.loads(path.read_text())
        ttl, dp = (np.array(voice[key]["data"], np.float32) for key in ("style_ttl", "style_dp"))
        assert ttl.shape == (1, 50, 256) and dp.shape == (1, 8, 16)
        assert ttl.std() == pytest.approx(0.0625, rel=0.01) and dp.std() == pytest.approx(0.25, rel=0.02), path.name


# --- names that tools written for the real graphs look for -------------------------------------------------------------


def test_a_rewrite_that_finds_its_way_by_name_finds_it_in_the_stand_in(tiny_model_dir):
    """What superclonica's share_guidance_prefix looks up in the real estimator: the Tile that makes
    /vector_estimator/Tile_1_output_0 from noisy_latent with [2, 1, 1], then nodes under its scopes."""
    model = onnx.load(str(tiny_model_dir / "onnx" / "vector_estimator.onnx"))
    producer = {o: n for n in model.graph.node for o in n.output}
    tile = producer["/vector_estimator/Tile_1_output_0"]
    initializers = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    assert (tile.name, tile.op_type, tile.input[0]) == ("/vector_estimator/Tile_1", "Tile", "noisy_latent")
    assert initializers[tile.input[1]].tolist() == [2, 1, 1]
    scopes = ("/vector_field/proj_in/", "/main_blocks.0/", "/main_blocks.1/", "/main_blocks.2/")
    inside = [n for n in model.graph.node if any(scope in n.name for scope in scopes)]
    assert "/vector_estimator/vector_field/proj_in/net/Conv" in {n.name for n in inside}
    assert any(tile.output[0] in n.input for n in inside)
    # The batch-1 extractions of the real file: the other doubled inputs, the raw velocity.
    assert producer["/vector_estimator/Tile_3_output_0"].input[0] == "latent_mask"
    assert producer["/vector_estimator/Tile_4_output_0"].input[0] == "text_mask"
    assert producer["/vector_estimator/vector_field/proj_out/Mul_output_0"].op_type == "Mul"
    assert initializers["/vector_estimator/Expand_output_0"].shape == (1, STYLE_TOKENS, STYLE_KEY_DIM)
    assert {
        "vector_estimator.tts.ttl.uncond_masker.text_special_token",
        "vector_estimator.tts.ttl.vector_field.main_blocks.3.attn.theta",
    } <= set(initializers)


def test_the_text_encoder_computes_its_style_keys_from_the_learned_key_bank(tiny_model_dir):
    """What ports of the real text encoder read: one style_key bank, tiled to the batch, through each
    attention's W_key then tanh/Tanh; no folded key tensor left in the graph."""
    model = onnx.load(str(tiny_model_dir / "onnx" / "text_encoder.onnx"))
    producer = {o: n for n in model.graph.node for o in n.output}
    initializers = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    bank = "tts.ttl.style_encoder.style_token_layer.style_key"
    assert initializers[bank].shape == (1, STYLE_TOKENS, STYLE_KEY_DIM)
    nodes = {n.name: n for n in model.graph.node}
    for layer in ("attention1", "attention2"):
        prefix = f"tts.ttl.speech_prompted_text_encoder.{layer}.W_key.linear"
        assert initializers[f"{prefix}.weight"].shape == (STYLE_KEY_DIM, TINY.text.prompt_units)
        assert initializers[f"{prefix}.bias"].shape == (TINY.text.prompt_units,)
        tanh = nodes[f"/speech_prompted_text_encoder/{layer}/tanh/Tanh"]
        matmul = producer[producer[tanh.input[0]].input[0]]
        assert matmul.name == f"/speech_prompted_text_encoder/{layer}/W_key/linear/MatMul"
        tile = producer[matmul.input[0]]
        assert tile.op_type == "Tile" and producer[tile.input[0]].input[0] == bank
    assert not any("Tanh_output" in name or name.endswith(".style_key") and name != bank for name in initializers)


# --- writing ----------------------------------------------------------------------------------------------------------


def test_same_size_and_seed_give_byte_identical_files(tmp_path, tiny_model_dir):
    again = make_model(tmp_path / "again", "tiny", seed=0)
    other = make_model(tmp_path / "other", "tiny", seed=1)
    for name in REQUIRED_FILES:
        assert (again / name).read_bytes() == (tiny_model_dir / name).read_bytes(), name
    assert (other / "onnx/vocoder.onnx").read_bytes() != (again / "onnx/vocoder.onnx").read_bytes()
    assert (other / "voice_styles/M1.json").read_bytes() == (again / "voice_styles/M1.json").read_bytes()  # the release's


def test_make_model_replaces_a_stand_in_but_not_anything_else(tmp_path):
    # The real release's JSON beside unmarked graphs: a real model, decided by the graphs alone.
    real = make_model(tmp_path / "real", seed=1)
    for graph in (real / "onnx").glob("*.onnx"):
        model = onnx.load(str(graph))
        kept = [p for p in model.metadata_props if p.key != STANDIN_KEY]
        del model.metadata_props[:]
        model.metadata_props.extend(kept)
        onnx.save(model, str(graph))
    with pytest.raises(InvalidParameter):
        make_model(real)
    assert not _marked(real / "onnx" / "vocoder.onnx") and not list(tmp_path.glob(".real.*"))

    target = make_model(tmp_path / "standin", seed=1)
    make_model(target, seed=2)  # replaced atomically
    assert standin_mark(target / "onnx" / "vocoder.onnx")["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real", "standin"]  # no staging left behind

    # A stand-in of the first generator (marked in tts.json, unmarked graphs) is replaced too.
    config = real / "onnx" / "tts.json"
    config.write_text(json.dumps(json.loads(config.read_text()) | {"stand_in": {"generator_version": "1"}}))
    make_model(real)
    assert _marked(real / "onnx" / "vocoder.onnx")


_ENSURE = "from supertonic_tools.standin import ensure_standin; print(ensure_standin('tiny', seed=7))"


def test_ensure_standin_generates_once_even_when_two_processes_race(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERTONIC_CACHE_DIR", str(tmp_path))
    racers = [subprocess.Popen([sys.executable, "-c", _ENSURE], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    paths = [racer.communicate(timeout=120)[0].strip() for racer in racers]
    expected = cached_standin_dir("tiny", seed=7)
    assert expected.parent == tmp_path and expected.name.startswith(f"standin-tiny-seed7-v{GENERATOR_VERSION}-")
    assert paths == [str(expected)] * 2
    assert [p.name for p in tmp_path.iterdir()] == [expected.name]  # no staging left behind
    assert all((expected / name).is_file() for name in REQUIRED_FILES)
    stamp = (expected / "onnx" / "tts.json").stat().st_mtime_ns
    assert ensure_standin("tiny", seed=7) == expected
    assert (expected / "onnx" / "tts.json").stat().st_mtime_ns == stamp  # reused, not rewritten


def test_ensure_standin_replaces_entries_made_by_other_generator_code(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERTONIC_CACHE_DIR", str(tmp_path))
    outdated = [tmp_path / "standin-tiny-seed5-v0", tmp_path / "standin-tiny-seed5-v1-0123456789"]
    kept = [tmp_path / "standin-tiny-seed50-v1-0123456789", tmp_path / "standin-full-seed5-v1-0123456789"]
    for entry in outdated + kept:
        (entry / "onnx").mkdir(parents=True)
    current = ensure_standin("tiny", seed=5)
    assert sorted(tmp_path.iterdir()) == sorted([current, *kept])


def test_ensure_standin_uses_the_copy_of_a_process_that_finished_first(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERTONIC_CACHE_DIR", str(tmp_path))
    expected = cached_standin_dir("tiny", seed=3)
    write_files = writer.write_files

    def lose_the_race(root: Path, size: str, seed: int) -> None:
        rival = tmp_path / "rival"
        rival.mkdir()
        write_files(rival, size, seed)
        rival.rename(expected)  # the other process lands its copy while this one is still writing
        write_files(root, size, seed)

    monkeypatch.setattr(writer, "write_files", lose_the_race)
    assert ensure_standin("tiny", seed=3) == expected
    assert [p.name for p in tmp_path.iterdir()] == [expected.name]
    assert writer.is_complete(expected)


def test_bad_requests_are_refused(tmp_path):
    with pytest.raises(InvalidParameter, match=r"unknown stand-in size .huge."):
        make_model(tmp_path / "x", size="huge")
    with pytest.raises(InvalidParameter, match="seed"):
        make_model(tmp_path / "x", seed=-1)


# --- FLOPs -----------------------------------------------------------------------------------------------------------
# Hand counts of multiply-accumulates from the block structure (§4-§7), per batch row.


def _convnext_macs(width: int, hidden: int, kernel: int) -> int:
    return width * kernel + 2 * width * hidden


def _rel_attention_macs(n: int, width: int, ffn: int) -> int:
    # q/k/v/o, q.k and p.v, q.rel_k and p.rel_v over 2n-1 offsets, FFN
    return n * (4 * width * width + 2 * n * width + 2 * (2 * n - 1) * width + 2 * width * ffn)


def dp_macs(d, t: int) -> int:
    n = t + 1  # the sentence token
    return (
        6 * n * _convnext_macs(d.width, d.hidden, TEXT_KERNEL)
        + 2 * _rel_attention_macs(n, d.width, d.ffn)
        + d.width * d.width
        + (d.width + 128) * d.head_hidden
        + d.head_hidden
    )


def te_macs(d, t: int) -> int:
    u = d.prompt_units
    # per attention: queries, style values, keys (tanh(W_key) of the learned key bank), scores and mix, out_fc
    prompt = t * 256 * u + STYLE_TOKENS * (256 + STYLE_KEY_DIM) * u + 2 * t * STYLE_TOKENS * u + t * u * 256
    return (
        6 * t * _convnext_macs(d.width, d.hidden, TEXT_KERNEL) + 4 * _rel_attention_macs(t, d.width, d.ffn) + t * d.width * 256 + 2 * prompt
    )


def ve_macs(d, t: int, latent: int) -> int:
    c, a, s = d.width, d.text_units, d.style_units
    per_frame = (
        2 * 144 * c + 28 * _convnext_macs(c, d.hidden, TEXT_KERNEL) + 4 * (2 * c * a + 2 * a * t) + 4 * (2 * c * s + 2 * s * STYLE_TOKENS)
    )
    per_char = 4 * 2 * 256 * a
    # style values and keys (each style block's tanh(W_key) of the learned key tokens), time MLP and shifts
    per_call = 4 * STYLE_TOKENS * (256 + STYLE_KEY_DIM) * s + 2 * d.time_dim * d.time_hidden + 4 * d.time_dim * c
    return 2 * (latent * per_frame + t * per_char + per_call)  # x2: conditional and unconditional halves


def vocoder_macs(d, latent: int) -> int:
    per_frame = (
        24 * d.width * VOCODER_KERNEL
        + 10 * _convnext_macs(d.width, d.hidden, VOCODER_KERNEL)
        + d.width * d.head_hidden * VOCODER_HEAD_KERNEL
        + d.head_hidden * 512
    )
    return 6 * latent * per_frame


def test_graph_flops_matches_the_hand_counts(tiny_model_dir):
    onnx_dir = tiny_model_dir / "onnx"
    t, latent = 37, 52
    assert graph_flops(onnx_dir / "duration_predictor.onnx", t, latent) == 2 * dp_macs(TINY.duration, t)
    assert graph_flops(onnx_dir / "text_encoder.onnx", t, latent) == 2 * te_macs(TINY.text, t)
    assert graph_flops(str(onnx_dir / "vector_estimator.onnx"), t, latent) == 2 * ve_macs(TINY.estimator, t, latent)
    assert graph_flops(onnx_dir / "vocoder.onnx", t, latent, batch=3) == 3 * 2 * vocoder_macs(TINY.vocoder, latent)


def test_graph_flops_refuses_graphs_with_other_dynamic_dims():
    x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["frames", 4])
    w = onnx.numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
    graph = onnx.helper.make_graph([onnx.helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y], [w])
    with pytest.raises(ValueError, match="frames"):
        graph_flops(onnx.helper.make_model(graph), 10, 10)


def test_the_hand_counts_reproduce_the_published_estimates():
    """At full width the §6/§7 formulas of the spec come out of the same hand counts."""
    t, latent = 100, 100
    spec_ve = 2 * 2 * (latent * (62.19e6 + 4096 * t) + 1.05e6 * t + 13e6)
    spec_vocoder = 2 * 6 * latent * 25.29e6
    assert 2 * ve_macs(FULL.estimator, t, latent) == pytest.approx(spec_ve, rel=0.005)
    assert 2 * vocoder_macs(FULL.vocoder, latent) == pytest.approx(spec_vocoder, rel=0.005)


# --- the full size matches the real files -----------------------------------------------------------------------------

# The release's graph sizes as published (fetch-model's table); their weights are float32, so a
# graph holds about bytes / 4 parameters (the rest is the graph's structure, a few kB).
REAL_BYTES = {name: RELEASE_FILES[f"onnx/{name}"].size for name in GRAPHS}


def test_a_weightless_skeleton_has_the_structure_of_the_real_graph():
    for name in GRAPHS:
        built, skeleton = build_graph(name, "tiny"), build_graph(name, "tiny", weights=False)
        assert [(t.name, list(t.dims)) for t in skeleton.graph.initializer] == [(t.name, list(t.dims)) for t in built.graph.initializer]
        assert skeleton.graph.node == built.graph.node
        assert graph_flops(skeleton, 30, 40, batch=2) == graph_flops(built, 30, 40, batch=2)


@pytest.fixture(scope="module")
def full_figures() -> dict[str, tuple[int, int]]:
    """(parameters, FLOPs at T=100, L=100) of each full-size graph, from its weightless skeleton."""
    figures = {}
    for name in GRAPHS:
        skeleton = build_graph(name, "full", weights=False)
        figures[name] = (sum(math.prod(t.dims) for t in skeleton.graph.initializer), graph_flops(skeleton, 100, 100))
    return figures


def test_full_size_has_the_real_parameter_counts(full_figures):
    for name, size in REAL_BYTES.items():
        assert full_figures[name][0] == pytest.approx(size / 4, rel=0.10), name
    assert sum(f[0] for f in full_figures.values()) == pytest.approx(sum(REAL_BYTES.values()) / 4, rel=0.01)


def test_full_size_costs_what_the_real_model_costs_per_second_of_audio(full_figures):
    seconds = 100 * FRAME / SR  # L = 100 latent frames
    step = full_figures["vector_estimator.onnx"][1] / seconds
    vocoder = full_figures["vocoder.onnx"][1] / seconds
    assert step == pytest.approx(3.6e9, rel=0.15)
    assert vocoder == pytest.approx(4.4e9, rel=0.15)
    assert 8 * step + vocoder == pytest.approx(33e9, rel=0.15)
    assert full_figures["vector_estimator.onnx"][1] == 2 * ve_macs(FULL.estimator, 100, 100)
    assert full_figures["vocoder.onnx"][1] == 2 * vocoder_macs(FULL.vocoder, 100)


@pytest.mark.slow
def test_the_full_model_is_written_at_the_real_file_sizes_and_runs(tmp_path):
    target = make_model(tmp_path / "full", size="full")
    for name, size in REAL_BYTES.items():
        assert (target / "onnx" / name).stat().st_size == pytest.approx(size, rel=0.10), name
    total = sum(p.stat().st_size for p in (target / "onnx").glob("*.onnx"))
    assert total == pytest.approx(sum(REAL_BYTES.values()), rel=0.01)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    feeds = _inputs(1, 20, 8)
    for name in ("vector_estimator", "vocoder"):
        session = ort.InferenceSession(str(target / "onnx" / f"{name}.onnx"), options)
        assert np.isfinite(_run(session, feeds)).all()
