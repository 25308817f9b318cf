"""A file per chapter: the book's audio cut where each chapter is first heard, in the engine and
through the real handler (a book rendered in one invocation, on the tiny stand-in against moto)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, LambdaContext, fetch, load_event
from test_handler_http import _call, _deliver_job, _get

from supertonic_engine import (
    AudioWriter,
    ChapterMark,
    ChapterSplitter,
    Engine,
    SessionConfig,
    SynthesisOptions,
    book_text,
    chapter_chunks,
    chapter_marks,
    read_markdown,
)
from supertonic_harness.fronts.s3 import s3_put_event

pytest_plugins = ["fixtures_s3"]

BOOK = (
    "# Departure\n\nThe train left at dawn. Nobody waved from the platform.\n\n"
    "## Arrival\n\nThe city was loud, and a café stood on every corner.\n\n"
    "# The End\n\nThey went home.\n"
)
TITLES = ["Departure", "Arrival", "The End"]


@pytest.fixture(scope="module")
def engine(tiny_model_dir: Path) -> Engine:
    return Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=2))


def test_every_chunk_belongs_to_one_chapter_and_an_empty_chapter_reads_none() -> None:
    ranges = [(0, 5), (6, 9), (10, 20), (21, 29), (30, 40)]
    marks = [ChapterMark("one", 0), ChapterMark("said nothing", 10), ChapterMark("two", 10), ChapterMark("three", 30)]
    assert chapter_chunks(marks, ranges) == [range(0, 2), range(2, 2), range(2, 4), range(4, 5)]
    # Chunks before the first chapter's start (nothing should be there) still belong to it.
    assert chapter_chunks([ChapterMark("late", 7)], ranges) == [range(0, 5)]


def test_the_chapter_files_end_to_end_are_the_book_and_each_begins_where_its_chapter_is_first_heard(engine: Engine) -> None:
    chapters = read_markdown(BOOK)
    prepared = engine.prepare(book_text(chapters), SynthesisOptions(seed=3, steps=1), format="wav")
    runs = chapter_chunks(chapter_marks(chapters), prepared.chunk_byte_ranges)
    assert [len(run) for run in runs] == [2, 2, 2]  # title and paragraph: two chunks each
    book, files = io.BytesIO(), {n: io.BytesIO() for n in range(3)}
    leads = [engine.frames(pause) for pause in prepared.pauses]
    with AudioWriter(book, "wav", engine.sample_rate) as writer:
        with ChapterSplitter(writer, runs, leads, lambda n: AudioWriter(files[n], "wav", engine.sample_rate)) as splitter:
            result = engine.synthesize(prepared, into=splitter)
    whole, _ = sf.read(io.BytesIO(book.getvalue()), dtype="int16")
    parts = [sf.read(io.BytesIO(files[n].getvalue()), dtype="int16")[0] for n in range(3)]
    assert np.array_equal(np.concatenate(parts), whole)
    assert splitter.frames == [part.size for part in parts]
    starts = np.cumsum([0, *splitter.frames[:-1]])
    # Chapters two and three begin with the speech of their first chunk: the pause before it ends the chapter before.
    assert [round(result.chunks[run.start].start_s * engine.sample_rate) for run in runs[1:]] == list(starts[1:])


def _drop(app: Any, s3: Any, key: str, body: bytes, **metadata: str) -> dict[str, Any]:
    s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=body, Metadata=metadata)
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    (result,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())["results"]
    return json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=result["manifest_key"])["Body"].read())


def _stored(s3: Any, key: str) -> bytes:
    return s3.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read()


def test_a_book_dropped_gets_a_file_per_chapter_that_joins_to_the_book(app: Any, s3: Any) -> None:
    manifest = _drop(app, s3, "input/journey.md", BOOK.encode(), format="wav", seed="3", steps="1")
    assert manifest["status"] == "done", manifest
    chapters = manifest["chapters"]
    assert [c["title"] for c in chapters] == TITLES
    whole, rate = sf.read(io.BytesIO(_stored(s3, manifest["audio"]["key"])), dtype="int16")
    samples = []
    for chapter in chapters:
        audio = chapter["audio"]
        assert audio["key"].startswith(manifest["audio"]["key"].rsplit("/", 1)[0] + "/chapters/")
        data = _stored(s3, audio["key"])
        assert audio["bytes"] == len(data) and audio["content_type"] == manifest["audio"]["content_type"]
        part, _ = sf.read(io.BytesIO(data), dtype="int16")
        assert chapter["duration_s"] == pytest.approx(part.size / rate, abs=1e-3)
        samples.append(part)
    assert np.array_equal(np.concatenate(samples), whole)
    # Each chapter's file begins in the book where the one before ends.
    assert [c["start_s"] for c in chapters] == pytest.approx(list(np.cumsum([0, *(s.size for s in samples[:-1])]) / rate), abs=1e-3)


def test_each_chapter_s_marks_and_captions_are_timed_on_its_own_file(app: Any, s3: Any) -> None:
    manifest = _drop(app, s3, "input/timed.md", BOOK.encode(), format="mp3", marks="sentence", captions="vtt", seed="3", steps="1")
    assert manifest["status"] == "done", manifest
    book_marks = [json.loads(line) for line in _stored(s3, manifest["sidecars"]["marks.jsonl"]).decode().splitlines()]
    seen = []
    for chapter in manifest["chapters"]:
        assert set(chapter["sidecars"]) == {"marks.jsonl", "captions.vtt"}
        marks = [json.loads(line) for line in _stored(s3, chapter["sidecars"]["marks.jsonl"]).decode().splitlines()]
        # A chapter begins with its title, said first: its first mark is at its file's start.
        assert marks[0]["time"] == 0 and marks[0]["value"].startswith(chapter["title"])
        assert all(0 <= m["time"] <= chapter["duration_s"] * 1000 for m in marks)
        seen += [{**m, "time": m["time"] + round(chapter["start_s"] * 1000)} for m in marks]
        assert _stored(s3, chapter["sidecars"]["captions.vtt"]).startswith(b"WEBVTT")
        # The chapter's own mp3 plays as long as the manifest says (within a frame's 26 ms).
        info = sf.info(io.BytesIO(_stored(s3, chapter["audio"]["key"])))
        assert info.duration == pytest.approx(chapter["duration_s"], abs=0.06)
    # Together the chapters' marks are the book's, each moved by its chapter's start (a millisecond of rounding).
    assert [m["value"] for m in seen] == [m["value"] for m in book_marks]
    assert all(abs(a["time"] - b["time"]) <= 1 for a, b in zip(seen, book_marks, strict=True))


def test_a_job_asking_for_chapters_links_each_chapter_s_files(app: Any, s3: Any) -> None:
    job = load_event("furl_post_job")
    job["body"] = json.dumps({"text": BOOK, "chapters": True, "format": "wav", "marks": ["word"], "seed": 3, "steps": 1})
    accepted = _call(app, job)
    assert accepted.status == 202, accepted.body
    job_id = accepted.json()["job_id"]
    assert _deliver_job(app, s3, job_id)["status"] == "done"
    done = _call(app, _get(f"/v1/jobs/{job_id}")).json()
    assert [c["title"] for c in done["chapters"]] == TITLES
    whole, _ = sf.read(io.BytesIO(fetch(done["audio_url"])), dtype="int16")
    parts = []
    for chapter in done["chapters"]:
        assert "key" not in chapter["audio"] and "bucket" not in chapter["audio"]
        parts.append(sf.read(io.BytesIO(fetch(chapter["audio_url"])), dtype="int16")[0])
        assert fetch(chapter["sidecars"]["marks.jsonl"]["url"]).startswith(b'{"time": 0')
    assert np.array_equal(np.concatenate(parts), whole)


def test_a_job_with_chapters_whose_chapter_file_is_gone_has_expired(app: Any, s3: Any) -> None:
    job = load_event("furl_post_job")
    job["body"] = json.dumps({"text": BOOK, "chapters": True, "seed": 3, "steps": 1})
    job_id = _call(app, job).json()["job_id"]
    manifest_key = _deliver_job(app, s3, job_id)["manifest_key"]
    manifest = json.loads(_stored(s3, manifest_key))
    s3.delete_object(Bucket=OUTPUT_BUCKET, Key=manifest["chapters"][1]["audio"]["key"])  # as the lifecycle rule may
    gone = _call(app, _get(f"/v1/jobs/{job_id}")).json()
    assert gone["status"] == "expired" and "chapter 2" in gone["message"]


def test_a_synchronous_request_for_chapters_is_refused_naming_the_field(app: Any) -> None:
    request = load_event("furl_post_tts")
    request["body"] = json.dumps({"text": BOOK, "chapters": True})
    answer = _call(app, request)
    assert answer.status == 400 and answer.json()["error"]["field"] == "chapters"
    assert "POST /v1/jobs" in answer.json()["error"]["message"]


def test_chapters_with_ssml_is_refused_naming_the_field(app: Any) -> None:
    job = load_event("furl_post_job")
    job["body"] = json.dumps({"text": "<speak>Hello.</speak>", "text_type": "ssml", "chapters": True})
    answer = _call(app, job)
    assert answer.status == 400 and answer.json()["error"]["field"] == "chapters"


def test_a_book_in_one_invocation_counts_its_chapter_files_against_tmp(app: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    whole = _drop(app, s3, "input/sized.md", BOOK.encode(), format="wav", seed="3", steps="1")
    assert whole["status"] == "done", whole
    # /tmp room for the book's WAV once and a half: alone it fits, with its chapter files it does not.
    room_mb = 1.5 * whole["duration_s"] * engine_bytes_per_s(app) / 2**20
    monkeypatch.setattr(app.service, "config", dataclasses.replace(app.service.config, ephemeral_storage_mb=room_mb))
    refused = _drop(app, s3, "input/sized-again.md", BOOK.encode(), format="wav", seed="3", steps="1")
    assert refused["status"] == "failed" and "SUPERTONIC_EPHEMERAL_STORAGE_MB" in refused["error"]["message"], refused
    plain = _drop(app, s3, "input/sized.txt", book_text(read_markdown(BOOK)).encode(), format="wav", seed="3", steps="1")
    assert plain["status"] == "done", plain


def engine_bytes_per_s(app: Any) -> int:
    return 2 * app.service.engine.sample_rate  # 16-bit mono WAV


SILENT_CHAPTER = "# One\n\nThe first chapter is here.\n\n🙂🙂\n\n# 🙂\n\n🙂 🙂\n\n# Three\n\nThe third.\n"


def test_a_paragraph_that_says_nothing_moves_no_chunk_s_byte_range(engine: Engine) -> None:
    text = book_text(read_markdown(SILENT_CHAPTER))
    prepared = engine.prepare(text, SynthesisOptions())
    assert [text.encode()[a:b].decode() for a, b in prepared.chunk_byte_ranges] == list(prepared.chunks)


def test_a_chapter_that_says_nothing_has_no_file(app: Any, s3: Any) -> None:
    manifest = _drop(app, s3, "input/silent.md", SILENT_CHAPTER.encode(), format="wav", seed="3", steps="1")
    assert manifest["status"] == "done", manifest
    one, silent, three = manifest["chapters"]
    assert silent == {"title": "🙂", "start_s": None, "duration_s": None, "audio": None, "sidecars": {}}
    assert one["audio"] and three["audio"] and three["start_s"] == pytest.approx(one["duration_s"], abs=1e-3)


def test_a_title_read_as_an_abbreviation_keeps_its_chapter_s_chunks(engine: Engine) -> None:
    # "St." alone on its line is not "Saint" for the next paragraph's name: a blank line ends it.
    chapters = read_markdown("# Prologue\n\nIt began at night. The rain fell.\n\n# St.\n\nSaint Mary rang.\n")
    prepared = engine.prepare(book_text(chapters), SynthesisOptions())
    runs = chapter_chunks(chapter_marks(chapters), prepared.chunk_byte_ranges)
    assert [[prepared.chunks[i] for i in run] for run in runs] == [
        ["Prologue.", "It began at night. The rain fell."],
        ["Street.", "Saint Mary rang."],
    ]
