"""The engine: text in, 44.1 kHz audio out, chunk by chunk, under a hard deadline.

Per chunk the pipeline is the official one: duration predictor -> text encoder -> noise ->
N Euler steps of the vector estimator -> vocoder, with the same shapes, the same noise draw and
the same silence between chunks, so a seeded run equals the official package's output.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import config
from .assets import ModelAssets, VoiceStyle, load_assets, resolve_model_dir
from .audio import SampleSink
from .config import SessionConfig
from .deadline import Deadline
from .errors import ModelNotConfigured
from .marks import Span, SpeechMark, captions, check_mark_types, speech_marks
from .options import DEFAULT_VOICE, SynthesisOptions
from .part_span import PartSpan, spans
from .parts import Part, noise_state, noise_state_from, skip_normals
from .preparation import Prepared, Preparer
from .results import AudioChunk, ChunkTiming, SynthesisResult
from .sessions import Sessions, load_sessions
from .silence import trim_silence
from .text import LANGUAGES
from .text.unicode import model_text

logger = logging.getLogger(__name__)


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


class Engine(Preparer):
    """Supertonic 3 loaded once: four ONNX sessions, the text encoder and the voices.

    ``prepare`` (the ``Preparer``'s) checks a request; ``stream`` yields its audio chunk by chunk
    under a deadline; ``synthesize`` collects the stream into one waveform, or into an ``AudioWriter``.
    """

    def __init__(self, assets: ModelAssets, sessions: Sessions, env: Mapping[str, str] | None = None) -> None:
        super().__init__(assets, env)
        self.sessions = sessions
        self._env = env

    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        session_config: SessionConfig | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Engine:
        """Load the model from ``model_dir``, else ``SUPERTONIC_MODEL_DIR`` (``ModelMissing`` when neither is set)."""
        assets = load_assets(locate_model(model_dir, env), env)
        return cls(assets, load_sessions(assets, session_config, env), env)

    def fit_threads(self, session_config: SessionConfig) -> float:
        """Rebuilds the sessions when ``session_config`` counts another number of intra-op threads than
        they run (ONNX Runtime fixes it when it creates a session), as after a SnapStart restore onto
        other CPUs. Seconds the rebuild took; 0.0 when the count is the same and nothing was done."""
        if session_config.threads() == self.sessions.threads:
            return 0.0
        started = time.perf_counter()
        self.sessions = load_sessions(self.assets, session_config, self._env)
        return time.perf_counter() - started

    # --- what the model is -----------------------------------------------------------------------

    @property
    def model_dir(self) -> Path:
        return self.assets.root

    @property
    def model_kind(self) -> str:
        """ "real" only when no graph the sessions loaded carries the stand-in mark."""
        return self.sessions.kind

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

    def stream(
        self, request: str | Prepared, options: SynthesisOptions | None = None, *, deadline: float | Deadline | None = None
    ) -> Iterator[AudioChunk]:
        """Yield the audio chunk by chunk, so memory stays flat however long the text is.

        ``request``: text (prepared here with ``options``) or a ``Prepared``. The request is checked
        now; the audio is made as the iterator is read. ``deadline``: seconds, or a ``Deadline``
        shared with the caller's own work (the encoding of a file); compute stops when it passes.
        """
        prepared = self._prepared(request, options)
        return self._generate(prepared, Deadline.of(deadline))

    def synthesize(
        self,
        request: str | Prepared,
        options: SynthesisOptions | None = None,
        *,
        deadline: float | Deadline | None = None,
        into: SampleSink | None = None,
    ) -> SynthesisResult:
        """``stream`` collected: the whole waveform with per-chunk timings, or, with ``into``, each
        chunk encoded as it is made (memory stays flat; ``audio`` is None and ``encode_ms`` says
        what encoding took). ``into`` gets one ``write`` a chunk, in order: the silence before it,
        its speech, and after the last one the silence at the end (a ``ChapterSplitter`` cuts
        there). A writer built with ``before_block=deadline.check`` of the same ``Deadline`` keeps
        encoding inside it too."""
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
                # The text as sent, in proportion to the chunks forecast: what the audio so far reads.
                sent_chars, chunk_chars, read_chars = len(prepared.text), sum(map(len, chunks)), 0
                for chunk, lang in zip(chunks, langs, strict=True):
                    plans.append(self._plan(chunk, lang, style, options, deadline))
                    audio_s += plans[-1].speech_s
                    read_chars += len(chunk)
                    # refused as soon as the forecast passes the bound
                    limits.check_audio(audio_s, text_chars=sent_chars * read_chars / chunk_chars)
                deadline.keep_back(limits.after_s_per_audio_s * audio_s, f"delivering about {audio_s:,.0f} s of audio")
            for index, chunk in enumerate(chunks):
                started = time.perf_counter()
                plan = plans[index] if plans is not None else self._plan(chunk, langs[index], style, options, deadline)
                wav = self._render(plan, style, options, index, rng, deadline)
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
        chunk): the very ``start_s``/``end_s`` that ``stream`` reports (``synth_ms`` is 0).

        It forecasts the untrimmed audio: with ``options.trim_silence`` each chunk's silence is cut
        as it is made, which nothing before the render can know, so marks and captions of trimmed
        audio come from the synthesis's own timings (``marks(prepared, timeline=result.chunks)``)."""
        clock = Deadline.of(deadline)
        timings, position = [], 0
        with clock:
            for index, (chunk, lang) in enumerate(zip(prepared.chunks, prepared.langs, strict=True)):
                plan = self._plan(chunk, lang, prepared.style, prepared.options, clock)
                start = position + self.frames(prepared.pauses[index])
                position = start + self._chunk_frames(plan.duration)
                timings.append(ChunkTiming(index, chunk, start / self.sample_rate, position / self.sample_rate, plan.speech_s, 0.0))
        return timings

    def forecast_frames(
        self, prepared: Prepared, timeline: list[ChunkTiming] | None = None, *, deadline: float | Deadline | None = None
    ) -> int:
        """The samples ``stream`` will yield for ``prepared`` in all (the silences, the chunks, the
        silence at the end), from the duration predictor (``timeline``, reused when given): exactly
        ``SynthesisResult.frames`` without ``trim_silence``, an upper bound with it."""
        timings = timeline if timeline is not None else self.timeline(prepared, deadline=deadline)
        return round(timings[-1].end_s * self.sample_rate) + self.frames(prepared.tail_s)

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
        kinds = check_mark_types(types) if types is not None else (prepared.extras.marks or ("sentence", "word"))
        timings = timeline if timeline is not None else self.timeline(prepared, deadline=deadline)
        spans = [Span(t.text, t.start_s, t.end_s) for t in timings]
        return speech_marks(prepared.script, spans, kinds)

    def captions(
        self, prepared: Prepared, fmt: str = "srt", *, timeline: list[ChunkTiming] | None = None, deadline: float | Deadline | None = None
    ) -> str:
        """SubRip (``srt``) or WebVTT (``vtt``) captions for the audio ``prepared`` makes, a cue a sentence."""
        clock = Deadline.of(deadline)  # one deadline over the marks and the cues
        return captions(self.marks(prepared, ("sentence", "word"), timeline=timeline, deadline=clock), fmt, deadline=clock)

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
        clock = Deadline.of(deadline)
        parts: list[Part] = []
        drawn = 0
        with clock:
            for index, (chunk, lang) in enumerate(zip(prepared.chunks, prepared.langs, strict=True)):
                plan = self._plan(chunk, lang, prepared.style, options, clock)
                parts.append(Part(index, chunk, options, noise_state(rng), plan.speech_s, lang, prepared.pauses[index], drawn))
                size = self._noise_size(plan.duration)
                skip_normals(rng, size)
                drawn += size
        return parts

    def render_part(self, part: Part, *, deadline: float | Deadline | None = None) -> np.ndarray:
        """One part's samples, equal to its chunk's in ``stream`` of the whole text (without the silence before it)."""
        clock = Deadline.of(deadline)
        style = self.assets.voice(part.options.voice)
        rng = np.random.RandomState()
        rng.set_state(noise_state_from(part.noise))
        with clock:
            plan = self._plan(part.text, part.lang, style, part.options, clock)
            # The planner's forecast, not this machine's: a last-bit difference between CPUs' kernels
            # could move a chunk across a latent frame, and every part's length is in the plan.
            plan = plan._replace(duration=np.array([part.speech_s], dtype=np.float32))
            return self._render(plan, style, part.options, part.index, rng, clock)

    def part_spans(self, speech_s: Sequence[float], pauses_s: Sequence[float], tail_s: float) -> list[PartSpan]:
        """Where each part's audio (the silence before it, its speech, and after the last part the
        silence at the end) sits in the whole file, from the parts' forecasts (``Part.speech_s``,
        ``Part.pause_s``) alone: what a worker needs to encode its own part for a file joined from
        parts. Exact without ``trim_silence``."""
        leads = [self.frames(pause) for pause in pauses_s]
        # speech_s is the duration predictor's float32 forecast, kept exactly in a float.
        frames = [lead + self._chunk_frames(np.array([speech], np.float32)) for lead, speech in zip(leads, speech_s, strict=True)]
        frames[-1] += self.frames(tail_s)
        return spans(frames, self.sample_rate, leads)

    def frames(self, seconds: float) -> int:
        """Samples of ``seconds`` of audio (the silence before a chunk)."""
        return int(seconds * self.sample_rate)

    def _plan(self, chunk: str, lang: str, style: VoiceStyle, options: SynthesisOptions, deadline: Deadline) -> _ChunkPlan:
        """A chunk's model inputs and the duration predictor's forecast, the first graph of its pipeline."""
        text_ids, text_mask = self.encoder.encode(chunk, lang)
        duration, *_ = deadline.run(self.sessions.duration_predictor, {"text_ids": text_ids, "style_dp": style.dp, "text_mask": text_mask})
        return _ChunkPlan(text_ids, text_mask, duration / options.speed)

    def _render(
        self, plan: _ChunkPlan, style: VoiceStyle, options: SynthesisOptions, index: int, rng: np.random.RandomState, deadline: Deadline
    ) -> np.ndarray:
        """Chunk ``index``'s samples as ``options`` want them: its steps, its edges trimmed when asked."""
        wav = self._synthesize_chunk(plan, style, options.steps_for(index), rng, deadline)
        return trim_silence(wav, self.sample_rate) if options.trim_silence else wav

    def _synthesize_chunk(
        self, plan: _ChunkPlan, style: VoiceStyle, steps: int, rng: np.random.RandomState, deadline: Deadline
    ) -> np.ndarray:
        s = self.sessions
        text_ids, text_mask, duration = plan
        text_emb, *_ = deadline.run(s.text_encoder, {"text_ids": text_ids, "style_ttl": style.ttl, "text_mask": text_mask})
        latent, latent_mask = self._noise(duration, rng)
        total_step = np.array([steps], dtype=np.float32)
        for step in range(steps):
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


class _ChunkPlan(NamedTuple):
    text_ids: np.ndarray
    text_mask: np.ndarray
    duration: np.ndarray  # seconds of speech, at the requested speed

    @property
    def speech_s(self) -> float:
        return float(self.duration[0])
