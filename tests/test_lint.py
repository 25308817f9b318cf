"""Static checks of the code itself: ruff (lint and format) over the repository, mypy over the five packages.

Both tools read their configuration from pyproject.toml ([tool.ruff], [tool.mypy]); ruff is pinned
there too, since its formatter's style changes between releases and a gate must not move under us.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, f"ruff check found problems (`./dev ruff check --fix .` fixes most):\n{result.stdout}{result.stderr}"


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    result = _run("ruff", "format", "--no-cache", "--check", ".")
    assert result.returncode == 0, f"files not in ruff's format (`./dev ruff format .` rewrites them):\n{result.stdout}{result.stderr}"


@pytest.mark.slow  # ~1 s with mypy's cache, most of a minute of CPU without it (a fresh checkout, CI)
def test_mypy_is_clean_on_the_packages() -> None:
    result = _run("mypy", "--no-error-summary", "--no-color-output")
    assert result.returncode == 0, f"mypy found problems:\n{result.stdout}{result.stderr}"
