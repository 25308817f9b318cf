"""Every environment variable the engine reads, with its default, in one place.

Precedence is always: explicit argument > environment variable > default. Functions take an
``env`` mapping so tests can inject one instead of patching ``os.environ``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigurationError

# Model location and caches.
ENV_MODEL_DIR = "SUPERTONIC_MODEL_DIR"
ENV_CACHE_DIR = "SUPERTONIC_CACHE_DIR"
ENV_PREPARED_DIR = "SUPERTONIC_PREPARED_DIR"  # prepared graphs (default: <model dir>/prepared)
# Numerical precision of the text encoder and vector estimator: fp32 (the official output) or int8
# (prepared with ``prepare-model --precision int8``; opt-in, the output changes).
PRECISIONS = ("fp32", "int8")
ENV_PRECISION = "SUPERTONIC_PRECISION"
# The choices ONNX Runtime's session options take, by the names the settings use (sessions.py maps them).
EXECUTION_MODES = ("sequential", "parallel")
GRAPH_OPTIMIZATIONS = ("all", "extended", "basic", "disable")
# The whole numbers the sessions take, inclusive. ONNX Runtime reads each into a C int and fails
# the session (or the option's setter) past it, which would read as a broken model.
_C_INT_MAX = 2**31 - 1
# Each of the four sessions starts its own thread pools; Lambda allows a function 1,024 processes
# and threads in all (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), so a
# larger count cannot start there.
_MAX_THREADS = 1024
SESSION_RANGES: dict[str, tuple[int, int]] = {
    "intra_op_threads": (0, _MAX_THREADS),  # 0: usable_cpus()
    "inter_op_threads": (0, _MAX_THREADS),  # 0 and 1 both: one thread
    # 0: off (ORT's default); ORT parses it with std::stoi (onnxruntime/core/session/inference_session.cc).
    "dynamic_block_base": (0, _C_INT_MAX),
    # OrtLoggingLevel: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal (onnxruntime_c_api.h).
    "log_severity": (0, 4),
}
SESSION_CHOICES: dict[str, tuple[str, ...]] = {
    "execution_mode": EXECUTION_MODES,
    "graph_optimization": GRAPH_OPTIMIZATIONS,
    "precision": PRECISIONS,
}
# Text limits.
ENV_MAX_TEXT_CHARS = "SUPERTONIC_MAX_TEXT_CHARS"
# A book: a long novel is about a million characters; jobs render it in parts (a synchronous
# request has its own, far smaller limit in the function).
DEFAULT_MAX_TEXT_CHARS = 1_000_000


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where generated stand-in models and prepared graphs live (never inside the repository)."""
    env = os.environ if env is None else env
    explicit = env.get(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit).expanduser()
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "supertonic-lambda"


