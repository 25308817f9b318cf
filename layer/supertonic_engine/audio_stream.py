"""Audio encoding whose bytes can be sent as they are made: each ``write`` returns what is ready now.

``AudioWriter`` hands libsndfile a file, and libsndfile seeks back at close to patch headers (WAV
sizes, FLAC STREAMINFO, MP3's Xing frame). A stream cannot take bytes back, so here:

- wav: the header is written first, by this module, with exact sizes when the length is known
  beforehand (the duration predictor forecasts every chunk exactly) or "length unknown" otherwise;
- pcm: raw samples, nothing to patch;
- flac, mp3, ogg, opus: libsndfile writes into a sink that keeps only unsent bytes, and a patch of
  bytes already sent is dropped. What that leaves still decodes: FLAC's STREAMINFO keeps MD5 0 and
  frame sizes 0, and total samples 0 unless the length was given, each of which RFC 9639 (8.2)
  defines as "unknown"; MP3 keeps the empty Xing frame written at open, so it is encoded at a
  constant bitrate (below); Ogg is only ever appended to.

What a write leaves unsent (measured, 1 s writes): wav none; pcm the resampler's 9 samples; flac
under one 4096-sample block; mp3 about 0.1 s (LAME's look-ahead); opus at most the page latency
below plus a 20 ms frame and 6.5 ms of look-ahead; ogg (Vorbis) up to one ~4 KB page, 0.46 s at
worst, since libsndfile's Vorbis writer pages as libogg fills them and offers no setting for it.

The samples take the same path as ``AudioWriter``'s (clipped, in ``BLOCK_FRAMES`` blocks with
``before_block`` before each, resampled to a codec's fixed rate), because they go through one.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import soundfile as sf

from .audio import AudioFormat, AudioWriter, audio_format

# A WAV header for 16-bit mono PCM: RIFF, fmt and data chunk headers, 44 bytes as libsndfile writes it
# (RF64 adds a ds64 chunk after the RIFF one, EBU Tech 3306).
_RIFF_CHUNK = struct.Struct("<4sI4s")
_FMT_CHUNK = struct.Struct("<4sIHHIIHH")
_DS64_CHUNK = struct.Struct("<4sIQQQI")  # RIFF size, data size, sample count, an empty table
_DATA_CHUNK = struct.Struct("<4sI")
_WAV_HEADER_FIELDS = 36  # RIFF size = this + data size: everything after the RIFF size field but the data
# A size field of all ones means "length unknown": FFmpeg's WAV muxer writes it on an unseekable
# output (libavformat/riffenc.c, ff_start_tag: avio_wl32(pb, -1)) and its demuxer then reads the
# data to the end of the stream (libavformat/wavdec.c: size 0xFFFFFFFF -> data_end = INT64_MAX,
# "Ignoring maximum wav data size"). libsndfile reads such a file to its end too (tests check it).
UNKNOWN_WAV_SIZE = 0xFFFFFFFF
# The WAV body goes through AudioWriter's raw path: int16 at the source rate, no container.
_WAV_BODY = AudioFormat("wav", None, None, "audio/wav", "wav")

# FLAC's STREAMINFO says total samples 0 ("unknown", RFC 9639 8.2) until libFLAC patches it at
# close, which a stream cannot take. Decoders accept 0, but python-soundfile cannot read such a
# file (it sizes ``read()`` by the length and seeks after each read, which libsndfile's FLAC reader
# refuses at an unknown length), so a known length is written into the header before it is sent.
_HEADERS_WITH_LENGTH = {"wav", "flac"}
_FLAC_RATE_AND_TOTAL = 18  # offset of STREAMINFO's sample rate ... total samples field

# libsndfile's Opus writer closes an Ogg page only once it holds a second of audio (its default
# "page latency"), so a write would leave up to a second unsent. SFC_SET_OGG_PAGE_LATENCY_MS
# (0x1302 in libsndfile 1.2.2's sndfile.h, clamped there to 50-1600 ms; soundfile names no
# constant for it) shortens that. 100 ms leaves at most 100 ms plus one 20 ms Opus frame behind
# each write (and the encoder's look-ahead) and costs about 2.4 kbit/s of page headers (measured: 10 s of noise, +3 %; 50 ms: +5.5 %).
_SFC_SET_OGG_PAGE_LATENCY_MS = 0x1302
OPUS_PAGE_LATENCY_MS = 100.0

# An MP3's length and gapless trim live in the Xing/LAME frame LAME fills in at close; streamed, the
# frame stays the empty placeholder written at open (one silent frame). A reader then estimates the
# length from the first frame's bitrate and the byte count, and libsndfile stops reading there:
# 3 s of VBR noise read back as 1.8 s (measured). At a constant bitrate the estimate holds, so the
# stream is CBR. libsndfile maps compression level c to 320 - 288 c kbit/s (mpeg_l3_encode.c,
# 1.2.2); 80 kbit/s is the top of the VBR default's measured 60-80 (audio.py).
_MP3_CBR_KBPS = 80
_MP3_COMPRESSION_LEVEL = (320 - _MP3_CBR_KBPS) / 288


class _UnsentBytes:
    """A write-only file for libsndfile that keeps only the bytes not yet taken.

    Positions are those of the whole file, so libsndfile's seeks and tells stay consistent; a write
    over bytes already taken (a header patched at close) keeps only its part past them.
    """

    def __init__(self) -> None:
        self._unsent = bytearray()
        self._taken = 0  # bytes before _unsent[0], already handed out
        self._position = 0

    def write(self, data: bytes) -> int:
        size = len(data)
        skip = min(size, max(0, self._taken - self._position))
        start = self._position + skip - self._taken
        end = start + size - skip
        if end > len(self._unsent):
            self._unsent.extend(bytes(end - len(self._unsent)))
        self._unsent[start:end] = memoryview(data)[skip:]
        self._position += size
        return size

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._position, self._taken + len(self._unsent))[whence]
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        return self._position

    def take(self) -> bytes:
        out = bytes(self._unsent)
        self._taken += len(out)
        self._unsent.clear()
        return out


class StreamEncoder:
    """Encodes audio chunk by chunk, returning from each call the bytes that can be sent now.

    ``total_frames`` (at ``sample_rate``) puts the length in the WAV or FLAC header sent first, so
    writing more raises ``ValueError`` and ``close`` raises it if fewer were written; the other
    formats carry no length up front and ignore it.
    ``before_block`` is called before each block is encoded, as ``AudioWriter`` does.
    """

    @staticmethod
    def max_bytes_per_s(fmt: AudioFormat, sample_rate: int) -> float:
        """At most this many bytes per second of audio in a stream: MP3 here is constant-bitrate,
        Opus pays its shorter pages' headers (about 3 %, above), the rest as a whole file."""
        if fmt.subtype == "MPEG_LAYER_III":
            return _MP3_CBR_KBPS * 1000 / 8
        return fmt.max_bytes_per_s(sample_rate) * (1.05 if fmt.subtype == "OPUS" else 1.0)

    def __init__(
        self,
        fmt: str | AudioFormat,
        sample_rate: int,
        *,
        total_frames: int | None = None,
        before_block: Callable[[], None] | None = None,
    ) -> None:
        self.format = fmt if isinstance(fmt, AudioFormat) else audio_format(fmt)
        self.sample_rate = sample_rate
        self.total_frames = total_frames
        self.frames = 0
        self.bytes_out = 0
        self._sink = _UnsentBytes()
        if self.format.name == "wav":
            self._sink.write(wav_header(sample_rate, total_frames))
            self._writer = AudioWriter(self._sink, _WAV_BODY, sample_rate, before_block=before_block)  # type: ignore[arg-type]
        else:
            self._writer = AudioWriter(self._sink, self.format, sample_rate, before_block=before_block)  # type: ignore[arg-type]
            if self.format.subtype == "OPUS":
                _command(self._writer, _SFC_SET_OGG_PAGE_LATENCY_MS, "double", OPUS_PAGE_LATENCY_MS, 0)
            elif self.format.subtype == "MPEG_LAYER_III":
                # The mode re-reads the level, which must therefore be set first.
                _command(self._writer, sf._snd.SFC_SET_COMPRESSION_LEVEL, "double", _MP3_COMPRESSION_LEVEL, sf._snd.SF_TRUE)
                _command(self._writer, sf._snd.SFC_SET_BITRATE_MODE, "int", sf._snd.SF_BITRATE_MODE_CONSTANT, sf._snd.SF_TRUE)

    def write(self, samples: np.ndarray) -> bytes:
        """Encode the next piece; the bytes ready to send (possibly none while a codec fills a frame)."""
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self._promised is not None and self.frames + samples.size > self._promised:
            raise ValueError(f"the WAV header promised {self._promised} frames; this write would make {self.frames + samples.size}")
        self._writer.write(samples)
        self.frames += samples.size
        return self._take()

    def close(self) -> bytes:
        """Flush the codec and return the last bytes."""
        self._writer.close()
        if self._promised is not None and self.frames != self._promised:
            raise ValueError(f"the WAV header promised {self._promised} frames but {self.frames} were written")
        return self._take()

    @property
    def _promised(self) -> int | None:
        """The frame count a header sent ahead of the audio states, which the audio must then match."""
        return self.total_frames if self.format.name in _HEADERS_WITH_LENGTH else None

    def _take(self) -> bytes:
        out = self._sink.take()
        if self.bytes_out == 0 and self.format.name == "flac" and self.total_frames is not None:
            out = _with_flac_total_samples(out, self.total_frames)
        self.bytes_out += len(out)
        return out


