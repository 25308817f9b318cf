"""Where the official Supertonic 3 layout keeps each file of a model directory.

Its own module, below both ``assets`` (which reads the directory) and ``prepared`` (which decides
which prepared copies stand in for its graphs), so neither has to import the other for it.
"""

from __future__ import annotations

from pathlib import Path

GRAPHS = ("duration_predictor", "text_encoder", "vector_estimator", "vocoder")
CONFIG_FILE = "onnx/tts.json"
INDEXER_FILE = "onnx/unicode_indexer.json"
VOICES_DIR = "voice_styles"


def graph_files(model_dir: Path) -> dict[str, Path]:
    """Where the official layout keeps each graph: ``<model>/onnx/<name>.onnx``."""
    return {name: model_dir / "onnx" / f"{name}.onnx" for name in GRAPHS}
