"""Limits: profiles, cgroups made and removed, OOM kills as on Lambda, the fallback without cgroups."""

from __future__ import annotations

import errno
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
from harness_fixtures.support import sample_function

from supertonic_harness.function import limits as limits_module
from supertonic_harness.function.limits import (
    PROFILES,
    CgroupV1Limits,
    CgroupV2Limits,
    FallbackLimits,
    create_limits,
    leftover_cgroups,
    open_limits,
    resolve_profile,
)
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.sandbox import Sandbox


def test_lambda_profile_gets_the_cpu_share_of_2048_mb():
    profile = PROFILES["lambda-2048"]
    assert profile.memory_mb == 2048
    assert profile.cfs_quota_us == 115_800  # 2048 / 1769 vCPU per 100 ms period
    assert PROFILES["2vcpu-2gb"].cfs_quota_us == 200_000


@pytest.mark.parametrize(
    ("name", "cpus", "memory_mb", "expected"),
    [
        ("lambda-2048", None, None, (1.158, 2048)),
        ("2vcpu-2gb", None, 512, (2.0, 512)),
        ("custom", 0.5, 256, (0.5, 256)),
        ("custom", None, None, (2.0, 2048)),
    ],
)
def test_profiles_resolve_with_overrides(name, cpus, memory_mb, expected):
    profile = resolve_profile(name, cpus=cpus, memory_mb=memory_mb)
    assert (profile.cpus, profile.memory_mb) == expected


@pytest.mark.parametrize("bad", [dict(name="huge"), dict(name="custom", cpus=0), dict(name="custom", memory_mb=-1)])
def test_bad_profiles_are_refused(bad):
    with pytest.raises(ValueError):
        resolve_profile(bad.pop("name"), **bad)


def _cgroup_v1_or_skip(profile):
    try:
        return CgroupV1Limits(profile)
    except OSError as error:
        pytest.skip(f"cgroup v1 is not writable here ({error}); the fallback tests cover this machine")


def test_cgroup_v1_limits_are_written_and_removed():
    profile = resolve_profile("lambda-2048")
    limits = _cgroup_v1_or_skip(profile)
    try:
        assert int((limits.memory_dir / "memory.limit_in_bytes").read_text()) == 2048 * 1024 * 1024
        assert (limits.cpu_dir / "cpu.cfs_quota_us").read_text().strip() == "115800"
        process = limits.spawn([sys.executable, "-c", "import time; time.sleep(5)"])
        assert str(process.pid) in (limits.memory_dir / "cgroup.procs").read_text().split()
        assert str(process.pid) in (limits.cpu_dir / "cgroup.procs").read_text().split()
    finally:
        limits.close()  # also kills what is still inside
    process.wait(5)
    assert not limits.memory_dir.exists() and not limits.cpu_dir.exists()
    assert leftover_cgroups() == []


def test_cgroup_v1_close_removes_every_directory_it_can_and_names_the_rest(tmp_path, monkeypatch):
    made = [tmp_path / name for name in ("memory-child", "busy-child", "cpu-child")]
    for path in made:
        path.mkdir()

    def remove(path):
        if path.name == "busy-child":
            raise OSError(errno.EBUSY, "Device or resource busy")
        path.rmdir()

    monkeypatch.setattr(limits_module, "_remove_cgroup", remove)
    limits = CgroupV1Limits.__new__(CgroupV1Limits)  # the directories of a run, without real cgroups
    limits._dirs = list(made)
    with pytest.raises(OSError, match=r"could not clean up: cgroup .*busy-child \(Device or resource busy\)"):
        limits.close()
    assert [path.exists() for path in made] == [False, True, False]
    limits.close()  # nothing left to try: a second close is quiet


