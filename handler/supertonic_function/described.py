"""Answers about audio rather than audio: speech marks (Polly's JSON lines) and captions (SRT, WebVTT).

They come from the duration predictor alone (``Engine.marks``), so they cost milliseconds and
describe exactly the audio the same request returns without them. The predictor's pass and all
that is made from it run under one ``Deadline``, the request's: a long text's captions are work too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from supertonic_engine import (
    CAPTION_TYPES,
    MARKS_CONTENT_TYPE,
    Deadline,
    Engine,
    Extras,
    Prepared,
    SpeechMark,
    captions,
    chapter_start_frames,
    json_lines,
    marks_in_chapter,
)

from .layout import ResultKeys
from .rendering import ignored_header
from .service import Service


@dataclass(frozen=True)
class Described:
    kind: str  # "marks" or a caption format
    body: str
    content_type: str
    model_kind: str
    marks: list[SpeechMark]
    ignored: dict[str, str] = field(default_factory=dict)  # rendering.ignored_header: SSML skipped

    def document(self) -> dict[str, Any]:
        """The JSON answer (``Accept: application/json``, a direct invoke)."""
        base: dict[str, Any] = {"model": self.model_kind}
        if self.kind == "marks":
            return base | {"marks": [m.to_json() for m in self.marks], "content_type": self.content_type}
        return base | {"captions": self.body, "format": self.kind, "content_type": self.content_type}

    def headers(self) -> dict[str, str]:
        return {"x-supertonic-model": self.model_kind} | self.ignored


def describe(engine: Engine, prepared: Prepared, answer: str, *, budget_s: float | Deadline | None) -> Described:
    """``prepared``'s marks (``answer`` "marks"), or captions in the format ``answer`` names (else the request's first)."""
    deadline = Deadline.of(budget_s)
    if answer == "marks":
        marks = engine.marks(prepared, deadline=deadline)
        return Described("marks", json_lines(marks), MARKS_CONTENT_TYPE, engine.model_kind, marks, ignored_header(prepared))
    fmt = answer if answer in CAPTION_TYPES else prepared.extras.captions[0]
    marks = engine.marks(prepared, ("sentence", "word"), deadline=deadline)
    return Described(fmt, captions(marks, fmt, deadline=deadline), CAPTION_TYPES[fmt], engine.model_kind, marks, ignored_header(prepared))


@dataclass(frozen=True)
class Sidecars:
    """The sidecars an S3 job stored, name -> key: the book's (or the text's), and each chapter's."""

    book: dict[str, str] = field(default_factory=dict)
    chapters: list[dict[str, str]] = field(default_factory=list)


def store_sidecars(
    service: Service,
    prepared: Prepared,
    keys: ResultKeys,
    *,
    budget: Callable[[], float | Deadline | None],
    chapters: Sequence[range] = (),
) -> Sidecars:
    """Write what an S3 job asked for beside its audio (``marks.jsonl``, ``captions.srt``/``.vtt``)
    before the manifest says done, all of it made within the time ``budget`` gives, read just before
    (a job without sidecars reads nothing). A book's ``chapters`` (each one's chunks,
    ``chapter_chunks``) get theirs too, in their folders, timed on their own files' clocks."""
    if not prepared.extras:
        return Sidecars()
    engine, extras, deadline = service.engine, prepared.extras, Deadline.of(budget())
    # One duration-predictor pass and one set of marks for every sidecar (captions cost one pass over them).
    kinds = ("sentence", "word") if extras.captions else extras.marks
    timeline = engine.timeline(prepared, deadline=deadline)
    every = engine.marks(prepared, kinds, timeline=timeline, deadline=deadline)
    book = _stored(service, keys.bucket, keys.folder, _sidecar_files(every, extras, deadline))
    rate = engine.sample_rate
    starts = chapter_start_frames(chapters, [round(t.start_s * rate) for t in timeline])
    heard = [start for start in starts if start is not None]
    per_chapter: list[dict[str, str]] = []
    for number, start in enumerate(starts):
        if start is None:
            per_chapter.append({})
            continue
        following = next((s for s in heard if s > start), None)
        marks = marks_in_chapter(every, start / rate, None if following is None else following / rate)
        per_chapter.append(_stored(service, keys.bucket, keys.chapter_folder(number), _sidecar_files(marks, extras, deadline)))
    return Sidecars(book, per_chapter)


def _sidecar_files(marks: list[SpeechMark], extras: Extras, deadline: Deadline) -> dict[str, tuple[str, str]]:
    """name -> (body, content type) of each sidecar ``extras`` asks for, made from ``marks``."""
    files: dict[str, tuple[str, str]] = {}
    if extras.marks:
        deadline.check()
        files["marks.jsonl"] = (json_lines([m for m in marks if m.type in extras.marks]), MARKS_CONTENT_TYPE)
    for fmt in extras.captions:
        files[f"captions.{fmt}"] = (captions(marks, fmt, deadline=deadline), CAPTION_TYPES[fmt])
    return files


def _stored(service: Service, bucket: str, folder: str, files: dict[str, tuple[str, str]]) -> dict[str, str]:
    written = {}
    for name, (body, content_type) in files.items():
        key = folder + name
        service.store.put(bucket, key, body.encode("utf-8"), content_type=content_type)
        written[name] = key
    return written
