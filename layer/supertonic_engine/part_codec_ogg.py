"""Ogg Opus made in parts: one logical stream whose pages each worker writes for its own packets.

The whole file's Opus stream is a run of 20 ms packets on one 48 kHz grid: packet ``j`` decodes
to the stream's samples ``960 j`` to ``960 (j + 1)``, which are the audio's from ``960 j - pre_skip``
(RFC 7845, 4.2: the decoder drops the first ``pre_skip`` samples, the encoder's delay). A part owns
packets ``j_k`` to ``j_(k+1)``, where ``960 j_k`` is a grid point in the silence its part starts
with, found from its span alone. Its worker resamples the whole file's samples from there to the
next part's point (``Resampler.outputs_between``: the same numbers as the whole file's where the
seams are in silence), encodes them with a fresh encoder of libsndfile (the encoder and settings
the whole file uses), and keeps the packets: a fresh encoder's packets decode ``pre_skip`` samples
late, which puts them on the file's grid, and what it takes for its start (silence) is silence.

Pages: the worker re-pages its packets under the file's one serial number. Pages hold at most
``PACKETS_PER_PAGE`` packets, cut at the grid's multiples of it, so part ``k`` begins at page
``2 + j_k // PACKETS_PER_PAGE + k`` (after OpusHead and OpusTags) and writes
``j_(k+1) // PACKETS_PER_PAGE - j_k // PACKETS_PER_PAGE + 1`` pages: numbers that depend on its own
span only. Each page's granule is the stream position its last packet ends at; the last page
carries end-of-stream and the granule ``pre_skip + samples``, which trims the file to the whole
file's exact length (RFC 7845, 4.4). ``head`` is libsndfile's own OpusHead and OpusTags.

What is exact and what is not: where a seam's silence holds the encoder's delay and the
resampler's reach (about 8 ms at 48 kHz; pauses between chunks are hundreds of ms), the joined
file decodes to the whole file's audio up to the codec's own difference between two encoders
(the decoder crosses each seam with the previous packet's state, on silence); its length is
exactly the whole file's, so it never drifts. Without such silence a seam can lose up to one
20 ms frame of the audio around it.

Ogg Vorbis (``ogg``) is not joined this way: each Vorbis packet's window depends on the previous
packet's block size, so a fresh encoder's first packet does not follow another encoder's last, and
the setup header (codebooks) an encoder writes need not be the one the file's head carries.
Separate complete streams one after another (chained Ogg) would be valid, but players differ on
chains, so ``part_codec`` answers None for ``ogg`` and the assembly encodes it whole.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .audio import AudioFormat, AudioWriter, Resampler, resampled_frames
from .part_span import PartSpan, checked

OPUS_RATE = 48_000  # RFC 7845, 4: granule positions count 48 kHz samples whatever the input rate
PACKET_SAMPLES = 960  # libsndfile's Opus writer sends 20 ms packets (checked on every packet below)
# A page's lacing table holds 255 values (RFC 3533, 6) and an Opus packet is at most 1275 bytes
# (RFC 6716, 3.2.1), i.e. 6 values: 25 packets (0.5 s) always fit one page.
PACKETS_PER_PAGE = 25
_HEADER_PACKETS = 2  # OpusHead and OpusTags, each on a page of its own (RFC 7845, 3)
_PAGE = struct.Struct("<4sBBqIIIB")  # capture, version, flags, granule, serial, sequence, CRC, segments
_CONTINUED, _FIRST, _LAST = 0x01, 0x02, 0x04
# Samples kept clear of a seam on each side, at 48 kHz: the resampler reads HALF_TAPS inputs
# (44.1 kHz) either side of an output.
_RESAMPLER_REACH = 2 * Resampler.HALF_TAPS


@dataclass(frozen=True)
class OggPage:
    flags: int
    granule: int
    serial: int
    sequence: int
    packets: list[bytes]


def ogg_pages(data: bytes) -> Iterator[OggPage]:
    """The pages of an Ogg stream whose packets each end on their page (what libsndfile's Opus writer makes)."""
    at = 0
    while at < len(data):
        if len(data) - at < _PAGE.size:
            raise ValueError(f"Ogg data ends inside a page header at byte {at}")
        capture, version, flags, granule, serial, sequence, crc, segments = _PAGE.unpack_from(data, at)
        lacing = data[at + _PAGE.size : at + _PAGE.size + segments]
        body = at + _PAGE.size + segments
        end = body + sum(lacing)
        if capture != b"OggS" or version != 0 or len(lacing) != segments or end > len(data):
            raise ValueError(f"no valid Ogg page at byte {at}")
        if ogg_crc(data[at : at + 22] + b"\0\0\0\0" + data[at + 26 : end]) != crc:
            raise ValueError(f"Ogg page {sequence} fails its CRC")
        if flags & _CONTINUED or (segments and lacing[-1] == 255):
            raise ValueError(f"Ogg page {sequence} continues a packet across pages")
        packets, start = [], body
        for size in _packet_sizes(lacing):
            packets.append(data[start : start + size])
            start += size
        yield OggPage(flags, granule, serial, sequence, packets)
        at = end


def _packet_sizes(lacing: bytes) -> list[int]:
    sizes, size = [], 0
    for value in lacing:
        size += value
        if value < 255:
            sizes.append(size)
            size = 0
    return sizes


# Ogg's CRC (RFC 3533, 6) is CRC-32 with polynomial 0x04c11db7 fed most significant bit first,
# from 0 and not inverted. zlib's is the same polynomial fed least significant bit first: with each
# byte's bits reversed, the register started at all ones (zlib inverts its start value) and the
# result's 32 bits reversed and inverted back, zlib computes Ogg's in C.
_REVERSED_BITS = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))


