"""StreamEncoder: bytes sendable as they are made, which decode as ``encode()``'s do."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
import soundfile as sf

from supertonic_engine import audio
from supertonic_engine.audio_stream import OPUS_PAGE_LATENCY_MS, StreamEncoder, _UnsentBytes

SR = 44_100
MP3_FRAME = 1152  # samples per MPEG-1 Layer III frame


def noise(seconds: float, seed: int = 1) -> np.ndarray:
    return (0.3 * np.random.default_rng(seed).standard_normal(int(seconds * SR))).astype(np.float32)


def streamed(fmt: str, chunks: list[np.ndarray], **kwargs: object) -> tuple[list[bytes], StreamEncoder]:
    encoder = StreamEncoder(fmt, SR, **kwargs)  # type: ignore[arg-type]
    parts = [encoder.write(chunk) for chunk in chunks]
    parts.append(encoder.close())
    return parts, encoder


def three_seconds() -> tuple[np.ndarray, list[np.ndarray]]:
    signal = noise(3.0)
    return signal, [signal[i * SR : (i + 1) * SR] for i in range(3)]


@pytest.mark.parametrize("fmt", audio.available_formats())
def test_every_write_of_a_second_returns_bytes_to_send(fmt: str) -> None:
    signal, chunks = three_seconds()
    parts, encoder = streamed(fmt, chunks, total_frames=signal.size)
    assert all(parts[:3]), [len(p) for p in parts]
    assert encoder.frames == signal.size
    assert encoder.bytes_out == sum(map(len, parts))


@pytest.mark.parametrize("fmt", ["wav", "pcm"])
def test_the_stream_is_byte_for_byte_the_whole_file(fmt: str) -> None:
    signal, chunks = three_seconds()
    parts, _ = streamed(fmt, chunks, total_frames=signal.size)
    assert b"".join(parts) == audio.encode(signal, SR, fmt)


def test_a_flac_stream_decodes_to_the_samples_and_states_its_length() -> None:
    signal, chunks = three_seconds()
    parts, _ = streamed("flac", chunks, total_frames=signal.size)
    decoded, rate = sf.read(io.BytesIO(b"".join(parts)), dtype="int16")
    assert rate == SR
    np.testing.assert_array_equal(decoded, audio.to_pcm16(signal))


def test_a_flac_stream_of_unknown_length_says_total_samples_zero() -> None:
    signal, chunks = three_seconds()
    data = b"".join(streamed("flac", chunks)[0])
    # STREAMINFO's last 36 bits before the MD5 are the total samples; 0 is "unknown" (RFC 9639, 8.2).
    assert data[:4] == b"fLaC"
    assert int.from_bytes(data[18:26], "big") & ((1 << 36) - 1) == 0
    known = b"".join(streamed("flac", chunks, total_frames=signal.size)[0])
    assert int.from_bytes(known[18:26], "big") & ((1 << 36) - 1) == signal.size


def test_a_wav_of_unknown_length_says_so_and_still_decodes() -> None:
    signal, chunks = three_seconds()
    data = b"".join(streamed("wav", chunks)[0])
    riff_size, data_size = struct.unpack_from("<I", data, 4)[0], struct.unpack_from("<I", data, 40)[0]
    assert (riff_size, data_size) == (0xFFFFFFFF, 0xFFFFFFFF)
    decoded, rate = sf.read(io.BytesIO(data), dtype="int16")
    assert rate == SR
    np.testing.assert_array_equal(decoded, audio.to_pcm16(signal))


def test_a_wav_header_holds_the_audio_to_its_length() -> None:
    short = StreamEncoder("wav", SR, total_frames=SR)
    short.write(noise(0.5))
    with pytest.raises(ValueError, match="promised 44100 frames but 22050"):
        short.close()
    long = StreamEncoder("wav", SR, total_frames=SR)
    long.write(noise(0.5))
    with pytest.raises(ValueError, match="promised 44100"):
        long.write(noise(0.6))


@pytest.mark.parametrize("fmt", [f for f in ("ogg", "opus", "mp3") if f in audio.available_formats()])
def test_a_lossy_stream_decodes_to_the_length_of_the_whole_file(fmt: str) -> None:
    signal, chunks = three_seconds()
    decoded, rate = sf.read(io.BytesIO(b"".join(streamed(fmt, chunks)[0])), dtype="float32")
    whole, whole_rate = sf.read(io.BytesIO(audio.encode(signal, SR, fmt)), dtype="float32")
    assert rate == whole_rate
    if fmt == "mp3":
        # No Xing/LAME frame survives to trim LAME's priming and padding: the stream decodes with
        # them, plus the placeholder frame (silent) that frame was to fill. Measured: 2,484 samples.
        assert signal.size <= decoded.size <= signal.size + 3 * MP3_FRAME
    else:  # Ogg's last granule position trims the padding, as in the whole file
        assert decoded.size == whole.size


def _last_granule(data: bytes) -> int:
    position, granule = 0, -1
    while position < len(data):
        assert data[position : position + 4] == b"OggS"
        granule = struct.unpack_from("<q", data, position + 6)[0]
        segments = data[position + 27 : position + 27 + data[position + 26]]
        position += 27 + len(segments) + sum(segments)
    return granule


@pytest.mark.skipif("opus" not in audio.available_formats(), reason="this libsndfile has no Opus encoder")
def test_an_opus_page_leaves_each_write_at_most_the_page_latency_behind() -> None:
    _, chunks = three_seconds()
    encoder, sent = StreamEncoder("opus", SR), b""
    opus_frame = 960  # 20 ms at 48 kHz, libsndfile's Opus frame
    for written, chunk in enumerate(chunks, start=1):
        sent += encoder.write(chunk)
        # Granule positions count the encoder's look-ahead (OpusHead's pre-skip) as decoded samples.
        pre_skip = struct.unpack_from("<H", sent, sent.index(b"OpusHead") + 10)[0]
        behind = written * 48_000 - (_last_granule(sent) - pre_skip)
        assert 0 <= behind <= OPUS_PAGE_LATENCY_MS * 48 + opus_frame + pre_skip


def test_a_check_before_each_block_stops_a_long_write() -> None:
    calls = []

    def check() -> None:
        calls.append(len(calls))
        if len(calls) == 3:
            raise TimeoutError

    encoder = StreamEncoder("pcm", SR, before_block=check)
    with pytest.raises(TimeoutError):
        encoder.write(np.zeros(10 * audio.BLOCK_FRAMES, dtype=np.float32))
    assert calls == [0, 1, 2]


def test_a_patch_over_bytes_already_taken_keeps_only_its_unsent_part() -> None:
    sink = _UnsentBytes()
    sink.write(b"headbody")
    assert sink.take() == b"headbody"
    sink.write(b"tail")
    sink.seek(0)
    sink.write(b"HEAD")  # sent already: dropped
    sink.seek(6)
    sink.write(b"DYTA")  # two bytes sent, two not
    assert sink.tell() == 10
    assert sink.seek(0, 2) == 12
    assert sink.take() == b"TAil"
