"""Prepared graphs: the model's four graphs rewritten for ONNX Runtime's CPU kernels, optimized once.

Run at image build time (``supertonic-lambda prepare-model --model DIR`` or
``python -m supertonic_engine.optimize DIR``); sessions then load the prepared copies and skip the
work at every cold start. Per graph:

1. **Pointwise convolutions become MatMuls in channel-last layout.** Every ConvNeXt block ends in
   ``Transpose -> Conv k=1 (C->H) -> GELU -> Conv k=1 (H->C)``. ONNX Runtime's CPU Conv splits its
   work across threads by batch and group only, so at the estimator's batch of 2 (the guidance
   halves) a 2-core machine idles; a MatMul over all frames at once threads well and skips the
   Transpose. The rewrite is exact algebra: the same products, summed in a different order.
2. **ONNX Runtime's optimizer runs once** (fusions such as GELU, LayerNorm and MatMul+Add) at the
   portable "extended" level, and the result is saved with its weights in a separate, page-aligned
   data file, so loading maps the weights instead of parsing them out of a protobuf.
3. **The result is checked**: stock and prepared graphs run on the same random inputs and must agree
   within ``TOLERANCE`` (max abs), or nothing is written.

``prepared.py`` (no ``onnx`` import, part of the runtime) decides whether a prepared graph matches
its source; this module needs the ``onnx`` package (the ``tools`` extra) and runs only at build time.
"""

from __future__ import annotations

import argparse
import logging
import math
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper


from . import prepared
from .assets import GRAPHS, load_assets
from .errors import ModelError

logger = logging.getLogger(__name__)

TOLERANCE = 1e-4  # max abs difference allowed between a prepared graph and its source
# Elementwise operators whose other operands are single numbers: they give the same values in any
# layout, so a region made only of them can run channel-last between two pointwise convolutions.
_LAYOUT_FREE_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Erf", "Relu", "Tanh", "Sigmoid", "Gelu", "Sqrt", "Softplus"})


# --- the rewrite ------------------------------------------------------------------------------------


class _GraphIndex:
    """Who produces and who consumes each tensor, and which tensors are constants."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.producer: dict[str, onnx.NodeProto] = {}
        self.consumers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        for node in graph.node:
            for name in node.output:
                self.producer[name] = node
            for name in node.input:
                if name:
                    self.consumers[name].append(node)
        self.initializers = {t.name: t for t in graph.initializer}
        self.outputs = {v.name for v in graph.output}

    def constant(self, name: str) -> np.ndarray | None:
        """The value of an initializer or a ``Constant`` node's output; None for computed tensors."""
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        node = self.producer.get(name)
        if node is not None and node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    return numpy_helper.to_array(attr.t)
        return None

    def is_scalar(self, name: str) -> bool:
        if name in self.initializers:
            return math.prod(self.initializers[name].dims) == 1
        value = self.constant(name)
        return value is not None and value.size == 1


def _attr(node: onnx.NodeProto, name: str, default: object = None) -> object:
    for attr in node.attribute:
        if attr.name == name:
            return helper.get_attribute_value(attr)
    return default


def _pointwise_conv_weight(node: onnx.NodeProto, index: _GraphIndex) -> np.ndarray | None:
    """The [out, in] weight of a 1-D Conv with kernel 1, stride 1, no padding and one group."""
    if node.op_type != "Conv" or node.domain not in ("", "ai.onnx"):
        return None
    weight = index.constant(node.input[1])
    if weight is None or weight.ndim != 3 or weight.shape[2] != 1:
        return None
    if _attr(node, "group", 1) != 1 or any(s != 1 for s in _attr(node, "strides", [1])):
        return None
    if any(p != 0 for p in _attr(node, "pads", [0, 0])) or _attr(node, "auto_pad", b"NOTSET") not in (b"NOTSET", b"VALID"):
        return None
    return weight[:, :, 0]


def _is_channel_swap(node: onnx.NodeProto | None) -> bool:
    return node is not None and node.op_type == "Transpose" and list(_attr(node, "perm", [])) == [0, 2, 1]


@dataclass
class _PointwisePair:
    """``Conv k1 -> layout-free region -> Conv k1``, fed by a ``[B, N, C] -> [B, C, N]`` Transpose."""

    swap: onnx.NodeProto
    first: onnx.NodeProto
    region: list[onnx.NodeProto]
    second: onnx.NodeProto


