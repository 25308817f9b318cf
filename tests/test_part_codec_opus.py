"""Ogg Opus joined from parts encoded apart: one valid stream that decodes like the file encoded whole."""

from __future__ import annotations

import struct
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from supertonic_engine.audio import encode, resample
from supertonic_engine.part_codecs import part_codec
from supertonic_engine.part_span import spans

RATE = 44_100
OPUS_RATE = 48_000
FRAME = 960  # one 20 ms Opus frame at 48 kHz


def _speech_like(sizes: list[int], leads: list[int], seed: int = 0) -> np.ndarray:
    """Noise for speech, exact zeros for the pause each part starts with."""
    samples = (np.random.default_rng(seed).standard_normal(sum(sizes)) * 0.2).astype(np.float32)
    for span in spans(sizes, RATE, leads):
        samples[span.start : span.start + span.lead] = 0.0
    return samples


def _joined(samples: np.ndarray, sizes: list[int], leads: list[int]) -> bytes:
    codec = part_codec("opus")
    assert codec is not None
    parts = [codec.encode_part(samples[s.start : s.end], s) for s in spans(sizes, RATE, leads)]
    part_bytes = [len(p) for p in parts]
    return codec.head(len(samples), RATE, part_bytes) + b"".join(parts) + codec.tail(len(samples), RATE, part_bytes)


def _decoded(data: bytes, tmp_path, name: str) -> np.ndarray:
    """The file as ffmpeg decodes it; ffmpeg must report nothing at all at ``-v error``."""
    path = tmp_path / f"{name}.opus"
    path.write_bytes(data)
    run = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-nostdin", "-v", "error", "-i", str(path), "-f", "f32le", "-ac", "1", "-ar", "48000", "-"],
        capture_output=True,
        check=True,
    )
    assert run.stderr == b"", run.stderr.decode()
    return np.frombuffer(run.stdout, "<f4")


def _crc(data: bytes) -> int:
    """Ogg's CRC-32 (RFC 3533, 6), bit by bit: polynomial 0x04c11db7, most significant bit first, from 0."""
    register = 0
    for byte in data:
        register ^= byte << 24
        for _ in range(8):
            register = ((register << 1) ^ 0x04C11DB7 if register & 0x80000000 else register << 1) & 0xFFFFFFFF
    return register


def _pages(data: bytes) -> list[tuple[int, int, int, int, bool]]:
    """(flags, granule, serial, sequence, CRC valid) of every page, read here independently of the codec."""
    out, at = [], 0
    while at < len(data):
        capture, version, flags, granule, serial, sequence, crc, segments = struct.unpack_from("<4sBBqIIIB", data, at)
        assert (capture, version) == (b"OggS", 0)
        end = at + 27 + segments + sum(data[at + 27 : at + 27 + segments])
        out.append((flags, granule, serial, sequence, _crc(data[at : 22 + at] + b"\0" * 4 + data[at + 26 : end]) == crc))
        at = end
    assert at == len(data)
    return out


