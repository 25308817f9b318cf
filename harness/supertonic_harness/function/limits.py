"""CPU and memory limits around RIE and the function, as a Lambda sandbox has them.

Lambda OOM-kills a function that passes its memory size and gives it CPU time in proportion to
memory (one vCPU-second per second at 1,769 MB). Three ways to get that here, tried in order:

* ``cgroup-v2``: a child of this process's own cgroup with ``memory.max`` and ``cpu.max``;
* ``cgroup-v1``: children of this process's own ``memory`` and ``cpu`` cgroups with
  ``memory.limit_in_bytes`` (+ ``memsw``) and a CFS quota; the kernel OOM-kills as on Lambda;
* ``affinity+rss-sampling``: where no cgroup is writable, CPUs by affinity (whole cores only) and
  memory by a sampler that SIGKILLs the tree once its RSS passes the limit.

Every cgroup created here is removed again, and controllers enabled in the parent's
``cgroup.subtree_control`` are disabled again: in ``close()``, which ``open_limits`` calls on
normal exit, on errors, on Ctrl-C, and on SIGTERM (turned into ``SystemExit`` while the limits are
open). ``close()`` tries every step even when one fails, then names what it could not undo.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from supertonic_engine.config import own_cgroups as _own_cgroups
from supertonic_function.config import LAMBDA_MAX_MEMORY_MB, LAMBDA_MB_PER_VCPU, LAMBDA_MIN_MEMORY_MB

from .measure import MB, TreeSampler

CFS_PERIOD_US = 100_000
MODES = ("auto", "cgroup", "fallback")


@dataclass(frozen=True)
class Profile:
    """A CPU share and a memory size; ``cpus`` may be fractional (a CFS quota)."""

    name: str
    cpus: float
    memory_mb: int

    @property
    def cfs_quota_us(self) -> int:
        return round(self.cpus * CFS_PERIOD_US)

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * MB

    def describe(self) -> str:
        return f"{self.name}: {self.cpus:g} vCPU, {self.memory_mb} MB"


def lambda_cpus(memory_mb: int) -> float:
    """The vCPU share Lambda grants at ``memory_mb`` (2048 MB -> 1.158), while ``os.cpu_count()`` says 2."""
    return round(memory_mb / LAMBDA_MB_PER_VCPU, 3)


PROFILES: dict[str, Profile] = {
    # The 2 vCPU / 2 GB server of the reference article.
    "2vcpu-2gb": Profile("2vcpu-2gb", 2.0, 2048),
    # What Lambda really gives a 2,048 MB function: quota 115800/100000 across 2 visible cores.
    "lambda-2048": Profile("lambda-2048", lambda_cpus(2048), 2048),
}


def lambda_profile(memory_mb: int) -> Profile:
    """What Lambda gives a function of ``memory_mb``: its CPU share as a quota, its memory as the limit."""
    return Profile(f"lambda-{memory_mb}", lambda_cpus(memory_mb), memory_mb)


# lambda-<MB>: Lambda's memory sizes, 128 to 10,240 MB (LAMBDA_MIN_MEMORY_MB, LAMBDA_MAX_MEMORY_MB).
_LAMBDA_PROFILE = re.compile(r"lambda-([1-9][0-9]{2,4})")


def _lambda_memory_mb(name: str) -> int | None:
    """The memory size a ``lambda-<MB>`` name gives, None for any other name or a size Lambda has not."""
    found = _LAMBDA_PROFILE.fullmatch(name)
    memory_mb = int(found.group(1)) if found else None
    return memory_mb if memory_mb is not None and LAMBDA_MIN_MEMORY_MB <= memory_mb <= LAMBDA_MAX_MEMORY_MB else None


def is_profile_name(name: str) -> bool:
    """A name ``resolve_profile`` takes: a named profile, ``custom`` or ``lambda-<MB>``."""
    return name in PROFILES or name == "custom" or _lambda_memory_mb(name) is not None


def profile_argument(name: str) -> str:
    """``name`` as a command line's profile, or the error that lists what it may be."""
    if not is_profile_name(name):
        raise argparse.ArgumentTypeError(f"unknown profile {name!r}; use {', '.join(PROFILES)}, lambda-<MB> or custom")
    return name