def _find_pair(first: onnx.NodeProto, index: _GraphIndex) -> _PointwisePair | None:
    swap = index.producer.get(first.input[0])
    if not _is_channel_swap(swap) or _pointwise_conv_weight(first, index) is None:
        return None
    region: list[onnx.NodeProto] = []
    inside = {first.output[0]}
    second = None
    waiting: dict[int, onnx.NodeProto] = {}  # consumers of the region still missing an operand
    frontier = [first.output[0]]
    while frontier:
        tensor = frontier.pop()
        if tensor in index.outputs:
            return None
        for node in index.consumers[tensor]:
            if _pointwise_conv_weight(node, index) is not None:
                if (second is not None and second is not node) or node.input[0] != tensor:
                    return None
                second = node
            elif node.op_type not in _LAYOUT_FREE_OPS or len(node.output) != 1:
                return None
            elif node.output[0] not in inside:
                waiting[id(node)] = node
        for key, node in list(waiting.items()):
            # A GELU reads the conv output twice (x and erf(x)...): wait until all its operands are in.
            if all(name in inside or index.is_scalar(name) for name in node.input if name):
                del waiting[key]
                region.append(node)
                inside.add(node.output[0])
                frontier.append(node.output[0])
    if waiting:
        return None
    if second is None:
        return None
    # Every tensor of the region must be used only inside it: outside, it would be in the wrong layout.
    members = {id(n) for n in region} | {id(second)}
    for tensor in inside:
        if any(id(n) not in members for n in index.consumers[tensor]):
            return None
    return _PointwisePair(swap, first, region, second)


def rewrite_pointwise_convs(model: onnx.ModelProto) -> int:
    """Rewrite every ``Transpose -> Conv k1 -> elementwise -> Conv k1`` chain as channel-last MatMuls.

    ``Conv_k1(Transpose(x))`` equals ``Transpose(x @ W^T + b)``: the first conv reads the
    channel-last tensor ``x`` directly, the region between the convs runs channel-last (its
    operators are elementwise with scalar operands), and one Transpose after the second conv
    restores the layout the rest of the graph expects. Returns how many chains were rewritten.
    """
    graph = model.graph
    index = _GraphIndex(graph)
    pairs = []
    claimed: set[int] = set()
    for node in graph.node:
        pair = _find_pair(node, index)
        if pair is not None and id(pair.second) not in claimed:
            pairs.append(pair)
            claimed.update({id(pair.first), id(pair.second)})
    if not pairs:
        return 0
    replacements: dict[int, list[onnx.NodeProto]] = {}
    new_initializers: list[onnx.TensorProto] = []
    relaid: set[str] = set()
    for pair in pairs:
        first_nodes, first_inits = _as_matmul(pair.first, pair.swap.input[0], pair.first.output[0], index)
        second_out = pair.second.output[0] + "/channel_last"
        second_nodes, second_inits = _as_matmul(pair.second, pair.second.input[0], second_out, index)
        back = helper.make_node("Transpose", [second_out], [pair.second.output[0]], name=f"{pair.second.name}/to_channels_first", perm=[0, 2, 1])
        replacements[id(pair.first)] = first_nodes
        replacements[id(pair.second)] = [*second_nodes, back]
        new_initializers += first_inits + second_inits
        relaid.add(pair.first.output[0])
        relaid.update(n.output[0] for n in pair.region)
    nodes = []
    for node in graph.node:
        nodes.extend(replacements.get(id(node), [node]))
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(new_initializers)
    _drop_unused(graph)
    # Shapes recorded for the tensors that changed layout would now be wrong: forget them.
    kept = [v for v in graph.value_info if v.name not in relaid]
    del graph.value_info[:]
    graph.value_info.extend(kept)
    return len(pairs)