def wav_fits_riff(total_frames: int) -> bool:
    """Whether a RIFF WAV header's 32-bit sizes hold ``total_frames`` 16-bit samples."""
    return _WAV_HEADER_FIELDS + 2 * total_frames < UNKNOWN_WAV_SIZE


def wav_header(sample_rate: int, total_frames: int | None, *, rf64: bool = False) -> bytes:
    """The header of a 16-bit mono WAV file of ``total_frames`` samples; None: of a length not known
    yet (all-ones sizes, as a stream starts). ``rf64``: an RF64 header, whose 64-bit sizes hold any
    length (libsndfile and ffmpeg read it); a RIFF one past its 32-bit sizes is a ``ValueError``."""
    bytes_per_frame = 2
    fmt = _FMT_CHUNK.pack(b"fmt ", 16, 1, 1, sample_rate, sample_rate * bytes_per_frame, bytes_per_frame, 16)  # PCM, mono, 16 bits
    if rf64:
        if total_frames is None:
            raise ValueError("an RF64 header holds its length")
        data_size = total_frames * bytes_per_frame
        riff_size = 4 + _DS64_CHUNK.size + _FMT_CHUNK.size + _DATA_CHUNK.size + data_size
        ds64 = _DS64_CHUNK.pack(b"ds64", _DS64_CHUNK.size - 8, riff_size, data_size, total_frames, 0)
        return _RIFF_CHUNK.pack(b"RF64", UNKNOWN_WAV_SIZE, b"WAVE") + ds64 + fmt + _DATA_CHUNK.pack(b"data", UNKNOWN_WAV_SIZE)
    if total_frames is None:
        riff_size = data_size = UNKNOWN_WAV_SIZE
    else:
        if not wav_fits_riff(total_frames):
            raise ValueError(f"{total_frames} frames do not fit a WAV file's 32-bit sizes")
        data_size = total_frames * bytes_per_frame
        riff_size = _WAV_HEADER_FIELDS + data_size
    return _RIFF_CHUNK.pack(b"RIFF", riff_size, b"WAVE") + fmt + _DATA_CHUNK.pack(b"data", data_size)


