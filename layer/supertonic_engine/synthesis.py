"""The engine: text in, 44.1 kHz audio out, chunk by chunk, under a hard deadline.

Per chunk the pipeline is the official one: duration predictor -> text encoder -> noise ->
N Euler steps of the vector estimator -> vocoder, with the same shapes, the same noise draw and
the same silence between chunks, so a seeded run equals the official package's output.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np

from . import config
from .assets import ModelAssets, VoiceStyle, load_assets, resolve_model_dir
from .audio import AudioWriter
from .config import SessionConfig
from .deadline import Deadline
from .errors import AudioTooLong, EmptyText, InvalidParameter, ModelMissing, SpokenTextTooLong, TextTooLong, UnknownLanguage
from .sessions import Sessions, load_sessions
from .standin_marker import NOTE
from .text import LANGUAGES, chunk_text, default_max_chunk_chars, normalize
from .text.unicode import TextEncoder, model_text

logger = logging.getLogger(__name__)

DEFAULT_VOICE = "M1"
DEFAULT_LANG = "en"
DEFAULT_STEPS = 8
DEFAULT_SPEED = 1.05
DEFAULT_SILENCE_S = 0.3
STEPS_RANGE = (1, 100)
SPEED_RANGE = (0.7, 2.0)
CHUNK_CHARS_RANGE = (10, 400)  # the estimator's position table ends at 1000 tokens
MAX_SILENCE_S = 5.0
STANDIN_NOTICE = NOTE  # what every output of the stand-in says about itself


@dataclass(frozen=True)
class SynthesisOptions:
    """Everything that shapes one synthesis besides the text; checked once on construction."""

    voice: str = DEFAULT_VOICE
    lang: str = DEFAULT_LANG
    steps: int = DEFAULT_STEPS
    speed: float = DEFAULT_SPEED
    seed: int | None = None
    normalize: bool = True
    max_chunk_chars: int | None = None
    silence_s: float = DEFAULT_SILENCE_S

    def __post_init__(self) -> None:
        if self.lang not in LANGUAGES:
            raise UnknownLanguage(str(self.lang), LANGUAGES)
        _check_int("steps", self.steps, *STEPS_RANGE)
        _check_number("speed", self.speed, *SPEED_RANGE)
        _check_number("silence_s", self.silence_s, 0.0, MAX_SILENCE_S)
        if self.seed is not None:
            _check_int("seed", self.seed, 0, 2**32 - 1)
        if self.max_chunk_chars is not None:
            _check_int("max_chunk_chars", self.max_chunk_chars, *CHUNK_CHARS_RANGE)

    @property
    def chunk_chars(self) -> int:
        return self.max_chunk_chars or default_max_chunk_chars(self.lang)


@dataclass(frozen=True)
class Limits:
    """What one call may cost, for callers that must answer quickly (a synchronous request).

    Every bound is checked before any audio is made: the text as written, the text once normalized
    (``"9" * 3000`` reads as 15,000 characters), and the audio the duration predictor forecasts.
    The predictor then runs first for every chunk (milliseconds each) and synthesis reuses its
    output. None: no bound. ``hint`` (what to do instead) ends each refusal's message.
    """

    max_text_chars: int | None = None
    max_spoken_chars: int | None = None
    max_audio_s: float | None = None
    # Seconds the caller needs after synthesis per second of audio (base64, an upload): kept back
    # from the deadline once the audio's length is forecast, so the whole answer is ready in time.
    after_s_per_audio_s: float = 0.0
    hint: str = ""

    @property
    def forecast(self) -> bool:
        """Whether the audio's length must be known before synthesis starts."""
        return self.max_audio_s is not None or self.after_s_per_audio_s > 0

    def check_text(self, text: str) -> None:
        if self.max_text_chars is not None and len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars, self.hint)

    def check_spoken(self, spoken: str) -> None:
        if self.max_spoken_chars is not None and len(spoken) > self.max_spoken_chars:
            raise SpokenTextTooLong(len(spoken), self.max_spoken_chars, self.hint)

    def check_audio(self, seconds: float) -> None:
        if self.max_audio_s is not None and seconds > self.max_audio_s:
            raise AudioTooLong(seconds, self.max_audio_s, self.hint)