def resolve_profile(name: str = "2vcpu-2gb", *, cpus: float | None = None, memory_mb: int | None = None) -> Profile:
    """A named profile (``lambda-<MB>`` for any memory size), or a custom one when ``cpus`` or ``memory_mb`` override it."""
    if not is_profile_name(name):
        raise ValueError(f"unknown profile {name!r}; use one of: {', '.join(PROFILES)}, lambda-<MB> (128-10240), custom")
    memory_mb_of_name = _lambda_memory_mb(name)
    base = lambda_profile(memory_mb_of_name) if memory_mb_of_name is not None else PROFILES.get(name, PROFILES["2vcpu-2gb"])
    if cpus is None and memory_mb is None and name != "custom":
        return base
    cpus = base.cpus if cpus is None else cpus
    memory_mb = base.memory_mb if memory_mb is None else memory_mb
    if cpus <= 0 or memory_mb <= 0:
        raise ValueError("--cpus and --memory-mb must be positive")
    return Profile(f"custom-{cpus:g}vcpu-{memory_mb}mb", cpus, memory_mb)


# --- cgroup discovery -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mount:
    root: str  # the path inside the hierarchy that is mounted (a container sees only its part)
    point: Path
    fstype: str
    options: frozenset[str]


def _mounts(mountinfo: Path = Path("/proc/self/mountinfo")) -> list[_Mount]:
    mounts = []
    for line in mountinfo.read_text().splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mounts.append(_Mount(fields[3], Path(fields[4]), tail[0], frozenset(tail[2].split(","))))
    return mounts


def _cgroup_dir(controller: str, fstype: str) -> Path | None:
    """The directory of this process's own cgroup for ``controller`` ("" = v2), None if not mounted."""
    own = _own_cgroups().get(controller)
    if own is None:
        return None
    for mount in _mounts():
        if mount.fstype != fstype or (controller and controller not in mount.options):
            continue
        relative = own[len(mount.root) :] if own.startswith(mount.root) and mount.root != "/" else own
        return mount.point / relative.lstrip("/")
    return None


