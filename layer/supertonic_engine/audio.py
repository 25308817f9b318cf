"""Audio encoding: WAV, FLAC, OGG/Vorbis always; MP3 and OGG/Opus where the bundled libsndfile has them.

Samples are clipped to [-1, 1] before any integer conversion: libsndfile's float-to-PCM path does
not clip by default, so a peak of 1.02 would wrap around to a loud negative click.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import BinaryIO

import numpy as np
import soundfile as sf

from .errors import UnsupportedFormat


@dataclass(frozen=True)
class AudioFormat:
    name: str
    container: str | None  # libsndfile major format; None for raw PCM
    subtype: str | None
    content_type: str
    extension: str
    sample_rate: int | None = None  # a codec that needs one fixed rate


FORMATS: dict[str, AudioFormat] = {
    f.name: f
    for f in (
        AudioFormat("wav", "WAV", "PCM_16", "audio/wav", "wav"),
        AudioFormat("flac", "FLAC", "PCM_16", "audio/flac", "flac"),
        AudioFormat("ogg", "OGG", "VORBIS", "audio/ogg", "ogg"),
        AudioFormat("mp3", "MP3", "MPEG_LAYER_III", "audio/mpeg", "mp3"),
        # libsndfile's Opus encoder takes only 8/12/16/24/48 kHz.
        AudioFormat("opus", "OGG", "OPUS", "audio/ogg; codecs=opus", "opus", sample_rate=48_000),
        AudioFormat("pcm", None, None, "audio/L16", "pcm"),  # raw 16-bit little-endian mono
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


def content_type(name: str, sample_rate: int = 44_100) -> str:
    fmt = audio_format(name)
    return f"{fmt.content_type};rate={sample_rate};channels=1" if fmt.container is None else fmt.content_type


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """Peak-safe float -> int16: clip first, then scale and round."""
    clipped = np.clip(np.nan_to_num(samples, nan=0.0), -1.0, 1.0)
    return np.round(clipped * 32767.0).astype("<i2")


def resample(samples: np.ndarray, source_rate: int, target_rate: int) -> np.ndarray:
    """Band-limited resampling by FFT; used only where a codec demands a fixed rate."""
    if source_rate == target_rate or samples.size == 0:
        return samples
    target_len = int(round(samples.size * target_rate / source_rate))
    spectrum = np.fft.rfft(samples.astype(np.float64))
    return (np.fft.irfft(spectrum, target_len) * (target_len / samples.size)).astype(np.float32)


def encode(samples: np.ndarray, sample_rate: int, fmt: str = "wav") -> bytes:
    """The whole signal as a file's bytes."""
    return _encode_with(audio_format(fmt), samples, sample_rate)


def _encode_with(fmt: AudioFormat, samples: np.ndarray, sample_rate: int) -> bytes:
    buffer = io.BytesIO()
    with AudioWriter(buffer, fmt.name, sample_rate, _format=fmt) as writer:
        writer.write(samples)
    return buffer.getvalue()


class AudioWriter:
    """Writes audio chunk by chunk to a path or binary file, so long texts never sit whole in memory."""

    def __init__(self, target: str | os.PathLike[str] | BinaryIO, fmt: str, sample_rate: int, *, _format: AudioFormat | None = None) -> None:
        self.format = _format or audio_format(fmt)
        self.source_rate = sample_rate
        self.file_rate = self.format.sample_rate or sample_rate
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
                target, mode="w", samplerate=self.file_rate, channels=1,
                format=self.format.container, subtype=self.format.subtype,
            )

    def write(self, samples: np.ndarray) -> None:
        samples = resample(np.asarray(samples, dtype=np.float32).reshape(-1), self.source_rate, self.file_rate)
        if self._raw is not None:
            self._raw.write(to_pcm16(samples).tobytes())
        elif self.format.subtype == "PCM_16":
            self._sound.write(to_pcm16(samples))  # type: ignore[union-attr]
        else:
            self._sound.write(np.clip(np.nan_to_num(samples, nan=0.0), -1.0, 1.0))  # type: ignore[union-attr]
        self.frames += samples.size

    def close(self) -> None:
        if self._sound is not None:
            self._sound.close()
        if self._raw is not None and self._owns_raw:
            self._raw.close()

    def __enter__(self) -> "AudioWriter":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def write_chunks(chunks: Iterable[np.ndarray], target: str | os.PathLike[str] | BinaryIO, sample_rate: int, fmt: str = "wav") -> int:
    """Encode an iterable of sample arrays into one file; returns the frames written."""
    with AudioWriter(target, fmt, sample_rate) as writer:
        for chunk in chunks:
            writer.write(chunk)
    return writer.frames
