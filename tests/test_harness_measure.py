"""Memory measurement from /proc: process trees, peaks per window, the fallback's kill."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from supertonic_harness.function import measure
from supertonic_harness.function.measure import MB, TreeSampler, descendants, process_memory

# A child that starts a grandchild, then holds ``mb`` MiB of touched memory until killed.
_TREE = """
import subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
block = bytearray({mb} * 1024 * 1024)
block[::4096] = b"x" * len(block[::4096])
print(grandchild.pid, flush=True)
time.sleep(30)
"""


def _tree(mb: int) -> tuple[subprocess.Popen, int]:
    child = subprocess.Popen([sys.executable, "-c", _TREE.format(mb=mb)], stdout=subprocess.PIPE, text=True)
    return child, int(child.stdout.readline())


def test_descendants_are_found_with_and_without_proc_children(monkeypatch):
    child, grandchild = _tree(1)
    try:
        assert descendants(os.getpid()) == [child.pid, grandchild]
        monkeypatch.setattr(measure, "children", measure._children_by_scan)
        assert descendants(os.getpid()) == [child.pid, grandchild]
    finally:
        child.kill()
        child.wait()


def test_window_peak_covers_the_tree_and_forgets_earlier_windows():
    child, _ = _tree(64)
    sampler = TreeSampler(os.getpid())
    try:
        sampler.begin()
        first = sampler.end()
        assert first.peak_rss_mb > 64 and not first.killed_over_limit
        child.kill()
        child.wait()
        sampler.begin()
        assert sampler.end().peak_rss_mb < first.peak_rss_mb - 50
    finally:
        sampler.stop()
        if child.poll() is None:
            child.kill()
            child.wait()


def test_sampler_with_a_limit_kills_the_tree_like_the_oom_killer():
    child, grandchild = _tree(96)
    sampler = TreeSampler(os.getpid(), interval_s=0.005, kill_above_bytes=64 * MB)
    try:
        sampler.begin()
        child.wait(5)
        window = sampler.end()
    finally:
        sampler.stop()
    assert child.returncode == -9 and window.killed_over_limit
    deadline = time.monotonic() + 5
    while process_memory(grandchild) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_memory(grandchild) is None


def test_process_memory_reads_current_and_peak():
    memory = process_memory(os.getpid())
    assert 0 < memory.rss_bytes <= memory.hwm_bytes
    assert process_memory(2**22 + 12345) is None


class _CountingSampler(TreeSampler):
    def __init__(self, *args, **kwargs) -> None:
        self.samples = 0
        super().__init__(*args, **kwargs)

    def sample(self) -> int:
        self.samples += 1
        return super().sample()


def test_a_measuring_sampler_rests_between_windows_and_samples_inside_them():
    # Between invocations nothing is measured: a sampler that walks /proc then only takes CPU
    # from the function it measures.
    sampler = _CountingSampler(os.getpid(), interval_s=0.01)
    try:
        time.sleep(0.3)
        assert sampler.samples == 0
        sampler.begin()  # one sample of its own
        time.sleep(0.35)  # then the thread's, every TRUSTED_INTERVAL_S or sooner
        inside = sampler.samples
        sampler.end()
        assert inside >= 3
        after = sampler.samples
        time.sleep(0.3)
        assert sampler.samples == after
    finally:
        sampler.stop()
