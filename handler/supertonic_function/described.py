"""Answers about audio rather than audio: speech marks (Polly's JSON lines) and captions (SRT, WebVTT).

They come from the duration predictor alone (``Engine.marks``), so they cost milliseconds and
describe exactly the audio the same request returns without them. The predictor's pass and all
that is made from it run under one ``Deadline``, the request's: a long text's captions are work too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from supertonic_engine import CAPTION_TYPES, MARKS_CONTENT_TYPE, Deadline, Engine, Prepared, SpeechMark, captions, json_lines

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


def store_sidecars(
    service: Service, prepared: Prepared, keys: ResultKeys, *, budget: Callable[[], float | Deadline | None]
) -> dict[str, str]:
    """Write what an S3 job asked for beside its audio (``marks.jsonl``, ``captions.srt``/``.vtt``)
    before the manifest says done, all of it made within the time ``budget`` gives, read just before
    (a job without sidecars reads nothing); returns name -> key for the manifest."""
    if not prepared.extras:
        return {}
    engine, extras, deadline = service.engine, prepared.extras, Deadline.of(budget())
    # One duration-predictor pass and one set of marks for every sidecar (captions cost one pass over them).
    kinds = ("sentence", "word") if extras.captions else extras.marks
    every = engine.marks(prepared, kinds, deadline=deadline)
    files: dict[str, tuple[str, str]] = {}
    if extras.marks:
        deadline.check()
        files["marks.jsonl"] = (json_lines([m for m in every if m.type in extras.marks]), MARKS_CONTENT_TYPE)
    for fmt in extras.captions:
        files[f"captions.{fmt}"] = (captions(every, fmt, deadline=deadline), CAPTION_TYPES[fmt])
    written = {}
    for name, (body, content_type) in files.items():
        key = keys.folder + name
        service.store.put(keys.bucket, key, body.encode("utf-8"), content_type=content_type)
        written[name] = key
    return written
