"""Write a complete stand-in model directory, atomically, and keep one per size/seed in the cache.

A directory is built under a temporary name beside its destination and renamed into place, so a
reader never sees half a model, and two processes generating the same cache entry at once both
end up using one complete copy (the rename that lands first wins; the other is discarded).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from supertonic_engine.assets import graph_files
from supertonic_engine.config import cache_dir
from supertonic_engine.errors import InvalidParameter, ModelCorrupt
from supertonic_engine.files import code_fingerprint, file_sha256, replace_directory
from supertonic_engine.model_layout import GRAPHS as GRAPH_NAMES
from supertonic_engine.standin_marker import GENERATOR_VERSION, NOTE, STANDIN_KEY, any_standin, is_legacy_standin

from .dims import StandinDims, dims_for
from .duration_predictor import build_duration_predictor
from .release import RELEASE_DIR, SMALL_FILES, copy_small_files
from .text_encoder import build_text_encoder
from .vector_estimator import build_vector_estimator
from .vocoder import build_vocoder

logger = logging.getLogger(__name__)

# graph -> which part of the dimensions it takes, and its builder
_GRAPH_PARTS: dict[str, tuple[Callable[[StandinDims], Any], Callable[[Any, np.random.Generator | None], onnx.ModelProto]]] = {
    "duration_predictor": (lambda d: d.duration, build_duration_predictor),
    "text_encoder": (lambda d: d.text, build_text_encoder),
    "vector_estimator": (lambda d: d.estimator, build_vector_estimator),
    "vocoder": (lambda d: d.vocoder, build_vocoder),
}
# file names in the runtime's order of graphs; the order gives each graph its own random stream,
# so graphs do not depend on each other's draws.
GRAPHS = tuple(f"{name}.onnx" for name in GRAPH_NAMES)
REQUIRED_FILES = (*(f"onnx/{name}" for name in GRAPHS), *SMALL_FILES)


def make_model(out_dir: str | Path, size: str = "tiny", seed: int = 0) -> Path:
    """Write a stand-in model directory at ``out_dir`` and return its path.

    Replaces an existing stand-in or an empty directory; refuses to touch anything else (a real
    model, say), raising ``InvalidParameter`` for ``out``.
    """
    target = Path(out_dir).expanduser().absolute()
    _check_request(size, seed)
    if target.exists() and not _replaceable(target):
        raise InvalidParameter(
            f"{target} exists and is not a stand-in model directory; choose another --out or remove it yourself",
            field="out",
        )
    staged = _stage(target, size, seed)
    try:
        replace_directory(staged, target)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return target


def ensure_standin(size: str = "tiny", seed: int = 0) -> Path:
    """The cached stand-in for ``size``/``seed``, generated on first use.

    Lives in ``$SUPERTONIC_CACHE_DIR`` (default ``~/.cache/supertonic-lambda``) under a name that
    includes the generator version and a fingerprint of its code, so a changed generator never
    reuses older files.
    """
    target = cached_standin_dir(size, seed)
    if is_complete(target):
        return target
    if target.exists():  # interrupted or edited by hand: rebuild it in place
        return make_model(target, size, seed)
    staged = _stage(target, size, seed)
    try:
        os.rename(staged, target)
    except OSError:
        # Another process renamed its copy in first; the files are identical, use that one.
        shutil.rmtree(staged, ignore_errors=True)
        if not is_complete(target):
            raise ModelCorrupt(f"stand-in cache {target} is incomplete; delete it and retry") from None
        return target
    _remove_outdated(target, size, seed)
    return target


def cached_standin_dir(size: str = "tiny", seed: int = 0) -> Path:
    """Where ``ensure_standin`` keeps the stand-in for ``size``/``seed`` (it may not exist yet)."""
    _check_request(size, seed)
    return cache_dir() / f"standin-{size}-seed{seed}-v{GENERATOR_VERSION}-{_fingerprint()}"


def is_complete(model_dir: Path) -> bool:
    return all((model_dir / name).is_file() for name in REQUIRED_FILES)


def build_graph(filename: str, size: str = "tiny", seed: int = 0, *, weights: bool = True) -> onnx.ModelProto:
    """One graph of the stand-in, in memory, exactly as ``make_model`` writes it.

    ``weights=False`` gives a weightless skeleton (names and dims only): enough for
    ``graph_flops`` and parameter counts of the full size without drawing 99 M random numbers.
    """
    _check_request(size, seed)
    if filename not in GRAPHS:
        raise ValueError(f"unknown graph {filename!r}; use one of: {', '.join(GRAPHS)}")
    rng = _rng(seed, GRAPHS.index(filename)) if weights else None
    select, build = _GRAPH_PARTS[filename.removesuffix(".onnx")]
    dims = select(dims_for(size))  # the tiny size's differ from what tts.json says: the mark records them
    model = build(dims, rng)
    mark = {"generator_version": GENERATOR_VERSION, "size": size, "seed": seed, "note": NOTE, "dims": dataclasses.asdict(dims)}
    onnx.helper.set_model_props(model, {STANDIN_KEY: json.dumps(mark, sort_keys=True)})
    return model


def write_files(root: Path, size: str, seed: int) -> None:
    """Write every file of the model directory under ``root`` (which must exist)."""
    onnx_dir, voices_dir = root / "onnx", root / "voice_styles"
    onnx_dir.mkdir()
    voices_dir.mkdir()
    for filename in GRAPHS:
        # One graph at a time: the full estimator alone is 256 MB.
        (onnx_dir / filename).write_bytes(build_graph(filename, size, seed).SerializeToString())
    copy_small_files(root)


@functools.cache
def _fingerprint() -> str:
    """A short hash of everything that decides the files: this package's code, the vendored release
    files (its JSON and the widths read from it) and NumPy (its random streams). Any change gives a
    new cache entry, never a stale one."""
    release = ",".join(f"{name}:{file_sha256(RELEASE_DIR / name)}" for name in SMALL_FILES)
    return code_fingerprint(Path(__file__).parent, f"numpy {np.__version__}, release {release}")[:10]


def _check_request(size: str, seed: int) -> None:
    dims_for(size)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InvalidParameter(f"seed must be a non-negative integer, got {seed!r}", field="seed")


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream])


def _stage(target: Path, size: str, seed: int) -> Path:
    """Build the directory under a temporary name beside ``target`` (same filesystem: rename works)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    staged.chmod(0o755)  # mkdtemp makes it private; a model directory is read by other users and images
    started = time.perf_counter()
    try:
        write_files(staged, size, seed)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    logger.info("generated the %s stand-in model (seed %d) in %.1f s", size, seed, time.perf_counter() - started)
    return staged


def _remove_outdated(current: Path, size: str, seed: int) -> None:
    """Delete cache entries of this size and seed made by other generator code: nothing asks for
    them again, and a full one is 400 MB."""
    for entry in current.parent.glob(f"standin-{size}-seed{seed}-v*"):
        if entry != current and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)


def _replaceable(path: Path) -> bool:
    if not path.is_dir():
        return False
    if not any(path.iterdir()):
        return True
    if any_standin(graph_files(path).values()):
        return True
    try:  # a stand-in of the first generator, marked in its tts.json
        return is_legacy_standin(json.loads((path / "onnx" / "tts.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return False
