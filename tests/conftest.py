"""Shared fixtures: the tiny stand-in model is generated once per machine and reused."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir() -> Path:
    """A complete model directory in the official layout with seeded random weights (noise, not speech)."""
    from supertonic_engine.standin import ensure_standin

    return ensure_standin("tiny")
