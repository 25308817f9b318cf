"""Which prepared graphs may stand in for a model's stock graphs (``supertonic_tools.optimize`` makes them).

A prepared graph is used only when its manifest entry matches, exactly, what it was made from:
the source graph's SHA-256, the ONNX Runtime version (the saved graph holds that version's fused
operators, and the int8 set's pre-packed weights), the machine architecture (pre-packed weights are
laid out for its GEMM kernels), the format (2: the fp32 set stores each weight once, unpacked) and the recipe (a hash of the optimizer's code). Anything else is stale: the stock
graph is loaded instead and a warning says why and how to rebuild, never silently.

Hashing a 256 MB graph at every cold start would cost a read of the whole file, so the manifest
also records each source's size and modification time as measured when it was hashed: when both
still match, the recorded hash is trusted; when either differs, the file is hashed again.

int8 graphs (``prepare-model --precision int8``) are a second set in ``<prepared dir>-int8``,
keyed the same way, whose manifest also says ``precision`` and the quantization settings.

A prepared set can stand alone: the image ships it without the stock graphs, so that no weight is
stored (and pulled) twice. Where a stock graph is absent there is nothing to compare its copy with,
and a copy whose key matches this process is used, as long as the model's ``tts.json`` is the one the
set was made with (the set and the model directory travel together; another ``tts.json`` says they
were mixed). The manifest keeps what ties such a copy to the release: the stock graph's path, size
and SHA-256, the digests of the files the copy is made of, and the digest of the model's
``tts.json``; ``verify-model`` checks them against the published ones.

Only the standard library is used here: this runs in the image at every cold start. The image
does not ship the optimizer, so there the recipe is not checked: its graphs were prepared by the
same build (the Dockerfile's ``prepared`` stage).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from . import config
from .files import code_fingerprint, file_sha256
from .model_layout import CONFIG_FILE, graph_files

# The graphs int8 quantizes; the other two stay fp32 (kept here, not in the optimizer, which needs onnx).
QUANTIZED_GRAPHS = ("text_encoder", "vector_estimator")

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = 2  # 1: fp32 weights stored twice, also pre-packed (read twice at every cold start)
# Where the optimizer lives; found, never imported (the runtime does not import the build tools).
OPTIMIZER_PACKAGE = "supertonic_tools"


@dataclass(frozen=True)
class SourceStamp:
    """What a prepared graph was made from: the source file's hash, and its size and mtime at hashing."""

    sha256: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> SourceStamp:
        stat = path.stat()
        return cls(sha256=file_sha256(path), size=stat.st_size, mtime_ns=stat.st_mtime_ns)

    @classmethod
    def from_record(cls, record: Mapping) -> SourceStamp:
        """The stamp a manifest entry's ``source`` holds (which also names the stock file's path)."""
        return cls(sha256=record["sha256"], size=record["size"], mtime_ns=record["mtime_ns"])

    def matches(self, path: Path) -> bool:
        """True when ``path`` still holds the bytes this stamp was made from (hashing only if it was touched)."""
        try:
            stat = path.stat()
        except OSError:
            return False
        if stat.st_size != self.size:
            return False
        if stat.st_mtime_ns == self.mtime_ns:
            return True
        return file_sha256(path) == self.sha256


@functools.cache
def recipe() -> str | None:
    """A hash of the code that makes prepared graphs: a changed recipe never reuses older output.
    None where the optimizer is not installed (the image)."""
    spec = importlib.util.find_spec(OPTIMIZER_PACKAGE)  # a top-level name: locates, runs nothing
    if spec is None or not spec.submodule_search_locations:
        return None
    optimizer = Path(next(iter(spec.submodule_search_locations))) / "optimize"
    return code_fingerprint(optimizer)[:12] if optimizer.is_dir() else None


def runtime_key() -> dict[str, str]:
    """The parts of the key that come from this process rather than from the model files (the
    recipe only where the optimizer is installed to hash)."""
    import onnxruntime

    key = {"onnxruntime": onnxruntime.__version__, "machine": platform.machine()}
    made_by = recipe()
    return key if made_by is None else key | {"recipe": made_by}


def prepared_dir(model_dir: Path, env: Mapping[str, str] | None = None, precision: str = "fp32") -> Path:
    """``SUPERTONIC_PREPARED_DIR``, else ``<model dir>/prepared``; the int8 set sits beside it (``...-int8``)."""
    env = os.environ if env is None else env
    explicit = env.get(config.ENV_PREPARED_DIR)
    base = Path(explicit).expanduser() if explicit else model_dir / "prepared"
    return base if precision == "fp32" else base.with_name(f"{base.name}-{precision}")


def read_manifest(directory: Path) -> dict | None:
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("ignoring prepared graphs in %s: unreadable manifest (%s)", directory, exc)
        return None
    return manifest if isinstance(manifest, dict) else None


def file_record(path: Path) -> dict[str, int | str]:
    """A file's size and SHA-256, as a manifest records them."""
    return {"sha256": file_sha256(path), "size": path.stat().st_size}


def write_manifest(
    directory: Path,
    graphs: Mapping[str, dict],
    precision: str = "fp32",
    quantization: Mapping | None = None,
    model: Mapping[str, dict] | None = None,
) -> Path:
    """``model``: the model's own files the set was made with (``onnx/tts.json``), path to ``file_record``."""
    path = directory / MANIFEST
    content = {"format": FORMAT, **runtime_key(), "precision": precision, "graphs": dict(graphs)}
    if model is not None:
        content["model"] = dict(model)
    if quantization is not None:
        content["quantization"] = dict(quantization)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)  # a reader sees the old manifest or the new one, never half of one
    return path