def _read_counter(path: Path, key: str) -> int:
    """``key N`` from a flat-keyed cgroup file such as ``memory.oom_control`` or ``memory.events``."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except OSError:
        pass
    return 0


def _remove_cgroup(path: Path, timeout_s: float = 3.0) -> None:
    """rmdir a cgroup once it is empty; SIGKILL what is left in it (only processes started here)."""
    deadline = time.monotonic() + timeout_s
    while path.exists():
        try:
            path.rmdir()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            for pid in _cgroup_pids(path):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)


def _undo_all(steps: Sequence[tuple[str, Callable[[], object]]]) -> None:
    """Run every cleanup step; if any fail, raise one ``OSError`` naming each thing left behind."""
    left: list[str] = []
    for what, step in steps:
        try:
            step()
        except OSError as error:
            left.append(f"{what} ({error.strerror or error})")
    if left:
        raise OSError("could not clean up: " + "; ".join(left))


def _cgroup_pids(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []


_names = itertools.count()


def _child_name() -> str:
    return f"supertonic-harness-{os.getpid()}-{next(_names)}"


# --- the limits -------------------------------------------------------------------------------


class Limits:
    """Where a process tree runs under a profile, and what that place can tell about memory."""

    mode = "none"

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        # Why stronger modes were not used ("cgroup-v2: ... not writable"), for the report.
        self.skipped: list[str] = []

    @property
    def detail(self) -> str:
        raise NotImplementedError

    def spawn(self, argv: Sequence[str], **popen_kwargs) -> subprocess.Popen:
        """Start ``argv`` inside the limits (RIE execs before it starts the runtime, so moving it
        right after ``Popen`` puts everything the function allocates under the limits)."""
        process = subprocess.Popen(argv, **popen_kwargs)
        try:
            self._adopt(process.pid)
        except BaseException:
            process.kill()
            process.wait()
            raise
        return process

    def _adopt(self, pid: int) -> None:
        raise NotImplementedError

    def sampler(self, root_pid: int) -> TreeSampler:
        """The RSS sampler of the tree below ``root_pid`` (it only measures, unless this is the fallback)."""
        return TreeSampler(root_pid)

    def reset_peak(self) -> None:
        """Start a new measurement window for ``peak_bytes``."""

    def peak_bytes(self) -> int | None:
        """Peak usage in the window, page cache included; None where no cgroup measures it."""
        return None

    def oom_kills(self) -> int:
        """How many processes the OOM killer has killed in these limits so far."""
        return 0

    def close(self) -> None:
        """Remove whatever was created; safe to call twice. Raises ``OSError`` naming what is left."""

    def _close_after_failure(self, error: BaseException) -> None:
        """Undo a half-made setup; what cannot be undone is noted on ``error``, which stays the one raised."""
        try:
            self.close()
        except OSError as cleanup:
            error.add_note(str(cleanup))


class CgroupV1Limits(Limits):
    mode = "cgroup-v1"

    def __init__(self, profile: Profile) -> None:
        super().__init__(profile)
        memory_parent = _cgroup_dir("memory", "cgroup")
        cpu_parent = _cgroup_dir("cpu", "cgroup")
        if memory_parent is None or cpu_parent is None:
            raise OSError("no cgroup v1 memory and cpu hierarchies are mounted")
        name = _child_name()
        self._dirs: list[Path] = []
        try:
            self.memory_dir = self._make(memory_parent / name)
            self.cpu_dir = self._make(cpu_parent / name)
            (self.memory_dir / "memory.limit_in_bytes").write_text(str(profile.memory_bytes))
            memsw = self.memory_dir / "memory.memsw.limit_in_bytes"
            if memsw.exists():  # no swapping past the limit either (Lambda has no swap)
                memsw.write_text(str(profile.memory_bytes))
            (self.cpu_dir / "cpu.cfs_period_us").write_text(str(CFS_PERIOD_US))
            (self.cpu_dir / "cpu.cfs_quota_us").write_text(str(profile.cfs_quota_us))
        except BaseException as error:
            self._close_after_failure(error)
            raise

    def _make(self, path: Path) -> Path:
        path.mkdir()
        self._dirs.append(path)
        return path

    @property
    def detail(self) -> str:
        return (
            f"memory.limit_in_bytes={self.profile.memory_bytes} and cpu.cfs_quota_us="
            f"{self.profile.cfs_quota_us}/{CFS_PERIOD_US} in {self.memory_dir} and {self.cpu_dir}"
        )

    def _adopt(self, pid: int) -> None:
        for directory in self._dirs:
            (directory / "cgroup.procs").write_text(str(pid))

    def reset_peak(self) -> None:
        (self.memory_dir / "memory.max_usage_in_bytes").write_text("0")

    def peak_bytes(self) -> int | None:
        return int((self.memory_dir / "memory.max_usage_in_bytes").read_text())

    def oom_kills(self) -> int:
        # memory.failcnt stays 0 on an OOM kill here; oom_control's counter is the reliable one.
        return _read_counter(self.memory_dir / "memory.oom_control", "oom_kill")

    def close(self) -> None:
        # Children before parents (the order they were made in, reversed), each attempted once.
        dirs, self._dirs = self._dirs[::-1], []
        _undo_all([(f"cgroup {path}", functools.partial(_remove_cgroup, path)) for path in dirs])


class CgroupV2Limits(Limits):
    mode = "cgroup-v2"

    def __init__(self, profile: Profile) -> None:
        super().__init__(profile)
        parent = _cgroup_dir("", "cgroup2")
        if parent is None:
            raise OSError("no cgroup v2 hierarchy is mounted")
        available = set((parent / "cgroup.controllers").read_text().split())
        if not {"memory", "cpu"} <= available:
            raise OSError(f"cgroup v2 at {parent} offers {sorted(available)}, not memory and cpu")
        self._subtree_control = parent / "cgroup.subtree_control"
        enabled = set(self._subtree_control.read_text().split())
        # Only what is not on yet, so close() turns off only what was turned on here.
        self._enabled_here = sorted({"memory", "cpu"} - enabled)
        if self._enabled_here:
            self._subtree_control.write_text(" ".join(f"+{c}" for c in self._enabled_here))
        self.dir = parent / _child_name()
        try:
            self.dir.mkdir()
            (self.dir / "memory.max").write_text(str(profile.memory_bytes))
            swap = self.dir / "memory.swap.max"
            if swap.exists():
                swap.write_text("0")
            (self.dir / "cpu.max").write_text(f"{profile.cfs_quota_us} {CFS_PERIOD_US}")
        except BaseException as error:
            self._close_after_failure(error)
            raise

    @property
    def detail(self) -> str:
        return f"memory.max={self.profile.memory_bytes} and cpu.max={self.profile.cfs_quota_us} {CFS_PERIOD_US} in {self.dir}"

    def _adopt(self, pid: int) -> None:
        (self.dir / "cgroup.procs").write_text(str(pid))

    def reset_peak(self) -> None:
        try:  # writable since Linux 6.12; before that the peak covers the whole run
            (self.dir / "memory.peak").write_text("reset")
        except OSError:
            pass

    def peak_bytes(self) -> int | None:
        try:
            return int((self.dir / "memory.peak").read_text())
        except OSError:
            return None

    def oom_kills(self) -> int:
        return _read_counter(self.dir / "memory.events", "oom_kill")

    def close(self) -> None:
        steps: list[tuple[str, Callable[[], object]]] = []
        if self.dir.exists():
            steps.append((f"cgroup {self.dir}", lambda: _remove_cgroup(self.dir)))
        if self._enabled_here:
            # Fails with EBUSY while another child (another run's cgroup) still uses them: named, not hidden.
            disable = " ".join(f"-{c}" for c in self._enabled_here)
            steps.append((f"'{disable}' in {self._subtree_control}", lambda: self._subtree_control.write_text(disable)))
            self._enabled_here = []
        _undo_all(steps)


class FallbackLimits(Limits):
    """No writable cgroup: whole cores by affinity, memory by an RSS sampler that kills."""

    mode = "affinity+rss-sampling"

    def __init__(self, profile: Profile, slot: int = 0) -> None:
        super().__init__(profile)
        allowed = sorted(os.sched_getaffinity(0))
        # Affinity only gives whole cores: 1.158 vCPU becomes 1 core, never more than exist.
        # Sandbox ``slot`` of several starts further along, so two 1-core sandboxes get two cores.
        count = max(1, min(len(allowed), round(profile.cpus)))
        start = slot * count
        self.cores = [allowed[(start + i) % len(allowed)] for i in range(count)]

    @property
    def detail(self) -> str:
        return (
            f"CPU affinity {self.cores} for {self.profile.cpus:g} vCPU (whole cores only), "
            f"SIGKILL when the sampled RSS passes {self.profile.memory_mb} MB (no page cache)"
        )

    def spawn(self, argv: Sequence[str], **popen_kwargs) -> subprocess.Popen:
        # sched_setaffinity(0) changes only the calling thread, and fork inherits it: set it for
        # the moment of the fork instead of touching a running multi-threaded Go process.
        previous = os.sched_getaffinity(0)
        os.sched_setaffinity(0, self.cores)
        try:
            return subprocess.Popen(argv, **popen_kwargs)
        finally:
            os.sched_setaffinity(0, previous)

    def sampler(self, root_pid: int) -> TreeSampler:
        return TreeSampler(root_pid, interval_s=0.005, kill_above_bytes=self.profile.memory_bytes)


_CGROUP_KINDS: tuple[type[Limits], ...] = (CgroupV2Limits, CgroupV1Limits)


def create_limits(profile: Profile, mode: str = "auto", slot: int = 0) -> Limits:
    """The strongest limits this machine allows; ``skipped`` says why stronger ones were not possible.

    ``mode``: "auto" (cgroups, else the fallback), "cgroup" (cgroups or an error), "fallback";
    ``slot``: which of several sandboxes side by side these are for (the fallback's cores).
    """
    if mode not in MODES:
        raise ValueError(f"unknown limit mode {mode!r}; use one of: {', '.join(MODES)}")
    reasons: list[str] = []
    if mode != "fallback":
        for kind in _CGROUP_KINDS:
            try:
                limits = kind(profile)
                limits.skipped = reasons
                return limits
            except OSError as error:
                reasons.append(f"{kind.mode}: {error}")
        if mode == "cgroup":
            raise OSError("no writable cgroup: " + "; ".join(reasons))
    limits = FallbackLimits(profile, slot)
    limits.skipped = reasons
    return limits


@contextmanager
def open_limits(profile: Profile, mode: str = "auto", slot: int = 0) -> Iterator[Limits]:
    """``create_limits`` whose cgroups are removed however the block ends, SIGTERM included."""
    limits = create_limits(profile, mode, slot)
    previous = _raise_on_sigterm()
    try:
        yield limits
    finally:
        try:
            limits.close()
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _raise_on_sigterm():
    """Make SIGTERM unwind the stack like Ctrl-C does, so ``finally`` blocks run; main thread only."""

    def _exit(signum, frame):
        raise SystemExit(128 + signum)

    try:
        return signal.signal(signal.SIGTERM, _exit)
    except ValueError:  # not the main thread: signals cannot be handled here
        return None


def leftover_cgroups(pid: int | None = None) -> list[Path]:
    """cgroups created by process ``pid`` (default: this one) that still exist; empty after cleanup."""
    prefix = f"supertonic-harness-{os.getpid() if pid is None else pid}-"
    found: list[Path] = []
    for controller, fstype in (("memory", "cgroup"), ("cpu", "cgroup"), ("", "cgroup2")):
        try:
            parent = _cgroup_dir(controller, fstype)
        except OSError:
            continue
        if parent is not None and parent.is_dir():
            found.extend(p for p in parent.iterdir() if p.is_dir() and p.name.startswith(prefix))
    return found
