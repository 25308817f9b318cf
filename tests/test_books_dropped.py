"""Books dropped in the input bucket: an EPUB or a Markdown file is read as its chapters' titles and
text, through the real handler on the tiny stand-in against moto's S3."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, LambdaContext
from test_book import epub, epub3, xhtml

from supertonic_engine import book_text, read_epub, read_markdown
from supertonic_harness.fronts.s3 import s3_put_event

pytest_plugins = ["fixtures_s3"]


def _dropped(app: Any, s3: Any, key: str, body: bytes) -> dict[str, Any]:
    s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=body)
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    (result,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())["results"]
    manifest = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=result["manifest_key"])["Body"].read())
    return manifest


def test_an_epub_dropped_is_read_as_its_chapters(app, s3):
    book = epub3()
    manifest = _dropped(app, s3, "input/novel.epub", book)
    assert manifest["status"] == "done", manifest
    read = book_text(read_epub(book))
    assert manifest["characters"] == len(read) and manifest["duration_s"] > 0


def test_a_markdown_file_dropped_is_read_without_its_markup(app, s3):
    text = "# The first chapter\n\nIt was *late*, and [the train](https://example.com) had gone.\n\n## Two\n\nMorning came.\n"
    manifest = _dropped(app, s3, "input/story.md", text.encode())
    assert manifest["status"] == "done", manifest
    read = book_text(read_markdown(text))
    assert manifest["characters"] == len(read)
    assert "https" not in read and "*" not in read and read.startswith("The first chapter.")


def test_a_hostile_epub_fails_its_job_naming_what_is_wrong(app, s3):
    bomb = '<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
    files = {
        "OEBPS/content.opf": '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>'
        '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
        '<spine><itemref idref="c1"/></spine></package>',
        "OEBPS/c1.xhtml": xhtml("<p>&b;</p>", doctype=bomb),
    }
    manifest = _dropped(app, s3, "input/hostile.epub", epub(files))
    assert manifest["status"] == "failed" and manifest["error"]["code"] == "book_unreadable"
    assert "c1.xhtml" in manifest["error"]["message"]


def test_an_epub_past_the_book_size_is_refused_from_its_event(app, s3, monkeypatch):
    config = dataclasses.replace(app.service.config, max_book_bytes=100)
    monkeypatch.setattr(app.service, "config", config)
    manifest = _dropped(app, s3, "input/large.epub", epub3())
    assert manifest["status"] == "failed" and manifest["error"]["code"] == "object_too_large"


CHAPTERED = (
    "# Departure\n\nThe train left at dawn. Nobody waved from the platform, and the fog stayed low over the river.\n\n"
    "## Arrival\n\nThe city was loud. Ünïcode names on the signs, and a café on every corner.\n\n"
    "# The End\n\nThey went home.\n"
)


def test_chapter_marks_point_at_each_chapter_in_the_book_text():
    from supertonic_engine import chapter_marks

    chapters = read_markdown(CHAPTERED)
    text = book_text(chapters).encode("utf-8")
    marks = chapter_marks(chapters)
    assert [m.title for m in marks] == ["Departure", "Arrival", "The End"]
    assert all(text[m.start :].startswith(m.title.encode()) for m in marks)


def test_a_book_s_manifest_says_where_each_chapter_begins(app, s3):
    manifest = _dropped(app, s3, "input/chaptered.md", CHAPTERED.encode())
    assert manifest["status"] == "done", manifest
    chapters = manifest["chapters"]
    assert [c["title"] for c in chapters] == ["Departure", "Arrival", "The End"]
    starts = [c["start_s"] for c in chapters]
    assert starts[0] == 0.0 and starts == sorted(starts) and len(set(starts)) == 3
    chunk_starts = {round(c["start_s"], 3) for c in manifest["chunks"]}
    assert set(starts) <= chunk_starts  # each chapter begins a chunk


def test_a_book_rendered_in_parts_says_where_each_chapter_begins_too(app, s3, queues):
    from fixtures_s3 import REGION, receive_all

    from supertonic_harness.fronts.sqs import sqs_event

    s3.put_object(Bucket=INPUT_BUCKET, Key="input/long.md", Body=CHAPTERED.encode())
    head = s3.head_object(Bucket=INPUT_BUCKET, Key="input/long.md")
    (planned,) = app.lambda_handler(s3_put_event(INPUT_BUCKET, "input/long.md", head["ContentLength"], head["ETag"]), LambdaContext())[
        "results"
    ]
    assert planned["status"] == "planned"
    for message in receive_all(queues["parts"]):
        assert app.lambda_handler(sqs_event([message], queues["parts_arn"], REGION), LambdaContext()) == {"batchItemFailures": []}
    manifest = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=planned["manifest_key"])["Body"].read())
    assert manifest["status"] == "done" and [c["title"] for c in manifest["chapters"]] == ["Departure", "Arrival", "The End"]
    starts = [c["start_s"] for c in manifest["chapters"]]
    assert starts[0] < starts[1] < starts[2] and set(starts) <= {round(c["start_s"], 3) for c in manifest["chunks"]}
