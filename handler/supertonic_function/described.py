"""Answers about audio rather than audio: speech marks (Polly's JSON lines) and captions (SRT, WebVTT).

They come from the duration predictor alone (``Engine.marks``), so they cost milliseconds and
describe exactly the audio the same request returns without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from supertonic_engine import CAPTION_TYPES, MARKS_CONTENT_TYPE, Engine, Prepared, SpeechMark, captions, json_lines

from .layout import ResultKeys
from .service import Service


@dataclass(frozen=True)
class Described:
    kind: str  # "marks" or a caption format
    body: str
    content_type: str
    model_kind: str
    marks: list[SpeechMark]

    def document(self) -> dict[str, Any]:
        """The JSON answer (``Accept: application/json``, a direct invoke)."""
        base: dict[str, Any] = {"model": self.model_kind}
        if self.kind == "marks":
            return base | {"marks": [m.to_json() for m in self.marks], "content_type": self.content_type}
        return base | {"captions": self.body, "format": self.kind, "content_type": self.content_type}

    def headers(self) -> dict[str, str]:
        return {"x-supertonic-model": self.model_kind}


def describe(engine: Engine, prepared: Prepared, answer: str, *, budget_s: float | None) -> Described:
    """``prepared``'s marks (``answer`` "marks"), or captions in the format ``answer`` names (else the request's first)."""
    if answer == "marks":
        marks = engine.marks(prepared, deadline=budget_s)
        return Described("marks", json_lines(marks), MARKS_CONTENT_TYPE, engine.model_kind, marks)
    fmt = answer if answer in CAPTION_TYPES else prepared.extras.captions[0]
    marks = engine.marks(prepared, ("sentence", "word"), deadline=budget_s)
    return Described(fmt, captions(marks, fmt), CAPTION_TYPES[fmt], engine.model_kind, marks)


def store_sidecars(service: Service, prepared: Prepared, keys: ResultKeys) -> dict[str, str]:
    """Write what an S3 job asked for beside its audio (``marks.jsonl``, ``captions.srt``/``.vtt``)
    before the manifest says done; returns name -> key for the manifest."""
    if not prepared.extras:
        return {}
    engine = service.engine
    timeline = engine.timeline(prepared)  # one duration-predictor pass for every sidecar
    files: dict[str, tuple[str, str]] = {}
    if prepared.extras.marks:
        files["marks.jsonl"] = (json_lines(engine.marks(prepared, timeline=timeline)), MARKS_CONTENT_TYPE)
    if prepared.extras.captions:
        every = engine.marks(prepared, ("sentence", "word"), timeline=timeline)
        for fmt in prepared.extras.captions:
            files[f"captions.{fmt}"] = (captions(every, fmt), CAPTION_TYPES[fmt])
    written = {}
    for name, (body, content_type) in files.items():
        key = keys.folder + name
        service.store.put(keys.bucket, key, body.encode("utf-8"), content_type=content_type)
        written[name] = key
    return written
