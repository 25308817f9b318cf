"""Files joined from parts encoded apart: byte for byte the file encoded whole, for the formats that can."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from supertonic_engine.audio import encode, to_pcm16
from supertonic_engine.audio_stream import wav_header
from supertonic_engine.part_codecs import part_codec
from supertonic_engine.part_span import PartSpan, spans

RATE = 44_100


def _signal(frames: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(frames) * 0.2).astype(np.float32)


def _joined(fmt: str, samples: np.ndarray, sizes: list[int], leads: list[int] | None = None) -> bytes:
    codec = part_codec(fmt)
    assert codec is not None
    parts = [codec.encode_part(samples[s.start : s.end], s) for s in spans(sizes, RATE, leads)]
    sizes_bytes = [len(p) for p in parts]
    return codec.head(len(samples), RATE, sizes_bytes) + b"".join(parts) + codec.tail(len(samples), RATE, sizes_bytes)


def _with_silences(sizes: list[int], leads: list[int]) -> np.ndarray:
    samples = _signal(sum(sizes))
    for span in spans(sizes, RATE, leads):
        samples[span.start : span.start + span.lead] = 0.0
    return samples


@pytest.mark.parametrize("fmt", ["wav", "pcm"])
@pytest.mark.parametrize(
    ("sizes", "leads"),
    [([40_000], [0]), ([12_345, 30_001, 9_000], [0, 400, 2_000]), ([3_000] * 9 + [20_000], [0] + [34] * 9)],
)
def test_joined_lossless_file_is_the_whole_file_byte_for_byte(fmt, sizes, leads):
    # Parts start with silence as a job's do (the pause before each): pcm's resampler reads across
    # a seam placed in its middle and finds silence there as in the whole file.
    samples = _with_silences(sizes, leads)
    assert _joined(fmt, samples, sizes, leads) == encode(samples, RATE, fmt)


def test_parts_without_silence_between_still_keep_every_sample_of_wav_and_the_length_of_pcm():
    sizes = [12_345, 30_001, 7]
    samples = _signal(sum(sizes))
    assert _joined("wav", samples, sizes) == encode(samples, RATE, "wav")
    pcm = np.frombuffer(_joined("pcm", samples, sizes), "<i2").astype(int)
    whole = np.frombuffer(encode(samples, RATE, "pcm"), "<i2").astype(int)
    assert pcm.size == whole.size
    seams = [round(s.start * 24_000 / RATE) for s in spans(sizes, RATE)[1:]]
    differs = np.flatnonzero(pcm != whole)
    assert all(min(abs(i - seam) for seam in seams) <= 16 for i in differs)  # only where the filter crossed a seam


def test_pcm_parts_never_drift_from_the_file_clock():
    # 24 kHz from 44.1 kHz: each part's length is rounded on the whole file's clock, so a thousand
    # parts of odd lengths still add up to the whole file's samples.
    sizes = [4_411 + (i % 7) for i in range(1000)]
    codec = part_codec("pcm")
    total = sum(len(codec.encode_part(np.zeros(s.frames, np.float32), s)) for s in spans(sizes, RATE))
    assert total == len(encode(np.zeros(sum(sizes), np.float32), RATE, "pcm"))


def test_rf64_header_is_read_as_the_samples_it_announces():
    pcm = to_pcm16(_signal(5_000))
    data = wav_header(RATE, 5_000, rf64=True) + pcm.tobytes()
    info = sf.info(io.BytesIO(data))
    assert (info.format, info.frames, info.samplerate) == ("RF64", 5_000, RATE)
    read, _ = sf.read(io.BytesIO(data), dtype="int16")
    assert np.array_equal(read, pcm)


def test_wav_past_four_gib_becomes_rf64_and_below_stays_riff():
    head = part_codec("wav").head
    assert head(1_000, RATE, [2_000])[:4] == b"RIFF"
    assert head(2**31, RATE, [2**32])[:4] == b"RF64"  # 4 GiB of 16-bit samples


def test_a_span_outside_its_file_or_a_part_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError):
        PartSpan(0, 1, 10, 20, 25, RATE)
    span = spans([100], RATE)[0]
    with pytest.raises(ValueError, match="100"):
        part_codec("wav").encode_part(np.zeros(99, np.float32), span)
