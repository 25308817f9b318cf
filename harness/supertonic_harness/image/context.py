"""The build context: what ``.dockerignore`` lets in, with the chosen model at ``model/``.

The repository's own ``model/`` is the documented place for the model (``fetch-model --out
model``); a build from any other model directory (a generated stand-in, say) gets a context of
its own, so the user's ``model/`` is never touched. ``.dockerignore``'s ``!`` lines are the one
list of what the image is built from; the assembled context holds those paths and nothing else.
Files are hard-linked where they can be, so a 400 MB model is not copied.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .lock import REPO_ROOT

IGNORE_FILE = ".dockerignore"


def allowed_paths(repo: Path = REPO_ROOT) -> list[str]:
    """The paths ``.dockerignore`` lets into the context (its ``!`` lines), without the model."""
    lines = (repo / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
    paths = [line[1:].strip().rstrip("/") for line in lines if line.startswith("!")]
    return [p for p in paths if p != "model"]


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another filesystem: copy
        shutil.copy2(source, target)


def assemble_context(model_dir: Path, target: Path, repo: Path = REPO_ROOT) -> Path:
    """A context in ``target`` (made afresh) holding the repository's allowed paths and ``model_dir``."""
    if not (model_dir / "onnx" / "tts.json").is_file():
        raise FileNotFoundError(f"{model_dir} holds no onnx/tts.json: not a model directory in the official layout")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(repo / IGNORE_FILE, target / IGNORE_FILE)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for relative in allowed_paths(repo):
        source = repo / relative
        if source.is_dir():
            shutil.copytree(source, target / relative, ignore=ignore)
        elif source.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)

    # Graphs prepared on this host (the model's own prepared*/ folders, not a voice named so) stay
    # out: the image prepares its own with its own ONNX Runtime.
    def host_prepared(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n.startswith(("prepared", ".prepared"))} if Path(directory) == model_dir else set()

    shutil.copytree(model_dir, target / "model", copy_function=_link_or_copy, ignore=host_prepared)
    return target
