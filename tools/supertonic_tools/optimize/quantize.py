"""int8 graphs: the text encoder's and vector estimator's MatMuls quantized per channel, dynamically.

ONNX Runtime's own ``quantize_dynamic`` does the work: each MatMul with a constant weight gets
int8 weights with one scale per output channel and a ``DynamicQuantizeLinear`` that quantizes its
input to uint8 at run time (fused by the optimizer into ``DynamicQuantizeMatMul``). Only MatMuls:
the pointwise convolutions are MatMuls already (``pointwise.py``), and ORT's ``ConvInteger`` has no
grouped kernel for the depthwise convolutions. The vocoder and the duration predictor stay fp32:
quantizing a waveform generator turns its output into noise, and durations must not move (the
published Supertonic int8 conversions agree on both).

Settings follow the CPU the graphs are for (``SETTINGS``): with VNNI or AMX the u8 x s8 products
accumulate in 32 bits and full 8-bit weights are safe; on AVX2 they pass through a 16-bit
intermediate (VPMADDUBSW) that saturates, so weights keep 7 bits (``reduce_range``).
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import onnx

from supertonic_engine.cpu import INT8_TARGETS, cpu_features
from supertonic_engine.prepared import QUANTIZED_GRAPHS

__all__ = ["QUANTIZED_GRAPHS", "QuantSettings", "SETTINGS", "quantize_matmuls", "settings_for"]


@dataclass(frozen=True)
class QuantSettings:
    """What ``quantize_dynamic`` is told; recorded in the manifest of the int8 graphs."""

    isa: str  # the int8 GEMM path these are for: vnni (VNNI or AMX) or avx2
    reduce_range: bool  # 7-bit weights: no 16-bit saturation on AVX2 (VPMADDUBSW)
    per_channel: bool = True
    weight_type: str = "QInt8"
    activation_type: str = "QUInt8"  # dynamic quantization always quantizes inputs to uint8
    op_types: tuple[str, ...] = ("MatMul",)

    def to_dict(self) -> dict[str, object]:
        return asdict(self) | {"op_types": list(self.op_types)}


SETTINGS = {
    "vnni": QuantSettings(isa="vnni", reduce_range=False),
    "avx2": QuantSettings(isa="avx2", reduce_range=True),
}
if tuple(SETTINGS) != INT8_TARGETS:  # a check that must hold under python -O too
    raise RuntimeError(f"int8 settings {tuple(SETTINGS)} do not match the targets {INT8_TARGETS}")


def settings_for(isa: str) -> QuantSettings:
    """Settings for ``isa`` (``auto``: this CPU's int8 path; AMX counts as VNNI, anything else as AVX2)."""
    if isa == "auto":
        isa = cpu_features().int8_isa
    return SETTINGS["vnni"] if isa in ("vnni", "amx") else SETTINGS["avx2"]


def quantize_matmuls(model: onnx.ModelProto, settings: QuantSettings) -> tuple[onnx.ModelProto, int]:
    """``model`` with its constant-weight MatMuls in int8, and how many were quantized."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="supertonic-int8-") as work:
        out = Path(work) / "quantized.onnx"
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # its advice to run shape-inference pre-processing: the graphs have static weights
        try:
            quantize_dynamic(
                model,
                out,
                op_types_to_quantize=list(settings.op_types),
                per_channel=settings.per_channel,
                reduce_range=settings.reduce_range,
                weight_type=QuantType[settings.weight_type],
                extra_options={"MatMulConstBOnly": True},
            )
        finally:
            root.setLevel(level)
        quantized = onnx.load(str(out))
    return quantized, sum(n.op_type == "MatMulInteger" for n in quantized.graph.node)
