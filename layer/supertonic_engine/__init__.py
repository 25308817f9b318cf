"""Supertonic 3 text-to-speech on ONNX Runtime, usable with or without Lambda.

from supertonic_engine import AudioWriter, Engine, SynthesisOptions, encode
engine = Engine.load("/opt/model")            # or SUPERTONIC_MODEL_DIR
options = SynthesisOptions(voice="F1", lang="en", seed=1)
result = engine.synthesize("Hello.", options, deadline=20)
wav_bytes = encode(result.audio, result.sample_rate, "wav")

for chunk in engine.stream("A long text.", options):   # lazy: one chunk's audio at a time
    chunk.samples, chunk.timing.start_s

prepared = engine.prepare("Hello.", options, format="flac")  # every check, no audio yet
with AudioWriter("hello.flac", prepared.format, engine.sample_rate) as writer:
    engine.synthesize(prepared, into=writer)

engine.marks(prepared, ["sentence", "word"])   # Polly-style speech marks, from the durations alone
engine.captions(prepared, "vtt")               # WebVTT (or "srt") a cue a sentence
"""

from .audio import AudioWriter, available_formats, content_type, encode
from .config import SessionConfig
from .deadline import Deadline
from .errors import (
    DeadlineExceeded,
    EmptyText,
    InvalidParameter,
    InvalidRequest,
    InvalidVoiceBlend,
    ModelCorrupt,
    ModelError,
    ModelMissing,
    SupertonicError,
    TextTooLong,
    UnknownLanguage,
    UnknownVoice,
    UnsupportedCharacters,
    UnsupportedFormat,
    VoiceFileCorrupt,
)
from .marks import SpeechMark
from .synthesis import AudioChunk, ChunkTiming, Engine, Limits, Part, Prepared, SynthesisOptions, SynthesisResult

__all__ = [
    "AudioChunk",
    "AudioWriter",
    "ChunkTiming",
    "Deadline",
    "DeadlineExceeded",
    "EmptyText",
    "Engine",
    "InvalidParameter",
    "InvalidRequest",
    "InvalidVoiceBlend",
    "Limits",
    "Part",
    "ModelCorrupt",
    "ModelError",
    "ModelMissing",
    "Prepared",
    "SessionConfig",
    "SpeechMark",
    "SupertonicError",
    "SynthesisOptions",
    "SynthesisResult",
    "TextTooLong",
    "UnknownLanguage",
    "UnknownVoice",
    "UnsupportedCharacters",
    "UnsupportedFormat",
    "VoiceFileCorrupt",
    "available_formats",
    "content_type",
    "encode",
]
