"""FLAC made of parts encoded apart: the joined file decodes to exactly the samples of the file encoded whole.

libsndfile's FLAC writer (libFLAC inside) makes a fixed-block-size stream: "fLaC", STREAMINFO, a
VORBIS_COMMENT, then frames of one block size numbered by frame number from 0, only the last one
shorter (RFC 9639, 8.2 and 9.1). Parts encoded apart would each count from 0 again and each end in a
short block, which a fixed-block-size stream allows only at its end. The joined file is therefore a
variable-block-size stream, where a frame header carries the number of its first sample instead:

* ``encode_part`` encodes the part with the project's FLAC writer (same encoder, same settings as a
  whole file), finds its frames, and rewrites each header: the blocking strategy bit set, the coded
  number made the frame's first sample in the whole file (``span.start`` plus the samples before it
  in the part), the header's CRC-8 and the frame's CRC-16 computed anew. The subframes, the audio,
  are the encoder's own bytes: every FLAC frame decodes alone, so the file is lossless across seams.
* Frames are found as a decoder resyncs (RFC 9639, 9.1): a sync code can occur inside a frame's
  data, so a candidate header counts only with a valid CRC-8 and the next frame number, and where
  two candidates claim the same number the one that closes the frame before it with a valid CRC-16.
* ``head`` is "fLaC" and a STREAMINFO for the whole file: its total samples, block sizes 16 (the
  least a frame other than the last may hold) to the encoder's, and frame sizes 0 and MD5 all zeros,
  which RFC 9639 (8.2) defines as unknown. There is no tail.

A block under 16 samples may only end a stream (RFC 9639, 9.1.6). A part whose length leaves such
a remainder after its whole blocks is encoded with its last two blocks split about evenly instead,
unless it is the file's last part; a part other than the last that is itself 1 to 15 samples long
cannot be held by any frame and is refused (``ValueError``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .audio import AudioFormat, encode
from .part_span import PartSpan

MIN_BLOCK = 16  # RFC 9639, 8.2 and 9.1.6: the least block size of any frame but a stream's last
_FIXED_SYNC, _VARIABLE_SYNC = 0xF8, 0xF9  # second byte of a frame: sync code and blocking strategy bit
_STREAMINFO = struct.Struct(">HH3s3sQ16s")  # block sizes, frame sizes, rate/channels/depth/total, MD5
_CRC_GROUP = 2048  # frames whose CRC-16 is computed together (bounds the byte matrix to ~17 MB at 16-bit blocks of 4096)


def _crc_table(poly: int, width: int) -> np.ndarray:
    top, mask = 1 << (width - 1), (1 << width) - 1
    table = []
    for byte in range(256):
        crc = byte << (width - 8)
        for _ in range(8):
            crc = ((crc << 1) ^ poly if crc & top else crc << 1) & mask
        table.append(crc)
    return np.array(table, dtype=np.uint8 if width == 8 else np.uint16)


# RFC 9639, 9.1.8 and 9.3: both CRCs start at 0; CRC-8 x^8 + x^2 + x + 1, CRC-16 x^16 + x^15 + x^2 + 1.
_CRC8 = _crc_table(0x07, 8)
_CRC16 = _crc_table(0x8005, 16)


def crc8(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = int(_CRC8[crc ^ byte])
    return crc


def crc16s(frames: Sequence[bytes]) -> list[int]:
    """The CRC-16 of each of ``frames``, computed side by side: frames are right-aligned in one byte
    matrix with zeros before the shorter ones, which a CRC starting at 0 passes over unchanged."""
    order = sorted(range(len(frames)), key=lambda i: len(frames[i]))
    out = [0] * len(frames)
    for first in range(0, len(order), _CRC_GROUP):
        group = order[first : first + _CRC_GROUP]
        width = len(frames[group[-1]])
        rows = np.zeros((len(group), width), dtype=np.uint8)
        for row, index in enumerate(group):
            rows[row, width - len(frames[index]) :] = np.frombuffer(frames[index], dtype=np.uint8)
        crc = np.zeros(len(group), dtype=np.uint16)
        for column in np.ascontiguousarray(rows.T):
            crc = (crc << 8) ^ _CRC16[(crc >> 8) ^ column]
        for row, index in enumerate(group):
            out[index] = int(crc[row])
    return out


def coded_number(value: int) -> bytes:
    """RFC 9639, 9.1.5: UTF-8's scheme extended to 36 bits (7 bytes)."""
    if value < 0x80:
        return bytes([value])
    length = next(n for n in range(2, 8) if value < 1 << (5 * n + 1))
    tail = [0x80 | (value >> (6 * i)) & 0x3F for i in reversed(range(length - 1))]
    return bytes([(0xFF00 >> length) & 0xFF | value >> (6 * (length - 1))] + tail)


