"""The benchmark's worker processes seen from the parent: one per side, started inside a limit
profile when one is given, and the facts of the machine and model every report opens with."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import numpy as np

from supertonic_engine.assets import graph_files
from supertonic_engine.standin_marker import any_standin

from .texts import VOICE

WARM_UP = {"text": "Ready.", "lang": "en", "voice": VOICE, "steps": 1, "seed": 0}


@dataclass(frozen=True)
class Side:
    """One worker: ``kind`` is ours or official; ``env`` holds a variant's ``SUPERTONIC_*`` settings."""

    label: str
    kind: str
    env: dict[str, str] = field(default_factory=dict)


class Worker:
    """A side's worker process; ``ready`` holds its cold-start facts."""

    def __init__(self, side: Side, process: subprocess.Popen, spawned_at: float, limits=None) -> None:
        if process.stdin is None or process.stdout is None:
            raise ValueError("a benchmark worker needs its stdin and stdout as pipes")
        self.side = side
        self.process = process
        self._stdin, self._stdout = process.stdin, process.stdout
        self.limits = limits
        self.ready = self._read()
        self.ready["cold_start_s"] = time.perf_counter() - spawned_at  # process start to four sessions ready
        self.ready["first_request_s"] = self.request(**WARM_UP)["synth_s"]

    def request(self, **payload: object) -> dict:
        if self.limits is not None:
            self.limits.reset_peak()
        self._stdin.write(json.dumps(payload) + "\n")
        self._stdin.flush()
        answer = self._read()
        if self.limits is not None and (peak := self.limits.peak_bytes()) is not None:
            answer["cgroup_peak_mb"] = peak / 2**20  # page cache included
        return answer

    def _read(self) -> dict:
        line = self._stdout.readline()
        if not line:
            code = self.process.wait()
            oom = f" ({self.limits.oom_kills()} OOM kill(s) in its limits)" if self.limits is not None else ""
            raise RuntimeError(f"the {self.side.label} benchmark worker exited with {code}{oom}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)


class _WorkerPipes(TypedDict):
    """How a worker is started: it reads requests on stdin and answers one JSON line each."""

    stdin: int
    stdout: int
    text: bool
    env: dict[str, str]


class Spawner:
    """Starts workers for one model and thread count, inside a limit profile when one is given."""

    def __init__(self, model_dir: Path, threads: int, profile: str | None, stack: ExitStack) -> None:
        self.model_dir = model_dir
        self.threads = threads
        self.profile = profile
        self.stack = stack
        self.limits_facts: dict | None = None
        self.load_average = os.getloadavg()[0]  # before any worker adds to it
        warm_page_cache(model_dir)

    def cpu_share(self) -> float:
        """The fraction of ``threads`` cores the profile's CPU quota grants (1 without a profile):
        the GEMM rate is measured outside the limits, the floor must be that of the workers."""
        if not self.profile:
            return 1.0
        from ..function.limits import resolve_profile

        return min(1.0, resolve_profile(self.profile).cpus / self.threads)

    def cold_read_bytes(self, side: Side) -> int:
        """Bytes a worker of ``side`` reads from storage until its sessions are ready, starting from a
        page cache without the model: what a new Lambda container fetches of the image's model layer."""
        from ..fronts.local import evict_from_page_cache

        evict_from_page_cache(self.model_dir)
        worker = self.start(side)
        try:
            return int(worker.ready["init_read_bytes"])
        finally:
            worker.close()
            warm_page_cache(self.model_dir)  # the timed workers all start from a warm cache

    def start(self, side: Side, extra_env: dict[str, str] | None = None) -> Worker:
        argv = [
            sys.executable,
            "-m",
            "supertonic_harness.bench.worker",
            "--side",
            side.kind,
            "--model",
            str(self.model_dir),
            "--threads",
            str(self.threads),
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "SUPERTONIC_INTRA_OP_THREADS": str(self.threads), **side.env, **(extra_env or {})}
        popen: _WorkerPipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True, "env": env}
        limits = None
        started = time.perf_counter()
        if self.profile:
            from ..function.limits import open_limits, resolve_profile

            limits = self.stack.enter_context(open_limits(resolve_profile(self.profile)))  # one cgroup per side
            self.limits_facts = {"profile": limits.profile.describe(), "mode": limits.mode, "detail": limits.detail}
            process = limits.spawn(argv, **popen)
        else:
            process = subprocess.Popen(argv, **popen)
        worker = Worker(side, process, started, limits)
        self.stack.callback(worker.close)
        return worker


def context(spawner: Spawner, runs: int, gemm: float) -> dict:
    return {
        "machine": {**machine_facts(), "load_average": spawner.load_average},
        "model_dir": str(spawner.model_dir),
        "model_kind": "stand-in" if any_standin(graph_files(spawner.model_dir).values()) else "real",
        "threads": spawner.threads,
        "limits": spawner.limits_facts,
        "runs": runs,
        "gemm_gflops": gemm,
    }


def warm_page_cache(model_dir: Path) -> None:
    """Read the model's files once, so every side's cold start finds them in the page cache alike
    (otherwise the first worker pays the disk reads for all the later ones)."""
    for path in sorted(model_dir.rglob("*")):
        if path.is_file():
            with path.open("rb") as f:
                while f.read(1 << 24):
                    pass


def machine_facts() -> dict:
    import onnxruntime as ort

    from supertonic_engine.cpu import cpu_features

    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "onnxruntime": ort.__version__,
        "numpy": np.__version__,
        "date": time.strftime("%Y-%m-%d"),
        "cpu_flags": list(cpu_features().flags),
        "int8_isa": cpu_features().int8_isa,
    }
