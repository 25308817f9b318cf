"""Captions that stay text (WebVTT escapes, SubRip without markup), cost one pass over the marks,
and are made inside the request's deadline."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from fixtures_s3 import OUTPUT_BUCKET, load_event
from test_handler_http import _call, _deliver_job, _post

from supertonic_engine import Deadline, DeadlineExceeded, Engine, Extras, SpeechMark, SynthesisOptions, captions, synthesis
from supertonic_engine.marks import caption_cues
from supertonic_function import described
from supertonic_function.layout import ResultKeys

pytest_plugins = ["fixtures_s3"]

VTT_TIMING = re.compile(r"\d\d:\d\d:\d\d\.\d\d\d --> \d\d:\d\d:\d\d\.\d\d\d")
SRT_TIMING = re.compile(r"\d\d:\d\d:\d\d,\d\d\d --> \d\d:\d\d:\d\d,\d\d\d")
# What each input shows as: the text as written, or an SSML document's text with its entities read.
SHOWN = [
    ("I think 3 < 5 is true.", "text", "I think 3 < 5 is true."),
    ("<speak>&lt;v Bob&gt; Hello there.</speak>", "ssml", "<v Bob> Hello there."),
    ("<speak>&lt;c.red&gt;Red&lt;/c&gt; alert.</speak>", "ssml", "<c.red>Red</c> alert."),
    ("R&amp;D pays.", "text", "R&amp;D pays."),
    ("Fish & chips --> here.", "text", "Fish & chips --> here."),
    ("{\\an8}Up top {b}bold{/b} now.", "text", "{\\an8}Up top {b}bold{/b} now."),  # SubRip players' brace tags
    # Cut at words: a symbol standing alone is a pause, not a word, so these are written close.
    ("A long sentence where 1<2 and 3>2 and R&D and <b>bold</b> words go on past two lines of a caption-->.", "text", None),
]


def vtt_cue_texts(body: str) -> list[str]:
    """Each cue's text as a WebVTT player shows it (https://www.w3.org/TR/webvtt1/): lines end at CR,
    LF or CRLF, a blank line ends a cue, "<" starts a tag (none may appear), "&" a character reference."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    assert body.startswith("WEBVTT\n\n")
    texts = []
    for block in body[len("WEBVTT\n\n") :].split("\n\n"):
        if not block:
            continue
        timing, *lines = block.split("\n")
        assert VTT_TIMING.fullmatch(timing), block  # a cue cut short leaves a block that is not a cue
        assert lines and all(lines) and not any("-->" in line or "<" in line for line in lines), block
        texts.append(html.unescape(" ".join(lines)))
    return texts


def srt_cue_texts(body: str) -> list[str]:
    """Each SubRip cue's text, which must hold nothing a player could read as a tag or a timing line."""
    texts = []
    for number, block in enumerate(body.replace("\r\n", "\n").replace("\r", "\n").split("\n\n")[:-1], 1):
        index, timing, *lines = block.split("\n")
        assert index == str(number) and SRT_TIMING.fullmatch(timing), block
        assert lines and all(lines) and not any(mark in line for line in lines for mark in ("-->", "<", ">", "{", "}")), block
        texts.append(" ".join(lines).translate(str.maketrans({"\u2039": "<", "\u203a": ">", "\u2774": "{", "\u2775": "}"})))
    return texts


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Any) -> Engine:
    return Engine.load(tiny_model_dir)


@pytest.mark.parametrize(("text", "text_type", "shown"), SHOWN)
def test_cue_text_reads_back_as_the_sentence_not_as_markup(engine: Engine, text: str, text_type: str, shown: str | None) -> None:
    prepared = engine.prepare(text, SynthesisOptions(steps=1), text_type=text_type)
    shown = shown or text
    assert " ".join(vtt_cue_texts(engine.captions(prepared, "vtt"))) == shown
    assert " ".join(srt_cue_texts(engine.captions(prepared, "srt"))) == shown


def test_line_breaks_and_blank_lines_inside_a_sentence_do_not_end_a_cue(engine: Engine) -> None:
    text = "First line\nsecond line\r\n\r\nand more < less,\r\rstill\u2028the same\n\n\n\nsentence & its end."
    prepared = engine.prepare(text, SynthesisOptions(steps=1))
    words = " ".join(text.split())
    assert " ".join(vtt_cue_texts(engine.captions(prepared, "vtt"))) == words
    assert " ".join(srt_cue_texts(engine.captions(prepared, "srt"))) == words


