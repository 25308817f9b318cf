"""Silence at a chunk's edges: bounds of the sound found within a window, pads kept, nothing added."""

from __future__ import annotations

import numpy as np
import pytest

from supertonic_engine.silence import speech_bounds, trim_silence

SR = 44_100
WINDOW = round(0.005 * SR)


def burst(before_s: float, sound_s: float, after_s: float, *, floor_db: float | None = None, seed: int = 0) -> tuple[np.ndarray, int, int]:
    """A 440 Hz sine of peak 0.5 between stretches of silence (zeros, or noise ``floor_db`` below the peak);
    returns the signal and the first and last-plus-one samples of the sine."""
    start, length = round(before_s * SR), round(sound_s * SR)
    total = start + length + round(after_s * SR)
    rng = np.random.default_rng(seed)
    signal = np.zeros(total, np.float32)
    if floor_db is not None:
        # Gaussian noise whose RMS is floor_db relative to the sine's peak.
        signal += (rng.standard_normal(total) * 0.5 * 10 ** (floor_db / 20)).astype(np.float32)
    signal[start : start + length] = 0.5 * np.sin(2 * np.pi * 440 * np.arange(length) / SR, dtype=np.float64).astype(np.float32)
    return signal, start, start + length


@pytest.mark.parametrize("floor_db", [None, -60.0])
@pytest.mark.parametrize(("before_s", "after_s"), [(0.4, 0.7), (0.25, 0.85), (0.0123, 0.0), (0.0, 0.5)])
def test_bounds_are_those_of_the_sound_within_one_window(floor_db, before_s, after_s):
    signal, first, last = burst(before_s, 1.0, after_s, floor_db=floor_db)
    start, end = speech_bounds(signal, SR)
    assert abs(start - first) < WINDOW and abs(end - last) < WINDOW


@pytest.mark.parametrize("floor_db", [None, -60.0])
def test_trimming_keeps_the_pads_around_the_sound(floor_db):
    signal, first, _ = burst(0.5, 0.8, 0.8, floor_db=floor_db)
    trimmed = trim_silence(signal, SR)
    start, end = speech_bounds(signal, SR)
    # A stretch of the input, from 80 ms before the first sound to 200 ms after the last.
    offset = start - round(0.08 * SR)
    np.testing.assert_array_equal(trimmed, signal[offset : end + round(0.2 * SR)])
    assert abs(offset - (first - round(0.08 * SR))) < WINDOW and trimmed.size < signal.size


def test_other_pads_and_a_threshold_under_the_floor():
    signal, first, last = burst(0.5, 0.3, 0.5, floor_db=-40.0)
    # At -45 dB the -40 dB floor is sound: nothing to trim.
    assert speech_bounds(signal, SR) == (0, signal.size)
    np.testing.assert_array_equal(trim_silence(signal, SR), signal)
    # At -30 dB it is silence again; pads of 10 ms and none.
    start, end = speech_bounds(signal, SR, threshold_db=-30.0)
    assert abs(start - first) < WINDOW and abs(end - last) < WINDOW
    assert trim_silence(signal, SR, lead_s=0.01, tail_s=0.0, threshold_db=-30.0).size == end - (start - round(0.01 * SR))


def test_pads_longer_than_the_silence_add_nothing():
    signal, _, _ = burst(0.05, 0.5, 0.1)
    trimmed = trim_silence(signal, SR, lead_s=1.0, tail_s=1.0)
    np.testing.assert_array_equal(trimmed, signal)


@pytest.mark.parametrize("signal", [np.zeros(SR, np.float32), np.zeros(100, np.float32), np.zeros(0, np.float32)])
def test_a_chunk_without_sound_keeps_its_lead_of_silence(signal):
    assert speech_bounds(signal, SR) == (0, 0)
    trimmed = trim_silence(signal, SR)
    assert trimmed.size == min(signal.size, round(0.08 * SR)) and not trimmed.any()


def test_a_last_window_shorter_than_the_others_counts_as_sound_on_its_own():
    signal = np.zeros(10 * WINDOW + 7, np.float32)
    signal[-3:] = 0.5  # the loud samples fall in the short last window only
    assert speech_bounds(signal, SR) == (10 * WINDOW, signal.size)
