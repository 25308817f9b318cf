"""What synthesis gives back: each chunk's place in the audio, the chunks as they are made, the whole result."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .options import SynthesisOptions


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
