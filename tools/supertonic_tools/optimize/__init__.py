"""Prepared graphs: the model's four graphs rewritten for ONNX Runtime's CPU kernels, optimized once.

Run at image build time (``supertonic-lambda prepare-model --model DIR`` or
``python -m supertonic_tools.optimize DIR``); sessions then load the prepared copies and skip the
work at every cold start. Per graph:

1. **Rewrites that keep the arithmetic** (the same products, at most summed in another order):
   pointwise convolutions become channel-last MatMuls (``pointwise.py``: ONNX Runtime's CPU Conv
   splits its work across threads by batch and group only, a MatMul over all frames at once
   threads at any batch), and the estimator runs the blocks where both guidance halves agree on
   one half (``guidance.py``).
2. **ONNX Runtime's optimizer runs once** (fusions such as GELU, LayerNorm and MatMul+Add) at the
   portable "extended" level, and the result is saved with its weights in a separate, page-aligned
   data file, so loading maps the weights instead of parsing them out of a protobuf.
3. **The result is checked**: stock and prepared graphs run on the same random inputs and must agree
   within ``TOLERANCE`` (max abs), or nothing is written.

``precision="int8"`` (opt-in) writes a second set beside the first (``<model>/prepared-int8``):
the text encoder and vector estimator with their MatMuls quantized after the rewrites
(``quantize.py``), checked by signal-to-noise ratio against the source instead
(``INT8_MIN_SNR_DB``); the other two graphs stay in the fp32 set.

``supertonic_engine.prepared`` (no ``onnx`` import, part of the runtime) decides whether a prepared graph matches
its source; this module needs the ``onnx`` package (the ``tools`` extra) and runs only at build time.
"""

from __future__ import annotations

import logging
import math
import shutil
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from supertonic_engine import prepared
from supertonic_engine.assets import load_assets
from supertonic_engine.config import PRECISIONS
from supertonic_engine.errors import ModelError, ModelMissing
from supertonic_engine.files import replace_directory
from supertonic_engine.model_layout import CONFIG_FILE, GRAPHS

from .guidance import share_guidance_prefix
from .pointwise import rewrite_pointwise_convs
from .quantize import QUANTIZED_GRAPHS, QuantSettings, quantize_matmuls, settings_for

logger = logging.getLogger(__name__)

TOLERANCE = 1e-4  # max abs difference allowed between a prepared graph and its source
# Sizes at which a prepared graph is checked against its source: a short and a longer chunk, so a
# rewrite that only holds for some lengths cannot pass.
PROBE_SIZES = ((37, 23), (121, 88))  # (text tokens, latent frames)
# An int8 graph cannot match its source to 1e-4; its outputs must stay this far above their error on
# the probe inputs (measured 52-57 dB for both graphs on the tiny and full stand-ins).
INT8_MIN_SNR_DB = 25.0


@dataclass(frozen=True)
class PreparedGraph:
    """One prepared graph and the evidence that it computes what its source computes."""

    name: str
    path: Path
    pointwise_pairs: int  # Conv k1 pairs now MatMuls
    half_batch_nodes: int  # nodes now run on one guidance half
    max_abs_diff: float
    seconds: float
    quantized_matmuls: int = 0  # int8 only
    snr_db: float = math.inf  # int8 only: the worst output's signal-to-error ratio against the source

    def describe(self) -> str:
        int8 = f", {self.quantized_matmuls} MatMuls int8, SNR {self.snr_db:.1f} dB" if self.quantized_matmuls else ""
        return (
            f"{self.name}: {self.pointwise_pairs} pointwise pairs as MatMul, {self.half_batch_nodes} nodes at half batch{int8}, "
            f"max abs diff {self.max_abs_diff:.2g}, {self.seconds:.1f} s -> {self.path}"
        )


