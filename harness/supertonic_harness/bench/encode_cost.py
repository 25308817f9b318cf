"""What encoding a second of audio costs, per format: one ``AudioWriter`` over a long file, and one
part encoded at its place in a file joined from parts (what each fan-out worker does for the book,
and again for its chapter's file).

The fan-out planner refuses a job whose assembly would encode more than its invocation can
(``supertonic_function.fanout.ENCODE_MS_PER_AUDIO_S``), and the fan-out simulation adds what each
worker spends on its own part; both come from this table.
"""

from __future__ import annotations

import io
import statistics
import time
from typing import Any

import numpy as np

from supertonic_engine import AudioWriter, available_formats, part_codec
from supertonic_engine.part_span import spans

SAMPLE_RATE = 44_100  # the model's rate
BLOCK_S = 10.0  # a long job's writer is fed a chunk at a time; 10 s is a long paragraph
PART_S = 4.0  # a part of a long job: one chunk of about 300 characters


def _noise(seconds: float, seed: int) -> np.ndarray:
    return (np.random.RandomState(seed).randn(int(seconds * SAMPLE_RATE)) * 0.1).astype(np.float32)


def whole_file_ms_per_s(fmt: str, seconds: float) -> float:
    """Milliseconds one writer spends per second of audio over a ``seconds``-long file."""
    samples = _noise(seconds, 1)
    block = int(BLOCK_S * SAMPLE_RATE)
    started = time.perf_counter()
    with AudioWriter(io.BytesIO(), fmt, SAMPLE_RATE) as writer:
        for start in range(0, samples.size, block):
            writer.write(samples[start : start + block])
    return (time.perf_counter() - started) * 1000.0 / seconds


def part_ms_per_s(fmt: str) -> float | None:
    """Milliseconds a worker spends per second of audio encoding a middle part of a joined file;
    None for a format not joined from parts."""
    codec = part_codec(fmt)
    if codec is None:
        return None
    frames = int(PART_S * SAMPLE_RATE)
    lead = int(0.3 * SAMPLE_RATE)  # the usual pause before a chunk
    span = spans([frames] * 3, SAMPLE_RATE, [lead] * 3)[1]
    samples = np.concatenate([np.zeros(lead, np.float32), _noise(PART_S, 2)[: frames - lead]])
    started = time.perf_counter()
    codec.encode_part(samples, span)
    return (time.perf_counter() - started) * 1000.0 / PART_S


def run_encode_cost(seconds: float = 120.0, runs: int = 2) -> dict[str, Any]:
    rows = []
    for fmt in available_formats():
        whole = [whole_file_ms_per_s(fmt, seconds) for _ in range(runs)]
        parts = [part_ms_per_s(fmt) for _ in range(runs)]
        part_values = [p for p in parts if p is not None]
        rows.append(
            {
                "format": fmt,
                "whole_ms_per_audio_s": [round(v, 2) for v in whole],
                "whole_median": round(statistics.median(whole), 2),
                "part_ms_per_audio_s": [round(v, 2) for v in part_values] or None,
                "part_median": round(statistics.median(part_values), 2) if part_values else None,
            }
        )
    return {"seconds": seconds, "runs": runs, "sample_rate": SAMPLE_RATE, "encode_rows": rows}


def format_encode_table(report: dict[str, Any]) -> str:
    lines = [
        f"Encoding cost per second of audio ({report['seconds']:g} s of noise at {report['sample_rate']} Hz, {report['runs']} runs)",
        f"{'format':<7}{'one writer, ms/s':>24}{'a part joined, ms/s':>26}",
    ]
    for row in report["encode_rows"]:
        whole = " / ".join(f"{v:.1f}" for v in row["whole_ms_per_audio_s"])
        part = " / ".join(f"{v:.1f}" for v in row["part_ms_per_audio_s"]) if row["part_ms_per_audio_s"] else "not joined"
        lines.append(f"{row['format']:<7}{whole:>24}{part:>26}")
    return "\n".join(lines)
