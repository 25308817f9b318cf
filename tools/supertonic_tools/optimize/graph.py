"""What the rewrites need to know about an ONNX graph: producers, consumers, constants, ranks."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper


class GraphIndex:
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

    def is_constant(self, name: str) -> bool:
        node = self.producer.get(name)
        return name in self.initializers or (node is not None and node.op_type == "Constant")

    def constant_dims(self, name: str) -> tuple[int, ...] | None:
        """The dims of a constant without reading its data (weights can be hundreds of MB)."""
        if name in self.initializers:
            return tuple(self.initializers[name].dims)
        value = self.constant(name)
        return None if value is None else value.shape

    def is_scalar(self, name: str) -> bool:
        dims = self.constant_dims(name)
        return dims is not None and math.prod(dims) == 1


def attr(node: onnx.NodeProto, name: str, default: Any = None) -> Any:
    """The attribute's value as ONNX decodes it (an int, float, bytes, tensor or list of them), else ``default``."""
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def ranks(model: onnx.ModelProto) -> dict[str, int]:
    """The rank of every tensor ONNX shape inference can tell (symbolic dims are fine: only ranks count)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    out = {t.name: len(t.dims) for t in model.graph.initializer}
    for value in [*inferred.graph.input, *inferred.graph.value_info, *inferred.graph.output]:
        tensor_type = value.type.tensor_type
        if tensor_type.HasField("shape"):
            out[value.name] = len(tensor_type.shape.dim)
    return out


def drop_unused(graph: onnx.GraphProto) -> None:
    """Remove nodes and initializers nothing reads any more."""
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


def forget_shapes(graph: onnx.GraphProto, names: set[str]) -> None:
    """Drop recorded shapes of tensors a rewrite changed; the runtime infers them again."""
    kept = [v for v in graph.value_info if v.name not in names]
    del graph.value_info[:]
    graph.value_info.extend(kept)
