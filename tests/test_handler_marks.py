"""Speech marks and captions through the real handler: function URL, direct invoke, S3 jobs."""

from __future__ import annotations

import json
from typing import Any

from fixtures_s3 import LambdaContext, fetch, load_event
from test_handler_http import _call, _deliver_job, _get, _post

pytest_plugins = ["fixtures_s3"]

TEXT = "Hello there, friend. The café opened in 2024! See you soon."


def test_marks_answer_polly_json_lines_timed_like_the_audio_of_the_same_request(app: Any) -> None:
    answer = _call(app, _post({"text": TEXT, "seed": 1, "steps": 1, "marks": ["sentence", "word"]}))
    assert answer.status == 200 and answer.content_type == "application/x-json-stream"
    assert answer.headers["x-supertonic-model"] == "stand-in"
    marks = [json.loads(line) for line in answer.body.decode("utf-8").splitlines()]
    raw = TEXT.encode("utf-8")
    assert all(raw[m["start"] : m["end"]].decode("utf-8") == m["value"] for m in marks)
    assert [m["value"] for m in marks if m["type"] == "sentence"] == ["Hello there, friend.", "The café opened in 2024!", "See you soon."]

    audio = _call(app, _post({"text": TEXT, "seed": 1, "steps": 1}, headers={"accept": "application/json"})).json()
    chunk_starts = {round(c["start_s"] * 1000) for c in audio["chunks"]}
    exact = [m for m in marks if not m["estimated"]]
    assert exact and all(m["time"] in chunk_starts for m in exact)
    assert max(m["time"] for m in marks) < audio["duration_s"] * 1000


def test_captions_are_the_answer_for_format_srt_or_vtt(app: Any) -> None:
    vtt = _call(app, _post({"text": TEXT, "format": "vtt", "chunking": "sentence"}))
    assert vtt.status == 200 and vtt.content_type.startswith("text/vtt")
    assert vtt.body.decode("utf-8").startswith("WEBVTT\n\n00:00:00.000 --> ")
    srt = _call(app, _get("/", "text=Hello+there.+Bye.&format=srt"))
    assert srt.status == 200 and srt.body.decode("utf-8").startswith("1\n00:00:00,000 --> ")
    as_json = _call(app, _post({"text": TEXT, "format": "srt"}, headers={"accept": "application/json"})).json()
    assert as_json["format"] == "srt" and as_json["captions"].startswith("1\n") and as_json["model"] == "stand-in"


def test_bad_marks_and_chunking_are_refused_naming_the_field(app: Any) -> None:
    for body, field in (
        ({"marks": ["viseme"]}, "marks"),
        ({"marks": "word", "format": "srt"}, "marks"),
        ({"chunking": "paragraph"}, "chunking"),
        ({"marks": [3]}, "marks"),
    ):
        answer = _call(app, _post({"text": TEXT, **body}))
        assert 400 <= answer.status < 500, body
        assert answer.json()["error"]["field"] == field


def test_a_direct_invoke_gets_the_marks_document(app: Any) -> None:
    result = app.lambda_handler({"text": TEXT, "marks": ["sentence"]}, LambdaContext())
    assert result["model"] == "stand-in" and [m["type"] for m in result["marks"]] == ["sentence"] * 3


def test_an_s3_job_writes_marks_and_captions_beside_its_audio(app: Any, s3: Any) -> None:
    job = load_event("furl_post_job")
    job["body"] = json.dumps({"text": TEXT, "marks": ["word"], "captions": ["srt", "vtt"], "seed": 2, "steps": 1})
    job_id = _call(app, job).json()["job_id"]
    assert _deliver_job(app, s3, job_id)["status"] == "done"
    manifest = _call(app, _get(f"/v1/jobs/{job_id}")).json()
    sidecars = manifest["sidecars"]
    assert set(sidecars) == {"marks.jsonl", "captions.srt", "captions.vtt"}
    body = fetch(sidecars["marks.jsonl"]["url"]).decode("utf-8")
    assert [json.loads(line)["value"] for line in body.splitlines()][:2] == ["Hello", "there"]
    vtt = sidecars["captions.vtt"]
    assert vtt["content_type"].startswith("text/vtt") and fetch(vtt["url"]).startswith(b"WEBVTT")
