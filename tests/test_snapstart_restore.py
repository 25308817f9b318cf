"""What the function redoes after a SnapStart restore, and its life under a Runtime API that snapshots it.

Every sandbox Lambda resumes from one snapshot starts with that snapshot's memory: its random
streams, the CPU count it read, the network clients it opened (AWS, "Implementing SnapStart hooks for
container images", lambda/latest/dg/snapstart-runtime-hooks-custom). ``supertonic_function.restore``
reseeds, re-reads and reopens them; the app registers it at init for whichever runtime client runs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_runtime_loop import AWSLAMBDARIC, OWN_LOOP, FakeRuntimeApi

from supertonic_engine import Engine, SessionConfig
from supertonic_engine import config as engine_config
from supertonic_function import restore
from supertonic_function.config import FunctionConfig
from supertonic_function.service import Service

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake() -> Any:
    server = FakeRuntimeApi()
    yield server
    server.close()


def _cpus(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    # What the sandbox's affinity mask and cgroup quota allow, as the engine counts them.
    monkeypatch.setattr(engine_config, "usable_cpus", lambda: count)


@pytest.fixture
def service(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Service:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", raising=False)
    _cpus(monkeypatch, 1)
    return Service.start(FunctionConfig(warm_up=False), tiny_model_dir)


def test_sessions_are_rebuilt_for_the_cpus_the_restored_sandbox_has(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = service.engine
    assert engine.sessions.threads == 1
    _cpus(monkeypatch, 2)  # resumed where two CPUs are granted
    report = restore.renew(service)
    assert engine.sessions.threads == 2 and report["threads"] == 2 and report["sessions_rebuilt_s"] > 0


def test_sessions_are_kept_when_the_cpus_are_the_snapshot_s(service: Service) -> None:
    sessions = service.engine.sessions
    report = restore.renew(service)
    assert service.engine.sessions is sessions and report["sessions_rebuilt_s"] == 0.0


def test_the_engine_keeps_its_sessions_for_the_same_thread_count(tiny_model_dir: Path) -> None:
    engine = Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=1))
    sessions = engine.sessions
    assert engine.fit_threads(SessionConfig(intra_op_threads=1)) == 0.0 and engine.sessions is sessions
    assert engine.fit_threads(SessionConfig(intra_op_threads=2)) > 0 and engine.sessions.threads == 2


def test_two_sandboxes_restored_from_one_snapshot_draw_different_numbers(service: Service) -> None:
    snapshot = random.getstate(), np.random.get_state()

    def restored_sandbox_draws() -> tuple[float, float]:
        random.setstate(snapshot[0])
        np.random.set_state(snapshot[1])
        restore.renew(service)
        return random.random(), float(np.random.random())

    assert restored_sandbox_draws() != restored_sandbox_draws()


def test_the_aws_clients_are_opened_again(service: Service) -> None:
    store, queue = service.store, service.queue_client
    restore.renew(service)
    assert service.store is not store and service.queue_client is not queue


def test_an_engine_that_failed_at_init_is_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    service = Service.start(FunctionConfig(warm_up=False), tmp_path / "no-model")
    report = restore.renew(service)
    assert report["threads"] is None and report["sessions_rebuilt_s"] == 0.0


def _health_event() -> dict[str, Any]:
    return json.loads((REPO / "events" / "furl_get_health.json").read_text())


@pytest.mark.parametrize("runtime", [OWN_LOOP, AWSLAMBDARIC])
def test_init_snapshot_restore_then_invocations(fake: FakeRuntimeApi, tiny_model_dir: Path, tmp_path: Path, runtime: str) -> None:
    # The real function under each runtime client docker/entry.sh may start, as Lambda runs a
    # version published with SnapStart: init, the snapshot (/restore/next returns once this sandbox
    # runs from it), the function's own after-restore step, then invocations.
    fake.invoke(_health_event(), "req-1")
    fake.invoke(_health_event(), "req-2")
    environment = {
        **os.environ,
        "AWS_LAMBDA_RUNTIME_API": fake.address,
        "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start",
        "AWS_DEFAULT_REGION": "us-east-1",
        "SUPERTONIC_MODEL_DIR": str(tiny_model_dir),
        "SUPERTONIC_WARM_UP": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", runtime, "supertonic_function.app.lambda_handler"],
        cwd=tmp_path,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        records = fake.wait_until(lambda rs: sum(r.method == "POST" and r.complete for r in rs) == 2)
    finally:
        process.kill()
        output, _ = process.communicate(timeout=30)
    assert [(r.method, r.path) for r in records][:5] == [
        ("GET", "/2018-06-01/runtime/restore/next"),
        ("GET", "/2018-06-01/runtime/invocation/next"),
        ("POST", "/2018-06-01/runtime/invocation/req-1/response"),
        ("GET", "/2018-06-01/runtime/invocation/next"),
        ("POST", "/2018-06-01/runtime/invocation/req-2/response"),
    ]
    logged = [json.loads(line) for line in output.decode().splitlines() if line.startswith("{")]
    (restored,) = [line for line in logged if line.get("message") == "sandbox restored"]
    assert restored["threads"] >= 1 and restored["reseeded"] == ["random", "numpy.random"] and restored["clients_reopened"] is True
    # The restore is logged before the first invocation is.
    assert logged.index(restored) < next(i for i, line in enumerate(logged) if line.get("cold_start"))
    for post in records[2], records[4]:
        assert json.loads(post.body)["statusCode"] == 200
