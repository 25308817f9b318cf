"""File helpers shared by the runtime and the build tools: hashes, code fingerprints, directory swaps.

Only the standard library: the runtime imports this at every cold start.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from pathlib import Path

_HASH_BLOCK = 1 << 20


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in blocks (graphs are up to 256 MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def code_fingerprint(directory: Path, extra: str = "") -> str:
    """A hash of the ``*.py`` files of ``directory`` (names and bytes) and ``extra``: output made by
    code with another fingerprint is never taken for this code's."""
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(extra.encode())
    return digest.hexdigest()


def replace_directory(staged: Path, target: Path) -> None:
    """Rename ``staged`` (beside ``target``, same filesystem) to ``target``: a reader sees the old
    directory or the new one, never a mix. An existing ``target`` is set aside under a name of its
    own (two processes may swap at once) and put back if the rename fails."""
    if not target.exists():
        os.rename(staged, target)
        return
    retired = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
    os.rename(target, retired)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)
