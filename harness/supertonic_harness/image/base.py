"""A local stand-in for ``python:3.12-slim-bookworm``, for hosts that can reach no container registry.

``python:3.12-slim-bookworm`` is Debian bookworm's minimal system with CPython built from source
into /usr/local. The stand-in is made the same way from what a package-registry-only host has:
the system from Debian's packages by ``mmdebstrap`` (minbase, without documentation or locales,
as the slim images drop them), and CPython 3.12 copied into /usr/local from this host's own
build of it (the interpreter running this command when it is 3.12, else a pyenv 3.12), with
pip from its bundled wheel. Where no CPython 3.12 is here, Debian's 3.11 stands in: fine for
proving the Dockerfile, not for proving 3.12, and the image's label says which it holds.

It is imported under the name the Dockerfile's ``FROM`` uses, so the Dockerfile is built as it
is, unchanged; a real ``python:3.12-slim-bookworm`` pulled later simply replaces it.
"""

from __future__ import annotations

import os
import shutil
import subprocess  # runs mmdebstrap, chroot and the engine with arguments built here  # nosec B404
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .engine import ContainerEngine

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
# What the slim image carries beside the minimal system: TLS roots, name service files, time
# zones, and the shared libraries CPython's standard modules link against.
PACKAGES = (
    "ca-certificates",
    "netbase",
    "tzdata",
    "libssl3",
    "libffi8",
    "libsqlite3-0",
    "libbz2-1.0",
    "liblzma5",
    "zlib1g",
    "libncursesw6",
    "libreadline8",
    "libuuid1",
    "libexpat1",
)
# Debian's 3.11 with pip, for hosts without a CPython 3.12 of their own.
FALLBACK_PACKAGES = ("python3", "python3-pip", "python3-venv")
SLIM_EXCLUDES = ("/usr/share/man/*", "/usr/share/doc/*", "/usr/share/locale/*", "/usr/share/info/*")
# Left out of the copied CPython, as the official image leaves them out: tests, GUI toolkits, the
# static library and headers, and this host's own site-packages (pip is installed afresh).
CPYTHON_EXCLUDES = ("test", "idlelib", "tkinter", "turtledemo", "__pycache__", "site-packages", "config-3.12-x86_64-linux-gnu")
LABEL = "org.supertonic.standin-base"
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"
ENVIRONMENT = ("PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8")


class BaseImageError(RuntimeError):
    """The stand-in base cannot be assembled here (no mmdebstrap, not root, no Debian mirror)."""


@dataclass(frozen=True)
class BaseImage:
    tag: str
    python: str  # what the image's python is, e.g. "CPython 3.12.1 (copied from /root/.pyenv/...)"


def qualified(tag: str) -> str:
    """``tag`` as Docker Hub names it (``python:3.12`` is ``docker.io/library/python:3.12``), so the
    stand-in answers to the name a ``FROM`` resolves, not to podman's ``localhost/`` one."""
    first = tag.split("/", 1)[0]
    if "/" in tag and ("." in first or ":" in first or first == "localhost"):
        return tag
    return f"docker.io/{tag}" if "/" in tag else f"docker.io/library/{tag}"


def find_cpython_312() -> Path | None:
    """The prefix of a shared-library CPython 3.12 build on this host, None when there is none."""
    candidates = []
    if sys.version_info[:2] == (3, 12):
        candidates.append(Path(sys.base_prefix))
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += sorted(pyenv.glob("3.12*"), reverse=True)
    for prefix in candidates:
        if (prefix / "bin" / "python3.12").is_file() and list((prefix / "lib").glob("libpython3.12*.so*")):
            return prefix
    return None


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # arguments built here  # nosec B603
    if done.returncode != 0:
        raise BaseImageError(f"{what} failed ({' '.join(command[:3])} ...):\n{(done.stderr or done.stdout)[-2000:]}")


