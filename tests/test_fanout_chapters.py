"""A book rendered in parts gets a file per chapter, as one rendered in one invocation does: the
workers encode each part at its place in its chapter's file too, the assembly joins each chapter's
file after the book's (resumable across files), and a format encoded whole cuts the chapter files
as it encodes. Through the real ``lambda_handler`` on the tiny stand-in against moto's S3 and SQS."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import numpy as np
import pytest
import soundfile
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, REGION, LambdaContext, receive_all
from test_fanout import _ffmpeg_decoded

from supertonic_engine import SynthesisOptions, book_text, encode, read_markdown
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.fronts.sqs import sqs_event

pytest_plugins = ["fixtures_s3"]


def _sentences(first: int, count: int) -> str:
    return " ".join(f"Sentence number {n} of a long book is read here." for n in range(first, first + count))


# The middle chapter is long enough (over 5 MiB of wav) for its upload to take more than one part.
BOOK = f"# Departure\n\n{_sentences(1, 5)}\n\n# Crossing\n\n{_sentences(6, 20)}\n\n# Arrival\n\n{_sentences(26, 5)}\n"
OPTIONS = {"voice": "M1", "steps": "1", "seed": "5"}


def _plan(app: Any, s3: Any, fmt: str) -> dict[str, Any]:
    key = "input/book.md"
    s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=BOOK.encode(), Metadata={**OPTIONS, "format": fmt})
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    (planned,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())["results"]
    assert planned["status"] == "planned"
    return planned


def _deliver_until_quiet(app: Any, queues: Any) -> list[dict[str, Any]]:
    served = []
    while messages := receive_all(queues["parts"]):
        for message in reversed(messages):
            answer = app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
            assert answer == {"batchItemFailures": []}
            served.append(json.loads(message["Body"]))
    return served


def _manifest(s3: Any, planned: dict[str, Any]) -> dict[str, Any]:
    manifest = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=planned["manifest_key"])["Body"].read())
    assert manifest["status"] == "done", manifest
    return manifest


def _read(s3: Any, key: str) -> bytes:
    return s3.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read()


def _book(app: Any, s3: Any, queues: Any, fmt: str) -> tuple[dict[str, Any], bytes, list[bytes]]:
    """The book dropped in ``fmt`` and rendered in parts: its manifest, its audio and its chapters' files."""
    planned = _plan(app, s3, fmt)
    _deliver_until_quiet(app, queues)
    manifest = _manifest(s3, planned)
    chapters = manifest["chapters"]
    assert [c["title"] for c in chapters] == ["Departure", "Crossing", "Arrival"]
    files = [_read(s3, c["audio"]["key"]) for c in chapters]
    assert [len(f) for f in files] == [c["audio"]["bytes"] for c in chapters]
    # Each chapter's file begins in the book where the chapters before it end.
    starts = [c["start_s"] for c in chapters]
    assert starts[0] == 0.0 and starts[1:] == pytest.approx(np.cumsum([c["duration_s"] for c in chapters])[:-1].tolist(), abs=2e-3)
    assert not [o["Key"] for o in s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("Contents", []) if "/parts/" in o["Key"]]
    return manifest, _read(s3, manifest["audio"]["key"]), files


@pytest.mark.parametrize("fmt", ["wav", "flac"])
def test_a_book_rendered_in_parts_has_chapter_files_that_end_to_end_are_the_book(app, s3, queues, fmt):
    manifest, book, files = _book(app, s3, queues, fmt)
    book_samples, rate = soundfile.read(io.BytesIO(book), dtype="int16")
    chapters = [soundfile.read(io.BytesIO(f), dtype="int16") for f in files]
    assert all(r == rate for _, r in chapters)
    assert np.array_equal(np.concatenate([samples for samples, _ in chapters]), book_samples)
    assert [c["duration_s"] for c in manifest["chapters"]] == [round(s.size / rate, 3) for s, _ in chapters]
    if fmt == "wav":  # the book itself is the one-invocation render's, as the joined files always were
        options = SynthesisOptions(voice="M1", steps=1, seed=5)
        assert book == encode(app.service.engine.synthesize(book_text(read_markdown(BOOK)), options).audio, rate, "wav")


# A codec frame, in samples at the format's rate: MPEG-1 Layer III's 1152, and the 20 ms Opus frame at 48 kHz.
CODEC_FRAME = {"mp3": 1152, "opus": 960}


