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

encoder = StreamEncoder("mp3", engine.sample_rate)       # bytes to send as each chunk is made
for chunk in engine.stream("A long text.", options):
    send(encoder.write(chunk.samples))
send(encoder.close())

engine.marks(prepared, ["sentence", "word"])   # Polly-style speech marks, from the durations alone
engine.captions(prepared, "vtt")               # WebVTT (or "srt") a cue a sentence

The public surface is the names in ``__all__`` and the ``supertonic_engine.errors`` module as a
whole (the typed errors a caller catches: every one is importable from there). Everything else
(the modules' other names, the text pipeline, sessions, assets) may change without notice; the
Lambda function imports only the public surface (tests/test_public_api.py holds it to that).
"""

from .audio import DEFAULT_FORMAT, AudioFormat, AudioWriter, SampleSink, audio_format, available_formats, content_type, encode, file_bytes
from .audio_stream import StreamEncoder
from .chapter_files import ChapterSplitter, chapter_chunks, chapter_start_frames, marks_in_chapter
from .config import SessionConfig, cpu_quota, threads_for, true_or_false, usable_cpus
from .cpu import cpu_features
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
from .marks import CAPTION_FORMATS, CAPTION_TYPES, MARKS_CONTENT_TYPE, SpeechMark, captions, json_lines
from .options import DEFAULT_SPEED, DEFAULT_VOICE, SPEED_RANGE, Extras, Limits, SynthesisOptions
from .part_codecs import JOINABLE_FORMATS, PartCodec, part_codec
from .part_span import PartSpan
from .parts import Part
from .preparation import Prepared
from .results import AudioChunk, ChunkTiming, SynthesisResult
from .synthesis import Engine
from .text.book import Chapter, ChapterMark, book_text, chapter_marks, read_epub, read_markdown
from .voice_blend import rename_voices

__all__ = [
    "CAPTION_FORMATS",
    "CAPTION_TYPES",
    "DEFAULT_FORMAT",
    "DEFAULT_SPEED",
    "DEFAULT_VOICE",
    "MARKS_CONTENT_TYPE",
    "SPEED_RANGE",
    "AudioChunk",
    "AudioFormat",
    "AudioWriter",
    "Chapter",
    "ChapterMark",
    "ChapterSplitter",
    "ChunkTiming",
    "Deadline",
    "DeadlineExceeded",
    "EmptyText",
    "Engine",
    "Extras",
    "InvalidParameter",
    "InvalidRequest",
    "InvalidVoiceBlend",
    "JOINABLE_FORMATS",
    "Limits",
    "ModelCorrupt",
    "ModelError",
    "ModelMissing",
    "Part",
    "PartCodec",
    "PartSpan",
    "Prepared",
    "SampleSink",
    "SessionConfig",
    "SpeechMark",
    "StreamEncoder",
    "SupertonicError",
    "SynthesisOptions",
    "SynthesisResult",
    "TextTooLong",
    "UnknownLanguage",
    "UnknownVoice",
    "UnsupportedCharacters",
    "UnsupportedFormat",
    "VoiceFileCorrupt",
    "audio_format",
    "available_formats",
    "book_text",
    "captions",
    "chapter_chunks",
    "chapter_marks",
    "chapter_start_frames",
    "content_type",
    "cpu_features",
    "cpu_quota",
    "encode",
    "file_bytes",
    "json_lines",
    "marks_in_chapter",
    "part_codec",
    "read_epub",
    "read_markdown",
    "rename_voices",
    "threads_for",
    "true_or_false",
    "usable_cpus",
]
