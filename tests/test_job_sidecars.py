"""A job's marks and captions through the real handler: ``GET /v1/jobs/{id}`` names each by its file
name with a presigned link, like ``audio_url``, and says nothing of where any of them is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
from fixtures_s3 import (
    INPUT_BUCKET,
    LONG_JOB,
    OUTPUT_BUCKET,
    REGION,
    LambdaContext,
    asked_disposition,
    disposition_of,
    fetch,
    load_event,
    receive_all,
)
from test_handler_http import _call, _deliver_job, _get

from supertonic_function.http_api import openapi_document
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.fronts.sqs import sqs_event

pytest_plugins = ["fixtures_s3"]

TEXT = "Hello there, friend. The café opened in 2024! See you soon."
SIDECARS = {"marks": ["word"], "captions": ["srt", "vtt"]}
SIDECAR_NAMES = {"marks.jsonl", "captions.srt", "captions.vtt"}
# What the OpenAPI document promises of a job's sidecars.
SIDECARS_SCHEMA = openapi_document()["components"]["schemas"]["JobStatus"]["properties"]["sidecars"]
# The fields whose value is a presigned S3 link: a link names its bucket and key, as any must.
LINK_FIELDS = {"audio_url", "url"}


def _submit(app: Any, body: dict[str, Any]) -> str:
    job = load_event("furl_post_job")
    job["body"] = json.dumps(body)
    accepted = _call(app, job)
    assert accepted.status == 202, accepted.body
    return str(accepted.json()["job_id"])


def _status(app: Any, job_id: str) -> dict[str, Any]:
    answer = _call(app, _get(f"/v1/jobs/{job_id}"))
    assert answer.status == 200, answer.body
    document: dict[str, Any] = answer.json()
    return document


def _stored_manifest(s3: Any) -> dict[str, Any]:
    (key,) = [o["Key"] for o in s3.list_objects_v2(Bucket=OUTPUT_BUCKET)["Contents"] if o["Key"].endswith("manifest.json")]
    manifest: dict[str, Any] = json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read())
    return manifest


def _where_things_are(s3: Any) -> set[str]:
    """Every bucket name, key and ETag the function's storage holds now."""
    names = {INPUT_BUCKET, OUTPUT_BUCKET}
    for bucket in (INPUT_BUCKET, OUTPUT_BUCKET):
        for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            names |= {item["Key"], item["ETag"], item["ETag"].strip('"')}
    return names


def _strings(document: Any, field: str = "") -> Iterator[tuple[str, str]]:
    """Every string in ``document``, names of fields included, with the field it sits under."""
    if isinstance(document, dict):
        for name, value in document.items():
            yield field, name
            yield from _strings(value, name)
    elif isinstance(document, list):
        for value in document:
            yield from _strings(value, field)
    elif isinstance(document, str):
        yield field, document


def _says_where_things_are(document: dict[str, Any], where: set[str]) -> list[str]:
    """What of ``where`` the answer shows: anywhere but in a link, and as the whole of a link."""
    shown = []
    for field, text in _strings(document):
        if field in LINK_FIELDS:
            shown += [text] if text in where else []
        else:
            shown += [name for name in where if name in text]
    return shown


def _assert_sidecars_fetchable(s3: Any, document: dict[str, Any]) -> None:
    stored = _stored_manifest(s3)["sidecars"]
    assert set(document["sidecars"]) == set(stored) == SIDECAR_NAMES
    jsonschema.validate(document["sidecars"], SIDECARS_SCHEMA)
    for name, entry in document["sidecars"].items():
        assert set(entry) == {"url", "content_type", "bytes", "expires_in_s"}
        held = s3.get_object(Bucket=OUTPUT_BUCKET, Key=stored[name])
        body = held["Body"].read()
        assert fetch(entry["url"]) == body and entry["bytes"] == len(body) > 0
        assert entry["content_type"] == held["ContentType"] and entry["expires_in_s"] > 0
        # Saved under the stored file's own name, as the audio is.
        saved_as = f'attachment; filename="{stored[name].rsplit("/", 1)[-1]}"'
        assert asked_disposition(entry["url"]) == [saved_as] and disposition_of(entry["url"]) == saved_as
    assert fetch(document["sidecars"]["captions.vtt"]["url"]).startswith(b"WEBVTT")


def test_a_job_lists_its_marks_and_captions_by_name_with_links_that_fetch_them(app: Any, s3: Any) -> None:
    job_id = _submit(app, {"text": TEXT, **SIDECARS, "seed": 2, "steps": 1})
    assert _deliver_job(app, s3, job_id)["status"] == "done"
    done = _status(app, job_id)
    assert done["status"] == "done"
    _assert_sidecars_fetchable(s3, done)
    marks = fetch(done["sidecars"]["marks.jsonl"]["url"]).decode("utf-8").splitlines()
    assert [json.loads(line)["value"] for line in marks][:2] == ["Hello", "there"]


def test_a_job_status_names_no_bucket_key_or_etag_of_its_audio_or_sidecars(app: Any, s3: Any) -> None:
    job_id = _submit(app, {"text": TEXT, **SIDECARS, "seed": 2, "steps": 1})
    _deliver_job(app, s3, job_id)
    done = _status(app, job_id)
    where = _where_things_are(s3)
    assert len(where) > 8  # both buckets, the job, its audio, manifest and three sidecars, their ETags
    assert _says_where_things_are(done, where) == []


def test_a_job_whose_sidecar_is_gone_has_expired_without_a_dead_link(app: Any, s3: Any) -> None:
    job_id = _submit(app, {"text": TEXT, **SIDECARS, "seed": 2, "steps": 1})
    _deliver_job(app, s3, job_id)
    s3.delete_object(Bucket=OUTPUT_BUCKET, Key=_stored_manifest(s3)["sidecars"]["captions.srt"])  # as the lifecycle rule may
    gone = _status(app, job_id)
    assert gone["status"] == "expired" and "captions.srt" in gone["message"]
    assert "audio_url" not in gone and "sidecars" not in gone


def test_a_job_rendered_in_parts_lists_its_sidecars_the_same_way(app: Any, s3: Any, queues: dict[str, str]) -> None:
    job_id = _submit(app, {**LONG_JOB, **SIDECARS})
    key = f"input/jobs/{job_id}.json"
    head = s3.head_object(Bucket=INPUT_BUCKET, Key=key)
    app.lambda_handler(s3_put_event(INPUT_BUCKET, key, head["ContentLength"], head["ETag"]), LambdaContext())
    messages = receive_all(queues["parts"])
    assert len(messages) > 1  # rendered in parts, not in one invocation
    app.lambda_handler(sqs_event(messages, queues["parts_arn"], REGION), LambdaContext())
    done = _status(app, job_id)
    assert done["status"] == "done" and done["parts_total"] == len(messages)
    _assert_sidecars_fetchable(s3, done)
    assert _says_where_things_are(done, _where_things_are(s3)) == []