@pytest.mark.parametrize("fmt", ["mp3", "opus"])
def test_a_book_s_lossy_chapter_files_decode_cleanly_and_are_as_long_as_the_manifest_says(app, s3, queues, tmp_path, fmt):
    manifest, _, files = _book(app, s3, queues, fmt)
    rate = manifest["sample_rate"]
    for chapter, data in zip(manifest["chapters"], files, strict=True):
        decoded = _ffmpeg_decoded(data, fmt, tmp_path)
        assert abs(decoded.size - chapter["duration_s"] * rate) <= CODEC_FRAME[fmt]


def test_an_assembly_parked_in_the_middle_of_the_chapter_files_finishes_them_all_sending_each_part_once(app, s3, queues, monkeypatch):
    from supertonic_function import fanout
    from supertonic_function.storage import ObjectStore

    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 10.0**9)  # every invocation sends one part of an upload and parks
    calls: list[tuple[str, int]] = []
    real_put = ObjectStore.put_joined

    def counted(self: Any, bucket: str, key: str, *args: Any, **kwargs: Any) -> Any:
        left = real_put(self, bucket, key, *args, **kwargs)
        calls.append((key, len(left.parts) if left is not None else -1))
        return left

    monkeypatch.setattr(ObjectStore, "put_joined", counted)
    manifest, book, files = _book(app, s3, queues, "wav")
    keys = [manifest["audio"]["key"], *(c["audio"]["key"] for c in manifest["chapters"])]
    # The files one after another, each resumed where it stopped and finished once, never begun again.
    assert [key for key, _ in calls] == sorted([key for key, _ in calls], key=keys.index)
    for key in keys:
        sent = [parts for k, parts in calls if k == key]
        assert sent == [*range(1, len(sent)), -1]
    assert any(parts > 0 for key, parts in calls if key in keys[1:])  # a chapter's upload was handed over
    book_samples, _ = soundfile.read(io.BytesIO(book), dtype="int16")
    assert np.array_equal(np.concatenate([soundfile.read(io.BytesIO(f), dtype="int16")[0] for f in files]), book_samples)


def test_a_book_encoded_whole_cuts_its_chapter_files_as_it_encodes(app, s3, queues):
    manifest, book, files = _book(app, s3, queues, "ogg")
    book_frames = soundfile.info(io.BytesIO(book)).frames
    frames = [soundfile.info(io.BytesIO(f)).frames for f in files]
    assert all(soundfile.read(io.BytesIO(f), dtype="float32")[0].size == n for f, n in zip(files, frames, strict=True))
    assert sum(frames) == book_frames
    assert [c["duration_s"] for c in manifest["chapters"]] == [round(n / manifest["sample_rate"], 3) for n in frames]


def test_a_chapter_with_no_parts_gets_no_file(app, s3, queues):
    planned = _plan(app, s3, "wav")
    # A chapter reading nothing aloud (its title and text normalize to nothing) begins where the
    # next one does: the planner keeps it in the plan with an empty run of parts.
    plan_key = planned["manifest_key"].replace("manifest.json", "plan.json")
    plan = json.loads(_read(s3, plan_key))
    plan["chapters"].insert(2, {"title": "Interlude", "start": plan["chapters"][2]["start"]})
    plan["chapter_sidecars"].insert(2, {})
    s3.put_object(Bucket=OUTPUT_BUCKET, Key=plan_key, Body=json.dumps(plan).encode())
    _deliver_until_quiet(app, queues)
    chapters = _manifest(s3, planned)["chapters"]
    assert [c["title"] for c in chapters] == ["Departure", "Crossing", "Interlude", "Arrival"]
    interlude = chapters[2]
    assert interlude["audio"] is None and interlude["start_s"] is None and interlude["duration_s"] is None
    assert all(c["audio"] is not None for c in chapters if c is not interlude)