def max_text_chars(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    return _env_int(env, ENV_MAX_TEXT_CHARS, DEFAULT_MAX_TEXT_CHARS, minimum=1)


def threads_for(cpu_share: float) -> int:
    """Intra-op threads worth running on ``cpu_share`` CPUs of time: one per whole CPU, at least one.

    A thread on a fraction of a CPU stalls the others each time the quota's period runs out: under
    the 1.158 CPUs Lambda grants at 2,048 MB, the 2,879-character limit text rendered in 117-126 s
    on two threads and in 101-103 s on one, as fast as on one at 1,769 MB's single CPU
    (benchmarks/limit-text-threads.txt)."""
    return max(1, math.floor(cpu_share + 1e-9))


def usable_cpus() -> int:
    """CPUs this process may really use: its affinity mask and its cgroup's CPU quota (whole CPUs
    of it, ``threads_for``).

    ``os.cpu_count()`` reports the host's cores even when a quota or an affinity mask allows less.
    A platform that grants CPU time some other way (Lambda: by memory size) sets
    ``SessionConfig.intra_op_threads`` itself.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = cpu_quota()
    if quota is not None:
        cpus = min(cpus, threads_for(quota))
    return max(1, cpus)


def own_cgroups(proc_cgroup: Path = Path("/proc/self/cgroup")) -> dict[str, str]:
    """Controller -> this process's cgroup path; the v2 unified hierarchy is under the key ""."""
    paths: dict[str, str] = {}
    for line in proc_cgroup.read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def cpu_quota() -> float | None:
    """The CPU quota of this process's cgroup in CPUs (v1 CFS or v2 ``cpu.max``), None if unlimited."""
    try:
        own = own_cgroups()
    except (OSError, ValueError):
        return None
    if "cpu" in own:
        for mount in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
            base = Path("/sys/fs/cgroup") / mount
            for candidate in (base / own["cpu"].lstrip("/"), base):
                quota = _read_v1_quota(candidate)
                if quota is not None:
                    return quota
    if "" in own:  # cgroup v2 unified hierarchy
        for candidate in (Path("/sys/fs/cgroup") / own[""].lstrip("/"), Path("/sys/fs/cgroup")):
            quota = _read_v2_quota(candidate / "cpu.max")
            if quota is not None:
                return quota
    return None


def _read_v2_quota(path: Path) -> float | None:
    try:
        quota, period = path.read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return None if quota == "max" else int(quota) / int(period)


def _read_v1_quota(directory: Path) -> float | None:
    try:
        quota = int((directory / "cpu.cfs_quota_us").read_text())
        period = int((directory / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else quota / period


@dataclass(frozen=True)
class SessionConfig:
    """ONNX Runtime settings for the four sessions.

    Defaults follow the reference tuning for a 2 vCPU box: intra-op threads = usable CPUs, one
    inter-op thread, sequential execution, all graph optimizations, no spinning (a spinning
    thread burns a CFS quota while it waits), dynamic block base 4.

    Memory: the CPU arena stays on. It keeps the largest activation peak a session has seen, which
    on a variable-length service would ratchet up with the longest request; here synthesis runs
    chunk by chunk with chunks capped at a few hundred characters, so the peak the arena keeps is
    that of one bounded chunk, and reusing it saves a malloc/free storm per step. The four sessions
    share one arena (``shared_arena``): they run one after another, so one arena sized for the
    largest graph serves all four, where four arenas would each keep their own peak (measured on the
    full stand-in, 266 characters: peak RSS 568 instead of 612 MB, same speed; turning the memory
    pattern off as well saves 46 MB more but costs 5 % of speed).

    Prepared graphs (``optimize``, made at image build time) are loaded instead of the stock ones
    when their manifest matches the model; ``prepared=False`` always loads the stock graphs.
    ``precision="int8"`` loads the int8 set for the text encoder and vector estimator and fails
    (a ``ConfigurationError``) where there is none that matches: it was asked for, so it is never
    replaced by fp32 in silence. The prepared fp32 graphs load with prepacking off unless it is
    asked for (``prepacking=True``): their
    weights stay in the memory-mapped file, as reclaimable page cache, read from storage once (the
    int8 set holds its pre-packed weights in the file, and ``prepacking`` applies to it). Without
    prepared graphs, prepacking copies MatMul weights into anonymous memory (the model's bytes
    count once more in RSS) but is faster.
    """

    intra_op_threads: int = 0  # 0: usable_cpus() at session build time
    inter_op_threads: int = 1
    execution_mode: str = "sequential"  # or "parallel"
    graph_optimization: str = "all"  # all | extended | basic | disable
    cpu_mem_arena: bool = True
    shared_arena: bool = True  # one arena for the four sessions instead of one each
    mem_pattern: bool = True
    dynamic_block_base: int = 4
    allow_spinning: bool = False
    # None: each kind of graph loads its best way (the prepared fp32 set unpacked, the rest packed);
    # SUPERTONIC_PREPACKING=1 or 0 forces one way for all (1 buys ~3-8 % speed for RSS and load time).
    prepacking: bool | None = None
    prepared: bool = True
    precision: str = "fp32"  # or int8: the int8 prepared set for the text encoder and vector estimator
    profiling: bool = False  # ONNX Runtime's per-operator profiler, for the benchmark's profile report
    log_severity: int = 3  # ORT: 0 verbose .. 4 fatal

    def __post_init__(self) -> None:
        """Refuse what ONNX Runtime would take silently or fail on as if the model were broken."""
        for name, (low, high) in SESSION_RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                variable = ENV_SESSION_PREFIX + name.upper()
                raise ConfigurationError(f"{variable}={value}: use a whole number from {low} to {high}", field=variable)
        for name, choices in SESSION_CHOICES.items():
            if getattr(self, name) not in choices:
                variable = ENV_SESSION_PREFIX + name.upper()
                raise ConfigurationError(f"{variable}={getattr(self, name)!r}: use one of {', '.join(choices)}", field=variable)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> SessionConfig:
        """Read ``SUPERTONIC_<FIELD>`` variables (e.g. ``SUPERTONIC_INTRA_OP_THREADS=2``)."""
        env = os.environ if env is None else env
        # Each value is parsed by its field's type below, so the dict mixes types; replace() checks the names.
        values: dict[str, Any] = {}
        for f in fields(cls):
            name = ENV_SESSION_PREFIX + f.name.upper()
            raw = env.get(name)
            if raw is None or raw == "":
                continue
            if f.type in ("bool", bool, "bool | None"):
                values[f.name] = _parse_bool(name, raw)
            elif f.type in ("int", int):
                values[f.name] = _whole_number(name, raw)
            else:
                values[f.name] = raw.strip().lower()
        config = replace(cls(), **values)
        return replace(config, **overrides) if overrides else config

    def threads(self) -> int:
        return self.intra_op_threads or usable_cpus()


ENV_SESSION_PREFIX = "SUPERTONIC_"
SESSION_ENV_VARS = tuple(ENV_SESSION_PREFIX + f.name.upper() for f in fields(SessionConfig))


def true_or_false(raw: str) -> bool:
    """A yes/no setting or field written as text (environment, query string, object metadata)."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError("use 1 or 0 (true/false, yes/no, on/off)")


def _parse_bool(name: str, raw: str) -> bool:
    try:
        return true_or_false(raw)
    except ValueError:
        raise ConfigurationError(f"{name}={raw!r}: use 1 or 0", field=name) from None


def _whole_number(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ConfigurationError(f"{name}={raw!r}: must be a whole number", field=name) from None


def _env_int(env: Mapping[str, str], name: str, default: int, minimum: int) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = _whole_number(name, raw)
    if value < minimum:
        raise ConfigurationError(f"{name}={raw!r}: must be at least {minimum}", field=name)
    return value
