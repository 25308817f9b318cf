"""MP3 parts on one frame grid, joined by copying bytes.

libsndfile's MP3 writer (LAME 3.100 inside libsndfile 1.2.2) starts a file with an Info/Xing frame
whose LAME extension holds the encoder delay and end padding that gapless decoders trim. Measured
on its output at 44,100 Hz mono (MPEG-1 Layer III, 1,152 samples a frame; tests/test_part_codec_mp3.py
checks each, main_data_begin by parsing every part's first frame's side info):

* the delay field is 576, and ``n`` samples make ``ceil(n / 1152) + 1`` audio frames with
  ``1152 * frames - n - 576`` samples of padding: the count moves by exactly one frame for each
  1,152 samples added, wherever they are added;
* the first audio frame's main_data_begin is 0 (it reads nothing of any frame before it), so a part
  encoded apart can follow any other part's bytes; later frames only reach back, never forward.

So frame ``j`` of the file holds the input around samples ``1152 j - 576``, and every part is
encoded on that grid: part ``k`` owns the file's frames ``G_k .. G_(k+1) - 1``, where ``G_k`` depends
only on the part's start and the silence it starts with (``_first_frame``), so every worker and the
assembly agree on it and the count never drifts. A part encodes its samples from frame ``G_k``'s
sample ``1152 G_k`` on (the silence before it is trimmed; the encoder's own start reads it as the
silence it is), pads with the silence after it up to its last frame, and keeps its first
``G_(k+1) - G_k`` frames: the frame it drops holds only that silence, which the next part encodes.
The last part keeps all its frames, so the file has ``ceil(total / 1152) + 1`` of them, as encoded
whole. The per-part Info frame is dropped; ``head`` writes the one Info frame of the file (frame
count, byte count, delay 576 and the whole file's padding), so ffmpeg decodes exactly the sequential
file's length.

What is exact: the length, and each part's position to the sample. What is within a frame: the
decoded samples near each seam, where one part's last frame and the next part's first frame
overlap in the decoder (both encode silence there when the silence before a part is at least
``MIN_LEAD_FRAMES``; a shorter pause can lose up to about two frames of sound at that seam). Away
from the seams a part decodes as the encoder made it on its own, which is not bit-identical to the
whole-file encode (LAME's VBR choices depend on what it has seen). The Info frame's seek table is
linear (the assembly knows each part's size, not where its frames fall), so a seek in a VBR file
lands near, not at, its time; the LAME music CRC is left 0 as the assembly never reads the audio.
Decoders checked: ffmpeg (imageio-ffmpeg's build) with ``-v error``, and libsndfile's mpg123 reader.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .audio import AudioFormat, AudioWriter
from .part_span import PartSpan, checked

SAMPLES_PER_FRAME = 1152  # MPEG-1 Layer III
ENCODER_DELAY = 576  # LAME's delay field, measured (module docstring)
# Input samples after a seam that the frame before it still reaches: the 576-sample delay plus a
# frame's MDCT overlap. A part's first frame sits at least this far into the silence before it.
_SEAM_REACH = ENCODER_DELAY + SAMPLES_PER_FRAME
# Silence before a part that keeps its seam inside silence on both sides, whatever the grid's phase.
MIN_LEAD_FRAMES = _SEAM_REACH + SAMPLES_PER_FRAME - 1

_BITRATES_KBPS = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)  # MPEG-1 Layer III
_SIDE_INFO_BYTES = 17  # MPEG-1 mono side info, after the 4-byte header
_XING_AT = 4 + _SIDE_INFO_BYTES
# The Xing fields LAME writes and ``head`` fills: frames, bytes, seek table, quality.
_XING_FLAGS = 0x1 | 0x2 | 0x4 | 0x8
_TOC_ENTRIES = 100
_LAME_DELAY_PADDING = 21  # the 12-bit delay and 12-bit padding fields, from "LAME"
_LAME_MUSIC_LENGTH = 28
_LAME_MUSIC_CRC = 32
_LAME_TAG_CRC = 34  # CRC-16 of the frame's bytes before it (measured against LAME's)


def frames_for(total_frames: int) -> int:
    """Audio frames LAME makes of ``total_frames`` samples (measured: ``ceil(n / 1152) + 1``)."""
    return -(-total_frames // SAMPLES_PER_FRAME) + 1


def mpeg_frames(data: bytes) -> list[tuple[int, int]]:
    """(offset, size) of each MPEG-1 Layer III frame in ``data``, which must be frames end to end."""
    out, offset = [], 0
    while offset < len(data):
        header = int.from_bytes(data[offset : offset + 4], "big")
        if len(data) - offset < 4 or header >> 21 != 0x7FF or (header >> 17) & 0xF != 0xD:
            raise ValueError(f"no MPEG-1 Layer III frame header at byte {offset}")
        rate = (44_100, 48_000, 32_000)[(header >> 10) & 3]
        size = 144_000 * _BITRATES_KBPS[(header >> 12) & 0xF] // rate + ((header >> 9) & 1)
        out.append((offset, size))
        offset += size
    return out


def is_info_frame(frame: bytes) -> bool:
    return frame[_XING_AT : _XING_AT + 4] in (b"Xing", b"Info")


def crc16(data: bytes) -> int:
    """CRC-16 (polynomial 0x8005, reflected, initial 0): the one LAME's tag uses."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def _first_frame(start: int, lead: int) -> int:
    """The file's frame a part starting at sample ``start`` with ``lead`` samples of silence begins
    with: far enough into the silence that the frame before it reaches no sound of this part, and
    never before the part's own samples nor (where the pause allows) after its sound begins."""
    earliest = -(-start // SAMPLES_PER_FRAME)
    latest = max(earliest, (start + lead) // SAMPLES_PER_FRAME)
    return min(max(earliest, -(-(start + _SEAM_REACH) // SAMPLES_PER_FRAME)), latest)


class Mp3Parts:
    """MP3 as the whole file is encoded (``AudioWriter``, libsndfile's default VBR settings)."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.format = fmt

    def encode_part(self, samples: np.ndarray, span: PartSpan) -> bytes:
        checked(samples, span)
        first = 0 if span.index == 0 else _first_frame(span.start, span.lead)
        if span.last:
            keep = frames_for(span.total) - first
            body = samples[SAMPLES_PER_FRAME * first - span.start :]
        else:
            keep = _first_frame(span.end, span.next_lead) - first
            body = samples[SAMPLES_PER_FRAME * first - span.start :]
            # The silence after the part, up to the file's sample its last frame ends on.
            body = np.concatenate([body, np.zeros(SAMPLES_PER_FRAME * keep - body.size, np.float32)])
        if keep <= 0:
            return b""
        encoded = _encoded(self.format, body, span.sample_rate)
        frames = [(offset, size) for offset, size in mpeg_frames(encoded) if not is_info_frame(encoded[offset : offset + 4 + 40])]
        if len(frames) < keep:
            raise ValueError(f"part {span.index}: the encoder made {len(frames)} frames, its place in the file holds {keep}")
        begin, (last_offset, last_size) = frames[0][0], frames[keep - 1]
        return encoded[begin : last_offset + last_size]

    def head(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        template = bytearray(_info_template(self.format, sample_rate))
        audio_frames = frames_for(total_frames)
        file_bytes = len(template) + sum(part_bytes)
        flags = int.from_bytes(template[_XING_AT + 4 : _XING_AT + 8], "big")
        if flags & _XING_FLAGS != _XING_FLAGS:
            raise ValueError(f"libsndfile's Info frame has Xing flags 0x{flags:x}; this module fills frames, bytes, seek table, quality")
        at = _XING_AT + 8
        template[at : at + 4] = audio_frames.to_bytes(4, "big")
        template[at + 4 : at + 8] = file_bytes.to_bytes(4, "big")
        template[at + 8 : at + 8 + _TOC_ENTRIES] = bytes(i * 256 // _TOC_ENTRIES for i in range(_TOC_ENTRIES))
        lame = at + 8 + _TOC_ENTRIES + 4
        if template[lame : lame + 4] != b"LAME":
            raise ValueError("libsndfile's Info frame has no LAME extension where its Xing flags place it")
        padding = SAMPLES_PER_FRAME * audio_frames - total_frames - ENCODER_DELAY
        field = lame + _LAME_DELAY_PADDING
        template[field : field + 3] = (ENCODER_DELAY << 12 | padding).to_bytes(3, "big")
        template[lame + _LAME_MUSIC_LENGTH : lame + _LAME_MUSIC_LENGTH + 4] = file_bytes.to_bytes(4, "big")
        template[lame + _LAME_MUSIC_CRC : lame + _LAME_MUSIC_CRC + 2] = bytes(2)
        crc_at = lame + _LAME_TAG_CRC
        template[crc_at : crc_at + 2] = crc16(bytes(template[:crc_at])).to_bytes(2, "big")
        return bytes(template)

    def tail(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        return b""


def _encoded(fmt: AudioFormat, samples: np.ndarray, sample_rate: int) -> bytes:
    """``samples`` as the whole file is written: the same writer, the same settings."""
    buffer = io.BytesIO()
    with AudioWriter(buffer, fmt, sample_rate) as writer:
        writer.write(samples)
    return buffer.getvalue()


@lru_cache(maxsize=4)
def _info_template(fmt: AudioFormat, sample_rate: int) -> bytes:
    """The Info frame libsndfile writes with these settings (of a short silence), to be filled in."""
    data = _encoded(fmt, np.zeros(SAMPLES_PER_FRAME, np.float32), sample_rate)
    offset, size = mpeg_frames(data)[0]
    frame = data[offset : offset + size]
    if not is_info_frame(frame):
        raise ValueError("libsndfile's MP3 writer wrote no Info frame first")
    return frame
