"""The image's lock files: every package the image installs, pinned with the hashes of its files.

``docker/requirements.lock`` holds the runtime's dependencies (pyproject.toml's ``dependencies``),
``docker/build-tools.lock`` what the graph preparation adds (the ``prepare`` extra), resolved
against the first so both agree on shared packages. They are resolved for the image, not for this
machine: CPython 3.12 on x86-64 Linux with glibc 2.28 or newer (onnxruntime ships manylinux_2_28
wheels only). Each lock's first lines record a digest of the lists it was made from, so a changed
dependency list with a stale lock fails a test that names the command to run.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess  # runs uv, a fixed program with arguments built here  # nosec B404
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..function.rie import REPO_ROOT

LOCK_DIR = REPO_ROOT / "docker"
COMMAND = "supertonic-lambda image lock"
PYTHON_VERSION = "3.12"
PLATFORM = "x86_64-manylinux_2_28"
_DIGEST_LINE = re.compile(r"^# from: (?P<digest>[0-9a-f]{64})$", re.MULTILINE)


class LockError(RuntimeError):
    """The locks cannot be written (no uv, or the index refused a resolution)."""


@dataclass(frozen=True)
class LockFile:
    name: str  # the file under docker/
    extra: str | None  # pyproject's optional-dependencies key, None for the runtime's own list

    @property
    def path(self) -> Path:
        return LOCK_DIR / self.name


RUNTIME = LockFile("requirements.lock", None)
BUILD_TOOLS = LockFile("build-tools.lock", "prepare")
LOCKS = (RUNTIME, BUILD_TOOLS)


def requirements(lock: LockFile, pyproject: Path = REPO_ROOT / "pyproject.toml") -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"] if lock.extra is None else project["optional-dependencies"][lock.extra])


def source_digest(lock: LockFile, pyproject: Path = REPO_ROOT / "pyproject.toml") -> str:
    """What the lock was made from: its list, and for the build tools the runtime's too (their constraint)."""
    lists = [requirements(RUNTIME, pyproject)] + ([requirements(lock, pyproject)] if lock is not RUNTIME else [])
    text = "\n".join("\n".join(sorted(items)) for items in lists) + f"\n{PYTHON_VERSION} {PLATFORM}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def recorded_digest(lock: LockFile) -> str | None:
    """The digest a lock file says it was made from, None when it is missing or says none."""
    try:
        match = _DIGEST_LINE.search(lock.path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return match["digest"] if match else None


def stale_locks(pyproject: Path = REPO_ROOT / "pyproject.toml") -> list[LockFile]:
    return [lock for lock in LOCKS if recorded_digest(lock) != source_digest(lock, pyproject)]


def _uv() -> str:
    try:
        from uv import find_uv_bin  # the uv package ./dev installs into the project's venv

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            raise LockError("writing the locks needs uv: pip install uv (./dev installs it)") from None
        return found


def write_locks(upgrade: bool = False) -> list[Path]:
    """Resolve both lists for the image and write them with every file's hash.

    Without ``upgrade`` the versions already pinned are kept where they still satisfy the lists,
    so a refresh changes only what the lists changed."""
    uv = _uv()
    written = []
    with tempfile.TemporaryDirectory(prefix="supertonic-lock-") as scratch:
        for lock in LOCKS:
            source = Path(scratch) / f"{lock.path.stem}.in"
            source.write_text("\n".join(requirements(lock)) + "\n", encoding="utf-8")
            command = [uv, "pip", "compile", str(source), "--quiet", "--generate-hashes", "--no-header"]
            command += ["--python-version", PYTHON_VERSION, "--python-platform", PLATFORM]
            if lock is not RUNTIME:
                command += ["--constraint", str(RUNTIME.path)]  # one numpy for both
            output = Path(scratch) / lock.name
            command += ["--output-file", str(output)]
            if lock.path.exists() and not upgrade:
                shutil.copyfile(lock.path, output)  # uv keeps the pins of an existing output that still fit
            completed = subprocess.run(command, capture_output=True, text=True, check=False)  # uv with arguments built here  # nosec B603
            if completed.returncode != 0:
                raise LockError(f"uv could not resolve {lock.name}:\n{completed.stderr.strip()}")
            body = output.read_text(encoding="utf-8").replace(str(source), source.name)
            body = "".join(line for line in body.splitlines(keepends=True) if not line.startswith("# from: "))
            header = (
                f"# The image's {'graph preparation' if lock.extra else 'runtime'} packages, pinned with their files' hashes.\n"
                f"# Written by `{COMMAND}` for CPython {PYTHON_VERSION} on {PLATFORM}; edit pyproject.toml, not this file.\n"
                f"# from: {source_digest(lock)}\n"
            )
            lock.path.write_text(header + body, encoding="utf-8")
            written.append(lock.path)
    return written
