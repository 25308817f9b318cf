"""The silence at the edges of a chunk: where its sound starts and ends, and trimming the rest.

The real model pads every chunk with 250-600 ms of silence before the speech and 550-850 ms after
it. Other Supertonic servers keep 80 ms before and 200 ms after, counting a 5 ms window as sound
when its RMS is above -45 dB relative to the chunk's peak (superclonica, as gathered in the
project's streaming notes); those are the defaults here.
"""

from __future__ import annotations

import numpy as np

THRESHOLD_DB = -45.0  # a window's RMS relative to the chunk's peak, above which it is sound
WINDOW_S = 0.005
LEAD_S = 0.08  # silence kept before the first sound
TAIL_S = 0.2  # silence kept after the last sound


def speech_bounds(
    samples: np.ndarray, sample_rate: int, *, threshold_db: float = THRESHOLD_DB, window_s: float = WINDOW_S
) -> tuple[int, int]:
    """``(start, end)``: from the first sample of the first window that holds sound to the last sample
    of the last one; ``(0, 0)`` when no window does (all zeros, or nothing at all).

    Windows are counted from the first sample, so each bound is within one window of the true one."""
    samples = np.asarray(samples).reshape(-1)
    if samples.size == 0:
        return 0, 0
    peak = float(np.max(np.abs(samples)))
    if peak == 0.0:
        return 0, 0
    window = max(1, round(window_s * sample_rate))
    starts = np.arange(0, samples.size, window)
    power = np.add.reduceat(np.square(samples, dtype=np.float64), starts) / np.diff(np.append(starts, samples.size))
    # RMS above peak * 10**(dB/20), compared squared.
    sound = np.flatnonzero(power > (peak * 10.0 ** (threshold_db / 20.0)) ** 2)
    if sound.size == 0:
        return 0, 0
    return int(starts[sound[0]]), int(min(samples.size, starts[sound[-1]] + window))


def trim_silence(
    samples: np.ndarray,
    sample_rate: int,
    *,
    lead_s: float = LEAD_S,
    tail_s: float = TAIL_S,
    threshold_db: float = THRESHOLD_DB,
    window_s: float = WINDOW_S,
) -> np.ndarray:
    """``samples`` with at most ``lead_s`` of silence before the first sound and ``tail_s`` after the
    last (a part of it, never anything added); with no sound at all, its first ``lead_s``."""
    lead, tail = round(lead_s * sample_rate), round(tail_s * sample_rate)
    start, end = speech_bounds(samples, sample_rate, threshold_db=threshold_db, window_s=window_s)
    if start == end:
        return samples[:lead]
    return samples[max(0, start - lead) : end + tail]