NO_LIMITS = Limits()


@dataclass(frozen=True)
class ChunkTiming:
    """Where one chunk's audio sits in the output, and what it cost."""

    index: int
    text: str
    start_s: float  # first sample of this chunk's audio (after the silence that precedes it)
    end_s: float
    speech_s: float  # the duration predictor's estimate of the speech inside [start_s, end_s]
    synth_ms: float


@dataclass(frozen=True)
class AudioChunk:
    """One piece of the output: ``samples`` starts with the silence that separates it from the previous chunk."""

    timing: ChunkTiming
    samples: np.ndarray


@dataclass
class SynthesisResult:
    audio: np.ndarray | None  # float32 mono; None when the audio went straight into a file
    sample_rate: int
    frames: int
    chunks: list[ChunkTiming]
    synth_ms: float  # the model's time, without encoding
    model_kind: str
    text: str  # what the model read, one chunk per line
    options: SynthesisOptions = field(default_factory=SynthesisOptions)
    encode_ms: float = 0.0  # time spent writing the file (synthesize_into only)
    precision: str = "fp32"  # of the text encoder and vector estimator that made it

    @property
    def duration_s(self) -> float:
        return self.frames / self.sample_rate

    @property
    def rtf(self) -> float:
        """Real-time factor: seconds of compute per second of audio."""
        return (self.synth_ms / 1000.0) / self.duration_s if self.duration_s else math.inf