def _read_coded_number(data: bytes, at: int) -> tuple[int, int] | None:
    """The number at ``at`` and where it ends; None where the bytes cannot be one."""
    first = data[at]
    ones = 8 - (~first & 0xFF).bit_length()  # leading one bits: the code's length in bytes, 0 for one byte
    length = max(ones, 1)
    if ones == 1 or ones == 8 or at + length > len(data):
        return None
    value = first & 0x7F >> ones
    for byte in data[at + 1 : at + length]:
        if byte >> 6 != 0b10:
            return None
        value = value << 6 | byte & 0x3F
    return value, at + length


@dataclass(frozen=True)
class FrameHeader:
    start: int  # the sync code's byte
    number: int  # coded number: frame number (fixed block size) or first sample (variable)
    number_end: int
    end: int  # after the CRC-8
    block: int


def _block_size(code: int, data: bytes, at: int) -> tuple[int, int]:
    """RFC 9639, 9.1.1 (and 9.1.6 for an uncommon size stored after the coded number)."""
    if code == 1:
        return 192, at
    if code <= 5:
        return 144 << code, at
    if code == 6:
        return data[at] + 1, at + 1
    if code == 7:
        return int.from_bytes(data[at : at + 2], "big") + 1, at + 2
    return 1 << code, at


def _header_at(data: bytes, at: int) -> FrameHeader | None:
    """The frame header at ``at`` if its fields are possible and its CRC-8 holds."""
    if at + 6 > len(data) or data[at] != 0xFF or data[at + 1] & 0xFE != _FIXED_SYNC:
        return None
    block_code, rate_code = data[at + 2] >> 4, data[at + 2] & 0xF
    channels, depth, reserved = data[at + 3] >> 4, data[at + 3] >> 1 & 7, data[at + 3] & 1
    if block_code == 0 or rate_code == 0xF or channels > 10 or depth == 3 or reserved:
        return None
    coded = _read_coded_number(data, at + 4)
    if coded is None:
        return None
    number, number_end = coded
    if number_end + 3 > len(data):
        return None
    block, end = _block_size(block_code, data, number_end)
    end += {12: 1, 13: 2, 14: 2}.get(rate_code, 0)  # RFC 9639, 9.1.7: an uncommon rate after it
    if end >= len(data) or crc8(data[at:end]) != data[end]:
        return None
    return FrameHeader(at, number, number_end, end + 1, block)


def _audio_start(stream: bytes) -> int:
    """Where the frames begin: after "fLaC" and the metadata blocks (RFC 9639, 8.1)."""
    if stream[:4] != b"fLaC":
        raise ValueError("libsndfile's FLAC stream does not start with fLaC")
    at, last = 4, False
    while not last:
        last, size = bool(stream[at] & 0x80), int.from_bytes(stream[at + 1 : at + 4], "big")
        at += 4 + size
    return at


