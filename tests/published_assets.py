"""Where the real release's published facts sit for the tests: ``../shared/supertonic-3-assets``
beside the clone (CI always lays it there). It holds the release's small files, byte for byte, and a
README whose tables give every file's published size and SHA-256."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _locate() -> Path:
    """Beside the clone; a linked working tree (``git worktree``) looks beside its main checkout too."""
    checkouts = [REPO_ROOT]
    dot_git = REPO_ROOT / ".git"
    if dot_git.is_file() and (m := re.match(r"gitdir: (.+)/\.git/worktrees/", dot_git.read_text())):
        checkouts.append(Path(m.group(1)))
    candidates = [checkout.parent / "shared" / "supertonic-3-assets" for checkout in checkouts]
    return next((c for c in candidates if c.is_dir()), candidates[0])


PUBLISHED_ASSETS = _locate()


def published_assets() -> Path:
    """The folder, or a skip that says where it was looked for."""
    if not PUBLISHED_ASSETS.is_dir():
        pytest.skip(f"{PUBLISHED_ASSETS} is absent: the published release facts are kept in ../shared beside the clone")
    return PUBLISHED_ASSETS
