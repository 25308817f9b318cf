"""Check a model directory file by file against the release's published sizes and SHA-256.

fetch-model checks each download with ``check_file``; ``verify-model`` reports the whole directory
(for a model copied to another machine, or the image's model folder). Each file is one of:

- ``real``: the release's size and digest;
- ``stand-in``: a graph carrying the stand-in mark (random weights, see ``standin_marker``);
- ``modified``: present but neither (a short file is an incomplete download);
- ``missing``.

Only the files of the table are looked at: prepared graphs and other additions are not the release's.
A stock graph that is absent where a prepared set stands in for it (the image ships each graph
once) is judged by what the sets' manifests record: the stock graph each copy was made from (size
and SHA-256, against the release's), the model's ``tts.json`` it was made with, and the digests of
the copy's own files, which must still hold. All sets that hold a copy of the graph must agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from supertonic_engine.assets import graph_files
from supertonic_engine.config import PRECISIONS
from supertonic_engine.files import file_sha256
from supertonic_engine.prepared import file_record, other_config, prepared_dir, read_manifest
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
    # Where the stock graph is absent: the prepared copies (relative paths) it was judged by, and
    # for a modified one, what is wrong with them. size and sha256 are then the recorded ones.
    prepared: tuple[str, ...] = ()
    note: str = ""

    @property
    def incomplete(self) -> bool:
        """A modified file shorter than the release's: most likely an interrupted copy or download."""
        return self.status == MODIFIED and self.size is not None and self.size < self.expected.size

    def describe(self) -> str:
        if self.prepared:
            return self._describe_prepared()
        if self.status == MODIFIED:
            return (
                f"{self.path}: {MODIFIED}{' (incomplete)' if self.incomplete else ''}: {self.size:,} bytes, "
                f"SHA-256 {self.sha256}; the release's is {self.expected.size:,} bytes, SHA-256 {self.expected.sha256}"
            )
        if self.status == STANDIN:
            return f"{self.path}: {STANDIN} (the graph carries the stand-in mark: random weights)"
        return f"{self.path}: {self.status}"

    def _describe_prepared(self) -> str:
        copies = ", ".join(self.prepared)
        if self.status == REAL:
            return (
                f"{self.path}: {REAL} (absent; {copies} made from {self.size:,} bytes, SHA-256 {self.sha256}: the release's, "
                "and unchanged since)"
            )
        if self.status == STANDIN:
            carry = "carries" if len(self.prepared) == 1 else "carry"
            return f"{self.path}: {STANDIN} (absent; {copies} {carry} the stand-in mark: random weights)"
        return f"{self.path}: {self.status} (absent; {copies}: {self.note})"


def check_file(model_dir: Path, path: str, expected: ReleaseFile, env: Mapping[str, str] | None = None) -> FileCheck:
    """How one file of ``model_dir`` compares with the release; ``env`` (default ``os.environ``) says
    where the prepared sets are (``SUPERTONIC_PREPARED_DIR``), as it does to the engine."""
    local = model_dir / path
    if not local.is_file():
        return _check_prepared(model_dir, path, expected, env)
    size = local.stat().st_size
    # Hashing reads the whole file (a graph is up to 256 MB), the mark a few bytes: a file of another
    # size is not the release's, so a stand-in graph is told by its mark alone.
    digest = file_sha256(local) if size == expected.size else None
    if digest == expected.sha256:
        return FileCheck(path, REAL, expected, size, digest)
    if path.endswith(".onnx") and any_standin([local]):
        return FileCheck(path, STANDIN, expected, size)
    return FileCheck(path, MODIFIED, expected, size, digest or file_sha256(local))


def _check_prepared(model_dir: Path, path: str, expected: ReleaseFile, env: Mapping[str, str] | None) -> FileCheck:
    """An absent stock graph, judged by the prepared copies that stand in for it (``missing`` without any)."""
    name = next((n for n, p in graph_files(model_dir).items() if p == model_dir / path), None)
    copies = []  # (set directory, its manifest, the graph's entry)
    for precision in PRECISIONS:
        directory = prepared_dir(model_dir, env, precision)
        manifest = read_manifest(directory) or {}
        entry = (manifest.get("graphs") or {}).get(name) if name else None
        if isinstance(entry, dict):
            copies.append((directory, manifest, entry))
    if not copies:
        return FileCheck(path, MISSING, expected)
    labels = tuple(f"{d.name}/{e.get('file', '?')}" for d, _, e in copies)
    problems, recorded = [], {}
    for (directory, manifest, entry), label in zip(copies, labels, strict=True):
        source = entry.get("source")
        source = source if isinstance(source, dict) else {}
        recorded[label] = (source.get("size"), source.get("sha256"))
        config_differs = other_config(manifest, model_dir, directory)
        if config_differs is not None:
            problems.append(config_differs)
        files = entry.get("files")
        if not isinstance(files, dict) or not files:
            problems.append(f"{label} records no digests of its files: prepare it again")
            continue
        for file, record in files.items():
            local = directory / file
            if not local.is_file() or file_record(local) != record:
                problems.append(f"{directory.name}/{file} changed since it was prepared")
    if len(set(recorded.values())) > 1:
        problems.append(
            "the sets record different stock graphs: "
            + ", ".join(f"{label} {sha} ({size} bytes)" for label, (size, sha) in recorded.items())
        )
    size, sha256 = next(iter(recorded.values()))
    size = size if isinstance(size, int) else None
    sha256 = sha256 if isinstance(sha256, str) else None
    if problems:
        return FileCheck(path, MODIFIED, expected, size, sha256, labels, "; ".join(problems))
    if (size, sha256) == (expected.size, expected.sha256):
        return FileCheck(path, REAL, expected, size, sha256, labels)
    if any_standin(d / e["file"] for d, _, e in copies if "file" in e):
        return FileCheck(path, STANDIN, expected, size, sha256, labels)
    note = f"made from {size} bytes, SHA-256 {sha256}; the release's is {expected.size:,} bytes, SHA-256 {expected.sha256}"
    return FileCheck(path, MODIFIED, expected, size, sha256, labels, note)


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


def check_model(model_dir: str | os.PathLike[str], files: Mapping[str, ReleaseFile], env: Mapping[str, str] | None = None) -> ModelCheck:
    """Every file of ``files`` (path to published size and digest) as found in ``model_dir``."""
    root = Path(model_dir)
    return ModelCheck(root, tuple(check_file(root, path, expected, env) for path, expected in files.items()))
