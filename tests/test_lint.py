"""mypy over the five packages, with the configuration in pyproject.toml's [tool.mypy]."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # ~1 s with mypy's cache, most of a minute of CPU without it (a fresh checkout, CI)
def test_mypy_is_clean_on_the_packages() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-color-output"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    errors = result.stdout + result.stderr
    assert result.returncode == 0, f"mypy found problems:\n{errors}"
