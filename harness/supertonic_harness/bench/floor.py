"""The hardware floor of a request: the model's FLOPs over this machine's measured fp32 GEMM rate.

No pipeline can beat it on these cores with fp32 ONNX Runtime kernels, so ``RTF / floor RTF`` says
how much of each side's time is overhead rather than arithmetic.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from supertonic_engine.assets import graph_files


class FlopModel:
    """FLOPs of each graph as an exact quadratic in (text tokens T, latent frames L), fitted from the graphs.

    Convolutions and projections grow with T or L, attention with T*L and T^2, so six evaluations of the
    graph's own FLOP count per graph determine it; counting from the graph is what makes the floor honest
    for any model directory, the real one included.
    """

    POINTS = ((40, 30), (80, 30), (40, 90), (120, 60), (160, 150), (60, 200))

    def __init__(self, model_dir: Path) -> None:
        import onnx

        from supertonic_tools.standin import graph_flops

        self.coefficients = {}
        design = np.array([self._terms(t, f) for t, f in self.POINTS], dtype=np.float64)
        for name, path in graph_files(model_dir).items():
            graph = onnx.load(str(path))  # parsed once, counted six times
            values = np.array([graph_flops(graph, t, f) for t, f in self.POINTS], dtype=np.float64)
            self.coefficients[name] = np.linalg.solve(design, values)

    @staticmethod
    def _terms(t: float, f: float) -> list[float]:
        return [1.0, t, f, t * f, t * t, f * f]

    def graph(self, name: str, t: int, f: int) -> float:
        return float(np.dot(self.coefficients[name], self._terms(t, f)))

    def request_gflop(self, tokens: list[int], frames: list[int], steps: int) -> float:
        """GFLOPs of a request whose chunks have these token and latent-frame counts."""
        total = 0.0
        for t, f in zip(tokens, frames, strict=True):
            total += self.graph("duration_predictor", t, f) + self.graph("text_encoder", t, f)
            total += steps * self.graph("vector_estimator", t, f) + self.graph("vocoder", t, f)
        return total / 1e9


def measure_gemm_gflops(threads: int, seconds: float = 1.5) -> float:
    """fp32 GEMM rate of ONNX Runtime's CPU kernels at the pointwise layers' shape (2L x 512 x 2048)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    m, k, n = 400, 512, 2048
    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((k, n)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        initializer=[weight],
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((m, k)).astype(np.float32)
    for _ in range(3):
        session.run(None, {"x": x})
    # The best of short windows: other processes on the machine only ever slow a window down.
    best, deadline = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        count, started = 0, time.perf_counter()
        while count < 5:
            session.run(None, {"x": x})
            count += 1
        best = max(best, 2 * m * k * n * count / (time.perf_counter() - started) / 1e9)
    return best
