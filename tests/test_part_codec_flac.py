"""FLAC joined from parts encoded apart: exactly the samples of the file encoded whole, read by ffmpeg and libsndfile."""

from __future__ import annotations

import io
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest
import soundfile as sf

from supertonic_engine.audio import encode
from supertonic_engine.part_codec_flac import MIN_BLOCK, crc8, encoder_block_size, frames
from supertonic_engine.part_codecs import part_codec
from supertonic_engine.part_span import spans

RATE = 44_100


def _joined(samples: np.ndarray, sizes: list[int], leads: list[int] | None = None) -> bytes:
    codec = part_codec("flac")
    assert codec is not None
    parts = [codec.encode_part(samples[s.start : s.end], s) for s in spans(sizes, RATE, leads)]
    part_bytes = [len(p) for p in parts]
    return codec.head(len(samples), RATE, part_bytes) + b"".join(parts) + codec.tail(len(samples), RATE, part_bytes)


def _ffmpeg(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    # crccheck makes ffmpeg's FLAC decoder check every frame's CRC-16 as well as the headers' CRC-8.
    command = [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-err_detect", "crccheck", "-f", "flac", "-i", "pipe:0", *args, "-"]
    return subprocess.run(command, input=data, capture_output=True, check=False)


def _decoded_by_ffmpeg(data: bytes) -> np.ndarray:
    run = _ffmpeg(data, "-f", "s16le")
    assert run.returncode == 0 and run.stderr == b"", run.stderr.decode()
    return np.frombuffer(run.stdout, "<i2")


def _decoded_by_libsndfile(data: bytes) -> np.ndarray:
    samples, rate = sf.read(io.BytesIO(data), dtype="int16")
    assert rate == RATE
    return samples


def _bursts(sizes: list[int], seed: int = 0) -> np.ndarray:
    """Silence with a noise burst and a tone burst in each part, at places that differ part to part."""
    rng = np.random.default_rng(seed)
    samples = np.zeros(sum(sizes), dtype=np.float32)
    for span in spans(sizes, RATE):
        for make in (lambda n: rng.standard_normal(n) * 0.3, lambda n: 0.5 * np.sin(np.arange(n) * 0.07)):
            length = int(rng.integers(1, max(2, span.frames // 3)))
            at = span.start + int(rng.integers(0, span.frames - length + 1))
            samples[at : at + length] = make(length)
    return samples


def _assert_whole_file_samples(joined: bytes, samples: np.ndarray) -> None:
    whole = _decoded_by_libsndfile(encode(samples, RATE, "flac"))
    assert np.array_equal(_decoded_by_ffmpeg(joined), whole)
    assert np.array_equal(_decoded_by_libsndfile(joined), whole)


BLOCK = 4096  # libsndfile's FLAC block size, checked below: the cases around it depend on it


def test_the_encoder_writes_the_block_size_these_cases_are_built_around():
    assert encoder_block_size() == BLOCK


@pytest.mark.parametrize(
    "sizes",
    [
        [40_000],
        [12_345, 30_001, 9_000],
        [BLOCK, 2 * BLOCK, BLOCK, 100],  # whole blocks only
        [BLOCK + 1, 3 * BLOCK + 15, 2 * BLOCK + 16, 5_000, 7],  # remainders under 16, a last part of 7 samples
        [16, 17, 1_000, 4_095, 20],  # parts shorter than one block
    ],
)
def test_joined_flac_decodes_to_exactly_the_whole_files_samples(sizes):
    samples = _bursts(sizes)
    _assert_whole_file_samples(_joined(samples, sizes), samples)


def test_two_hundred_parts_of_random_lengths_decode_to_the_whole_file_with_its_duration():
    rng = np.random.default_rng(7)
    sizes = [int(n) for n in rng.integers(RATE // 2, 4 * RATE, 200)]
    samples = _bursts(sizes, seed=3)
    joined = _joined(samples, sizes)
    assert sf.info(io.BytesIO(joined)).frames == sum(sizes)
    _assert_whole_file_samples(joined, samples)


def test_every_frame_is_numbered_by_its_first_sample_and_only_the_last_holds_under_16():
    # ffmpeg's own parse of the frames: each packet's pts is the coded sample number, its duration the block size.
    sizes = [BLOCK + 1, 2 * BLOCK + 15, 17, BLOCK + 14, 3 * BLOCK, 5]
    run = _ffmpeg(_joined(_bursts(sizes), sizes), "-c", "copy", "-f", "framemd5")
    assert run.stderr == b""
    packets = [line.split(",") for line in run.stdout.decode().splitlines() if not line.startswith("#")]
    starts, blocks = [int(p[2]) for p in packets], [int(p[3]) for p in packets]
    assert starts == list(np.cumsum([0] + blocks[:-1]))
    assert sum(blocks) == sum(sizes)
    assert min(blocks[:-1]) >= MIN_BLOCK and blocks[-1] == 5
    assert max(blocks) <= BLOCK


def _fake_header(number: int) -> bytes:
    """The header libsndfile writes for a full block of frame ``number`` (< 128): 4096 samples at
    44.1 kHz (codes 12 and 9), mono, 16 bits, then its CRC-8."""
    head = bytes([0xFF, 0xF8, 0xC9, 0x08, number])
    return head + bytes([crc8(head)])


def test_a_sync_code_inside_a_frame_is_not_taken_for_the_next_frame():
    # Full-scale noise is stored verbatim, its 16-bit samples byte for byte: three of them spell
    # out a valid header for frame 1 in the middle of frame 0.
    rng = np.random.default_rng(5)
    pcm = rng.integers(-32767, 32768, 3 * BLOCK).astype(np.int16)
    fake = _fake_header(1)
    pcm[1000:1003] = np.frombuffer(fake, ">i2")
    samples = (pcm / 32767.0).astype(np.float32)
    stream = encode(samples[: 2 * BLOCK + 50], RATE, "flac")
    starts = [header.start for header, _ in frames(stream)]
    assert len(starts) == 3 and starts[0] < stream.find(fake) < starts[1]  # the false header is there, inside frame 0
    sizes = [2 * BLOCK + 50, BLOCK - 50]
    _assert_whole_file_samples(_joined(samples, sizes), samples)


def test_a_part_under_16_samples_is_refused_unless_it_ends_the_file():
    codec = part_codec("flac")
    assert codec is not None
    middle, last = spans([5_000, 9, 5_000], RATE)[1], spans([5_000, 9], RATE)[1]
    with pytest.raises(ValueError, match="16 or more"):
        codec.encode_part(np.zeros(9, np.float32), middle)
    assert codec.encode_part(np.zeros(9, np.float32), last)


def test_a_part_whose_samples_differ_from_its_span_is_refused():
    codec = part_codec("flac")
    assert codec is not None
    with pytest.raises(ValueError, match="has 4999 samples, its span 5000"):
        codec.encode_part(np.zeros(4_999, np.float32), spans([5_000, 5_000], RATE)[0])