def prepare_model(
    model_dir: str | Path,
    out_dir: str | Path | None = None,
    graphs: Sequence[str] | None = None,
    *,
    precision: str = "fp32",
    isa: str = "auto",
) -> list[PreparedGraph]:
    """Write prepared copies of ``graphs`` and their manifest into ``out_dir`` (default
    ``<model>/prepared``, for int8 ``<model>/prepared-int8``).

    ``precision="int8"`` quantizes the text encoder and vector estimator (the default ``graphs``
    then) with the settings for ``isa`` (``auto``: this CPU; ``vnni`` or ``avx2`` for another
    one, such as the machine the image will run on). The directory is built beside its destination
    and renamed into place, so a reader sees the old set or the new one, never a mix. Raises
    ``ModelError`` when a prepared graph does not match its source within ``TOLERANCE`` (int8:
    ``INT8_MIN_SNR_DB``); nothing is written then.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: use one of {', '.join(PRECISIONS)}")
    quant = settings_for(isa) if precision == "int8" else None
    graphs = tuple(graphs or (QUANTIZED_GRAPHS if quant else GRAPHS))
    assets = load_assets(model_dir)
    # A prepared-only directory loads, but its copies are made from the stock graphs, not from each other.
    absent = [assets.graph_path(name) for name in graphs if not assets.graph_path(name).is_file()]
    if absent:
        raise ModelMissing(
            f"preparing graphs needs the stock graphs, and {assets.root} lacks "
            f"{', '.join(path.relative_to(assets.root).as_posix() for path in absent)}: prepare them where the "
            "stock graphs are (`supertonic-lambda fetch-model --out DIR`, then `prepare-model --model DIR`)"
        )
    target = Path(out_dir).expanduser().absolute() if out_dir else prepared.prepared_dir(assets.root, precision=precision)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        results, entries = [], {}
        for name in graphs:
            source = assets.graph_path(name)
            result, entry = _prepare_graph(name, source, staging, quant if name in QUANTIZED_GRAPHS else None)
            entry["source"]["path"] = source.relative_to(assets.root).as_posix()  # the release's name for it
            results.append(result)
            entries[name] = entry
        model = {CONFIG_FILE: prepared.file_record(assets.root / CONFIG_FILE)}
        prepared.write_manifest(staging, entries, precision=precision, quantization=_quantization_record(quant), model=model)
        staging.chmod(0o755)  # mkdtemp makes it private; images run as another user
        replace_directory(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [replace(r, path=target / r.path.name) for r in results]


def _quantization_record(quant: QuantSettings | None) -> dict | None:
    if quant is None:
        return None
    from supertonic_engine.cpu import cpu_features

    return quant.to_dict() | {"prepared_on": cpu_features().to_dict()}


def _prepare_graph(name: str, source: Path, directory: Path, quant: QuantSettings | None = None) -> tuple[PreparedGraph, dict]:
    started = time.perf_counter()
    stamp = prepared.SourceStamp.of(source)
    model = onnx.load(str(source))
    pairs = rewrite_pointwise_convs(model)
    halved = share_guidance_prefix(model)
    quantized = 0
    if quant is not None:
        model, quantized = quantize_matmuls(model, quant)
    path = directory / f"{name}.onnx"
    save_optimized(model.SerializeToString(), path, prepacked=quant is not None)
    del model
    diff, snr_db = compare_outputs(source, path)
    if quant is None and not diff <= TOLERANCE:
        raise ModelError(
            f"the prepared {name} differs from {source} by {diff:.3g} (more than {TOLERANCE}); "
            "the stock graph stays in use. Report the model revision with this message."
        )
    if quant is not None and not snr_db >= INT8_MIN_SNR_DB:
        raise ModelError(
            f"the int8 {name} is {snr_db:.1f} dB above its error against {source} (less than {INT8_MIN_SNR_DB} dB); "
            "keep fp32 for this model. Report the model revision with this message."
        )
    result = PreparedGraph(name, path, pairs, halved, diff, time.perf_counter() - started, quantized, snr_db)
    logger.info("prepared %s", result.describe())
    entry = {
        "file": path.name,
        "source": {"sha256": stamp.sha256, "size": stamp.size, "mtime_ns": stamp.mtime_ns},
        "pointwise_pairs": pairs,
        "half_batch_nodes": halved,
        "max_abs_diff": diff,
        # What the copy is made of, so that it can be checked where its source is not shipped.
        "files": {file.name: prepared.file_record(file) for file in sorted(directory.glob(f"{path.name}*"))},
    }
    if quant is not None:
        entry |= {"quantized_matmuls": quantized, "snr_db": round(snr_db, 2)}
    return result, entry


def save_optimized(model_bytes: bytes, path: Path, *, prepacked: bool = False) -> None:
    """Run ONNX Runtime's optimizer on ``model_bytes`` and save the result beside ``<path>.data``.

    The "extended" level holds the fusions that are the same on every x86-64 CPU (the "all" level
    adds layouts for this machine's vector width, which the Lambda host may not share). Weights go
    to a data file at page-aligned offsets, which ONNX Runtime maps instead of copying; the fp32
    sessions load them with prepacking off, so they stay in reclaimable page cache rather than in
    the process's own memory, and are read from storage once.

    ``prepacked`` also saves the GEMM kernels' pre-packed copy of each MatMul weight (the int8 set
    does), which a session with prepacking on then uses from the mapped file instead of packing
    into its own memory. It saves no reading: ONNX Runtime 1.32 packs every such weight again from its original
    and refuses a saved copy that differs ("Serialized pre-packed weights ... do not match the
    buffers generated by the current kernel"), so loading reads both, and the packing stays in
    the load time.
    """
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.intra_op_num_threads = 1
    options.optimized_model_filepath = str(path)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", f"{path.name}.data")
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    if prepacked:
        options.add_session_config_entry("session.save_external_prepacked_constant_initializers", "1")
    ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def max_abs_difference(stock: Path, candidate: Path, sizes: Iterable[tuple[int, int]] = PROBE_SIZES) -> float:
    """Largest absolute difference between the outputs of two graphs on the same random inputs."""
    return compare_outputs(stock, candidate, sizes)[0]


def compare_outputs(stock: Path, candidate: Path, sizes: Iterable[tuple[int, int]] = PROBE_SIZES) -> tuple[float, float]:
    """Largest absolute difference, and the lowest signal-to-error ratio in dB, between the outputs
    of two graphs on the same random inputs (``inf`` dB when they are equal)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3
    a = ort.InferenceSession(str(stock), options, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(candidate), options, providers=["CPUExecutionProvider"])
    worst, lowest_snr = 0.0, math.inf
    for text_length, latent_length in sizes:
        feeds = probe_inputs(a, text_length, latent_length)
        for x, y in zip(a.run(None, feeds), b.run(None, feeds), strict=True):
            if x.shape != y.shape:
                return math.inf, -math.inf
            if not x.size:
                continue
            error = x.astype(np.float64) - y
            worst = max(worst, float(np.max(np.abs(error))))
            noise = float(np.mean(error**2))
            if noise > 0:
                lowest_snr = min(lowest_snr, 10 * math.log10(float(np.mean(x.astype(np.float64) ** 2)) / noise))
    return worst, lowest_snr


def probe_inputs(session: ort.InferenceSession, text_length: int, latent_length: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs in the Supertonic contract's ranges: token ids, 0/1 masks with padding, a step of 8, noise."""
    rng = np.random.default_rng(seed)
    sizes = {"batch_size": 1, "text_length": text_length, "latent_length": latent_length}
    feeds = {}
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) else sizes[d] for d in value.shape]
        if value.type == "tensor(int64)":
            feeds[value.name] = rng.integers(0, 128, shape, dtype=np.int64)
        elif value.name.endswith("mask"):
            mask = np.ones(shape, np.float32)
            mask[..., -max(1, shape[-1] // 8) :] = 0.0  # padding at the end, as in a batch of unequal texts
            feeds[value.name] = mask
        elif value.name == "current_step":
            feeds[value.name] = np.full(shape, 3.0, np.float32)
        elif value.name == "total_step":
            feeds[value.name] = np.full(shape, 8.0, np.float32)
        else:
            feeds[value.name] = rng.standard_normal(shape, dtype=np.float32)
    return feeds