def ogg_crc(data: bytes) -> int:
    """Ogg's page checksum of ``data`` (a page with its CRC field zeroed)."""
    register = zlib.crc32(data.translate(_REVERSED_BITS), 0xFFFFFFFF) ^ 0xFFFFFFFF
    return int(f"{register:032b}"[::-1], 2)


def ogg_page(flags: int, granule: int, serial: int, sequence: int, packets: Sequence[bytes]) -> bytes:
    """One Ogg page holding whole ``packets``."""
    lacing = bytearray()
    for packet in packets:
        lacing += b"\xff" * (len(packet) // 255) + bytes([len(packet) % 255])
    if len(lacing) > 255:
        raise ValueError(f"{len(packets)} packets need {len(lacing)} lacing values; an Ogg page holds 255")
    page = bytearray(_PAGE.pack(b"OggS", 0, flags, granule, serial, sequence, 0, len(lacing)) + lacing + b"".join(packets))
    struct.pack_into("<I", page, 22, ogg_crc(bytes(page)))
    return bytes(page)


def opus_packet_samples(packet: bytes) -> int:
    """The 48 kHz samples an Opus packet decodes to, from its TOC byte (RFC 6716, 3.1 and 3.2)."""
    config, code = packet[0] >> 3, packet[0] & 3
    if config < 12:  # SILK: 10, 20, 40, 60 ms
        frame = (480, 960, 1920, 2880)[config % 4]
    elif config < 16:  # hybrid: 10, 20 ms
        frame = (480, 960)[config % 2]
    else:  # CELT: 2.5, 5, 10, 20 ms
        frame = (120, 240, 480, 960)[config % 4]
    frames = 1 if code == 0 else 2 if code < 3 else packet[1] & 0x3F
    return frame * frames


@dataclass(frozen=True)
class _Encoder:
    """What libsndfile's Opus writer puts before the audio, and its delay."""

    opus_head: bytes
    opus_tags: bytes
    pre_skip: int


@lru_cache(maxsize=1)
def _encoder(fmt: AudioFormat) -> _Encoder:
    buffer = io.BytesIO()
    with AudioWriter(buffer, fmt, OPUS_RATE) as writer:
        writer.write(np.zeros(PACKET_SAMPLES, np.float32))
    head, tags = [packet for page in ogg_pages(buffer.getvalue()) for packet in page.packets][:_HEADER_PACKETS]
    if head[:8] != b"OpusHead" or tags[:8] != b"OpusTags":
        raise ValueError("libsndfile's Opus stream did not start with OpusHead and OpusTags")
    return _Encoder(head, tags, struct.unpack_from("<H", head, 10)[0])  # RFC 7845, 5.1: pre-skip at byte 10


def _serial(total_frames: int) -> int:
    """The stream's serial number: any 32-bit value, the same for every part of one file."""
    return zlib.crc32(struct.pack("<Q", total_frames))


class OggOpusParts:
    """Ogg Opus at 48 kHz, one logical stream whose pages each part writes for itself."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.format = fmt

    def encode_part(self, samples: np.ndarray, span: PartSpan) -> bytes:
        checked(samples, span)
        encoder = _encoder(self.format)
        first, end = self._packet_at(span.start, span.lead, span, encoder), self._end_packet(span, encoder)
        if end - first < 2 and not span.last:
            raise ValueError(f"part {span.index} spans {end - first} Opus packets; parts must be at least 40 ms")
        resampler = Resampler(span.sample_rate, OPUS_RATE)
        whole_end = resampled_frames(span.total, span.sample_rate, OPUS_RATE)
        # Past the file's end (the last part's last packet) the encoder reads silence, as the whole file's does.
        feed = resampler.outputs_between(samples, span.start, PACKET_SAMPLES * first, min(PACKET_SAMPLES * end, whole_end))
        feed = np.concatenate([feed, np.zeros(PACKET_SAMPLES * (end - first) - feed.size, np.float32)])
        packets = self._packets(feed, end - first)
        return self._pages(packets, first, span, encoder)

    def head(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        encoder, serial = _encoder(self.format), _serial(total_frames)
        return ogg_page(_FIRST, 0, serial, 0, [encoder.opus_head]) + ogg_page(0, 0, serial, 1, [encoder.opus_tags])

    def tail(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        return b""

    @staticmethod
    def _packet_at(start: int, lead: int, span: PartSpan, encoder: _Encoder) -> int:
        """The first packet of the part starting at frame ``start`` with ``lead`` frames of silence:
        the grid point nearest the middle of where the encoder's delay and the resampler's reach
        both stay inside that silence (nearest its middle anyway when none does)."""
        if start == 0:
            return 0
        resampler = Resampler(span.sample_rate, OPUS_RATE)
        low = resampler.output_at(start) + encoder.pre_skip + _RESAMPLER_REACH
        high = resampler.output_at(start + lead) - _RESAMPLER_REACH
        return max(1, round((low + high) / 2 / PACKET_SAMPLES))

    def _end_packet(self, span: PartSpan, encoder: _Encoder) -> int:
        if span.last:  # enough packets for the whole file's samples after the encoder's delay
            return -(-(encoder.pre_skip + resampled_frames(span.total, span.sample_rate, OPUS_RATE)) // PACKET_SAMPLES)
        return self._packet_at(span.end, span.next_lead, span, encoder)

    def _packets(self, feed: np.ndarray, count: int) -> list[bytes]:
        buffer = io.BytesIO()
        with AudioWriter(buffer, self.format, OPUS_RATE) as writer:
            writer.write(feed)
        packets = [packet for page in ogg_pages(buffer.getvalue()) for packet in page.packets][_HEADER_PACKETS:]
        if len(packets) < count or any(opus_packet_samples(p) != PACKET_SAMPLES for p in packets[:count]):
            raise ValueError(f"libsndfile's Opus writer did not make {count} packets of {PACKET_SAMPLES} samples")
        return packets[:count]

    @staticmethod
    def _pages(packets: list[bytes], first: int, span: PartSpan, encoder: _Encoder) -> bytes:
        # Cut at the grid's multiples of PACKETS_PER_PAGE, plus once more before the last packet
        # when the part ends on one, so that every part adds the page count its start promises the next.
        cuts = [j - first for j in range(first + 1, first + len(packets)) if j % PACKETS_PER_PAGE == 0]
        if not span.last and (first + len(packets)) % PACKETS_PER_PAGE == 0:
            cuts.append(len(packets) - 1)
        bounds = [0, *cuts, len(packets)]
        serial, sequence = _serial(span.total), _HEADER_PACKETS + first // PACKETS_PER_PAGE + span.index
        out = bytearray()
        for page, (low, high) in enumerate(zip(bounds, bounds[1:], strict=False)):
            final = span.last and high == len(packets)
            granule = (
                encoder.pre_skip + resampled_frames(span.total, span.sample_rate, OPUS_RATE) if final else PACKET_SAMPLES * (first + high)
            )
            out += ogg_page(_LAST if final else 0, granule, serial, sequence + page, packets[low:high])
        return bytes(out)