def _random_parts(count: int, seed: int, seconds: tuple[int, int] = (1, 3)) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    sizes = [int(s) for s in rng.integers(seconds[0] * RATE, seconds[1] * RATE, count)]
    leads = [0] + [int(x) for x in rng.integers(RATE // 10, RATE // 2, count - 1)]  # pauses of 100-500 ms
    return sizes, leads


def test_two_hundred_parts_decode_without_errors_to_the_whole_files_exact_length(tmp_path):
    sizes, leads = _random_parts(200, seed=1, seconds=(1, 2))
    samples = _speech_like(sizes, leads)
    joined = _decoded(_joined(samples, sizes, leads), tmp_path, "joined")
    whole = _decoded(encode(samples, RATE, "opus"), tmp_path, "whole")
    # Within 10 ms per hour would do; the last page's granule makes it exact.
    assert joined.size == whole.size == round(samples.size * OPUS_RATE / RATE)


def test_pages_are_one_stream_numbered_in_order_with_valid_crcs_and_rising_granules():
    sizes, leads = _random_parts(40, seed=2)
    samples = _speech_like(sizes, leads)
    pages = _pages(_joined(samples, sizes, leads))
    flags, granules, serials, sequences, crcs_valid = zip(*pages, strict=True)
    assert all(crcs_valid)
    assert len(set(serials)) == 1
    assert list(sequences) == list(range(len(pages)))
    assert flags[0] == 0x02 and flags[-1] == 0x04 and not any(flags[1:-1])  # first page opens the stream, last ends it
    audio = granules[2:]  # after OpusHead and OpusTags
    assert all(a < b for a, b in zip(audio, audio[1:], strict=False))
    pre_skip = 312  # libopus's delay at 48 kHz, as the head says
    assert granules[-1] == pre_skip + round(samples.size * OPUS_RATE / RATE)


def _onsets(decoded: np.ndarray) -> np.ndarray:
    """Where each burst starts: the first sample of each run of loud samples after a long quiet."""
    loud = np.flatnonzero(np.abs(decoded) > 0.05)
    return loud[np.concatenate([[True], np.diff(loud) > 4 * FRAME])]


def test_bursts_decode_where_the_whole_file_puts_them(tmp_path):
    # Silence with a 50 ms noise burst at a random place in each part's speech.
    rng = np.random.default_rng(3)
    sizes, leads = _random_parts(30, seed=3)
    samples = np.zeros(sum(sizes), np.float32)
    for span in spans(sizes, RATE, leads):
        at = span.start + span.lead + int(rng.integers(0, span.frames - span.lead - RATE // 20))
        samples[at : at + RATE // 20] = rng.standard_normal(RATE // 20) * 0.3
    joined = _onsets(_decoded(_joined(samples, sizes, leads), tmp_path, "joined"))
    whole = _onsets(_decoded(encode(samples, RATE, "opus"), tmp_path, "whole"))
    assert joined.size == whole.size == len(sizes)
    assert np.max(np.abs(joined - whole)) <= FRAME


def test_parts_seamed_in_silence_decode_close_to_the_whole_file(tmp_path):
    sizes, leads = _random_parts(12, seed=4)
    samples = _speech_like(sizes, leads)
    joined = _decoded(_joined(samples, sizes, leads), tmp_path, "joined")
    whole = _decoded(encode(samples, RATE, "opus"), tmp_path, "whole")
    # Opus does not keep noise's waveform (the whole file's own error is most of the signal), so
    # the joined file is held to the whole file's fidelity to the samples, not to its waveform.
    original = resample(samples, RATE, OPUS_RATE)
    assert _rms(joined - original) <= 1.05 * _rms(whole - original)


def _rms(signal: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(signal, dtype=np.float64))))


def test_parts_without_pauses_still_join_to_a_clean_stream_of_the_right_length(tmp_path):
    sizes = [RATE + 123, 2 * RATE - 7, RATE // 2, 3 * RATE]
    leads = [0] * len(sizes)
    samples = _speech_like(sizes, leads)
    joined = _decoded(_joined(samples, sizes, leads), tmp_path, "joined")
    assert joined.size == round(samples.size * OPUS_RATE / RATE)


def test_a_single_part_is_the_whole_file_as_libsndfile_writes_its_audio(tmp_path):
    samples = _speech_like([3 * RATE], [0])
    joined = _decoded(_joined(samples, [samples.size], [0]), tmp_path, "joined")
    whole = _decoded(encode(samples, RATE, "opus"), tmp_path, "whole")
    # The same encoder fed the same samples makes the same packets, but for the last: libsndfile's
    # close flushes it its own way.
    assert joined.size == whole.size
    assert np.array_equal(joined[: -2 * FRAME], whole[: -2 * FRAME])


def test_a_part_shorter_than_two_opus_frames_is_refused():
    sizes, leads = [RATE, 500, RATE], [0, 0, 0]
    span = spans(sizes, RATE, leads)[1]
    with pytest.raises(ValueError, match="at least 40 ms"):
        part_codec("opus").encode_part(np.zeros(span.frames, np.float32), span)


def test_ogg_vorbis_is_encoded_whole():
    assert part_codec("ogg") is None