def test_a_book_planned_before_chapters_had_files_is_still_joined(app, s3, queues):
    planned = _plan(app, s3, "wav")
    # A plan stored by the version before (no chapter_sidecars): workers of either version may
    # render its parts, and those of the old one store no chapter bytes, so only the book is joined.
    plan_key = planned["manifest_key"].replace("manifest.json", "plan.json")
    plan = json.loads(_read(s3, plan_key))
    del plan["chapter_sidecars"]
    s3.put_object(Bucket=OUTPUT_BUCKET, Key=plan_key, Body=json.dumps(plan).encode())
    *first, last = receive_all(queues["parts"])
    for message in first:
        assert app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    for stored in s3.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix=plan_key.replace("plan.json", "parts/"))["Contents"]:
        if stored["Key"].endswith(".chapter"):  # as the old version's workers stored those parts
            s3.delete_object(Bucket=OUTPUT_BUCKET, Key=stored["Key"])
    assert app.lambda_handler(sqs_event([last], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    manifest = _manifest(s3, planned)
    assert "chapters" not in manifest and _read(s3, manifest["audio"]["key"])


def test_a_book_in_parts_has_each_chapter_s_marks_timed_on_its_own_file(app, s3, queues):
    key = "input/marked.md"
    s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=BOOK.encode(), Metadata={**OPTIONS, "format": "wav", "marks": "sentence"})
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    (planned,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())["results"]
    assert planned["status"] == "planned"
    _deliver_until_quiet(app, queues)
    manifest = _manifest(s3, planned)
    book_marks = [json.loads(line) for line in _read(s3, manifest["sidecars"]["marks.jsonl"]).decode().splitlines()]
    moved = []
    for chapter in manifest["chapters"]:
        marks = [json.loads(line) for line in _read(s3, chapter["sidecars"]["marks.jsonl"]).decode().splitlines()]
        assert marks[0]["time"] == 0 and marks[0]["value"].startswith(chapter["title"])  # its title, heard first
        assert all(m["time"] < chapter["duration_s"] * 1000 for m in marks)
        moved += [{**m, "time": m["time"] + round(chapter["start_s"] * 1000)} for m in marks]
    assert [m["value"] for m in moved] == [m["value"] for m in book_marks]
    assert all(abs(a["time"] - b["time"]) <= 1 for a, b in zip(moved, book_marks, strict=True))


MANY_CHAPTERS = "\n\n".join(f"# Chapter {c}\n\nSentence {c} of a short chapter is read here." for c in range(1, 9)) + "\n"


def _drop_many(app: Any, s3: Any) -> dict[str, Any]:
    key = "input/many.md"
    s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=MANY_CHAPTERS.encode(), Metadata={**OPTIONS, "format": "wav"})
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    (planned,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())["results"]
    assert planned["status"] == "planned"
    return planned


def test_an_assembly_short_of_time_begins_no_new_file_after_finishing_one(app, s3, queues, monkeypatch):
    from supertonic_function import fanout
    from supertonic_function.storage import ObjectStore

    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 10.0**9)  # always short of time
    invocation, finished = [0], []
    real_put = ObjectStore.put_joined

    def counted(self: Any, bucket: str, key: str, *args: Any, **kwargs: Any) -> Any:
        left = real_put(self, bucket, key, *args, **kwargs)
        finished.extend([invocation[0]] if left is None else [])
        return left

    monkeypatch.setattr(ObjectStore, "put_joined", counted)
    planned = _drop_many(app, s3)
    while messages := receive_all(queues["parts"]):
        for message in messages:
            invocation[0] += 1
            assert app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    manifest = _manifest(s3, planned)
    assert len(manifest["chapters"]) == 8 and len(finished) == 9  # the book and its eight chapters, each once
    assert len(set(finished)) == len(finished)  # one file finished an invocation: each short one still waits its turn


def test_a_stale_claim_of_a_resumed_assembly_that_died_is_taken_over(app, s3, queues, monkeypatch):
    import dataclasses

    from supertonic_function import fanout

    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 10.0**9)
    planned = _drop_many(app, s3)
    while messages := receive_all(queues["parts"]):
        parts = [m for m in messages if fanout.PART_MESSAGE in json.loads(m["Body"])]
        for message in parts:
            app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext())
        if len(parts) < len(messages):
            handed_over = next(m for m in messages if m not in parts)
            break
    claim_key = planned["manifest_key"].replace("manifest.json", "assembly.json")
    claim = json.loads(_read(s3, claim_key))
    # The invocation that took it over renewed it under a token no message carries, then was killed.
    s3.put_object(Bucket=OUTPUT_BUCKET, Key=claim_key, Body=json.dumps({**claim, "token": "f" * 32}).encode())
    monkeypatch.setattr(fanout, "RESUME_MIN_LEFT_S", 0.0)
    config = app.service.config
    # A Timeout its claim is already older than (the margin, 2 s, still below it).
    monkeypatch.setattr(app.service, "config", dataclasses.replace(config, function_timeout_s=2.5))
    time.sleep(2.6)
    assert app.lambda_handler(sqs_event([handed_over], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    monkeypatch.setattr(app.service, "config", config)
    _deliver_until_quiet(app, queues)
    manifest = _manifest(s3, planned)
    assert all(_read(s3, c["audio"]["key"]) for c in manifest["chapters"])
