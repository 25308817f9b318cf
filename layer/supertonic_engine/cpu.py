"""What this CPU can do for ONNX Runtime's kernels: the instruction sets read from ``/proc/cpuinfo``.

Lambda documents AVX2 on x86-64 but not which CPUs run a function, so the engine probes at init,
logs the result and shows it in ``/health``. The int8 graphs depend on it: on AVX2 (and AVX-512
without VNNI) ONNX Runtime's u8 x s8 GEMM sums pairs of products in 16 bits (VPMADDUBSW), which
saturates with full 8-bit weights; VNNI (and AMX) accumulate in 32 bits and do not.

Only the standard library: this runs at every cold start.
"""

from __future__ import annotations

import functools
import platform
from dataclasses import asdict, dataclass
from pathlib import Path

# /proc/cpuinfo flag -> the name reported; avx_vnni is the 256-bit VNNI of CPUs without AVX-512.
PROBED_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
# The CPUs int8 graphs can be made for (``prepare-model --isa``): 32-bit or 16-bit accumulation.
INT8_TARGETS = ("vnni", "avx2")


@dataclass(frozen=True)
class CpuFeatures:
    model: str
    machine: str
    flags: tuple[str, ...]  # the probed flags this CPU has, in PROBED_FLAGS order

    def has(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def accumulates_int8_in_32_bits(self) -> bool:
        """True where full 8-bit weights cannot saturate ONNX Runtime's u8 x s8 GEMM (VNNI, AMX)."""
        return self.int8_isa in ("vnni", "amx")

    @property
    def int8_isa(self) -> str:
        """The int8 GEMM path ONNX Runtime takes here: ``amx``, ``vnni``, ``avx2`` or ``none``."""
        if self.has("amx_int8"):
            return "amx"
        if self.has("avx512_vnni") or self.has("avx_vnni"):
            return "vnni"
        if self.has("avx2"):
            return "avx2"
        return "none"

    def to_dict(self) -> dict[str, object]:
        return asdict(self) | {"int8_isa": self.int8_isa}


def parse_cpuinfo(text: str, machine: str = "") -> CpuFeatures:
    """The first processor's model name and which of ``PROBED_FLAGS`` it lists."""
    model, flags = "", set[str]()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not model:
            model = value.strip()
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
        if model and flags:
            break
    return CpuFeatures(model=model, machine=machine, flags=tuple(f for f in PROBED_FLAGS if f in flags))


@functools.cache
def cpu_features() -> CpuFeatures:
    """This machine's ``CpuFeatures`` (empty flags where ``/proc/cpuinfo`` cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    return parse_cpuinfo(text, platform.machine())