def _with_flac_total_samples(head: bytes, total_frames: int) -> bytes:
    """The stream's first bytes with STREAMINFO's total samples set (RFC 9639, 8.2: after "fLaC" and
    a 4-byte block header come 10 bytes of block and frame sizes, then one 64-bit big-endian field of
    sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5) and total samples (36))."""
    if head[:5] != b"fLaC\x00" or len(head) < _FLAC_RATE_AND_TOTAL + 8:  # STREAMINFO is block type 0
        raise ValueError("libsndfile's FLAC stream did not start with STREAMINFO")
    if total_frames >= 1 << 36:
        raise ValueError(f"{total_frames} frames do not fit FLAC's 36-bit total samples")
    field = slice(_FLAC_RATE_AND_TOTAL, _FLAC_RATE_AND_TOTAL + 8)
    packed = int.from_bytes(head[field], "big") & ~((1 << 36) - 1) | total_frames
    return head[: field.start] + packed.to_bytes(8, "big") + head[field.stop :]


def _command(writer: AudioWriter, command: int, ctype: str, value: float, success: int) -> None:
    """A libsndfile setting this module's writer needs, set before the first write (libsndfile
    answers some commands with SF_TRUE, others with 0, hence ``success``)."""
    argument = sf._ffi.new(f"{ctype}*", value)
    if sf._snd.sf_command(writer._sound._file, command, argument, sf._ffi.sizeof(ctype)) != success:  # type: ignore[union-attr]
        raise RuntimeError(f"libsndfile refused setting 0x{command:x} for {writer.format.name}")