@dataclass(frozen=True)
class Match:
    """Which graphs a prepared set can stand in for, and for each other graph why not."""

    found: dict[str, Path]
    refused: dict[str, str]


def find_prepared(sources: Mapping[str, Path], directory: Path, precision: str = "fp32") -> dict[str, Path]:
    """The prepared graph for each source that has a valid one; stale entries are named in a warning."""
    return match_prepared(sources, directory, precision).found


def match_prepared(sources: Mapping[str, Path], directory: Path, precision: str = "fp32") -> Match:
    """``find_prepared``, with the reason each other source has no copy (for an error where the source is absent too).

    A source that is absent is not compared with its stamp: a set shipped without its stock graphs
    is used as long as its key matches this process and it was made with the model's ``tts.json``.
    """
    manifest = read_manifest(directory)
    if manifest is None:
        return Match({}, dict.fromkeys(sources, f"{directory} holds no readable {MANIFEST}"))
    model_dir = next(iter(sources.values())).parent.parent  # <model>/onnx/<graph>.onnx
    flag = "" if precision == "fp32" else f" --precision {precision}"
    fix = f"rebuild them with `supertonic-lambda prepare-model --model {model_dir}{flag}` or delete {directory}"
    expected = {"format": FORMAT, **runtime_key(), "precision": precision}
    # Manifests written before int8 existed hold fp32 graphs and say nothing about precision.
    differs = [
        f"{k} {manifest.get(k, 'fp32' if k == 'precision' else None)!r} (this process: {v!r})"
        for k, v in expected.items()
        if manifest.get(k, "fp32" if k == "precision" else None) != v
    ]
    if differs:
        made_for = f"the prepared graphs in {directory} were made for {', '.join(differs)}"
        logger.warning("not using the prepared graphs in %s: made for %s; %s", directory, ", ".join(differs), fix)
        return Match({}, dict.fromkeys(sources, made_for))
    found, refused = {}, {}
    entries = manifest.get("graphs") or {}
    # Only where a stock graph is absent: otherwise its stamp vouches for its copy, and a cold start
    # with the stock graphs at hand need not read tts.json twice.
    config_differs = None if all(s.is_file() for s in sources.values()) else other_config(manifest, model_dir, directory)
    for name, source in sources.items():
        entry = entries.get(name)
        if entry is None:
            refused[name] = f"{directory / MANIFEST} lists no prepared {name}"
            continue
        try:
            stamp = SourceStamp.from_record(entry["source"])
            path = directory / entry["file"]
        except (KeyError, TypeError) as exc:
            refused[name] = f"its entry in {directory / MANIFEST} is malformed ({exc})"
            logger.warning("not using the prepared %s: malformed manifest entry (%s); %s", name, exc, fix)
            continue
        if not path.is_file():
            refused[name] = f"{path} is missing"
            logger.warning("not using the prepared %s: %s is missing; %s", name, path, fix)
        elif source.is_file() and not stamp.matches(source):
            refused[name] = f"{source} changed since it was prepared"
            logger.warning("not using the prepared %s: %s changed since it was prepared; %s", name, source, fix)
        elif not source.is_file() and config_differs is not None:
            refused[name] = config_differs
            logger.warning("not using the prepared %s: %s; %s", name, config_differs, fix)
        else:
            found[name] = path
    return Match(found, refused)


def other_config(manifest: Mapping, model_dir: Path, directory: Path) -> str | None:
    """Why the set in ``directory`` was not made with ``model_dir``'s ``tts.json`` (None when it was)."""
    model = manifest.get("model")
    made_with = model.get(CONFIG_FILE) if isinstance(model, dict) else None
    config = model_dir / CONFIG_FILE
    try:
        now = file_record(config)
    except OSError:
        now = None
    if made_with == now:
        return None
    ours = f"{config} is SHA-256 {now['sha256']}" if now else f"{config} cannot be read"
    if not isinstance(made_with, dict):
        return f"{directory / MANIFEST} records no {CONFIG_FILE} it was made with, and {ours}"
    return f"the prepared graphs in {directory} were made with a {CONFIG_FILE} of SHA-256 {made_with.get('sha256')}, and {ours}"


def listed(model_dir: Path, env: Mapping[str, str] | None = None) -> set[str]:
    """The graphs some prepared set of ``model_dir`` (fp32 or int8) has an entry for, matching or not."""
    names: set[str] = set()
    for precision in config.PRECISIONS:
        graphs = (read_manifest(prepared_dir(model_dir, env, precision)) or {}).get("graphs")
        names.update(graphs if isinstance(graphs, dict) else ())
    return names


def quantization(directory: Path) -> dict:
    """The quantization settings an int8 set's manifest records (empty when it records none)."""
    manifest = read_manifest(directory) or {}
    settings = manifest.get("quantization")
    return settings if isinstance(settings, dict) else {}


def has_prepared(model_dir: Path, precision: str = "fp32") -> bool:
    """True when every graph of ``model_dir`` that ``precision`` prepares has a copy that matches it."""
    sources = graph_files(model_dir)
    if precision != "fp32":
        sources = {name: path for name, path in sources.items() if name in QUANTIZED_GRAPHS}
    return len(find_prepared(sources, prepared_dir(model_dir, precision=precision), precision)) == len(sources)