def _copy_cpython(prefix: Path, rootfs: Path) -> None:
    local = rootfs / "usr" / "local"
    stdlib = prefix / "lib" / "python3.12"

    def skipped(directory: str, names: list[str]) -> set[str]:
        top_level = CPYTHON_EXCLUDES if Path(directory) == stdlib else ()
        return {n for n in names if n in top_level or n == "__pycache__"}

    shutil.copytree(stdlib, local / "lib" / "python3.12", ignore=skipped, symlinks=True, dirs_exist_ok=True)
    for library in (prefix / "lib").glob("libpython3*.so*"):
        shutil.copy2(library, local / "lib" / library.name, follow_symlinks=False)
    (local / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copy2(prefix / "bin" / "python3.12", local / "bin" / "python3.12")
    for alias in ("python3", "python"):
        (local / "bin" / alias).unlink(missing_ok=True)
        (local / "bin" / alias).symlink_to("python3.12" if alias == "python3" else "python3")
    (local / "lib" / "python3.12" / "site-packages").mkdir(exist_ok=True)
    # The copied libpython is found through the loader's cache, as in the official image.
    _run([CHROOT, str(rootfs), "ldconfig"], "ldconfig in the stand-in base")
    _run([CHROOT, str(rootfs), "/usr/local/bin/python3.12", "-m", "ensurepip", "--default-pip"], "pip from CPython's bundled wheel")


def _use_debian_python(rootfs: Path) -> None:
    local_bin = rootfs / "usr" / "local" / "bin"
    local_bin.mkdir(parents=True, exist_ok=True)
    for alias in ("python", "python3"):
        (local_bin / alias).unlink(missing_ok=True)
        (local_bin / alias).symlink_to("/usr/bin/python3")
    (local_bin / "pip").unlink(missing_ok=True)
    (local_bin / "pip").symlink_to("/usr/bin/pip3")
    # The image installs its packages with pip, as it does on the official image's own CPython.
    for marker in (rootfs / "usr" / "lib").glob("python3*/EXTERNALLY-MANAGED"):
        marker.unlink()


def assemble_base(engine: ContainerEngine, tag: str, *, scratch_dir: Path | None = None) -> BaseImage:
    """Assemble the stand-in base and import it into ``engine``'s storage as ``tag``."""
    if shutil.which("mmdebstrap") is None:
        raise BaseImageError("no base image can be pulled and mmdebstrap is missing: apt-get install mmdebstrap (or pull the base)")
    if os.geteuid() != 0:
        raise BaseImageError("assembling the stand-in base needs root (mmdebstrap and chroot); run as root or pull the base")
    prefix = find_cpython_312()
    packages = PACKAGES + (() if prefix is not None else FALLBACK_PACKAGES)
    with tempfile.TemporaryDirectory(prefix="supertonic-base-", dir=scratch_dir) as scratch:
        rootfs = Path(scratch) / "rootfs"
        command = ["mmdebstrap", "--variant=minbase", f"--include={','.join(packages)}"]
        command += [f"--dpkgopt=path-exclude={p}" for p in SLIM_EXCLUDES] + ["--dpkgopt=path-include=/usr/share/doc/*/copyright"]
        _run(command + [SUITE, str(rootfs), MIRROR], f"mmdebstrap of Debian {SUITE} from {MIRROR}")
        if prefix is not None:
            _copy_cpython(prefix, rootfs)
            version = subprocess.run(  # the interpreter just copied  # nosec B603
                [CHROOT, str(rootfs), "/usr/local/bin/python3", "-c", "import platform; print(platform.python_version())"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            python = f"CPython {version} copied from {prefix}"
        else:
            _use_debian_python(rootfs)
            python = f"Debian {SUITE}'s python3 (3.11): proves the Dockerfile, not Python 3.12"
        archive = Path(scratch) / "rootfs.tar"
        with tarfile.open(archive, "w") as tar:
            tar.add(rootfs, arcname=".")
        changes = [f"ENV {e}" for e in ENVIRONMENT] + ['CMD ["python3"]', f'LABEL {LABEL}="{python}"']
        command = [engine.program, "import"] + [arg for change in changes for arg in ("--change", change)] + [str(archive), qualified(tag)]
        _run(command, f"importing the stand-in base as {tag}")
    return BaseImage(tag, python)


def base_python(engine: ContainerEngine, tag: str) -> str | None:
    """What a stand-in base says it holds; None for any other image (the real one)."""
    done = subprocess.run(  # the engine with arguments built here  # nosec B603
        [engine.program, "image", "inspect", "--format", f'{{{{index .Config.Labels "{LABEL}"}}}}', tag],
        capture_output=True,
        text=True,
        check=False,
    )
    label = done.stdout.strip()
    return label if done.returncode == 0 and label and label != "<no value>" else None
