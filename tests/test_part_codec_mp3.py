"""MP3 parts encoded apart and joined by copying bytes decode like the file encoded whole."""

from __future__ import annotations

import io
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest
import soundfile as sf

from supertonic_engine.audio import encode
from supertonic_engine.part_codec_mp3 import ENCODER_DELAY, MIN_LEAD_FRAMES, SAMPLES_PER_FRAME, Mp3Parts, crc16, frames_for, mpeg_frames
from supertonic_engine.part_codecs import part_codec
from supertonic_engine.part_span import spans

RATE = 44_100
BURST = 0.5  # a tone burst's amplitude, far above the noise standing in for speech
NOISE = 0.02


def _decoded(data: bytes, tmp_path, name: str) -> np.ndarray:
    path = tmp_path / f"{name}.mp3"
    path.write_bytes(data)
    run = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(path), "-f", "f32le", "-ac", "1", "-"], capture_output=True, check=True
    )
    assert run.stderr == b"", run.stderr.decode()
    return np.frombuffer(run.stdout, np.float32)


def _info(data: bytes) -> dict[str, int]:
    frame = data[: mpeg_frames(data)[0][1]]
    xing = 4 + 17
    lame = xing + 8 + 8 + 100 + 4
    delay_padding = int.from_bytes(frame[lame + 21 : lame + 24], "big")
    return {
        "frames": int.from_bytes(frame[xing + 8 : xing + 12], "big"),
        "bytes": int.from_bytes(frame[xing + 12 : xing + 16], "big"),
        "delay": delay_padding >> 12,
        "padding": delay_padding & 0xFFF,
        "tag_crc_ok": int(int.from_bytes(frame[lame + 34 : lame + 36], "big") == crc16(frame[: lame + 34])),
    }


def _main_data_begin(frame: bytes) -> int:
    protected = not (frame[1] & 1)  # protection bit 0: a 16-bit CRC follows the header
    side = 4 + (2 if protected else 0)
    return int.from_bytes(frame[side : side + 2], "big") >> 7


def _book(rng: np.random.Generator, parts: int, speech_s: tuple[float, float], lead_s: tuple[float, float]):
    """A file of ``parts`` parts: silence of random length, then noise with a tone burst at a known place."""
    leads, sizes, bursts, pieces = [], [], [], []
    start = 0
    tone = (BURST * np.sin(2 * np.pi * 1000 * np.arange(int(0.05 * RATE)) / RATE)).astype(np.float32)
    for index in range(parts):
        lead = 0 if index == 0 else int(rng.uniform(*lead_s) * RATE)
        speech = (rng.standard_normal(int(rng.uniform(*speech_s) * RATE)) * NOISE).astype(np.float32)
        at = int(rng.integers(0, speech.size - tone.size))
        speech[at : at + tone.size] += tone
        bursts.append(start + lead + at)
        piece = np.concatenate([np.zeros(lead, np.float32), speech])
        leads.append(lead)
        sizes.append(piece.size)
        pieces.append(piece)
        start += piece.size
    pieces[-1] = np.concatenate([pieces[-1], np.zeros(int(0.3 * RATE), np.float32)])  # the silence after the last part
    sizes[-1] = pieces[-1].size
    return pieces, spans(sizes, RATE, leads), bursts


def _joined(pieces, part_spans) -> bytes:
    codec = part_codec("mp3")
    assert codec is not None
    parts = [codec.encode_part(piece, span) for piece, span in zip(pieces, part_spans, strict=True)]
    total = part_spans[-1].total
    sizes = [len(p) for p in parts]
    return codec.head(total, RATE, sizes) + b"".join(parts) + codec.tail(total, RATE, sizes)


def _onsets(decoded: np.ndarray) -> list[int]:
    loud = np.flatnonzero(np.abs(decoded) > BURST / 2)
    return [int(loud[0])] + [int(b) for a, b in zip(loud[:-1], loud[1:], strict=True) if b - a > 1000]


@pytest.mark.parametrize("frames", [1, 1152, 2000, 44_100, 3 * 44_100 + 17])
def test_lame_frame_count_delay_and_padding_are_what_the_grid_assumes(frames):
    data = encode((np.random.default_rng(frames).standard_normal(frames) * 0.1).astype(np.float32), RATE, "mp3")
    info = _info(data)
    assert len(mpeg_frames(data)) - 1 == info["frames"] == frames_for(frames)
    assert info["delay"] == ENCODER_DELAY
    assert info["padding"] == SAMPLES_PER_FRAME * frames_for(frames) - frames - ENCODER_DELAY
    assert info["tag_crc_ok"]


