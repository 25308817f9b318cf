"""Audio files made in parts and joined by copying bytes.

A long text is rendered in parts by many workers at once. Each worker encodes its own part, and
the file is ``head + part 0 + part 1 + ... + tail``: the assembly copies bytes and encodes nothing,
so its time no longer grows with the encoder's cost. A ``PartCodec`` says how a format does that:

* ``encode_part`` turns one part's samples (the silence before it included; the last part's also
  the silence after it) into the bytes that go in the file at that part's place. A worker sees only
  its own part, so everything it needs to know about the others is in its ``PartSpan``: where the
  part starts in the whole file and how long the file is, in frames at the engine's rate.
* ``head`` and ``tail`` are written by the assembly from the file's length and the parts' sizes.

Joined, a lossless file (wav, pcm) holds exactly the samples of the sequential render; a lossy one
decodes to it within one codec frame at each seam and never drifts from it over the file.
``part_codec`` answers None for a format that cannot be joined this way: its parts are kept as
samples and the assembly encodes them whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from .audio import AudioFormat, Resampler, audio_format, to_pcm16
from .audio_stream import wav_fits_riff, wav_header
from .part_codec_flac import FlacParts
from .part_codec_mp3 import Mp3Parts
from .part_codec_ogg import OggOpusParts
from .part_span import PartSpan, checked


class PartCodec(Protocol):
    format: AudioFormat

    def encode_part(self, samples: np.ndarray, span: PartSpan) -> bytes:
        """The bytes of ``samples`` (float32 at ``span.sample_rate``, ``span.frames`` of them) at their place in the file."""
        ...

    def head(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        """What goes before the first part, from the file's frames and each part's size in bytes."""
        ...

    def tail(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        """What goes after the last part."""
        ...


class _Pcm16:
    """16-bit samples, at the engine's rate (wav) or resampled to the format's (pcm)."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.format = fmt

    def encode_part(self, samples: np.ndarray, span: PartSpan) -> bytes:
        samples = checked(samples, span)
        rate = self.format.sample_rate or span.sample_rate
        if rate != span.sample_rate:
            samples = _resampled_part(samples, span, rate)
        return to_pcm16(samples).tobytes()

    def head(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        if self.format.name != "wav":
            return b""
        frames = sum(part_bytes) // 2
        return wav_header(sample_rate, frames, rf64=not wav_fits_riff(frames))  # RF64 past RIFF's 4 GiB

    def tail(self, total_frames: int, sample_rate: int, part_bytes: Sequence[int]) -> bytes:
        return b""


def _resampled_part(samples: np.ndarray, span: PartSpan, rate: int) -> np.ndarray:
    """The whole file's resampled samples from this part's seam to the next one's. The resampler
    reads ``Resampler.HALF_TAPS`` inputs on each side of an output: with seams in the middle of
    silences at least twice that long, what it reads outside the part is silence here as in the
    whole file, so the parts hold exactly the whole file's samples (and never drift from its clock)."""
    resampler = Resampler(span.sample_rate, rate)
    return resampler.outputs_between(
        samples, span.start, resampler.output_at(span.seam), resampler.output_at(span.next_seam, end=span.last)
    )


# The formats whose parts join by copying bytes; Ogg Vorbis is not one (part_codec_ogg.py says why).
_CODECS: dict[str, Callable[[AudioFormat], PartCodec]] = {
    "wav": _Pcm16,
    "pcm": _Pcm16,
    "flac": FlacParts,
    "mp3": Mp3Parts,
    "opus": OggOpusParts,
}
JOINABLE_FORMATS = tuple(_CODECS)


def part_codec(fmt: AudioFormat | str) -> PartCodec | None:
    """How ``fmt``'s file is made of parts encoded apart; None: its parts stay samples, encoded whole by the assembly."""
    fmt = fmt if isinstance(fmt, AudioFormat) else audio_format(fmt)
    codec = _CODECS.get(fmt.name)
    return codec(fmt) if codec is not None else None
