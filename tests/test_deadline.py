"""The hard deadline stops ONNX Runtime's computation itself, not just the caller's wait."""

from __future__ import annotations

import time

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from supertonic_engine import Engine, SessionConfig, SynthesisOptions
from supertonic_engine.deadline import Deadline
from supertonic_engine.errors import DeadlineExceeded, InvalidParameter


def cpu_seconds_during(seconds: float) -> float:
    """CPU time this whole process (every thread) spends while the caller sleeps."""
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


def matmul_chain(directory, nodes_count: int) -> ort.InferenceSession:
    """A chain of large MatMuls, each node a few tens of milliseconds."""
    size = 768
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array((rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32), "w")
    nodes, previous = [], "x"
    for i in range(nodes_count):
        nodes.append(helper.make_node("MatMul", [previous, "w"], [f"h{i}"]))
        previous = f"h{i}"
    graph = helper.make_graph(
        nodes,
        "slow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size, size])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [size, size])],
        initializer=[weight],
    )
    path = directory / f"chain-{nodes_count}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), path)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def slow_session(tmp_path_factory) -> ort.InferenceSession:
    """400 nodes: tens of seconds of work."""
    return matmul_chain(tmp_path_factory.mktemp("slow"), 400)


@pytest.fixture(scope="module")
def one_node_s(tmp_path_factory) -> float:
    """How long one of the slow graph's nodes takes on this machine now (the slowest of a few runs)."""
    session = matmul_chain(tmp_path_factory.mktemp("one"), 1)
    x = np.eye(768, dtype=np.float32)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        session.run(None, {"x": x})
        times.append(time.perf_counter() - started)
    return max(times)


def test_a_running_graph_is_terminated_and_cpu_use_stops(slow_session, one_node_s):
    x = np.eye(768, dtype=np.float32)
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded) as err, Deadline(0.3) as deadline:
        deadline.run(slow_session, {"x": x})
    late_by = time.monotonic() - started - 0.3
    # ONNX Runtime checks the terminate flag between nodes: late by about one node, whatever the CPU.
    allowed = 0.2 + 5 * one_node_s
    assert late_by < allowed, f"raised {late_by:.2f} s after the deadline (allowed {allowed:.2f} s)"
    assert err.value.budget_s == 0.3 and err.value.elapsed_s >= 0.3
    assert cpu_seconds_during(0.5) < 0.1, "ONNX Runtime kept computing after the deadline"


@pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
def test_a_deadline_must_be_positive(bad):
    with pytest.raises(InvalidParameter):
        Deadline(bad)


def test_a_deadline_passed_on_keeps_its_time_and_a_number_starts_one():
    running = Deadline(5.0, clock=iter([0.0, 3.0]).__next__)
    assert Deadline.of(running) is running and running.elapsed_s == 3.0
    assert Deadline.of(2.0).timeout_s == 2.0 and Deadline.of(None).timeout_s is None


def test_synthesis_stops_between_steps_and_chunks(tiny_model_dir):
    engine = Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=2))
    text = "This sentence is long enough to take a while to say. " * 40
    # The longest the engine runs between two deadline checks is about one step of one chunk.
    started = time.monotonic()
    engine.synthesize(text[:100], SynthesisOptions(steps=1), deadline=30)
    one_step_s = time.monotonic() - started
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded) as err:
        engine.synthesize(text, SynthesisOptions(steps=100, max_chunk_chars=100), deadline=0.25)
    assert time.monotonic() - started < 0.25 + 0.2 + 3 * one_step_s
    assert 0 <= err.value.done_chunks < err.value.total_chunks
    assert cpu_seconds_during(0.3) < 0.1
    # The engine is still usable afterwards: the terminate flag belonged to that one call.
    assert engine.synthesize("Still here.", SynthesisOptions(steps=1), deadline=30).duration_s > 0