def test_captions_over_the_http_api_are_escaped(app: Any) -> None:
    vtt = _call(app, _post({"text": "I think 3 < 5 is true. R&amp;D too.", "format": "vtt"}))
    assert vtt.status == 200 and vtt_cue_texts(vtt.body.decode("utf-8")) == ["I think 3 < 5 is true.", "R&amp;D too."]


class CountedMark(SpeechMark):
    """A mark that counts every read of its fields: the work captions do on the marks."""

    reads = 0

    def __getattribute__(self, name: str) -> Any:
        CountedMark.reads += 1
        return super().__getattribute__(name)


def _reads_for(engine: Engine, sentences: int) -> int:
    prepared = engine.prepare("Go. " * sentences, SynthesisOptions(steps=1))
    marks = [CountedMark(**vars(m)) for m in engine.marks(prepared, ("sentence", "word"))]
    CountedMark.reads = 0
    caption_cues(marks)
    return CountedMark.reads


def test_caption_work_grows_with_the_text_not_with_its_square(engine: Engine) -> None:
    small, large = _reads_for(engine, 300), _reads_for(engine, 1200)
    assert large < 5 * small, (small, large)  # four times the marks: about four times the reads


class ManualClock:
    """A clock that reads ``now`` until ``jump_after`` readings, then a time far past any deadline."""

    def __init__(self, jump_after: int | None = None) -> None:
        self.readings = 0
        self.jump_after = jump_after

    def __call__(self) -> float:
        self.readings += 1
        return 1_000.0 if self.jump_after is not None and self.readings > self.jump_after else 0.0


def test_a_passed_deadline_stops_caption_making(engine: Engine) -> None:
    prepared = engine.prepare("One. Two. Three.", SynthesisOptions(steps=1))
    marks = engine.marks(prepared, ("sentence", "word"))
    with pytest.raises(DeadlineExceeded):
        captions(marks, "vtt", deadline=Deadline(10.0, clock=ManualClock(jump_after=1)))


def _after_the_timeline(engine: Engine, prepared: Any) -> Deadline:
    """A deadline that passes just after the duration predictor's pass: at the first check of what follows it."""
    counted = ManualClock()
    engine.timeline(prepared, deadline=Deadline(100.0, clock=counted))
    return Deadline(100.0, clock=ManualClock(jump_after=counted.readings))


def test_sidecars_are_made_under_the_jobs_deadline(app: Any, s3: Any) -> None:
    service = app.service
    prepared = service.engine.prepare(
        "Hello there. " * 20, SynthesisOptions(steps=1), extras=Extras(marks=["word"], captions=["srt", "vtt"])
    )
    keys = ResultKeys(OUTPUT_BUCKET, "output/deadline/")
    with pytest.raises(DeadlineExceeded):
        described.store_sidecars(service, prepared, keys, budget=lambda: _after_the_timeline(service.engine, prepared))
    assert "Contents" not in s3.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix=keys.folder)
    with pytest.raises(DeadlineExceeded):
        described.describe(service.engine, prepared, "vtt", budget_s=_after_the_timeline(service.engine, prepared))
    written = described.store_sidecars(service, prepared, keys, budget=lambda: Deadline(100.0, clock=ManualClock()))
    assert set(written.book) == {"marks.jsonl", "captions.srt", "captions.vtt"}


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_job_with_marks_and_both_caption_formats_makes_its_marks_once(app: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    marks_made = _counting(monkeypatch, synthesis, "speech_marks")
    job = load_event("furl_post_job")
    job["body"] = json.dumps({"text": "Hello there. I think 3 < 5.", "marks": ["word"], "captions": ["srt", "vtt"], "steps": 1})
    job_id = _call(app, job).json()["job_id"]
    manifest = _deliver_job(app, s3, job_id)
    assert manifest["status"] == "done"
    assert len(marks_made) == 1
    listing = s3.list_objects_v2(Bucket=OUTPUT_BUCKET)["Contents"]
    (vtt_key,) = [item["Key"] for item in listing if item["Key"].endswith("captions.vtt")]
    (marks_key,) = [item["Key"] for item in listing if item["Key"].endswith("marks.jsonl")]
    vtt = s3.get_object(Bucket=OUTPUT_BUCKET, Key=vtt_key)["Body"].read().decode("utf-8")
    assert vtt_cue_texts(vtt) == ["Hello there.", "I think 3 < 5."]
    lines = s3.get_object(Bucket=OUTPUT_BUCKET, Key=marks_key)["Body"].read().decode("utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["word"] * 6
