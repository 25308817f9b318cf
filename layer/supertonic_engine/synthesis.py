"""The engine: text in, 44.1 kHz audio out, chunk by chunk, under a hard deadline.

Per chunk the pipeline is the official one: duration predictor -> text encoder -> noise ->
N Euler steps of the vector estimator -> vocoder, with the same shapes, the same noise draw and
the same silence between chunks, so a seeded run equals the official package's output.
"""

from __future__ import annotations

import base64
import logging
import math
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from . import config
from .assets import ModelAssets, VoiceStyle, load_assets, resolve_model_dir
from .audio import DEFAULT_FORMAT, AudioFormat, AudioWriter, audio_format
from .config import SessionConfig
from .deadline import Deadline
from .errors import (
    AudioTooLong,
    EmptyText,
    InvalidParameter,
    ModelNotConfigured,
    SpokenTextTooLong,
    TextTooLong,
    UnknownLanguage,
    UnsupportedCharacters,
)
from .marks import Span, SpeechMark, captions, check_caption_formats, check_mark_types, speech_marks
from .sessions import Sessions, load_sessions
from .standin_marker import NOTE
from .text import LANGUAGES, chunk_text, default_max_chunk_chars
from .text.script import Script
from .text.ssml import read_script
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
CHUNKINGS = ("packed", "sentence")  # sentences packed into chunks as the official package does, or one a chunk
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
    chunking: str = "packed"

    def __post_init__(self) -> None:
        if self.lang not in LANGUAGES:
            raise UnknownLanguage(str(self.lang), LANGUAGES)
        if self.chunking not in CHUNKINGS:
            raise InvalidParameter(f"chunking must be one of {', '.join(CHUNKINGS)}, got {self.chunking!r}", field="chunking")
        _check_int("steps", self.steps, *STEPS_RANGE)
        _check_number("speed", self.speed, *SPEED_RANGE)
        _check_number("silence_s", self.silence_s, 0.0, MAX_SILENCE_S)
        if self.seed is not None:
            _check_int("seed", self.seed, 0, 2**32 - 1)
        if self.max_chunk_chars is not None:
            _check_int("max_chunk_chars", self.max_chunk_chars, *CHUNK_CHARS_RANGE)

    def pause_before(self, index: int) -> float:
        """The usual silence before chunk ``index``: none before the first, ``silence_s`` between two."""
        return self.silence_s if index else 0.0

    @property
    def chunk_chars(self) -> int:
        return self.max_chunk_chars or default_max_chunk_chars(self.lang)


@dataclass(frozen=True)
class Limits:
    """What one call may cost, for callers that must answer quickly (a synchronous request).

    Every bound is checked before any audio is made: the text as written, the text once normalized
    (``"9" * 3000`` reads as 15,000 characters), and the audio the duration predictor forecasts.
    The predictor then runs first for every chunk (milliseconds each) and synthesis reuses its
    output. None: no bound. Each refusal is a ``TextTooLong`` with ``caller_bound`` set.
    """

    max_text_chars: int | None = None
    max_spoken_chars: int | None = None
    max_audio_s: float | None = None
    # Seconds the caller needs after synthesis per second of audio (base64, an upload): kept back
    # from the deadline once the audio's length is forecast, so the whole answer is ready in time.
    after_s_per_audio_s: float = 0.0

    @property
    def forecast(self) -> bool:
        """Whether the audio's length must be known before synthesis starts."""
        return self.max_audio_s is not None or self.after_s_per_audio_s > 0

    def check_text(self, text: str) -> None:
        if self.max_text_chars is not None and len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars, caller_bound=True)

    def check_spoken(self, spoken: str) -> None:
        if self.max_spoken_chars is not None and len(spoken) > self.max_spoken_chars:
            raise SpokenTextTooLong(len(spoken), self.max_spoken_chars, caller_bound=True)

    def check_audio(self, seconds: float) -> None:
        if self.max_audio_s is not None and seconds > self.max_audio_s:
            raise AudioTooLong(seconds, self.max_audio_s, caller_bound=True)


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
    encode_ms: float = 0.0  # time spent encoding into a writer (``synthesize(into=...)`` only)
    precision: str = "fp32"  # of the text encoder and vector estimator that made it

    @property
    def duration_s(self) -> float:
        return self.frames / self.sample_rate

    @property
    def rtf(self) -> float:
        """Real-time factor: seconds of compute per second of audio."""
        return (self.synth_ms / 1000.0) / self.duration_s if self.duration_s else math.inf