def frames(stream: bytes) -> list[tuple[FrameHeader, int]]:
    """Each frame of a fixed-block-size FLAC stream with where it ends."""
    data = np.frombuffer(stream, dtype=np.uint8)
    start = _audio_start(stream)
    syncs = np.flatnonzero((data[start:-1] == 0xFF) & (data[start + 1 :] == _FIXED_SYNC)) + start
    claims: dict[int, list[FrameHeader]] = {}
    for at in syncs.tolist():
        header = _header_at(stream, at)
        if header is not None:
            claims.setdefault(header.number, []).append(header)
    found = claims.get(0, [])
    if not found or found[0].start != start:
        raise ValueError("libsndfile's FLAC stream has no frame 0 after its metadata")
    chain = [found[0]]
    while chain[-1].number + 1 in claims:
        before = chain[-1]
        after = [h for h in claims[before.number + 1] if h.start >= before.end]
        if len(after) > 1:  # a sync code inside the frame before: the true header ends it with a valid CRC-16
            crcs = crc16s([stream[before.start : h.start] for h in after])
            after = [h for h, crc in zip(after, crcs, strict=True) if crc == 0]
        if len(after) != 1:
            raise ValueError(f"libsndfile's FLAC stream: frame {before.number + 1} not found")
        chain.append(after[0])
    ends = [h.start for h in chain[1:]] + [len(stream)]
    return list(zip(chain, ends, strict=True))


@lru_cache(maxsize=1)
def encoder_block_size() -> int:
    """The block size libsndfile's FLAC writer uses (STREAMINFO's maximum, RFC 9639 8.2)."""
    stream = encode(np.zeros(1, dtype=np.float32), 44_100, "flac")
    return int.from_bytes(stream[10:12], "big")


class FlacParts:
    """A FLAC file's parts, each a run of variable-block-size frames numbered by their first sample."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.format = fmt

    def encode_part(self, samples: np.ndarray, span: PartSpan) -> bytes:
        renumbered: list[bytes] = []
        first_sample = span.start
        offset = 0
        for length in self._runs(span):
            stream = encode(samples[offset : offset + length], span.sample_rate, self.format.name)
            offset += length
            for header, end in frames(stream):
                head = bytearray(stream[header.start : header.number_end])
                head[1] = _VARIABLE_SYNC
                head[4:] = coded_number(first_sample)
                head += stream[header.number_end : header.end - 1]
                head.append(crc8(bytes(head)))
                renumbered.append(bytes(head) + stream[header.end : end - 2])
                first_sample += header.block
        if first_sample != span.end:
            # what a part's samples and its span disagree on shows here: every sample is in a frame
            raise ValueError(f"part {span.index} has {first_sample - span.start} samples, its span {span.frames}")
        return b"".join(frame + crc.to_bytes(2, "big") for frame, crc in zip(renumbered, crc16s(renumbered), strict=True))

    @staticmethod
    def _runs(span: PartSpan) -> list[int]:
        """The lengths the part is encoded in, one stream each, so that no block under 16 samples
        lies anywhere but at the file's end: normally the whole part; when its whole blocks leave
        1 to 15 samples, the last whole block and that remainder become two blocks of about half."""
        block = encoder_block_size()
        left = span.frames % block
        if span.last or left == 0 or left >= MIN_BLOCK:
            return [span.frames]
        if span.frames < MIN_BLOCK:
            raise ValueError(
                f"part {span.index} holds {span.frames} samples: a FLAC frame other than the file's last needs {MIN_BLOCK} or more"
            )
        split = block + left
        runs = [span.frames - split, split // 2, split - split // 2]
        return [run for run in runs if run]

    def head(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        if total_frames >= 1 << 36:
            raise ValueError(f"{total_frames} frames do not fit FLAC's 36-bit total samples")
        # Sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5), total samples (36).
        packed = sample_rate << 44 | 0 << 41 | 15 << 36 | total_frames
        info = _STREAMINFO.pack(MIN_BLOCK, encoder_block_size(), b"\0\0\0", b"\0\0\0", packed, bytes(16))
        return b"fLaC" + bytes([0x80]) + len(info).to_bytes(3, "big") + info  # the last metadata block

    def tail(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        return b""