def _as_matmul(conv: onnx.NodeProto, source: str, output: str, index: _GraphIndex) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """``MatMul(source, W^T) [+ b]`` writing ``output``: a pointwise Conv on a channel-last input."""
    weight = _pointwise_conv_weight(conv, index)
    assert weight is not None
    base = conv.name or conv.output[0]
    w_name = f"{conv.input[1]}/channel_last"
    inits = [numpy_helper.from_array(np.ascontiguousarray(weight.T), w_name)]
    bias = index.constant(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else None
    if bias is None:
        return [helper.make_node("MatMul", [source, w_name], [output], name=f"{base}/matmul")], inits
    b_name = f"{conv.input[2]}/channel_last"
    inits.append(numpy_helper.from_array(bias.reshape(-1), b_name))
    product = f"{output}/product"
    return [
        helper.make_node("MatMul", [source, w_name], [product], name=f"{base}/matmul"),
        helper.make_node("Add", [product, b_name], [output], name=f"{base}/bias"),
    ], inits


def _drop_unused(graph: onnx.GraphProto) -> None:
    """Remove nodes and initializers nothing reads any more (the Transposes and Conv weights replaced)."""
    needed = {v.name for v in graph.output}
    kept: list[onnx.NodeProto] = []
    for node in reversed(graph.node):
        if any(name in needed for name in node.output):
            kept.append(node)
            needed.update(name for name in node.input if name)
    kept.reverse()
    del graph.node[:]
    graph.node.extend(kept)
    initializers = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(initializers)


# --- preparing a model directory ---------------------------------------------------------------------

# Sizes at which a prepared graph is checked against its source: a short and a longer chunk, so a
# rewrite that only holds for some lengths cannot pass.
PROBE_SIZES = ((37, 23), (121, 88))  # (text tokens, latent frames)


@dataclass(frozen=True)
class PreparedGraph:
    """One prepared graph and the evidence that it computes what its source computes."""

    name: str
    path: Path
    rewritten_blocks: int
    max_abs_diff: float
    seconds: float


def prepare_model(model_dir: str | Path, out_dir: str | Path | None = None, graphs: Sequence[str] = GRAPHS) -> list[PreparedGraph]:
    """Write prepared copies of ``graphs`` and their manifest into ``out_dir`` (default ``<model>/prepared``).

    The directory is built beside its destination and renamed into place, so a reader sees the old
    set or the new one, never a mix. Raises ``ModelError`` when a prepared graph does not match its
    source within ``TOLERANCE``; nothing is written then.
    """
    assets = load_assets(model_dir)
    target = Path(out_dir).expanduser().absolute() if out_dir else prepared.prepared_dir(assets.root)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        results, entries = [], {}
        for name in graphs:
            result, entry = _prepare_graph(name, assets.graph_path(name), staging)
            results.append(result)
            entries[name] = entry
        prepared.write_manifest(staging, entries)
        staging.chmod(0o755)  # mkdtemp makes it private; images run as another user
        _swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [PreparedGraph(r.name, target / r.path.name, r.rewritten_blocks, r.max_abs_diff, r.seconds) for r in results]


def _prepare_graph(name: str, source: Path, directory: Path) -> tuple[PreparedGraph, dict]:
    started = time.perf_counter()
    stamp = prepared.SourceStamp.of(source)
    model = onnx.load(str(source))
    rewritten = rewrite_pointwise_convs(model)
    path = directory / f"{name}.onnx"
    save_optimized(model.SerializeToString(), path)
    del model
    diff = max_abs_difference(source, path)
    if not diff <= TOLERANCE:
        raise ModelError(
            f"the prepared {name} differs from {source} by {diff:.3g} (more than {TOLERANCE}); "
            "the stock graph stays in use. Report the model revision with this message."
        )
    seconds = time.perf_counter() - started
    logger.info("prepared %s: %d pointwise pairs as MatMul, max abs diff %.2g, %.1f s", name, rewritten, diff, seconds)
    entry = {
        "file": path.name,
        "source": {"sha256": stamp.sha256, "size": stamp.size, "mtime_ns": stamp.mtime_ns},
        "rewritten_blocks": rewritten,
        "max_abs_diff": diff,
    }
    return PreparedGraph(name, path, rewritten, diff, seconds), entry


def save_optimized(model_bytes: bytes, path: Path) -> None:
    """Run ONNX Runtime's optimizer on ``model_bytes`` and save the result beside ``<path>.data``.

    The "extended" level holds the fusions that are the same on every x86-64 CPU (the "all" level
    adds layouts for this machine's vector width, which the Lambda host may not share). Weights go
    to a data file at page-aligned offsets, which ONNX Runtime maps instead of copying; MatMul
    weights are also saved pre-packed for the GEMM kernels (a layout shared by every x86-64 SGEMM
    kernel of the same ONNX Runtime version), so loading neither parses nor re-packs them and they
    stay in reclaimable page cache rather than in the process's own memory.
    """
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.intra_op_num_threads = 1
    options.optimized_model_filepath = str(path)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", f"{path.name}.data")
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    options.add_session_config_entry("session.save_external_prepacked_constant_initializers", "1")
    ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def max_abs_difference(stock: Path, candidate: Path, sizes: Iterable[tuple[int, int]] = PROBE_SIZES) -> float:
    """Largest absolute difference between the outputs of two graphs on the same random inputs."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3
    a = ort.InferenceSession(str(stock), options, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(candidate), options, providers=["CPUExecutionProvider"])
    worst = 0.0
    for text_length, latent_length in sizes:
        feeds = probe_inputs(a, text_length, latent_length)
        for x, y in zip(a.run(None, feeds), b.run(None, feeds), strict=True):
            if x.shape != y.shape:
                return math.inf
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y))) if x.size else 0.0)
    return worst


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
            mask[..., -max(1, shape[-1] // 8):] = 0.0  # padding at the end, as in a batch of unequal texts
            feeds[value.name] = mask
        elif value.name == "current_step":
            feeds[value.name] = np.full(shape, 3.0, np.float32)
        elif value.name == "total_step":
            feeds[value.name] = np.full(shape, 8.0, np.float32)
        else:
            feeds[value.name] = rng.standard_normal(shape, dtype=np.float32)
    return feeds


def _swap_in(staged: Path, target: Path) -> None:
    if target.exists():
        retired = target.with_name(f".{target.name}.old")
        shutil.rmtree(retired, ignore_errors=True)
        target.rename(retired)
        staged.rename(target)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        staged.rename(target)


def main(argv: list[str] | None = None) -> int:
    """``python -m supertonic_engine.optimize MODEL_DIR [--out DIR]``: the image build step (no CLI needed)."""
    parser = argparse.ArgumentParser(prog="python -m supertonic_engine.optimize", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="model directory in the official layout")
    parser.add_argument("--out", default=None, help="where to write the prepared graphs (default: MODEL/prepared)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    return prepared.prepare_command(args)


if __name__ == "__main__":
    raise SystemExit(main())
