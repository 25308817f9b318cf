"""int8 (opt-in): prepare-model writes it, the engine loads it only when asked and only where it is safe,
and every answer says which precision ran."""

from __future__ import annotations

import copy
import json
import shutil
from typing import Any

import numpy as np
import onnx
import pytest
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, HttpAnswer, LambdaContext, load_event

from supertonic_cli import engine as engine_cli
from supertonic_engine import Engine, SessionConfig, SynthesisOptions, prepared, sessions
from supertonic_engine.cpu import CpuFeatures, cpu_features, parse_cpuinfo
from supertonic_engine.errors import ConfigurationError
from supertonic_function.config import FunctionConfig
from supertonic_function.service import Service
from supertonic_tools.optimize.quantize import settings_for

pytest_plugins = ["fixtures_s3"]

TEXT = "The harbour lights came on one by one as the boats returned."


@pytest.fixture(scope="module")
def int8_model(tiny_model_dir, tmp_path_factory):
    """A private copy of the tiny stand-in with both prepared sets, made through the CLI."""
    root = tmp_path_factory.mktemp("int8") / "tiny"
    shutil.copytree(tiny_model_dir, root)
    parser = argparse_parser()
    for argv in (["prepare-model", "--model", str(root)], ["prepare-model", "--model", str(root), "--precision", "int8"]):
        args = parser.parse_args(argv)
        assert args.func(args) == 0
    return root


def argparse_parser():
    import argparse

    parser = argparse.ArgumentParser()
    engine_cli.register(parser.add_subparsers(dest="command", required=True))
    return parser


def test_prepare_int8_quantizes_the_encoder_and_estimator_matmuls_only(int8_model, capsys):
    directory = int8_model / "prepared-int8"
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["precision"] == "int8"
    assert set(manifest["graphs"]) == {"text_encoder", "vector_estimator"}  # vocoder, duration predictor: fp32
    expected = settings_for("auto")
    assert manifest["quantization"]["isa"] == expected.isa
    assert manifest["quantization"]["reduce_range"] is expected.reduce_range
    assert manifest["quantization"]["per_channel"] is True
    assert manifest["quantization"]["prepared_on"]["flags"] == list(cpu_features().flags)
    for name in manifest["graphs"]:
        ops = {n.op_type for n in onnx.load(str(directory / f"{name}.onnx"), load_external_data=False).graph.node}
        assert ops & {"DynamicQuantizeMatMul", "MatMulInteger"}, name
        assert "ConvInteger" not in ops, name  # depthwise convolutions stay fp32
        assert manifest["graphs"][name]["snr_db"] >= 25.0
    # The fp32 set beside it is untouched by the int8 one.
    assert json.loads((int8_model / "prepared" / "manifest.json").read_text())["precision"] == "fp32"


def test_int8_settings_follow_the_cpu():
    vnni = parse_cpuinfo("model name\t: X\nflags\t\t: fpu avx2 fma avx512f avx512_vnni\n")
    avx2 = parse_cpuinfo("model name\t: Y\nflags\t\t: fpu avx2 fma\n")
    amx = parse_cpuinfo("model name\t: Z\nflags\t\t: avx2 avx512f avx512_vnni amx_int8 amx_tile\n")
    assert (vnni.int8_isa, avx2.int8_isa, amx.int8_isa) == ("vnni", "avx2", "amx")
    assert settings_for(vnni.int8_isa).reduce_range is False
    assert settings_for(avx2.int8_isa).reduce_range is True  # VPMADDUBSW saturates with 8-bit weights
    assert settings_for(amx.int8_isa).reduce_range is False
    assert avx2.flags == ("avx2", "fma") and avx2.model == "Y"


def test_engine_loads_int8_only_when_asked(int8_model):
    fp32 = Engine.load(int8_model)
    int8 = Engine.load(int8_model, env={"SUPERTONIC_PRECISION": "int8"})
    assert fp32.precision == "fp32" and int8.precision == "int8"
    a = fp32.synthesize(TEXT, SynthesisOptions(seed=3, steps=4))
    b = int8.synthesize(TEXT, SynthesisOptions(seed=3, steps=4))
    assert b.precision == "int8"
    # The duration predictor is fp32 in both: the same length, so the waveforms align sample by sample.
    assert a.frames == b.frames
    assert not np.array_equal(a.audio, b.audio)
    snr_db = 10 * np.log10(np.mean(a.audio.astype(np.float64) ** 2) / np.mean((a.audio.astype(np.float64) - b.audio) ** 2))
    assert snr_db > 10


def test_int8_without_int8_graphs_is_the_operators_error(tiny_model_dir):
    with pytest.raises(ConfigurationError) as raised:
        Engine.load(tiny_model_dir, session_config=SessionConfig(precision="int8"))
    assert raised.value.field == "SUPERTONIC_PRECISION"
    assert "prepare-model" in raised.value.message and "--precision int8" in raised.value.message


@pytest.mark.parametrize("env", [{"SUPERTONIC_PRECISION": "fp16"}, {"SUPERTONIC_PRECISION": "int8", "SUPERTONIC_PREPARED": "0"}])
def test_bad_precision_settings_name_the_variable(int8_model, env):
    with pytest.raises(ConfigurationError) as raised:
        Engine.load(int8_model, env=env)
    assert raised.value.field == "SUPERTONIC_PRECISION"


def test_vnni_graphs_are_refused_where_int8_products_would_saturate(int8_model, monkeypatch):
    """A CPU cannot be swapped in a test: the probe's answer is, as an AVX2-only host would give it."""
    if prepared.quantization(int8_model / "prepared-int8")["reduce_range"]:
        pytest.skip("this machine's int8 graphs already keep 7-bit weights")
    avx2 = CpuFeatures(model="AVX2-only host", machine="x86_64", flags=("avx2", "fma"))
    monkeypatch.setattr(sessions, "cpu_features", lambda: avx2)
    with pytest.raises(ConfigurationError) as raised:
        Engine.load(int8_model, env={"SUPERTONIC_PRECISION": "int8"})
    assert "--isa avx2" in raised.value.message


def test_headers_json_and_health_say_which_precision_ran(app: Any, int8_model, monkeypatch):
    def call(event: dict[str, Any]) -> HttpAnswer:
        return HttpAnswer.of(app.lambda_handler(event, LambdaContext()))

    post = copy.deepcopy(load_event("furl_post_tts"))
    post["body"] = json.dumps({"text": TEXT, "steps": 1})
    health = copy.deepcopy(load_event("furl_get_health"))

    assert call(copy.deepcopy(post)).headers["x-supertonic-precision"] == "fp32"
    assert call(copy.deepcopy(health)).json()["precision"] == "fp32"

    engine = Engine.load(int8_model, env={"SUPERTONIC_PRECISION": "int8"})
    config = FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET, warm_up=False)
    monkeypatch.setattr(app, "service", Service(config, engine))
    answer = call(copy.deepcopy(post))
    assert answer.status == 200 and answer.headers["x-supertonic-precision"] == "int8"
    as_json = copy.deepcopy(post)
    as_json["headers"]["accept"] = "application/json"
    assert call(as_json).json()["precision"] == "int8"
    report = call(health).json()
    assert report["precision"] == "int8"
    assert report["cpu"]["flags"] == list(cpu_features().flags) and report["cpu"]["int8_isa"] == cpu_features().int8_isa
