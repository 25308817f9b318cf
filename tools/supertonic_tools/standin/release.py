"""The real Supertonic 3 release's small files, vendored byte for byte (see ``release/PROVENANCE.md``).

A stand-in directory holds these exact files beside its random graphs, so everything that reads
them (the text front end's indexer, voices, the config) meets what the real model ships.
"""

from __future__ import annotations

import shutil
from pathlib import Path

RELEASE_DIR = Path(__file__).resolve().parent.parent / "release"
VOICE_NAMES = tuple(f"{gender}{i}" for gender in "MF" for i in range(1, 6))
# Paths inside a model directory, as the release lays them out. The license travels with the voices
# and the indexer: they are the model's files, under its terms.
SMALL_FILES = ("onnx/tts.json", "onnx/unicode_indexer.json", *(f"voice_styles/{name}.json" for name in VOICE_NAMES), "LICENSE")


def copy_small_files(root: Path) -> None:
    """Copy the release's JSON files into the model directory ``root`` (its subdirectories exist)."""
    for relative in SMALL_FILES:
        shutil.copyfile(RELEASE_DIR / relative, root / relative)
