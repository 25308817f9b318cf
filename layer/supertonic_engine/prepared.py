"""Which prepared graphs may stand in for a model's stock graphs (see ``optimize.py`` for how they are made).

A prepared graph is used only when its manifest entry matches, exactly, what it was made from:
the source graph's SHA-256, the ONNX Runtime version (the saved graph holds that version's fused
operators and pre-packed weights), the machine architecture (pre-packed weights are laid out for
its GEMM kernels) and the recipe (a hash of the ``optimize`` package). Anything else is stale: the stock
graph is loaded instead and a warning says why and how to rebuild, never silently.

Hashing a 256 MB graph at every cold start would cost a read of the whole file, so the manifest
also records each source's size and modification time as measured when it was hashed: when both
still match, the recorded hash is trusted; when either differs, the file is hashed again.

int8 graphs (``prepare-model --precision int8``) are a second set in ``<prepared dir>-int8``,
keyed the same way, whose manifest also says ``precision`` and the quantization settings.

Only the standard library is used here: this runs in the image at every cold start.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import logging
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from . import config

# The graphs int8 quantizes; the other two stay fp32 (kept here, not in optimize/, which needs onnx).
QUANTIZED_GRAPHS = ("text_encoder", "vector_estimator")

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = 1
_HASH_BLOCK = 1 << 20


@dataclass(frozen=True)
class SourceStamp:
    """What a prepared graph was made from: the source file's hash, and its size and mtime at hashing."""

    sha256: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> "SourceStamp":
        stat = path.stat()
        return cls(sha256=file_sha256(path), size=stat.st_size, mtime_ns=stat.st_mtime_ns)

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


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@functools.cache
def recipe() -> str:
    """A hash of the code that makes prepared graphs: a changed recipe never reuses older output."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).parent / "optimize").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def runtime_key() -> dict[str, str]:
    """The parts of the key that come from this process rather than from the model files."""
    import onnxruntime

    return {"onnxruntime": onnxruntime.__version__, "machine": platform.machine(), "recipe": recipe()}


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


def write_manifest(directory: Path, graphs: Mapping[str, dict], precision: str = "fp32", quantization: Mapping | None = None) -> Path:
    path = directory / MANIFEST
    content = {"format": FORMAT, **runtime_key(), "precision": precision, "graphs": dict(graphs)}
    if quantization is not None:
        content["quantization"] = dict(quantization)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)  # a reader sees the old manifest or the new one, never half of one
    return path


def find_prepared(sources: Mapping[str, Path], directory: Path, precision: str = "fp32") -> dict[str, Path]:
    """The prepared graph for each source that has a valid one; stale entries are named in a warning."""
    manifest = read_manifest(directory)
    if manifest is None:
        return {}
    model_dir = next(iter(sources.values())).parent.parent  # <model>/onnx/<graph>.onnx
    flag = "" if precision == "fp32" else f" --precision {precision}"
    fix = f"rebuild them with `supertonic-lambda prepare-model --model {model_dir}{flag}` or delete {directory}"
    expected = {"format": FORMAT, **runtime_key(), "precision": precision}
    # Manifests written before int8 existed hold fp32 graphs and say nothing about precision.
    differs = [f"{k} {manifest.get(k, 'fp32' if k == 'precision' else None)!r} (this process: {v!r})"
               for k, v in expected.items() if manifest.get(k, "fp32" if k == "precision" else None) != v]
    if differs:
        logger.warning("not using the prepared graphs in %s: made for %s; %s", directory, ", ".join(differs), fix)
        return {}
    found = {}
    entries = manifest.get("graphs") or {}
    for name, source in sources.items():
        entry = entries.get(name)
        if entry is None:
            continue
        try:
            stamp = SourceStamp(**entry["source"])
            path = directory / entry["file"]
        except (KeyError, TypeError) as exc:
            logger.warning("not using the prepared %s: malformed manifest entry (%s); %s", name, exc, fix)
            continue
        if not stamp.matches(source):
            logger.warning("not using the prepared %s: %s changed since it was prepared; %s", name, source, fix)
        elif not path.is_file():
            logger.warning("not using the prepared %s: %s is missing; %s", name, path, fix)
        else:
            found[name] = path
    return found


def quantization(directory: Path) -> dict:
    """The quantization settings an int8 set's manifest records (empty when it records none)."""
    manifest = read_manifest(directory) or {}
    settings = manifest.get("quantization")
    return settings if isinstance(settings, dict) else {}


def has_prepared(model_dir: Path, precision: str = "fp32") -> bool:
    """True when every graph of ``model_dir`` that ``precision`` prepares has a copy that matches it."""
    from .assets import graph_files

    sources = graph_files(model_dir)
    if precision != "fp32":
        sources = {name: path for name, path in sources.items() if name in QUANTIZED_GRAPHS}
    return len(find_prepared(sources, prepared_dir(model_dir, precision=precision), precision)) == len(sources)


def ensure_prepared(model_dir: Path, precision: str = "fp32") -> bool:
    """Write the prepared graphs the image would ship, unless matching ones are there; True if written."""
    if has_prepared(model_dir, precision):
        return False
    from .optimize import prepare_model  # needs the onnx package: a build-time tool

    logger.warning("preparing the %s graphs of %s (as the image build does; once)", precision, model_dir)
    prepare_model(model_dir, precision=precision)
    return True


def register(subparsers: argparse._SubParsersAction) -> None:
    """``supertonic-lambda prepare-model``: the image build step, also for local model directories."""
    from .cpu import INT8_TARGETS

    p = subparsers.add_parser("prepare-model", help="write prepared graphs (MatMul rewrite, optimized, pre-packed) for a model")
    p.add_argument("--model", default=None, help="model directory (default: $SUPERTONIC_MODEL_DIR)")
    p.add_argument("--out", default=None, help=f"where to write them (default: ${config.ENV_PREPARED_DIR}, else MODEL/prepared)")
    p.add_argument("--precision", choices=config.PRECISIONS, default="fp32",
                   help="int8 (opt-in): quantize the text encoder's and vector estimator's MatMuls, into MODEL/prepared-int8")
    p.add_argument("--isa", choices=("auto", *INT8_TARGETS), default="auto",
                   help="int8 settings for this CPU (auto), or for a VNNI or an AVX2-only CPU (7-bit weights) such as the one the image runs on")
    p.set_defaults(func=prepare_command)


def prepare_command(args: argparse.Namespace) -> int:
    from .assets import resolve_model_dir
    from .errors import ConfigurationError, ModelMissing

    try:
        from .optimize import prepare_model  # needs the onnx package: a build-time tool
    except ModuleNotFoundError as missing:
        raise ConfigurationError(f"prepare-model needs {missing.name}: pip install 'supertonic-lambda[prepare]' (./dev installs it)") from None

    model_dir = resolve_model_dir(args.model)
    if model_dir is None:
        raise ModelMissing(f"prepare-model needs --model DIR or {config.ENV_MODEL_DIR}")
    precision = getattr(args, "precision", "fp32")
    for graph in prepare_model(model_dir, args.out, precision=precision, isa=getattr(args, "isa", "auto")):
        print(graph.describe())
    if precision != "fp32":
        settings = quantization(Path(args.out) if args.out else prepared_dir(model_dir, precision=precision))
        print(
            f"int8 settings for {settings.get('isa')}: per-channel {settings.get('per_channel')}, reduce_range {settings.get('reduce_range')}, "
            f"weights {settings.get('weight_type')}, inputs {settings.get('activation_type')}; select them with {config.ENV_PRECISION}=int8"
        )
    return 0
