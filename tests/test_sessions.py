"""Session options: the tuned defaults, environment overrides, and CPU detection."""

from __future__ import annotations

import subprocess
import sys

import pytest

from supertonic_engine import SynthesisOptions, config
from supertonic_engine.assets import load_assets
from supertonic_engine.config import SessionConfig, usable_cpus
from supertonic_engine.errors import ConfigurationError, ModelCorrupt
from supertonic_engine.sessions import load_sessions, session_options


def test_defaults_are_the_reference_tuning():
    options = session_options(SessionConfig())
    assert options.intra_op_num_threads == usable_cpus()
    assert options.inter_op_num_threads == 1
    assert options.execution_mode.name == "ORT_SEQUENTIAL"
    assert options.graph_optimization_level.name == "ORT_ENABLE_ALL"
    assert options.enable_cpu_mem_arena is True
    assert options.get_session_config_entry("session.dynamic_block_base") == "4"
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def test_every_field_can_be_set_from_the_environment():
    env = {
        "SUPERTONIC_INTRA_OP_THREADS": "1",
        "SUPERTONIC_INTER_OP_THREADS": "2",
        "SUPERTONIC_EXECUTION_MODE": "Parallel",
        "SUPERTONIC_GRAPH_OPTIMIZATION": "basic",
        "SUPERTONIC_CPU_MEM_ARENA": "0",
        "SUPERTONIC_MEM_PATTERN": "false",
        "SUPERTONIC_DYNAMIC_BLOCK_BASE": "8",
        "SUPERTONIC_ALLOW_SPINNING": "1",
        "SUPERTONIC_PREPACKING": "0",
    }
    assert set(env) <= set(config.SESSION_ENV_VARS)
    options = session_options(SessionConfig.from_env(env))
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 2
    assert options.execution_mode.name == "ORT_PARALLEL"
    assert options.graph_optimization_level.name == "ORT_ENABLE_BASIC"
    assert options.enable_cpu_mem_arena is False and options.enable_mem_pattern is False
    assert options.get_session_config_entry("session.dynamic_block_base") == "8"
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    assert options.get_session_config_entry("session.disable_prepacking") == "1"


def test_arguments_win_over_the_environment():
    cfg = SessionConfig.from_env({"SUPERTONIC_INTRA_OP_THREADS": "1"}, intra_op_threads=3)
    assert cfg.intra_op_threads == 3


@pytest.mark.parametrize(
    "name, value",
    [("SUPERTONIC_CPU_MEM_ARENA", "maybe"), ("SUPERTONIC_INTRA_OP_THREADS", "two"), ("SUPERTONIC_DYNAMIC_BLOCK_BASE", "-1")],
)
def test_bad_environment_values_are_named(name, value):
    with pytest.raises(ConfigurationError) as err:
        SessionConfig.from_env({name: value})
    assert err.value.field == name


@pytest.mark.parametrize("name, value", [("SUPERTONIC_EXECUTION_MODE", "fast"), ("SUPERTONIC_GRAPH_OPTIMIZATION", "max")])
def test_onnx_runtime_would_accept_these_silently_so_we_refuse_them(name, value):
    with pytest.raises(ConfigurationError, match=name):
        session_options(SessionConfig.from_env({name: value}))


def test_dynamic_block_base_really_reaches_onnx_runtime(tiny_model_dir, capfd):
    # ORT accepts any config key without complaint; its verbose log proves the value took effect.
    load_sessions(load_assets(tiny_model_dir), SessionConfig(dynamic_block_base=4, log_severity=0, intra_op_threads=2))
    assert "Dynamic block base set to 4" in capfd.readouterr().err


def test_sessions_use_the_configured_threads(tiny_model_dir):
    sessions = load_sessions(load_assets(tiny_model_dir), SessionConfig(intra_op_threads=1))
    assert sessions.threads == 1
    assert sessions.vector_estimator.get_session_options().intra_op_num_threads == 1
    assert sessions.load_s > 0


def test_a_graph_onnx_runtime_cannot_load_is_named(tiny_model_dir, tmp_path):
    import shutil

    broken = tmp_path / "model"
    shutil.copytree(tiny_model_dir, broken)
    (broken / "onnx" / "vocoder.onnx").write_bytes(b"\x08\x07 this is not a protobuf")
    with pytest.raises(ModelCorrupt, match=r"vocoder\.onnx.*fetch-model"):
        load_sessions(load_assets(broken), SessionConfig(intra_op_threads=1))


def test_cpu_affinity_is_respected():
    code = "import os; os.sched_setaffinity(0, {0}); from supertonic_engine.config import usable_cpus; print(usable_cpus())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1"


@pytest.mark.parametrize("quota, period, expected", [("115800", "100000", 1.158), ("-1", "100000", None), ("50000", "100000", 0.5)])
def test_cgroup_v1_quota_is_read_in_cpus(tmp_path, quota, period, expected):
    (tmp_path / "cpu.cfs_quota_us").write_text(quota + "\n")
    (tmp_path / "cpu.cfs_period_us").write_text(period + "\n")
    assert config._read_v1_quota(tmp_path) == expected


@pytest.mark.parametrize("text, expected", [("max 100000\n", None), ("200000 100000\n", 2.0)])
def test_cgroup_v2_quota_is_read_in_cpus(tmp_path, text, expected):
    (tmp_path / "cpu.max").write_text(text)
    assert config._read_v2_quota(tmp_path / "cpu.max") == expected


def test_own_cgroups_names_each_controller_and_the_v2_hierarchy(tmp_path):
    # The one reader of /proc/self/cgroup: the engine's CPU quota and the harness's limits use it.
    proc = tmp_path / "cgroup"
    proc.write_text("12:cpu,cpuacct:/lambda/fn\n4:memory:/lambda/fn\n1:name=systemd:/\n0::/unified/fn\n")
    assert config.own_cgroups(proc) == {
        "cpu": "/lambda/fn",
        "cpuacct": "/lambda/fn",
        "memory": "/lambda/fn",
        "name=systemd": "/",
        "": "/unified/fn",
    }


def test_prepared_graphs_and_profiling_are_switched_from_the_environment():
    assert SessionConfig().prepared is True and SessionConfig().profiling is False
    config_ = SessionConfig.from_env({"SUPERTONIC_PREPARED": "0", "SUPERTONIC_PROFILING": "1"})
    assert config_.prepared is False and config_.profiling is True
    assert session_options(config_).enable_profiling is True
    assert session_options(SessionConfig()).enable_profiling is False


def test_without_prepared_graphs_the_stock_graphs_load(tiny_model_dir):
    sessions = load_sessions(load_assets(tiny_model_dir), SessionConfig(intra_op_threads=1))
    assert sessions.prepared == ()


def test_the_four_sessions_share_one_arena_unless_told_otherwise(tiny_model_dir):
    assert session_options(SessionConfig()).get_session_config_entry("session.use_env_allocators") == "1"
    for config_ in (SessionConfig.from_env({"SUPERTONIC_SHARED_ARENA": "0"}), SessionConfig(cpu_mem_arena=False)):
        with pytest.raises(RuntimeError, match="does not have configuration"):  # ORT's answer for an unset key
            session_options(config_).get_session_config_entry("session.use_env_allocators")
    from supertonic_engine import Engine

    engine = Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=1))
    assert engine.synthesize("Shared.", SynthesisOptions(steps=2, seed=0)).duration_s > 0