def locate_model(model_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``model_dir``, else ``SUPERTONIC_MODEL_DIR``; ``ModelNotConfigured`` naming the variable when neither is set.

    No stand-in here: making one needs the build tools, which the image does not ship
    (``supertonic_tools.models.locate_model`` falls back to it for the CLI and tests)."""
    root = resolve_model_dir(model_dir, env)
    if root is None:
        raise ModelNotConfigured(
            f"no model directory: set {config.ENV_MODEL_DIR} to a model in the official layout "
            "(`supertonic-lambda fetch-model --out DIR` downloads one)",
            field=config.ENV_MODEL_DIR,
        )
    return root


@dataclass(frozen=True)
class Prepared:
    """A checked request, ready to synthesize: what ``Engine.prepare`` returns and ``stream`` reads.

    Everything that can be refused without running the model has been: the text (characters,
    lengths as written and as spoken), the options, the voice and the output format.
    """

    text: str  # as sent
    script: Script  # the text as written and as read (SSML's words, sections, pauses)
    chunks: tuple[str, ...]  # what the model reads, one call of the pipeline each
    langs: tuple[str, ...]  # the language of each chunk (``options.lang`` unless SSML switches it)
    pauses: tuple[float, ...]  # seconds of silence before each chunk (the first: none, unless a break)
    tail_s: float  # seconds of silence after the last chunk (an SSML break at the end)
    options: SynthesisOptions
    style: VoiceStyle
    format: AudioFormat
    limits: Limits = NO_LIMITS
    marks: tuple[str, ...] = ()  # speech mark types asked for (``Engine.marks``), besides or instead of audio
    captions: tuple[str, ...] = ()  # caption formats asked for (``Engine.captions``)

    @property
    def total_silence_s(self) -> float:
        """All the silence the audio holds besides the speech."""
        return sum(self.pauses) + self.tail_s

    @property
    def model_text(self) -> str:
        """The exact text the model will read, one chunk per line, tags included."""
        return "\n".join(model_text(chunk, lang) for chunk, lang in zip(self.chunks, self.langs, strict=True))


class Preparer:
    """The one check of a request: text, options, voice and format to a ``Prepared``; needs no sessions."""

    def __init__(self, assets: ModelAssets, env: Mapping[str, str] | None = None) -> None:
        self.assets = assets
        self.encoder = TextEncoder(assets.indexer)
        self.max_text_chars = config.max_text_chars(env)

    def prepare(
        self,
        text: str,
        options: SynthesisOptions | None = None,
        *,
        limits: Limits = NO_LIMITS,
        format: str = DEFAULT_FORMAT,
        marks: object = (),
        captions: object = (),
        text_type: str | None = None,
    ) -> Prepared:
        options = options or SynthesisOptions()
        self._check_text(text, limits)
        script = read_script(text, options.lang, normalize=options.normalize, text_type=text_type)
        chunks, langs, pauses, tail_s = self._chunks(script, options, limits)
        style = self.assets.voice(options.voice)
        # A blend is reported (and stored in a job's parts) by its canonical name: "F1:0.7,M2:0.3".
        options = options if style.name == options.voice else replace(options, voice=style.name)
        return Prepared(
            text,
            script,
            tuple(chunks),
            tuple(langs),
            tuple(pauses),
            tail_s,
            options,
            style,
            audio_format(format),
            limits,
            check_mark_types(marks) if marks else (),
            check_caption_formats(captions) if captions else (),
        )

    def _check_text(self, text: str, limits: Limits) -> None:
        """The text as sent: a string of real characters, not blank, within the lengths."""
        if not isinstance(text, str):
            raise InvalidParameter(f"text must be a string, got {type(text).__name__}", field="text")
        # JSON can spell a lone surrogate ("\\ud800"); it is no character, and UTF-8 cannot store or send it.
        surrogates = [c for c in text if "\ud800" <= c <= "\udfff"]
        if surrogates:
            raise UnsupportedCharacters(surrogates)
        if not text.strip():
            raise EmptyText()
        if len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars)
        limits.check_text(text)

    def _chunks(self, script: Script, options: SynthesisOptions, limits: Limits) -> tuple[list[str], list[str], list[float], float]:
        """The chunks the model reads, each with its language and the silence before it, and the silence after the last."""
        said = [(section, script.section_spoken(section)) for section in script.sections]
        spoken = "\n\n".join(words for _, words in said)
        if not spoken.strip():
            raise EmptyText()
        limits.check_spoken(spoken)
        self.encoder.check(spoken)
        pack = options.chunking == "packed"
        chunks: list[str] = []
        langs: list[str] = []
        pauses: list[float] = []
        carried: float | None = None  # the break before a section that said nothing (only symbols) still separates
        for section, words in said:
            # The silence before a section's first chunk: its break, else the usual one (none at the very start).
            owed = section.pause_s if carried is None else carried + (section.pause_s or 0.0)
            size = options.max_chunk_chars or default_max_chunk_chars(section.lang)
            for chunk in chunk_text(words, size, pack=pack) if words.strip() else []:
                if not model_text(chunk, None).strip(". "):
                    continue
                pauses.append(owed if owed is not None else options.pause_before(len(chunks)))
                chunks.append(chunk)
                langs.append(section.lang)
                owed = None
            carried = owed
        if not chunks:
            raise EmptyText("text has nothing to say once symbols and emoji are removed: send words")
        return chunks, langs, pauses, script.tail_s + (carried or 0.0)


class Engine:
    """Supertonic 3 loaded once: four ONNX sessions, the text encoder and the voices.

    ``prepare`` checks a request; ``stream`` yields its audio chunk by chunk under a deadline;
    ``synthesize`` collects the stream into one waveform, or into an ``AudioWriter``.
    """

    def __init__(self, assets: ModelAssets, sessions: Sessions, env: Mapping[str, str] | None = None) -> None:
        self.assets = assets
        self.sessions = sessions
        self.preparer = Preparer(assets, env)

    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        session_config: SessionConfig | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Engine:
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

    # --- synthesis ---------------------------------------------------------------------------------

    def prepare(
        self,
        text: str,
        options: SynthesisOptions | None = None,
        *,
        limits: Limits = NO_LIMITS,
        format: str = DEFAULT_FORMAT,
        marks: object = (),
        captions: object = (),
        text_type: str | None = None,
    ) -> Prepared:
        """Check ``text`` with ``options`` (defaults: ``SynthesisOptions()``) and split it into chunks;
        raises the typed ``InvalidRequest`` errors. ``limits`` bound the text here and the forecast
        audio when it is synthesized; ``format`` is the file ``synthesize(into=...)`` will write;
        ``marks`` (``sentence``, ``word``) and ``captions`` (``srt``, ``vtt``) what else is wanted;
        ``text_type`` ``ssml`` or ``text`` (None: SSML when the text starts with ``<speak>``)."""
        return self.preparer.prepare(text, options, limits=limits, format=format, marks=marks, captions=captions, text_type=text_type)

    def stream(
        self, request: str | Prepared, options: SynthesisOptions | None = None, *, deadline: float | Deadline | None = None
    ) -> Iterator[AudioChunk]:
        """Yield the audio chunk by chunk, so memory stays flat however long the text is.

        ``request``: text (prepared here with ``options``) or a ``Prepared``. The request is checked
        now; the audio is made as the iterator is read. ``deadline``: seconds, or a ``Deadline``
        shared with the caller's own work (the encoding of a file); compute stops when it passes.
        """
        prepared = self._prepared(request, options)
        return self._generate(prepared, deadline if isinstance(deadline, Deadline) else Deadline(deadline))

    def synthesize(
        self,
        request: str | Prepared,
        options: SynthesisOptions | None = None,
        *,
        deadline: float | Deadline | None = None,
        into: AudioWriter | None = None,
    ) -> SynthesisResult:
        """``stream`` collected: the whole waveform with per-chunk timings, or, with ``into``, each
        chunk encoded as it is made (memory stays flat; ``audio`` is None and ``encode_ms`` says
        what encoding took). A writer built with ``before_block=deadline.check`` of the same
        ``Deadline`` keeps encoding inside it too."""
        prepared = self._prepared(request, options)
        pieces: list[np.ndarray] = []
        timings: list[ChunkTiming] = []
        frames = 0
        encode_s = 0.0
        started = time.perf_counter()
        for piece in self.stream(prepared, deadline=deadline):
            if into is None:
                pieces.append(piece.samples)
            else:
                encoding = time.perf_counter()
                into.write(piece.samples)
                encode_s += time.perf_counter() - encoding
            timings.append(piece.timing)
            frames += piece.samples.size
        total_ms = (time.perf_counter() - started) * 1000.0
        return SynthesisResult(
            audio=None if into is not None else (np.concatenate(pieces) if pieces else np.zeros(0, np.float32)),
            sample_rate=self.sample_rate,
            frames=frames,
            chunks=timings,
            synth_ms=total_ms - encode_s * 1000.0,
            model_kind=self.model_kind,
            text="\n".join(model_text(t.text, prepared.langs[t.index]) for t in timings),
            options=prepared.options,
            encode_ms=encode_s * 1000.0,
            precision=self.precision,
        )

    def _prepared(self, request: str | Prepared, options: SynthesisOptions | None) -> Prepared:
        if isinstance(request, Prepared):
            if options is not None:
                raise TypeError("a Prepared request carries its options: pass them to prepare()")
            return request
        return self.prepare(request, options)

    def _generate(self, prepared: Prepared, deadline: Deadline) -> Iterator[AudioChunk]:
        chunks, style, options, limits = prepared.chunks, prepared.style, prepared.options, prepared.limits
        # RandomState(seed) draws exactly what np.random.seed(seed); np.random.randn(...) draws,
        # which is how the official package samples its noise.
        rng = np.random.RandomState(options.seed)
        langs, last = prepared.langs, len(chunks) - 1
        position = 0
        deadline.chunks_total = len(chunks)
        with deadline:
            plans: list[_ChunkPlan] | None = None
            if limits.forecast:
                plans, audio_s = [], prepared.total_silence_s
                for chunk, lang in zip(chunks, langs, strict=True):
                    plans.append(self._plan(chunk, lang, style, options, deadline))
                    audio_s += plans[-1].speech_s
                    limits.check_audio(audio_s)  # refused as soon as the forecast passes the bound
                deadline.keep_back(limits.after_s_per_audio_s * audio_s, f"delivering about {audio_s:,.0f} s of audio")
            for index, chunk in enumerate(chunks):
                started = time.perf_counter()
                plan = plans[index] if plans is not None else self._plan(chunk, langs[index], style, options, deadline)
                wav = self._synthesize_chunk(plan, style, options, rng, deadline)
                synth_ms = (time.perf_counter() - started) * 1000.0
                lead = self.frames(prepared.pauses[index])
                start = position + lead
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
                tail = self.frames(prepared.tail_s) if index == last else 0
                if lead or tail:
                    wav = np.concatenate([np.zeros(lead, np.float32), wav, np.zeros(tail, np.float32)])
                yield AudioChunk(timing, wav)

    # --- where the audio will be: marks and captions without synthesis ------------------------------

    def timeline(self, prepared: Prepared, *, deadline: float | Deadline | None = None) -> list[ChunkTiming]:
        """Where each chunk's audio will sit, from the duration predictor alone (milliseconds a
        chunk): the very ``start_s``/``end_s`` that ``stream`` reports (``synth_ms`` is 0)."""
        clock = deadline if isinstance(deadline, Deadline) else Deadline(deadline)
        timings, position = [], 0
        with clock:
            for index, (chunk, lang) in enumerate(zip(prepared.chunks, prepared.langs, strict=True)):
                plan = self._plan(chunk, lang, prepared.style, prepared.options, clock)
                start = position + self.frames(prepared.pauses[index])
                position = start + self._chunk_frames(plan.duration)
                timings.append(ChunkTiming(index, chunk, start / self.sample_rate, position / self.sample_rate, plan.speech_s, 0.0))
        return timings

    def marks(
        self,
        prepared: Prepared,
        types: object = None,
        *,
        timeline: list[ChunkTiming] | None = None,
        deadline: float | Deadline | None = None,
    ) -> list[SpeechMark]:
        """Polly-style speech marks of ``types`` (default: the request's, else sentences and words)
        for the audio ``prepared`` makes; ``timeline`` reuses timings already known (a synthesis's)."""
        kinds = check_mark_types(types) if types is not None else (prepared.marks or ("sentence", "word"))
        timings = timeline if timeline is not None else self.timeline(prepared, deadline=deadline)
        spans = [Span(t.text, t.start_s, t.end_s) for t in timings]
        return speech_marks(prepared.script, spans, kinds)

    def captions(
        self, prepared: Prepared, fmt: str = "srt", *, timeline: list[ChunkTiming] | None = None, deadline: float | Deadline | None = None
    ) -> str:
        """SubRip (``srt``) or WebVTT (``vtt``) captions for the audio ``prepared`` makes, a cue a sentence."""
        return captions(self.marks(prepared, ("sentence", "word"), timeline=timeline, deadline=deadline), fmt)

    # --- one chunk at a time, anywhere: the parts of a long text ------------------------------------

    def parts(self, prepared: Prepared, *, deadline: float | Deadline | None = None) -> list[Part]:
        """``prepared``'s chunks as parts that each render alone, in any process, to exactly the
        samples ``stream`` yields for them (the silence before each aside).

        The noise is one random stream across the chunks (as the official package draws it), so a
        part carries the stream's state at its first draw: the duration predictor runs for every
        chunk (milliseconds each) to know how much noise each one takes, and the draws are skipped
        in blocks, not kept. ``seed`` None draws one, which the parts then share.
        """
        options = prepared.options
        if options.seed is None:
            options = replace(options, seed=int(np.random.SeedSequence().generate_state(1)[0]))
        rng = np.random.RandomState(options.seed)
        clock = deadline if isinstance(deadline, Deadline) else Deadline(deadline)
        parts: list[Part] = []
        with clock:
            for index, (chunk, lang) in enumerate(zip(prepared.chunks, prepared.langs, strict=True)):
                plan = self._plan(chunk, lang, prepared.style, options, clock)
                parts.append(Part(index, chunk, options, _noise_state(rng), plan.speech_s, lang, prepared.pauses[index]))
                _skip_normals(rng, self._noise_size(plan.duration))
        return parts

    def render_part(self, part: Part, *, deadline: float | Deadline | None = None) -> np.ndarray:
        """One part's samples, equal to its chunk's in ``stream`` of the whole text (without the silence before it)."""
        clock = deadline if isinstance(deadline, Deadline) else Deadline(deadline)
        style = self.assets.voice(part.options.voice)
        rng = np.random.RandomState()
        rng.set_state(_noise_state_from(part.noise))
        with clock:
            plan = self._plan(part.text, part.lang, style, part.options, clock)
            return self._synthesize_chunk(plan, style, part.options, rng, clock)

    def frames(self, seconds: float) -> int:
        """Samples of ``seconds`` of audio (the silence before a chunk)."""
        return int(seconds * self.sample_rate)

    def _plan(self, chunk: str, lang: str, style: VoiceStyle, options: SynthesisOptions, deadline: Deadline) -> _ChunkPlan:
        """A chunk's model inputs and the duration predictor's forecast, the first graph of its pipeline."""
        text_ids, text_mask = self.preparer.encoder.encode(chunk, lang)
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

    def _latent_len(self, duration: np.ndarray) -> int:
        """Latent frames of a chunk of ``duration``, with the official arithmetic (same dtypes, same rounding)."""
        frame = self.assets.samples_per_frame
        return int(((duration.max() * self.sample_rate + frame - 1) / frame).astype(np.int32))

    def _chunk_frames(self, duration: np.ndarray) -> int:
        """Samples the vocoder makes for a chunk of ``duration``: a frame's worth per latent frame."""
        return self._latent_len(duration) * self.assets.samples_per_frame

    def _noise_size(self, duration: np.ndarray) -> int:
        """How many normals ``_noise`` draws for ``duration``."""
        return len(duration) * self.assets.latent_channels * self._latent_len(duration)

    def _noise(self, duration: np.ndarray, rng: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
        """Initial latent noise and its mask, drawn with the official arithmetic (same dtypes, same rounding)."""
        frame = self.assets.samples_per_frame
        wav_lengths = (duration * self.sample_rate).astype(np.int64)
        latent_len = self._latent_len(duration)
        latent_lengths = (wav_lengths + frame - 1) // frame
        longest = int(np.max(latent_lengths))
        latent_mask = (np.arange(longest) < latent_lengths[:, None]).astype(np.float32).reshape(-1, 1, longest)
        noise = rng.randn(len(duration), self.assets.latent_channels, latent_len).astype(np.float32)
        return noise * latent_mask, latent_mask

    def warm_up(self) -> float:
        """Run one short synthesis so the first request does not pay ORT's first-run allocations; returns ms."""
        started = time.perf_counter()
        voice = DEFAULT_VOICE if DEFAULT_VOICE in self.voices else self.voices[0]
        self.synthesize("Ready.", SynthesisOptions(voice=voice, lang="en", steps=1, seed=0, normalize=False))
        return (time.perf_counter() - started) * 1000.0


@dataclass(frozen=True)
class Part:
    """One chunk of a text, renderable alone by ``Engine.render_part``: what a worker needs, as JSON."""

    index: int
    text: str  # the chunk as the model reads it (normalized already)
    options: SynthesisOptions  # the whole text's, seed included
    noise: dict[str, Any]  # the random stream's state at this chunk's first draw
    speech_s: float  # the duration predictor's forecast for this chunk
    lang: str  # the chunk's language (SSML may switch it from ``options.lang``)
    pause_s: float  # the silence before it in the whole audio

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "options": asdict(self.options),
            "noise": self.noise,
            "speech_s": self.speech_s,
            "lang": self.lang,
            "pause_s": self.pause_s,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Part:
        options = SynthesisOptions(**data["options"])
        index = int(data["index"])
        # Parts sent before languages and pauses were per chunk: the text's language, the usual silence.
        pause_s = float(data.get("pause_s", options.pause_before(index)))
        return cls(
            index, str(data["text"]), options, dict(data["noise"]), float(data["speech_s"]), str(data.get("lang", options.lang)), pause_s
        )


# Skipped draws are made in blocks of this many normals: memory stays small however long the text.
_SKIP_BLOCK = 1 << 20


def _skip_normals(rng: np.random.RandomState, count: int) -> None:
    """Advance ``rng`` exactly as ``rng.randn(count)`` would (the legacy Gaussian keeps its spare
    value across calls, so blocks draw the same stream as one call)."""
    while count > 0:
        step = min(count, _SKIP_BLOCK)
        rng.randn(step)
        count -= step


def _noise_state(rng: np.random.RandomState) -> dict[str, Any]:
    """``rng``'s state as JSON: the Mersenne Twister's 624 words (base64), position and spare Gaussian."""
    name, keys, pos, has_gauss, cached = rng.get_state(legacy=True)
    return {
        "keys": base64.b64encode(np.asarray(keys, dtype="<u4").tobytes()).decode("ascii"),
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached_gaussian": float(cached),
    }


def _noise_state_from(state: Mapping[str, Any]) -> tuple[str, np.ndarray, int, int, float]:
    keys = np.frombuffer(base64.b64decode(state["keys"]), dtype="<u4").astype(np.uint32)
    if keys.size != 624:
        raise ValueError("a noise state holds 624 words")
    return ("MT19937", keys, int(state["pos"]), int(state["has_gauss"]), float(state["cached_gaussian"]))


class _ChunkPlan(NamedTuple):
    text_ids: np.ndarray
    text_mask: np.ndarray
    duration: np.ndarray  # seconds of speech, at the requested speed

    @property
    def speech_s(self) -> float:
        return float(self.duration[0])


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
