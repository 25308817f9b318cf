"""Supertonic 3 text-to-speech on ONNX Runtime, usable with or without Lambda.

    from supertonic_engine import Engine, encode
    engine = Engine.load("/opt/model")            # or SUPERTONIC_MODEL_DIR
    result = engine.synthesize("Hello.", voice="F1", lang="en", timeout_s=20)
    wav_bytes = encode(result.audio, result.sample_rate, "wav")
"""

from .audio import available_formats, content_type, encode, write_chunks
from .config import SessionConfig
from .errors import (
    DeadlineExceeded,
    EmptyText,
    InvalidParameter,
    InvalidRequest,
    ModelCorrupt,
    ModelError,
    ModelMissing,
    SupertonicError,
    TextTooLong,
    UnknownLanguage,
    UnknownVoice,
    UnsupportedCharacters,
    UnsupportedFormat,
)
from .synthesis import AudioChunk, ChunkTiming, Engine, Limits, SynthesisOptions, SynthesisResult

__all__ = [
    "AudioChunk",
    "ChunkTiming",
    "DeadlineExceeded",
    "EmptyText",
    "Engine",
    "InvalidParameter",
    "InvalidRequest",
    "Limits",
    "ModelCorrupt",
    "ModelError",
    "ModelMissing",
    "SessionConfig",
    "SupertonicError",
    "SynthesisOptions",
    "SynthesisResult",
    "TextTooLong",
    "UnknownLanguage",
    "UnknownVoice",
    "UnsupportedCharacters",
    "UnsupportedFormat",
    "available_formats",
    "content_type",
    "encode",
    "write_chunks",
]
