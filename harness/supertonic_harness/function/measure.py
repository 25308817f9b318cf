"""Memory of the function's processes, read from /proc while it runs.

RIE prints "Max Memory Used" equal to the configured memory size without measuring anything, so
the harness measures for itself. Two numbers per invocation:

* peak RSS of the runtime's process tree: the larger of the kernel's own high-water mark
  (``VmHWM``, reset per invocation through ``clear_refs``) and the sampled sum over the tree;
* the cgroup's peak usage, read by the limits (it includes page cache, e.g. the model file read
  at init, which the kernel reclaims before it OOM-kills anything).
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
_PAGE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024


def read_bytes(pid: int) -> int:
    """Bytes ``pid`` has made the kernel fetch from storage (page faults of mapped files included); 0 if gone."""
    try:
        for line in (PROC / str(pid) / "io").read_text().splitlines():
            if line.startswith("read_bytes:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (all threads' children, as /proc lists them per thread)."""
    if not (PROC / str(pid) / "task" / str(pid) / "children").exists():
        return _children_by_scan(pid)  # kernels built without CONFIG_PROC_CHILDREN
    found: list[int] = []
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found.extend(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def _children_by_scan(pid: int) -> list[int]:
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The parent pid is the 2nd field after the parenthesised command, which may hold spaces.
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid:
            found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, breadth first, ``pid`` itself excluded."""
    found: list[int] = []
    queue = children(pid)
    while queue:
        child = queue.pop(0)
        found.append(child)
        queue.extend(children(child))
    return found


@dataclass(frozen=True)
class ProcessMemory:
    rss_bytes: int
    hwm_bytes: int  # the kernel's peak RSS of the process since start or the last reset


def status_bytes(pid: int | str, fields: tuple[str, ...]) -> dict[str, int] | None:
    """``fields`` of ``/proc/PID/status`` (memory lines, reported in kB) in bytes; None when the
    process is gone. A field the kernel does not show (a zombie has no memory lines) is left out."""
    try:
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return None
    values = {}
    for line in status.splitlines():
        key, _, rest = line.partition(":")
        if key in fields:
            values[key] = int(rest.split()[0]) * 1024
    return values


def process_memory(pid: int) -> ProcessMemory | None:
    """Current and peak RSS of one process, None when it is gone."""
    values = status_bytes(pid, ("VmRSS", "VmHWM"))
    if not values or "VmRSS" not in values:
        return None
    return ProcessMemory(values["VmRSS"], values.get("VmHWM", values["VmRSS"]))


def reset_peak_rss(pid: int | str) -> bool:
    """Reset the kernel's RSS high-water mark of ``pid`` (``echo 5 > clear_refs``, Linux >= 4.0)."""
    try:
        (PROC / str(pid) / "clear_refs").write_text("5")
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class MemoryWindow:
    """Memory seen between ``begin`` and ``end`` of one invocation."""

    peak_rss_bytes: int
    killed_over_limit: bool  # the sampler itself killed the tree (fallback limits only)
    end_rss_bytes: int = 0  # what the tree still holds when the window ends: what a leak grows

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / MB

    @property
    def end_rss_mb(self) -> float:
        return self.end_rss_bytes / MB


class TreeSampler:
    """Samples the RSS of every process below ``root_pid`` on a thread, per invocation window.

    With ``kill_above_bytes`` it also enforces a memory limit the way the kernel's OOM killer
    would: the moment the tree's RSS passes the limit, every process in it gets SIGKILL. That is
    the fallback where no memory cgroup can be created; a sample interval of a few milliseconds
    can miss a short spike, which a cgroup would not.

    Only measuring, it samples inside a window only, and every ``TRUSTED_INTERVAL_S`` where the
    kernel's own high-water mark was reset (that mark catches any spike between samples). Walking
    /proc every 10 ms took a tenth of a core (2 vCPUs, the runtime's ~20 threads): on a machine
    with no core to spare that was taken from the function being measured.
    """

    TRUSTED_INTERVAL_S = 0.1

    def __init__(self, root_pid: int, *, interval_s: float = 0.01, kill_above_bytes: int | None = None) -> None:
        self.root_pid = root_pid
        self.interval_s = interval_s
        self.kill_above_bytes = kill_above_bytes
        self._lock = threading.Lock()
        self._peak = 0
        self._killed = False
        self._hwm_trusted = True
        self._in_window = False
        self._stop = threading.Event()
        self._wake = threading.Event()  # a window opened or the sampler stops: no sleeping through it
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._thread.start()

    def begin(self) -> None:
        """Start a new window: forget the previous peak and reset the processes' own marks."""
        pids = descendants(self.root_pid)
        trusted = all(reset_peak_rss(pid) for pid in pids)
        with self._lock:
            self._peak = 0
            self._killed = False
            # Without a reset, VmHWM of a warm runtime still holds an earlier invocation's peak.
            self._hwm_trusted = trusted
            self._in_window = True
        self.sample()
        self._wake.set()

    def end(self) -> MemoryWindow:
        now = self.sample()
        with self._lock:
            self._in_window = False
            return MemoryWindow(self._peak, self._killed, now)

    def sample(self) -> int:
        """Take one sample now; returns the tree's current RSS in bytes."""
        pids = descendants(self.root_pid)
        total = 0
        highest_hwm = 0
        for pid in pids:
            memory = process_memory(pid)
            if memory is not None:
                total += memory.rss_bytes
                highest_hwm = max(highest_hwm, memory.hwm_bytes)
        with self._lock:
            peak = max(self._peak, total, highest_hwm if self._hwm_trusted else 0)
            self._peak = peak
        if self.kill_above_bytes is not None and total > self.kill_above_bytes:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            with self._lock:
                self._killed = True
        return total

    def _next_interval_s(self) -> float | None:
        """How long to wait before the next sample; None: until a window opens."""
        if self.kill_above_bytes is not None:
            return self.interval_s  # enforcing a limit: always, and never slower
        with self._lock:
            if not self._in_window:
                return None
            return max(self.interval_s, self.TRUSTED_INTERVAL_S) if self._hwm_trusted else self.interval_s

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._next_interval_s())
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                wanted = self._in_window or self.kill_above_bytes is not None
            if wanted:
                self.sample()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(2.0)
