"""The image, built from the Dockerfile and run as Lambda runs it (read-only, an unknown uid, limits).

Built with the tiny stand-in model (noise, not speech) by ``supertonic-lambda image build``, as a
user builds it: docker where a daemon runs, else podman, on the stand-in base where no registry
answers. ``./dev test`` installs podman and mmdebstrap where it can (as root, with apt-get); where
they cannot be had, these tests skip and say why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from supertonic_harness.function.limits import resolve_profile
from supertonic_harness.function.rie import free_port
from supertonic_harness.image.engine import ContainerEngine, EngineNotFound, find_engine

REPO = Path(__file__).resolve().parents[1]
SETUP_ENV = "SUPERTONIC_IMAGE_SETUP"  # why ./dev test could not install podman, when it could not
# Set to 1 where podman was meant to be installed (.ci/run): then a missing engine fails, never skips.
REQUIRE_ENV = "SUPERTONIC_REQUIRE_IMAGE"
PROFILE = "lambda-2048"
pytestmark = [pytest.mark.image, pytest.mark.slow]


def _cli(*args: str, timeout_s: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "supertonic_cli", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout_s, check=False
    )


@pytest.fixture(scope="module")
def engine() -> ContainerEngine:
    try:
        return find_engine()
    except EngineNotFound as missing:
        reason = str(missing) + (f" ({os.environ[SETUP_ENV]})" if os.environ.get(SETUP_ENV) else "")
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires it", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def tag(engine: ContainerEngine) -> Iterator[str]:
    name = f"supertonic-tts:suite-{uuid.uuid4().hex[:8]}"
    built = _cli("image", "build", "--model", "tiny", "--tag", name)
    assert built.returncode == 0, built.stderr[-4000:]
    assert f"{name}: " in built.stdout and " MB in " in built.stdout  # the size per layer is reported
    yield name
    # The layers stay cached for the next build; only the name goes.
    subprocess.run([engine.program, "rmi", name], capture_output=True, check=False)


INSPECT = r"""
import importlib.util, json, os, shutil
report = {}
report["modules"] = sorted(m for m in ("onnx", "supertonic_tools", "supertonic_harness", "pytest", "moto", "hypothesis")
                           if importlib.util.find_spec(m) is not None)
report["programs"] = sorted(p for p in ("gcc", "cc", "make", "git", "curl", "wget", "mmdebstrap") if shutil.which(p))
report["paths"] = sorted(p for p in ("/opt/build-tools", "/opt/model/onnx/vocoder.onnx", "/var/task/tests", "/opt/python/tests",
                                     "/var/task/supertonic_harness", "/etc/pip.conf") if os.path.exists(p))
writable = []
for root, dirs, files in os.walk("/"):
    if root in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    if os.access(root, os.W_OK):
        writable.append(root)
        dirs[:] = []
report["writable"] = sorted(writable)
report["uid"] = os.getuid()
def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return None
report["memory_limit"] = read("/sys/fs/cgroup/memory/memory.limit_in_bytes") or read("/sys/fs/cgroup/memory.max")
report["cpu_quota"] = [read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")]
report["cpu_max"] = read("/sys/fs/cgroup/cpu.max")
report["prepared"] = sorted(os.listdir("/opt/model/prepared"))
print(json.dumps(report))
"""


def test_the_image_holds_the_function_and_nothing_to_build_or_test_with_and_only_tmp_is_writable(engine: ContainerEngine, tag: str) -> None:
    profile = resolve_profile(PROFILE)
    command = engine.run_command(
        tag, cpus=profile.cpus, memory_mb=profile.memory_mb, entrypoint="/usr/local/bin/python", args=["-c", INSPECT]
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["modules"] == [] and report["programs"] == [], report
    assert report["paths"] == [], report  # no build tools, tests or harness; no stock graph beside the prepared ones
    assert report["writable"] == ["/tmp"], report
    assert report["uid"] == 23456  # a uid the image never heard of, as Lambda runs it
    assert "vocoder.onnx" in report["prepared"] and "manifest.json" in report["prepared"]
    # The limits reached the container: 2,048 MB, and Lambda's CPU share at that size.
    assert report["memory_limit"] == str(profile.memory_mb * 2**20)
    quota, period = report["cpu_quota"]
    shares = int(quota) / int(period) if quota and period else int(report["cpu_max"].split()[0]) / int(report["cpu_max"].split()[1])
    assert shares == pytest.approx(profile.cpus, rel=0.01)


def test_every_event_that_needs_no_s3_answers_through_the_images_own_emulator_as_expected(tag: str) -> None:
    replayed = _cli("image", "replay", str(REPO / "events"), "--tag", tag, "--port", str(free_port()), timeout_s=600)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr[-3000:]
    lines = replayed.stdout.splitlines()
    assert not [line for line in lines if "FAIL" in line]
    answered = [line for line in lines if line.startswith("  ok")]
    events = [p for p in (REPO / "events").glob("*.json") if not p.name.endswith(".expect.json")]
    skipped = [line for line in lines if line.startswith("  skip")]
    assert len(answered) + len(skipped) == len(events) and len(answered) >= 30
    # The two job routes answer 501 not_configured: the container is given no input bucket, on purpose.
    assert sorted(line.split()[1].rstrip(":") for line in answered if line.strip().startswith("ok*")) == [
        "furl_get_job_unknown",
        "furl_post_job",
    ]


def test_a_streamed_answer_comes_through_the_images_own_runtime_loop(tag: str) -> None:
    replayed = _cli(
        "image", "replay", str(REPO / "events" / "furl_post_tts.json"), "--tag", tag, "--invoke-mode", "RESPONSE_STREAM",
        "--port", str(free_port()), timeout_s=300,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr[-3000:]
    assert "ok    furl_post_tts: 200 audio/wav" in replayed.stdout
