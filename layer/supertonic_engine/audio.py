"""Audio encoding: WAV, FLAC, OGG/Vorbis always; MP3 and OGG/Opus where the bundled libsndfile has them.

Samples are clipped to [-1, 1] before any integer conversion: libsndfile's float-to-PCM path does
not clip by default, so a peak of 1.02 would wrap around to a loud negative click. Every format is
handed to libsndfile in blocks of ``BLOCK_FRAMES``, however long the signal.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import BinaryIO, Protocol

import numpy as np
import soundfile as sf
from numpy.lib.stride_tricks import sliding_window_view

from .errors import UnsupportedFormat

# libsndfile's Vorbis encoder (1.2.2, bundled with soundfile 0.13-0.14) crashes the process with a
# segmentation fault when one write hands it more than about two million frames (~47 s at 44.1 kHz).
# Writing in blocks of this size avoids that for every codec, and bounds the temporary copies made
# per write (clipped, int16, resampled) to one block.
BLOCK_FRAMES = 1 << 16
DEFAULT_FORMAT = "wav"


@dataclass(frozen=True)
class AudioFormat:
    name: str
    container: str | None  # libsndfile major format; None for raw PCM
    subtype: str | None
    content_type: str
    extension: str
    sample_rate: int | None = None  # a codec that needs one fixed rate
    max_kbps: int | None = None  # a lossy codec's bitrate ceiling at libsndfile's default settings

    def max_bytes_per_s(self, sample_rate: int) -> float:
        """At most this many bytes per second of audio: 16-bit samples for the lossless formats
        (FLAC's frame headers are paid for by its compression), the bitrate ceiling for lossy ones."""
        if self.max_kbps is not None:
            return self.max_kbps * 1000 / 8
        return 2.0 * (self.sample_rate or sample_rate)


FORMATS: dict[str, AudioFormat] = {
    f.name: f
    for f in (
        AudioFormat("wav", "WAV", "PCM_16", "audio/wav", "wav"),
        AudioFormat("flac", "FLAC", "PCM_16", "audio/flac", "flac"),
        # Lossy codecs: mono speech (and noise) measured 60-80 kbit/s; 320 is MP3's ceiling.
        AudioFormat("ogg", "OGG", "VORBIS", "audio/ogg", "ogg", max_kbps=320),
        AudioFormat("mp3", "MP3", "MPEG_LAYER_III", "audio/mpeg", "mp3", max_kbps=320),
        # libsndfile's Opus encoder takes only 8/12/16/24/48 kHz.
        AudioFormat("opus", "OGG", "OPUS", "audio/ogg; codecs=opus", "opus", sample_rate=48_000, max_kbps=320),
        # OpenAI's raw PCM: 24 kHz 16-bit signed little-endian mono, no header. Not ``audio/L16``:
        # RFC 2586 L16 is big-endian, so the label spells out every property instead.
        AudioFormat("pcm", None, None, "audio/pcm", "pcm", sample_rate=24_000),
    )
}


@lru_cache(maxsize=1)
def available_formats() -> list[str]:
    """Formats this machine can write, found by encoding a few samples in each."""
    usable = []
    for fmt in FORMATS.values():
        if fmt.container is None:
            usable.append(fmt.name)
            continue
        try:
            if fmt.subtype not in sf.available_subtypes(fmt.container):
                continue
            _encode_with(fmt, np.zeros(4800, dtype=np.float32), fmt.sample_rate or 48_000)
        except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
            continue
        usable.append(fmt.name)
    return usable


def audio_format(name: str) -> AudioFormat:
    """Look up a format by name (or file extension); unknown or unavailable ones raise ``UnsupportedFormat``."""
    key = (name or "").strip().lower().lstrip(".")
    fmt = FORMATS.get(key) or next((f for f in FORMATS.values() if f.extension == key), None)
    if fmt is None:
        raise UnsupportedFormat(name, available_formats())
    if fmt.name not in available_formats():
        raise UnsupportedFormat(name, available_formats(), reason="the installed libsndfile cannot write it")
    return fmt


RAW_PCM_PARAMETERS = "channels=1;encoding=signed-int;bits=16;endianness=little"


def content_type(name: str | AudioFormat, sample_rate: int = 44_100) -> str:
    """The file's media type; raw PCM has no header, so its type carries the rate and the sample layout."""
    fmt = name if isinstance(name, AudioFormat) else audio_format(name)
    if fmt.container is not None:
        return fmt.content_type
    return f"{fmt.content_type};rate={fmt.sample_rate or sample_rate};{RAW_PCM_PARAMETERS}"


# libsndfile's WAV header for 16-bit mono PCM: RIFF, fmt and data chunk headers (audio_stream.py writes the same).
WAV_PCM16_HEADER_BYTES = 44


def file_bytes(fmt: AudioFormat, frames: int, sample_rate: int) -> int | None:
    """The exact size of ``frames`` samples at ``sample_rate`` as a ``fmt`` file where the length
    alone decides it (WAV and raw PCM: 16-bit samples); None for the compressed formats."""
    if fmt.name == "wav":
        return WAV_PCM16_HEADER_BYTES + 2 * frames
    if fmt.container is None:
        return 2 * resampled_frames(frames, sample_rate, fmt.sample_rate or sample_rate)
    return None


def resampled_frames(frames: int, source_rate: int, target_rate: int) -> int:
    """Samples a whole signal of ``frames`` becomes at ``target_rate``: its length rounded to the nearest sample."""
    return (2 * frames * target_rate + source_rate) // (2 * source_rate)


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """Peak-safe float -> int16: clip first, then scale and round."""
    clipped = np.clip(np.nan_to_num(samples, nan=0.0), -1.0, 1.0)
    return np.round(clipped * 32767.0).astype("<i2")


class Resampler:
    """Streaming band-limited resampling with a Kaiser-windowed sinc, used where a codec demands a
    fixed rate (Opus: 48 kHz). It keeps the last few input samples between calls, so feeding a
    signal in pieces gives exactly the samples one call on the whole signal gives: no seams at
    chunk boundaries, and no need to hold a long text's audio in memory to resample it.
    """

    HALF_TAPS = 16  # input samples on each side of an output instant
    BETA = 8.0  # Kaiser window shape: about 80 dB stop-band
    BLOCK = 4096  # outputs computed per vectorised step (bounds the tap matrix to ~1 MB)

    def __init__(self, source_rate: int, target_rate: int) -> None:
        # Output n sits at input instant n * up / down (exact integers: 44.1 -> 48 kHz is 147/160).
        common = math.gcd(source_rate, target_rate)
        self.up, self.down = source_rate // common, target_rate // common
        # Low-pass at the lower Nyquist frequency (a little under it), in units of the input's.
        self.cutoff = min(1.0, target_rate / source_rate) * 0.97
        self._offsets = np.arange(1 - self.HALF_TAPS, self.HALF_TAPS + 1)
        # The instants' fractional parts repeat with period ``down``, so the windowed-sinc weights
        # are computed once per phase (a polyphase table) instead of once per output sample.
        distance = (np.arange(self.down) / self.down)[:, None] - self._offsets
        window = np.i0(self.BETA * np.sqrt(np.clip(1.0 - (distance / (self.HALF_TAPS + 1)) ** 2, 0.0, None))) / np.i0(self.BETA)
        self._weights = self.cutoff * np.sinc(self.cutoff * distance) * window
        self._pending = np.zeros(0, dtype=np.float64)  # input not yet consumed
        self._pending_start = 0  # global index of _pending[0]
        self._received = 0
        self._emitted = 0

    def process(self, samples: np.ndarray, final: bool = False) -> np.ndarray:
        """Resample the next piece; ``final=True`` flushes the tail after the last piece."""
        self._pending = np.concatenate([self._pending, np.asarray(samples, dtype=np.float64).reshape(-1)])
        self._received += samples.size
        if final:
            end = resampled_frames(self._received, self.up, self.down)
        else:  # an output is ready once every input it reads has arrived
            end = max(self._emitted, (self._received - 1 - self.HALF_TAPS) * self.down // self.up + 1)
        blocks = [self._outputs(n, min(n + self.BLOCK, end)) for n in range(self._emitted, end, self.BLOCK)]
        out = np.concatenate(blocks) if blocks else np.zeros(0)
        self._emitted = end
        keep_from = end * self.up // self.down - self.HALF_TAPS + 1
        if keep_from > self._pending_start:
            self._pending = self._pending[keep_from - self._pending_start :]
            self._pending_start = keep_from
        return out.astype(np.float32)

    def output_at(self, instant: int, *, end: bool = False) -> int:
        """The first output at or after input ``instant``; ``end``: the whole signal's length when it ends there."""
        if end:
            return resampled_frames(instant, self.up, self.down)
        return -(-instant * self.down // self.up)

    def outputs_between(self, samples: np.ndarray, first_input: int, first: int, end: int) -> np.ndarray:
        """Outputs ``first`` to ``end`` of a signal whose inputs from ``first_input`` on are
        ``samples`` and silence elsewhere: the same numbers a whole-signal pass gives where the
        inputs they read are these (a part of a file resampled apart from the rest)."""
        self._pending = np.asarray(samples, dtype=np.float64).reshape(-1)
        self._pending_start, self._received = first_input, first_input + self._pending.size
        blocks = [self._outputs(n, min(n + self.BLOCK, end)) for n in range(first, end, self.BLOCK)]
        return (np.concatenate(blocks) if blocks else np.zeros(0)).astype(np.float32)

    def _outputs(self, first: int, end: int) -> np.ndarray:
        position = np.arange(first, end, dtype=np.int64) * self.up
        weights = self._weights[position % self.down]
        # Each output reads a window of consecutive inputs: the stretch the block reads is copied
        # once, inputs before the start or after the end (at the final flush) as silence, and each
        # output's window is a view into it (a third of the time of gathering every tap apart).
        first_taps = position // self.down + self._offsets[0] - self._pending_start
        low, high = int(first_taps[0]), int(first_taps[-1]) + self._offsets.size
        stretch = np.zeros(high - low)
        held_low, held_high = max(low, 0), min(high, self._pending.size)
        if held_high > held_low:
            stretch[held_low - low : held_high - low] = self._pending[held_low:held_high]
        values = sliding_window_view(stretch, self._offsets.size)[first_taps - low]
        return np.einsum("ij,ij->i", weights, values)


def resample(samples: np.ndarray, source_rate: int, target_rate: int) -> np.ndarray:
    """The whole signal at ``target_rate`` (the same samples a streamed ``Resampler`` gives)."""
    if source_rate == target_rate or samples.size == 0:
        return samples
    return Resampler(source_rate, target_rate).process(samples, final=True)


def encode(samples: np.ndarray, sample_rate: int, fmt: str = "wav") -> bytes:
    """The whole signal as a file's bytes."""
    return _encode_with(audio_format(fmt), samples, sample_rate)


def _encode_with(fmt: AudioFormat, samples: np.ndarray, sample_rate: int) -> bytes:
    buffer = io.BytesIO()
    with AudioWriter(buffer, fmt, sample_rate) as writer:
        writer.write(samples)
    return buffer.getvalue()


class SampleSink(Protocol):
    """Where audio goes chunk by chunk: an ``AudioWriter``, or a ``ChapterSplitter`` in front of one."""

    def write(self, samples: np.ndarray) -> None: ...


class AudioWriter:
    """Writes audio chunk by chunk to a path or binary file, so long texts never sit whole in memory:
    ``Engine.synthesize(..., into=writer)`` encodes each chunk of the stream as it is made.

    ``before_block`` is called before each block is encoded: a deadline check there stops a long
    encode (Opus resamples and encodes at a few tens of times real time) within one block.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | BinaryIO,
        fmt: str | AudioFormat,
        sample_rate: int,
        *,
        before_block: Callable[[], None] | None = None,
    ) -> None:
        self.format = fmt if isinstance(fmt, AudioFormat) else audio_format(fmt)
        self.target = target
        self.before_block = before_block
        self.source_rate = sample_rate
        self.file_rate = self.format.sample_rate or sample_rate
        self._resampler = Resampler(sample_rate, self.file_rate) if self.file_rate != sample_rate else None
        self.frames = 0
        self._raw: BinaryIO | None = None
        self._owns_raw = False
        self._sound: sf.SoundFile | None = None
        if self.format.container is None:
            if isinstance(target, (str, os.PathLike)):
                self._raw, self._owns_raw = open(target, "wb"), True
            else:
                self._raw = target
        else:
            self._sound = sf.SoundFile(
                target,
                mode="w",
                samplerate=self.file_rate,
                channels=1,
                format=self.format.container,
                subtype=self.format.subtype,
            )

    def write(self, samples: np.ndarray) -> None:
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        for start in range(0, samples.size, BLOCK_FRAMES):
            if self.before_block is not None:
                self.before_block()
            block = samples[start : start + BLOCK_FRAMES]
            if self._resampler is not None:
                block = self._resampler.process(block)
            self._write_file_rate(block)

    def _write_file_rate(self, samples: np.ndarray) -> None:
        if self._raw is not None:
            self._raw.write(to_pcm16(samples).tobytes())
        elif self.format.subtype == "PCM_16":
            self._sound.write(to_pcm16(samples))  # type: ignore[union-attr]
        else:
            self._sound.write(np.clip(np.nan_to_num(samples, nan=0.0), -1.0, 1.0))  # type: ignore[union-attr]
        self.frames += samples.size

    @property
    def bytes_written(self) -> int:
        """Bytes in the target so far (libsndfile writes through, so a file's size is current)."""
        if isinstance(self.target, (str, os.PathLike)):
            return os.stat(self.target).st_size
        try:
            return self.target.tell()
        except (OSError, ValueError):
            return 0

    def close(self) -> None:
        if self._resampler is not None:
            self._write_file_rate(self._resampler.process(np.zeros(0, np.float32), final=True))
            self._resampler = None
        if self._sound is not None:
            self._sound.close()
        if self._raw is not None and self._owns_raw:
            self._raw.close()

    def __enter__(self) -> AudioWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