@pytest.mark.parametrize(("enabled_before", "disabled_after"), [("io", "-cpu -memory"), ("io memory", "-cpu"), ("cpu memory", None)])
def test_cgroup_v2_turns_off_only_the_controllers_it_turned_on(tmp_path, monkeypatch, enabled_before, disabled_after):
    # A stand-in for a cgroup v2 directory: the files the kernel would show, as plain files.
    (tmp_path / "cgroup.controllers").write_text("cpu io memory\n")
    control = tmp_path / "cgroup.subtree_control"
    control.write_text(enabled_before + "\n")
    monkeypatch.setattr(limits_module, "_cgroup_dir", lambda controller, fstype: tmp_path if fstype == "cgroup2" else None)
    monkeypatch.setattr(limits_module, "_remove_cgroup", shutil.rmtree)  # a real cgroup rmdir ignores its files
    limits = CgroupV2Limits(resolve_profile("lambda-2048"))
    assert (limits.dir / "cpu.max").read_text() == "115800 100000"
    turned_on = control.read_text()
    limits.close()
    assert not limits.dir.exists()
    if disabled_after is None:
        assert control.read_text() == turned_on == enabled_before + "\n"  # nothing was written at all
    else:
        assert control.read_text() == disabled_after


def test_auto_mode_falls_back_and_says_why(monkeypatch):
    class Unwritable(CgroupV1Limits):
        def __init__(self, profile):
            raise OSError("read-only file system")

    monkeypatch.setattr(limits_module, "_CGROUP_KINDS", (Unwritable,))
    limits = create_limits(resolve_profile("lambda-2048"))
    assert isinstance(limits, FallbackLimits)
    assert limits.skipped == ["cgroup-v1: read-only file system"]
    assert len(limits.cores) == 1  # 1.158 vCPU -> one whole core
    with pytest.raises(OSError, match="no writable cgroup"):
        create_limits(resolve_profile("lambda-2048"), "cgroup")


@pytest.mark.parametrize("mode", ["auto", "fallback"])
def test_oversized_run_is_oom_killed_and_the_next_one_starts_cold(mode):
    profile = resolve_profile("custom", cpus=1, memory_mb=256)
    with open_limits(profile, mode) as limits, Sandbox(sample_function("allocate"), limits) as box:
        fits = box.invoke({"mb": 32})
        too_big = box.invoke({"mb": 512})
        again = box.invoke({"mb": 32})
    assert fits.outcome is Outcome.SUCCESS
    assert too_big.outcome is Outcome.OOM, too_big.log_lines
    assert too_big.error_type == "Runtime.OutOfMemory"
    assert again.outcome is Outcome.SUCCESS and again.cold_start
    assert again.runtime_pids != fits.runtime_pids
    assert 32 < fits.peak_rss_mb < 256
    if limits.mode.startswith("cgroup"):
        assert too_big.cgroup_peak_mb == pytest.approx(256, abs=1)
    assert leftover_cgroups() == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_cgroups_are_removed_when_the_harness_is_stopped(signum):
    script = textwrap.dedent(
        """
        import signal, sys, time
        # As in a terminal: a shell that runs the suite in the background (`cmd &`) starts it with
        # SIGINT ignored, which the child would inherit and Ctrl-C would then never reach it.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from supertonic_harness.function.limits import open_limits, resolve_profile
        with open_limits(resolve_profile("lambda-2048")) as limits:
            print(limits.mode, flush=True)
            time.sleep(30)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        mode = child.stdout.readline().strip()
        created = leftover_cgroups(child.pid)
        child.send_signal(signum)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    if mode.startswith("cgroup"):
        assert created, "the child should have made its cgroups"
    assert leftover_cgroups(child.pid) == []


def test_every_command_that_runs_the_function_takes_a_lambda_memory_size_as_its_profile():
    from supertonic_cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["emulate", "--profile", "lambda-1769"]).profile == "lambda-1769"
    assert resolve_profile("lambda-1769").cpus == 1.0
    assert (resolve_profile("lambda-1769", cpus=2.0).cpus, resolve_profile("lambda-1769", cpus=2.0).memory_mb) == (2.0, 1769)
    for bad in ("lambda-big", "lambda-0", "lambda-64", "lambda-20000", "lambda-\u00b2", "lambda-01769"):
        with pytest.raises(SystemExit):
            parser.parse_args(["emulate", "--profile", bad])
        with pytest.raises(ValueError):
            resolve_profile(bad)