def locate_model(model_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``model_dir``, else ``SUPERTONIC_MODEL_DIR``; ``ModelMissing`` naming the variable when neither is set.

    No stand-in here: making one needs the build tools, which the image does not ship
    (``supertonic_tools.models.locate_model`` falls back to it for the CLI and tests)."""
    root = resolve_model_dir(model_dir, env)
    if root is None:
        raise ModelMissing(
            f"no model directory: set {config.ENV_MODEL_DIR} to a model in the official layout "
            "(`supertonic-lambda fetch-model --out DIR` downloads one)",
            field=config.ENV_MODEL_DIR,
        )
    return root


class TextPreparer:
    """Text to chunks the model can read: normalize, check every character, split; needs no sessions."""

    def __init__(self, assets: ModelAssets, env: Mapping[str, str] | None = None) -> None:
        self.encoder = TextEncoder(assets.indexer)
        self.max_text_chars = config.max_text_chars(env)

    def chunks(self, text: str, options: SynthesisOptions, limits: Limits = NO_LIMITS) -> list[str]:
        if not isinstance(text, str):
            raise InvalidParameter(f"text must be a string, got {type(text).__name__}", field="text")
        if not text.strip():
            raise EmptyText()
        if len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars)
        limits.check_text(text)
        spoken = normalize(text, options.lang) if options.normalize else text
        limits.check_spoken(spoken)
        self.encoder.check(spoken)
        chunks = [c for c in chunk_text(spoken, options.chunk_chars) if model_text(c, None).strip(". ")]
        if not chunks:
            raise EmptyText("text has nothing to say once symbols and emoji are removed: send words")
        return chunks

    def read_text(self, text: str, lang: str = DEFAULT_LANG, normalize: bool = True, max_chunk_chars: int | None = None) -> str:
        """The exact text the model will read for ``text``, one chunk per line, tags included."""
        options = SynthesisOptions(lang=lang, normalize=normalize, max_chunk_chars=max_chunk_chars)
        return "\n".join(model_text(chunk, lang) for chunk in self.chunks(text, options))


class Engine:
    """Supertonic 3 loaded once: four ONNX sessions, the text encoder and the voices."""

    def __init__(self, assets: ModelAssets, sessions: Sessions, env: Mapping[str, str] | None = None) -> None:
        self.assets = assets
        self.sessions = sessions
        self.text = TextPreparer(assets, env)

    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        session_config: SessionConfig | None = None,
        env: Mapping[str, str] | None = None,
    ) -> "Engine":
        """Load the model from ``model_dir``, else ``SUPERTONIC_MODEL_DIR`` (``ModelMissing`` when neither is set)."""
        assets = load_assets(locate_model(model_dir, env))
        return cls(assets, load_sessions(assets, session_config, env), env)

    # --- what the model is -----------------------------------------------------------------------

    @property
    def model_dir(self) -> Path:
        return self.assets.root

    @property
    def model_kind(self) -> str:
        return self.assets.kind

    @property
    def precision(self) -> str:
        """``fp32`` (the official output) or ``int8`` (``SUPERTONIC_PRECISION``)."""
        return self.sessions.precision

    @property
    def sample_rate(self) -> int:
        return self.assets.sample_rate

    @property
    def voices(self) -> list[str]:
        return self.assets.voices

    @property
    def languages(self) -> tuple[str, ...]:
        return LANGUAGES

    def read_text(self, text: str, lang: str = DEFAULT_LANG, normalize: bool = True) -> str:
        """Dry run: the exact text the model will read, one chunk per line."""
        return self.text.read_text(text, lang, normalize)

    # --- synthesis ---------------------------------------------------------------------------------

    def synthesize(
        self,
        text: str,
        voice: str = DEFAULT_VOICE,
        lang: str = DEFAULT_LANG,
        steps: int = DEFAULT_STEPS,
        speed: float = DEFAULT_SPEED,
        seed: int | None = None,
        *,
        normalize: bool = True,
        timeout_s: float | None = None,
        max_chunk_chars: int | None = None,
        silence_s: float = DEFAULT_SILENCE_S,
    ) -> SynthesisResult:
        """Synthesize ``text`` and return the whole waveform with per-chunk timings."""
        options = SynthesisOptions(voice, lang, steps, speed, seed, normalize, max_chunk_chars, silence_s)
        return self.synthesize_with(text, options, timeout_s=timeout_s)

    def synthesize_with(
        self, text: str, options: SynthesisOptions, *, timeout_s: float | None = None, limits: Limits = NO_LIMITS
    ) -> SynthesisResult:
        """``synthesize`` for callers that already hold validated ``SynthesisOptions``."""
        pieces: list[np.ndarray] = []
        result = self._collect(self.stream_with(text, options, timeout_s=timeout_s, limits=limits), options, pieces.append)
        result.audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
        return result

    def synthesize_into(
        self,
        target: str | os.PathLike[str] | BinaryIO,
        fmt: str,
        text: str,
        options: SynthesisOptions,
        *,
        timeout_s: float | None = None,
        limits: Limits = NO_LIMITS,
        ship_bytes_per_s: float | None = None,
    ) -> SynthesisResult:
        """Encode chunk by chunk into ``target`` (a path or binary file): memory stays flat for any text length.

        Encoding is inside the deadline (checked before each block the writer encodes), so the
        file is finished when the deadline says it must be. The returned result has ``audio=None``.
        A file target is complete only if this returns. ``ship_bytes_per_s``: the rate the caller
        ships the file at afterwards (an upload); the deadline keeps back the time shipping what is
        written so far takes, so synthesis and shipping together fit in ``timeout_s``.
        """
        written = [0]
        hold_back = (lambda: written[0] / ship_bytes_per_s) if ship_bytes_per_s else None
        deadline = Deadline(timeout_s, hold_back_s=hold_back)
        with AudioWriter(target, fmt, self.sample_rate, before_block=deadline.check) as writer:
            spent = [0.0]

            def write(samples: np.ndarray) -> None:
                started = time.perf_counter()
                writer.write(samples)
                spent[0] += time.perf_counter() - started
                written[0] = _bytes_in(target)

            result = self._collect(self._stream(text, options, deadline, limits), options, write)
        result.encode_ms = spent[0] * 1000.0
        result.synth_ms -= result.encode_ms
        return result

    def _collect(self, pieces: Iterator[AudioChunk], options: SynthesisOptions, sink: Callable[[np.ndarray], None]) -> SynthesisResult:
        started = time.perf_counter()
        timings: list[ChunkTiming] = []
        frames = 0
        for piece in pieces:
            sink(piece.samples)
            timings.append(piece.timing)
            frames += piece.samples.size
        return SynthesisResult(
            audio=None,
            sample_rate=self.sample_rate,
            frames=frames,
            chunks=timings,
            synth_ms=(time.perf_counter() - started) * 1000.0,
            model_kind=self.model_kind,
            text="\n".join(model_text(t.text, options.lang) for t in timings),
            options=options,
            precision=self.precision,
        )

    def stream(self, text: str, voice: str = DEFAULT_VOICE, lang: str = DEFAULT_LANG, *, timeout_s: float | None = None, **options: object) -> Iterator[AudioChunk]:
        """Yield the audio chunk by chunk, so memory stays flat however long the text is."""
        return self.stream_with(text, SynthesisOptions(voice=voice, lang=lang, **options), timeout_s=timeout_s)  # type: ignore[arg-type]

    def stream_with(
        self, text: str, options: SynthesisOptions, *, timeout_s: float | None = None, limits: Limits = NO_LIMITS
    ) -> Iterator[AudioChunk]:
        return self._stream(text, options, Deadline(timeout_s), limits)

    def _stream(self, text: str, options: SynthesisOptions, deadline: Deadline, limits: Limits) -> Iterator[AudioChunk]:
        chunks = self.text.chunks(text, options, limits)
        style = self.assets.voice(options.voice)
        return self._generate(chunks, style, options, deadline, limits)

    def _generate(
        self, chunks: list[str], style: VoiceStyle, options: SynthesisOptions, deadline: Deadline, limits: Limits
    ) -> Iterator[AudioChunk]:
        # RandomState(seed) draws exactly what np.random.seed(seed); np.random.randn(...) draws,
        # which is how the official package samples its noise.
        rng = np.random.RandomState(options.seed)
        gap = np.zeros(int(options.silence_s * self.sample_rate), dtype=np.float32)
        position = 0
        deadline.chunks_total = len(chunks)
        with deadline:
            plans: list[_ChunkPlan] | None = None
            if limits.forecast:
                plans, audio_s = [], options.silence_s * (len(chunks) - 1)
                for chunk in chunks:
                    plans.append(self._plan(chunk, style, options, deadline))
                    audio_s += plans[-1].speech_s
                    limits.check_audio(audio_s)  # refused as soon as the forecast passes the bound
                deadline.keep_back(limits.after_s_per_audio_s * audio_s, f"delivering about {audio_s:,.0f} s of audio")
            for index, chunk in enumerate(chunks):
                started = time.perf_counter()
                plan = plans[index] if plans is not None else self._plan(chunk, style, options, deadline)
                wav = self._synthesize_chunk(plan, style, options, rng, deadline)
                synth_ms = (time.perf_counter() - started) * 1000.0
                lead = gap if index else gap[:0]
                start = position + lead.size
                timing = ChunkTiming(
                    index=index,
                    text=chunk,
                    start_s=start / self.sample_rate,
                    end_s=(start + wav.size) / self.sample_rate,
                    speech_s=plan.speech_s,
                    synth_ms=synth_ms,
                )
                position = start + wav.size
                deadline.chunks_done = index + 1
                yield AudioChunk(timing, np.concatenate([lead, wav]) if lead.size else wav)

    def _plan(self, chunk: str, style: VoiceStyle, options: SynthesisOptions, deadline: Deadline) -> _ChunkPlan:
        """A chunk's model inputs and the duration predictor's forecast, the first graph of its pipeline."""
        text_ids, text_mask = self.text.encoder.encode(chunk, options.lang)
        duration, *_ = deadline.run(self.sessions.duration_predictor, {"text_ids": text_ids, "style_dp": style.dp, "text_mask": text_mask})
        return _ChunkPlan(text_ids, text_mask, duration / options.speed)

    def _synthesize_chunk(
        self, plan: _ChunkPlan, style: VoiceStyle, options: SynthesisOptions, rng: np.random.RandomState, deadline: Deadline
    ) -> np.ndarray:
        s = self.sessions
        text_ids, text_mask, duration = plan
        text_emb, *_ = deadline.run(s.text_encoder, {"text_ids": text_ids, "style_ttl": style.ttl, "text_mask": text_mask})
        latent, latent_mask = self._noise(duration, rng)
        total_step = np.array([options.steps], dtype=np.float32)
        for step in range(options.steps):
            latent, *_ = deadline.run(
                s.vector_estimator,
                {
                    "noisy_latent": latent,
                    "text_emb": text_emb,
                    "style_ttl": style.ttl,
                    "text_mask": text_mask,
                    "latent_mask": latent_mask,
                    "current_step": np.array([step], dtype=np.float32),
                    "total_step": total_step,
                },
            )
        wav, *_ = deadline.run(s.vocoder, {"latent": latent})
        return wav.reshape(-1)

    def _noise(self, duration: np.ndarray, rng: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
        """Initial latent noise and its mask, drawn with the official arithmetic (same dtypes, same rounding)."""
        frame = self.assets.samples_per_frame
        wav_len_max = duration.max() * self.sample_rate
        wav_lengths = (duration * self.sample_rate).astype(np.int64)
        latent_len = ((wav_len_max + frame - 1) / frame).astype(np.int32)
        latent_lengths = (wav_lengths + frame - 1) // frame
        latent_mask = (np.arange(latent_lengths.max()) < latent_lengths[:, None]).astype(np.float32).reshape(-1, 1, latent_lengths.max())
        noise = rng.randn(len(duration), self.assets.latent_channels, latent_len).astype(np.float32)
        return noise * latent_mask, latent_mask

    def warm_up(self) -> float:
        """Run one short synthesis so the first request does not pay ORT's first-run allocations; returns ms."""
        started = time.perf_counter()
        self.synthesize("Ready.", voice=DEFAULT_VOICE if DEFAULT_VOICE in self.voices else self.voices[0], lang="en", steps=1, seed=0, normalize=False)
        return (time.perf_counter() - started) * 1000.0


class _ChunkPlan(NamedTuple):
    text_ids: np.ndarray
    text_mask: np.ndarray
    duration: np.ndarray  # seconds of speech, at the requested speed

    @property
    def speech_s(self) -> float:
        return float(self.duration[0])


def _bytes_in(target: str | os.PathLike[str] | BinaryIO) -> int:
    """Bytes written to ``target`` so far (libsndfile writes through, so the file's size is current)."""
    if isinstance(target, (str, os.PathLike)):
        return os.stat(target).st_size
    try:
        return target.tell()
    except (OSError, ValueError):
        return 0


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidParameter(f"{name} must be a whole number from {low} to {high}, got {value!r}", field=name)
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be from {low} to {high}, got {value}", field=name)


def _check_number(name: str, value: object, low: float, high: float) -> None:
    # An int is always finite, and math.isfinite cannot take one past float's range (JSON's 1e400 as digits).
    real = isinstance(value, (float, np.floating))
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or (real and not math.isfinite(value)):
        raise InvalidParameter(f"{name} must be a number from {low} to {high}, got {value!r}", field=name)
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be from {low} to {high}, got {value}", field=name)
