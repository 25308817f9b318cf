"""A small ONNX graph builder: scoped names, seeded random weights, shared constants.

Names follow what ``torch.onnx.export`` writes in the real files, so profiles, error messages and
third-party rewrites that look for a name find it on both: parameters are dotted module paths
(``vector_estimator.tts.ttl.vector_field.main_blocks.3.attn.theta``), nodes are slash paths
(``/vector_estimator/vector_field/main_blocks.0/convnext.0/dwconv/Conv``), a repeated operator in
one scope is numbered (``Tile``, ``Tile_1``, ...) and every node output is ``<node name>_output_<i>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper

# Opset 19 is what the real graphs were exported with (opset-19 ``Equal``); IR 9 is the IR that
# came with opset 19, and every ONNX Runtime since 1.15 loads it.
OPSET = 19
IR_VERSION = 9

Dim = int | str


class GraphBuilder:
    """Collects nodes, initializers and I/O of one graph, then returns a ``ModelProto``."""

    def __init__(self, name: str, param_prefix: str, rng: np.random.Generator | None, node_root: str | None = None) -> None:
        """``rng=None`` builds a weightless skeleton: learned tensors keep their names and dims but
        hold no data. It cannot run, but counting parameters and FLOPs of the full size that way
        takes a fraction of a second instead of drawing 99 M random numbers.

        ``node_root`` is the outermost module of node names when the export had one (the real
        estimator's nodes all sit under ``/vector_estimator/``); by default nodes start at the root."""
        self.name = name
        self._rng = rng
        self._param_scope: list[str] = [param_prefix]
        self._node_scope: list[str] = [name] if node_root is None else [name, node_root]
        # The model is filled in place: copying a 256 MB graph into a fresh proto at the end
        # would double the build time of the full size.
        self._model = onnx.ModelProto()
        self._graph = self._model.graph
        self._graph.name = name
        self._names: set[str] = set()
        self._constants: dict[tuple, str] = {}
        self._node_counts: Counter[str] = Counter()

    # --- naming ---------------------------------------------------------------------------------

    @contextmanager
    def scope(self, name: str, *, nodes: bool = True) -> Iterator[None]:
        """Nest parameter and node names under ``name`` (a module of the original network).

        A dotted path nests one node scope per module, as the exporter does: ``proj_in.net`` gives
        ``/proj_in/net/``, while a list index stays with its list: ``main_blocks.3`` is one scope.
        ``nodes=False`` nests parameters only (a module the export's node names leave out)."""
        segments = _module_segments(name) if nodes else []
        self._param_scope.append(name)
        self._node_scope.extend(segments)
        try:
            yield
        finally:
            self._param_scope.pop()
            del self._node_scope[len(self._node_scope) - len(segments) :]

    def _unique(self, name: str) -> str:
        if name in self._names:
            raise ValueError(f"duplicate tensor name {name!r} in graph {self.name!r}")
        self._names.add(name)
        return name

    # --- initializers -----------------------------------------------------------------------------

    def draw(self, shape: Sequence[int], std: float = 1.0, mean: float = 0.0) -> np.ndarray:
        """Values from N(mean, std^2), taken from the graph's one seeded stream (so builds repeat).

        A skeleton gets the mean instead: the values only feed small derived constants."""
        if self._rng is None:
            return np.full(tuple(shape), mean, np.float32)
        data = self._rng.standard_normal(tuple(shape), dtype=np.float32)
        data *= np.float32(std)
        if mean:
            data += np.float32(mean)
        return data

    def random(self, name: str, shape: Sequence[int], std: float, mean: float = 0.0) -> str:
        """A learned tensor drawn from N(mean, std^2) (dims only in a skeleton)."""
        if self._rng is None:
            tensor = self._graph.initializer.add(name=self._unique(self._param_name(name)))
            tensor.data_type = TensorProto.FLOAT
            tensor.dims.extend(shape)
            return tensor.name
        return self.fixed(name, self.draw(shape, std, mean))

    def fixed(self, name: str, data: np.ndarray) -> str:
        """A named parameter with given values (position tables, folded constants)."""
        return self._add_initializer(self._param_name(name), data)

    def folded(self, op_type: str, data: np.ndarray) -> str:
        """What the exporter leaves of a node it constant-folded: an initializer named after the
        node's output (``/vector_estimator/Expand_output_0``), the node's number taken."""
        return self._add_initializer(f"{self._node_name(op_type)}_output_0", data)

    def _param_name(self, name: str) -> str:
        return ".".join([*self._param_scope, name])

    def const(self, values: npt.ArrayLike, dtype: type = np.int64) -> str:
        """An anonymous constant (axes, pads, shapes, scalars), shared by every node that uses it."""
        array: np.ndarray = np.asarray(values, dtype=dtype)
        key = (array.dtype.str, array.shape, array.tobytes())
        if key not in self._constants:
            self._constants[key] = self._add_initializer(f"onnx::Const_{len(self._constants)}", array)
        return self._constants[key]

    def _add_initializer(self, name: str, data: np.ndarray) -> str:
        tensor = self._graph.initializer.add()
        tensor.name = self._unique(name)
        tensor.data_type = helper.np_dtype_to_tensor_dtype(data.dtype)
        tensor.dims.extend(data.shape)
        tensor.raw_data = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<"), copy=False).tobytes()
        return tensor.name

    def scalar(self, value: float) -> str:
        return self.const(value, np.float32)

    # --- nodes ----------------------------------------------------------------------------------

    def op(self, op_type: str, *inputs: str, outputs: int = 1, **attrs: Any) -> str:
        """Append one node and return its (first) output name."""
        return self.op_multi(op_type, *inputs, outputs=outputs, **attrs)[0]

    def op_multi(self, op_type: str, *inputs: str, outputs: int, **attrs: Any) -> list[str]:
        node_name = self._node_name(op_type)
        names = [self._unique(f"{node_name}_output_{i}") for i in range(outputs)]
        self._graph.node.append(helper.make_node(op_type, list(inputs), names, name=node_name, **attrs))
        return names

    def _node_name(self, op_type: str) -> str:
        """The next name for an ``op_type`` node in the current scope: ``Tile``, ``Tile_1``, ..."""
        key = "/".join(["", *self._node_scope[1:], op_type])
        count = self._node_counts[key]
        self._node_counts[key] += 1
        return f"{key}_{count}" if count else key

    # --- I/O ------------------------------------------------------------------------------------

    def input(self, name: str, elem_type: int, shape: Sequence[Dim]) -> str:
        self._graph.input.append(helper.make_tensor_value_info(self._unique(name), elem_type, list(shape)))
        return name

    def output(self, source: str, name: str, elem_type: int, shape: Sequence[Dim]) -> None:
        """Expose ``source`` as the graph output ``name`` (through an Identity, as exporters do)."""
        self._graph.node.append(helper.make_node("Identity", [source], [self._unique(name)], name=f"/{name}/Identity"))
        self._graph.output.append(helper.make_tensor_value_info(name, elem_type, list(shape)))

    def build(self, doc: str) -> onnx.ModelProto:
        """The finished model; the builder must not be used afterwards."""
        model = self._model
        model.ir_version = IR_VERSION
        model.opset_import.append(helper.make_opsetid("", OPSET))
        model.producer_name = "supertonic-lambda stand-in"
        model.doc_string = doc
        return model


def _module_segments(path: str) -> list[str]:
    """``"convnext.0.dwconv"`` -> ``["convnext.0", "dwconv"]``: node scopes of a module path."""
    segments: list[str] = []
    for part in path.split("."):
        if part.isdigit() and segments:
            segments[-1] += f".{part}"
        else:
            segments.append(part)
    return segments


FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
