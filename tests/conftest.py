"""Shared fixtures: the tiny stand-in model is generated once per machine and reused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete model directory in the official layout with seeded random weights (noise, not speech).

    A copy of the cached stand-in without the prepared graphs that ``emulate``/``replay`` may have
    added to it, so every test starts from the stock graphs whatever ran on this machine before.
    """
    from supertonic_tools.standin import ensure_standin

    copy = tmp_path_factory.mktemp("standin") / "tiny"
    return Path(shutil.copytree(ensure_standin("tiny"), copy, ignore=shutil.ignore_patterns("prepared", ".prepared*")))
