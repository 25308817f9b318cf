"""FLOPs of one run of any graph that follows the Supertonic I/O contract, read from the graph.

Counts 2 x multiply-accumulates of ``Conv``, ``MatMul`` and ``Gemm`` (where >99 % of the
model's arithmetic is; element-wise ops are left out). The symbolic input dims
``batch_size``/``text_length``/``latent_length`` are fixed to the given sizes and ONNX shape
inference (with data propagation) gives every tensor's shape. Exporters sometimes compute shapes
in ways ONNX's inference cannot follow; for the few tensors left unknown, the graph is run once
in ONNX Runtime on placeholder inputs of the same sizes and the shapes are read off the results.
Works on the stand-in and on the real files alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

_COUNTED_OPS = frozenset({"Conv", "MatMul", "Gemm"})
# Float initializers bigger than this are only weights: shape inference needs their dims, not data.
_MAX_INLINE_FLOATS = 4096

Shape = tuple[int, ...]


def graph_flops(model: str | Path | onnx.ModelProto, text_length: int, latent_length: int, batch: int = 1) -> int:
    """FLOPs (2 x MACs of Conv/MatMul/Gemm) of one run at the given batch and lengths."""
    proto = model if isinstance(model, onnx.ModelProto) else onnx.load(str(model))
    sizes = {"batch_size": batch, "text_length": text_length, "latent_length": latent_length}
    skeleton, weights = _shape_skeleton(proto, sizes)
    inferred = onnx.shape_inference.infer_shapes(skeleton, data_prop=True)
    shapes = _known_shapes(inferred.graph)
    counted = [n for n in proto.graph.node if n.op_type in _COUNTED_OPS]
    missing = sorted({name for n in counted for name in _operands(n) if name not in shapes})
    if missing:
        shapes.update(_shapes_by_running(skeleton, weights, missing))
    return sum(2 * _macs(node, shapes) for node in counted)


def _operands(node: onnx.NodeProto) -> list[str]:
    """The tensors whose shapes decide a counted node's MACs."""
    if node.op_type == "Conv":
        return [node.input[1], node.output[0]]
    return [node.input[0], node.input[1], node.output[0]]


def _macs(node: onnx.NodeProto, shapes: Mapping[str, Shape]) -> int:
    out = shapes[node.output[0]]
    if node.op_type == "Conv":
        # Each output element sums over (C_in / group) x kernel taps: all of W's dims but the first.
        return math.prod(out) * math.prod(shapes[node.input[1]][1:])
    a = shapes[node.input[0]]
    if node.op_type == "Gemm":
        trans_a = next((attr.i for attr in node.attribute if attr.name == "transA"), 0)
        return math.prod(out) * (a[0] if trans_a else a[1])
    return math.prod(out) * a[-1]  # MatMul: each output element is a dot product over A's last axis


def _shape_skeleton(proto: onnx.ModelProto, sizes: Mapping[str, int]) -> tuple[onnx.ModelProto, set[str]]:
    """The graph with its symbolic input dims fixed and its weights turned into declared inputs.

    Copying only dims keeps shape inference fast on a 256 MB graph; no weight data is needed
    to know any shape. Returns the skeleton and the names of the weights it made inputs.
    """
    skeleton = onnx.ModelProto()
    skeleton.ir_version = proto.ir_version
    skeleton.opset_import.extend(proto.opset_import)
    graph = skeleton.graph
    graph.node.extend(proto.graph.node)
    initializer_names = {t.name for t in proto.graph.initializer}
    for value in proto.graph.input:
        if value.name in initializer_names:
            continue  # old exporters list weights as inputs too; they are handled below
        fixed = graph.input.add()
        fixed.CopyFrom(value)
        for axis, d in enumerate(fixed.type.tensor_type.shape.dim):
            if d.HasField("dim_value"):
                continue
            if d.dim_param not in sizes:
                raise ValueError(
                    f"input {value.name!r} has an unknown dim {d.dim_param or '?'!r} at axis {axis}; "
                    f"this counts graphs whose dynamic dims are named {', '.join(sizes)}"
                )
            d.dim_value = sizes[d.dim_param]
    for value in proto.graph.output:
        graph.output.add(name=value.name)  # drop declared output shapes: inference recomputes them
    weights = set()
    for tensor in proto.graph.initializer:
        if _is_weight(tensor):
            graph.input.append(helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims)))
            weights.add(tensor.name)
        else:
            graph.initializer.append(tensor)
    return skeleton, weights


def _is_weight(tensor: onnx.TensorProto) -> bool:
    """A float tensor that is big or holds no data (a weightless skeleton): only its dims matter."""
    if tensor.data_type != TensorProto.FLOAT:
        return False
    has_data = tensor.HasField("raw_data") or len(tensor.float_data) > 0 or tensor.data_location == TensorProto.EXTERNAL
    return not has_data or math.prod(tensor.dims) > _MAX_INLINE_FLOATS


def _known_shapes(graph: onnx.GraphProto) -> dict[str, Shape]:
    shapes: dict[str, Shape] = {t.name: tuple(t.dims) for t in graph.initializer}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        tensor_type = value.type.tensor_type
        if not tensor_type.HasField("shape"):
            continue
        dims = tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[value.name] = tuple(d.dim_value for d in dims)
    return shapes


def _shapes_by_running(skeleton: onnx.ModelProto, weights: set[str], names: list[str]) -> dict[str, Shape]:
    """Shapes of ``names`` from one ONNX Runtime run of the skeleton on placeholder inputs.

    Weights are fed as zeros (shapes never depend on weight values); float inputs get ones, so
    masks are open and divisions finite; integer inputs get zeros (valid token ids).
    """
    import onnxruntime as ort

    probe = onnx.ModelProto()
    probe.CopyFrom(skeleton)
    declared = {v.name for v in probe.graph.output}
    probe.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names if n not in declared)
    feeds = {}
    for value in probe.graph.input:
        tensor_type = value.type.tensor_type
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        shape = tuple(d.dim_value for d in tensor_type.shape.dim)
        fill = np.zeros if value.name in weights or not np.issubdtype(dtype, np.floating) else np.ones
        feeds[value.name] = fill(shape, dtype)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(probe.SerializeToString(), options, providers=["CPUExecutionProvider"])
    results = session.run(names, feeds)
    return {name: tuple(result.shape) for name, result in zip(names, results, strict=True)}
