"""The engine's public surface: ``supertonic_engine.__all__`` and the ``supertonic_engine.errors`` module.

The surface is pinned here name by name, so widening or narrowing it is a deliberate edit of this
test; and the Lambda function may import nothing else of the engine (the CLI, tools and harness
may reach deeper).
"""

from __future__ import annotations

import ast
from pathlib import Path

import supertonic_engine

REPO = Path(__file__).resolve().parent.parent
HANDLER = REPO / "handler"
PUBLIC_MODULES = {"supertonic_engine", "supertonic_engine.errors"}

SURFACE = [
    "AudioChunk",
    "AudioFormat",
    "AudioWriter",
    "CAPTION_FORMATS",
    "CAPTION_TYPES",
    "Chapter",
    "ChapterMark",
    "ChapterSplitter",
    "ChunkTiming",
    "DEFAULT_FORMAT",
    "DEFAULT_SPEED",
    "DEFAULT_VOICE",
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
    "MARKS_CONTENT_TYPE",
    "ModelCorrupt",
    "ModelError",
    "ModelMissing",
    "Part",
    "PartCodec",
    "PartSpan",
    "Prepared",
    "SPEED_RANGE",
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


def test_the_public_names_are_exactly_these() -> None:
    assert sorted(supertonic_engine.__all__) == SURFACE
    assert len(set(supertonic_engine.__all__)) == len(supertonic_engine.__all__)


def test_every_public_name_exists() -> None:
    missing = [name for name in supertonic_engine.__all__ if not hasattr(supertonic_engine, name)]
    assert missing == []


def _engine_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each import of the engine that reaches past its public surface."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "supertonic_engine"]
            continue
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module or node.module.split(".")[0] != "supertonic_engine":
            continue
        if node.module not in PUBLIC_MODULES:
            found.append((node.lineno, node.module))
        elif node.module == "supertonic_engine":
            found += [(node.lineno, f"supertonic_engine.{a.name}") for a in node.names if a.name not in supertonic_engine.__all__]
    # ``import supertonic_engine.x`` reaches a module, never a name of the surface; plain
    # ``import supertonic_engine`` is the surface itself.
    return sorted((line, what) for line, what in found if what != "supertonic_engine")


def test_the_function_imports_only_the_public_surface() -> None:
    beyond = [
        f"{path.relative_to(REPO)}:{line} imports {what}"
        for path in sorted(HANDLER.rglob("*.py"))
        for line, what in _engine_imports(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    ]
    assert beyond == [], "the function imports engine names outside supertonic_engine.__all__ and supertonic_engine.errors"


def test_the_scan_names_file_and_line_of_an_import_past_the_surface() -> None:
    source = "from supertonic_engine import Engine\nfrom supertonic_engine.errors import TextTooLong\nif True:\n    from supertonic_engine.marks import Span\nfrom supertonic_engine import Preparer\nimport supertonic_engine.synthesis\n"
    assert _engine_imports(ast.parse(source)) == [
        (4, "supertonic_engine.marks"),
        (5, "supertonic_engine.Preparer"),
        (6, "supertonic_engine.synthesis"),
    ]