def test_mp3_has_a_part_codec():
    assert isinstance(part_codec("mp3"), Mp3Parts)


def test_many_parts_join_to_the_whole_files_length_and_burst_positions(tmp_path):
    rng = np.random.default_rng(7)
    pieces, part_spans, bursts = _book(rng, 200, (1.0, 3.0), (0.1, 0.6))
    joined = _joined(pieces, part_spans)
    whole = encode(np.concatenate(pieces), RATE, "mp3")
    joined_pcm, whole_pcm = _decoded(joined, tmp_path, "joined"), _decoded(whole, tmp_path, "whole")
    # Equal to the sample, so well inside 10 ms an hour.
    assert joined_pcm.size == whole_pcm.size == part_spans[-1].total
    # Seams inside the silences leave no click: the samples stay near the whole encode's everywhere.
    assert np.abs(joined_pcm - whole_pcm).max() < NOISE
    whole_onsets, joined_onsets = _onsets(whole_pcm), _onsets(joined_pcm)
    assert len(whole_onsets) == len(joined_onsets) == len(bursts)
    assert np.abs(np.subtract(joined_onsets, whole_onsets)).max() < SAMPLES_PER_FRAME
    assert np.abs(np.subtract(joined_onsets, bursts)).max() < SAMPLES_PER_FRAME


def test_the_info_frame_counts_the_files_frames_and_bytes_and_the_only_one(tmp_path):
    pieces, part_spans, _ = _book(np.random.default_rng(3), 12, (0.5, 4.0), (0.08, 0.4))
    joined = _joined(pieces, part_spans)
    frames = mpeg_frames(joined)
    info = _info(joined)
    assert info["frames"] == len(frames) - 1 == frames_for(part_spans[-1].total)
    assert info["bytes"] == len(joined)
    assert info["delay"] == ENCODER_DELAY and info["tag_crc_ok"]
    tags = [offset for offset, size in frames if joined[offset + 21 : offset + 25] in (b"Xing", b"Info")]
    assert tags == [0]


def test_libsndfile_reads_the_joined_file_at_its_length_and_close_to_the_whole_encode():
    pieces, part_spans, _ = _book(np.random.default_rng(3), 12, (0.5, 4.0), (0.08, 0.4))
    joined, _ = sf.read(io.BytesIO(_joined(pieces, part_spans)), dtype="float32")
    whole, _ = sf.read(io.BytesIO(encode(np.concatenate(pieces), RATE, "mp3")), dtype="float32")
    assert joined.size == whole.size == part_spans[-1].total
    # Parts are encoded apart, so not bit-identical; the seams sit in silence and add no click.
    assert np.abs(joined - whole).max() < NOISE


def test_each_parts_first_frame_reads_no_earlier_frame():
    pieces, part_spans, _ = _book(np.random.default_rng(5), 6, (1.0, 2.0), (0.1, 0.3))
    codec = part_codec("mp3")
    assert codec is not None
    for piece, span in zip(pieces, part_spans, strict=True):
        part = codec.encode_part(piece, span)
        assert _main_data_begin(part) == 0, span.index


def test_parts_of_random_lengths_land_on_the_frame_grid(tmp_path):
    """A part's frames are its grid slot's, whatever the lengths: the file's count never drifts."""
    rng = np.random.default_rng(11)
    pieces, part_spans, bursts = _book(rng, 30, (0.1, 5.0), (MIN_LEAD_FRAMES / RATE, 1.0))
    joined = _joined(pieces, part_spans)
    decoded = _decoded(joined, tmp_path, "random")
    assert decoded.size == part_spans[-1].total
    assert np.abs(np.subtract(_onsets(decoded), bursts)).max() < SAMPLES_PER_FRAME


def test_a_pause_shorter_than_the_seam_needs_still_decodes_to_the_same_length(tmp_path):
    pieces, part_spans, _ = _book(np.random.default_rng(13), 8, (0.5, 1.5), (0.0, 0.02))
    decoded = _decoded(_joined(pieces, part_spans), tmp_path, "short")
    assert decoded.size == part_spans[-1].total
