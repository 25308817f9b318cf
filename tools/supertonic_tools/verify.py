"""Check a model directory file by file against the release's published sizes and SHA-256.

fetch-model checks each download with ``check_file``; ``verify-model`` reports the whole directory
(for a model copied to another machine, or the image's model folder). Each file is one of:

- ``real``: the release's size and digest;
- ``stand-in``: a graph carrying the stand-in mark (random weights, see ``standin_marker``);
- ``modified``: present but neither (a short file is an incomplete download);
- ``missing``.

Only the files of the table are looked at: prepared graphs and other additions are not the release's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from supertonic_engine.files import file_sha256
from supertonic_engine.standin_marker import any_standin

REAL, STANDIN, MODIFIED, MISSING = "real", "stand-in", "modified", "missing"
# What to do about a modified or incomplete model directory (the commands of supertonic_cli/engine.py).
_FIX = (
    "Run `supertonic-lambda fetch-model --out DIR` for the real model, "
    "or `supertonic-lambda make-model --size tiny|full --out DIR` for a stand-in."
)


@dataclass(frozen=True)
class ReleaseFile:
    """A file's published byte size and SHA-256 (lowercase hex)."""

    size: int
    sha256: str


@dataclass(frozen=True)
class FileCheck:
    path: str  # relative to the model directory, with forward slashes
    status: str
    expected: ReleaseFile
    size: int | None = None  # what is on disk (None when missing)
    sha256: str | None = None  # None when missing, or when a stand-in graph was told by its mark

    @property
    def incomplete(self) -> bool:
        """A modified file shorter than the release's: most likely an interrupted copy or download."""
        return self.status == MODIFIED and self.size is not None and self.size < self.expected.size

    def describe(self) -> str:
        if self.status == MODIFIED:
            return (
                f"{self.path}: {MODIFIED}{' (incomplete)' if self.incomplete else ''}: {self.size:,} bytes, "
                f"SHA-256 {self.sha256}; the release's is {self.expected.size:,} bytes, SHA-256 {self.expected.sha256}"
            )
        if self.status == STANDIN:
            return f"{self.path}: {STANDIN} (the graph carries the stand-in mark: random weights)"
        return f"{self.path}: {self.status}"


def check_file(model_dir: Path, path: str, expected: ReleaseFile) -> FileCheck:
    """How one file of ``model_dir`` compares with the release."""
    local = model_dir / path
    if not local.is_file():
        return FileCheck(path, MISSING, expected)
    size = local.stat().st_size
    # Hashing reads the whole file (a graph is up to 256 MB), the mark a few bytes: a file of another
    # size is not the release's, so a stand-in graph is told by its mark alone.
    digest = file_sha256(local) if size == expected.size else None
    if digest == expected.sha256:
        return FileCheck(path, REAL, expected, size, digest)
    if path.endswith(".onnx") and any_standin([local]):
        return FileCheck(path, STANDIN, expected, size)
    return FileCheck(path, MODIFIED, expected, size, digest or file_sha256(local))


@dataclass(frozen=True)
class ModelCheck:
    model_dir: Path
    files: tuple[FileCheck, ...]

    def with_status(self, status: str) -> list[FileCheck]:
        return [f for f in self.files if f.status == status]

    @property
    def verdict(self) -> str:
        """``real``, ``stand-in`` (complete, with at least one marked graph) or ``modified`` (anything else)."""
        if all(f.status == REAL for f in self.files):
            return REAL
        if all(f.status in (REAL, STANDIN) for f in self.files):
            return STANDIN
        return MODIFIED

    @property
    def ok(self) -> bool:
        """A complete model, real or stand-in: what the engine can load as what it says it is."""
        return self.verdict in (REAL, STANDIN)

    def summary(self) -> str:
        if self.verdict == REAL:
            return f"real model: every file of the release, byte for byte ({len(self.files)} files)"
        if self.verdict == STANDIN:
            graphs = ", ".join(f.path for f in self.with_status(STANDIN))
            return f"stand-in model: random weights, its audio is noise, not speech (stand-in graphs: {graphs})"
        wrong = self.with_status(MODIFIED) + self.with_status(MISSING)
        return "modified: " + ", ".join(f"{f.path} {f.status}" for f in wrong) + f". {_FIX}"


def check_model(model_dir: str | os.PathLike[str], files: Mapping[str, ReleaseFile]) -> ModelCheck:
    """Every file of ``files`` (path to published size and digest) as found in ``model_dir``."""
    root = Path(model_dir)
    return ModelCheck(root, tuple(check_file(root, path, expected) for path, expected in files.items()))
