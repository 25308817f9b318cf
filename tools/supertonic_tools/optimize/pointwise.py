"""Pointwise convolutions of ConvNeXt blocks as MatMuls in channel-last layout.

Every ConvNeXt block ends in ``Transpose -> Conv k=1 (C->H) -> GELU -> Conv k=1 (H->C)``.
``Conv_k1(Transpose(x))`` equals ``Transpose(x @ W^T + b)``, so the first conv can read the
channel-last tensor directly, the elementwise region between the convs runs channel-last, and one
Transpose after the second conv restores the layout the rest of the graph expects: one Transpose
and two Convs become two MatMuls (which ONNX Runtime fuses with the bias and GELU) and a Transpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .graph import GraphIndex, attr, drop_unused, forget_shapes

# Elementwise operators whose other operands are single numbers: they give the same values in any
# layout, so a region made only of them can run channel-last between two pointwise convolutions.
LAYOUT_FREE_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Erf", "Relu", "Tanh", "Sigmoid", "Gelu", "Sqrt", "Softplus"})


def _is_pointwise_conv(node: onnx.NodeProto, index: GraphIndex) -> bool:
    """A 1-D Conv with a constant [out, in, 1] weight, stride 1, no padding and one group."""
    if node.op_type != "Conv" or node.domain not in ("", "ai.onnx"):
        return False
    dims = index.constant_dims(node.input[1])
    if dims is None or len(dims) != 3 or dims[2] != 1:
        return False
    if len(node.input) > 2 and node.input[2] and not index.is_constant(node.input[2]):
        return False
    return (
        attr(node, "group", 1) == 1
        and all(s == 1 for s in attr(node, "strides", [1]))
        and all(p == 0 for p in attr(node, "pads", [0, 0]))
        and attr(node, "auto_pad", b"NOTSET") in (b"NOTSET", b"VALID")
    )


def _is_channel_swap(node: onnx.NodeProto | None) -> TypeGuard[onnx.NodeProto]:
    return node is not None and node.op_type == "Transpose" and list(attr(node, "perm", [])) == [0, 2, 1]


@dataclass
class _PointwisePair:
    """``Conv k1 -> layout-free region -> Conv k1``, fed by a ``[B, N, C] -> [B, C, N]`` Transpose."""

    swap: onnx.NodeProto
    first: onnx.NodeProto
    region: list[onnx.NodeProto]
    second: onnx.NodeProto


def _find_pair(first: onnx.NodeProto, index: GraphIndex) -> _PointwisePair | None:
    swap = index.producer.get(first.input[0])
    if not _is_channel_swap(swap) or not _is_pointwise_conv(first, index):
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
            if _is_pointwise_conv(node, index):
                if (second is not None and second is not node) or node.input[0] != tensor:
                    return None
                second = node
            elif node.op_type not in LAYOUT_FREE_OPS or len(node.output) != 1:
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
    if waiting or second is None:
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
    index = GraphIndex(graph)
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
        back = helper.make_node(
            "Transpose", [second_out], [pair.second.output[0]], name=f"{pair.second.name}/to_channels_first", perm=[0, 2, 1]
        )
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
    drop_unused(graph)
    forget_shapes(graph, relaid)  # those tensors are channel-last now
    return len(pairs)


def _as_matmul(conv: onnx.NodeProto, source: str, output: str, index: GraphIndex) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """``MatMul(source, W^T) [+ b]`` writing ``output``: a pointwise Conv on a channel-last input."""
    kernel = index.constant(conv.input[1])
    if kernel is None:  # _is_pointwise_conv matched only constant weights
        raise ValueError(f"Conv {conv.name or conv.output[0]}: weight {conv.input[1]} is not a constant")
    weight = kernel[:, :, 0]
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
