"""A stand-in for the Supertonic 3 model: the official directory layout with seeded random weights.

The real weights are not always at hand (CI, offline machines), yet everything around the model
(sessions, chunking, deadlines, memory, benchmarks) should be exercised at the real cost. The
stand-in has the exact I/O contract of the four real graphs and, at ``size="full"``, their
parameter count, file sizes, operator mix and FLOPs. Its JSON files are the real release's,
byte for byte (``release``); its audio is noise, not speech, and each graph says so in its ONNX
metadata (``supertonic_engine.standin_marker``).

    from supertonic_tools.standin import ensure_standin, make_model, graph_flops
    model_dir = ensure_standin("tiny")                 # cached, generated once
    make_model("/tmp/supertonic-full", size="full")    # ~400 MB, like the real files
    graph_flops(model_dir / "onnx/vocoder.onnx", text_length=100, latent_length=100)
    graph_flops(build_graph("vector_estimator.onnx", "full", weights=False), 100, 100)  # no 256 MB

How a stand-in says what it is lives in the runtime, ``supertonic_engine.standin_marker``: the engine
reads the mark in images that do not install ``onnx``, which the generator and ``graph_flops`` need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from supertonic_engine.standin_marker import GENERATOR_VERSION, STANDIN_KEY, standin_mark

if TYPE_CHECKING:
    from .flops import graph_flops
    from .writer import build_graph, ensure_standin, make_model

__all__ = [
    "GENERATOR_VERSION",
    "STANDIN_KEY",
    "build_graph",
    "ensure_standin",
    "graph_flops",
    "make_model",
    "standin_mark",
]

_LAZY = {"make_model": ".writer", "ensure_standin": ".writer", "build_graph": ".writer", "graph_flops": ".flops"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
