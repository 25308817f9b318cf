"""supertonic_function.storage against moto's S3 server: caps, conditional writes, links, error classes."""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, asked_disposition, disposition_of, fetch

from supertonic_function.storage import (
    MULTIPART_MIN_PART_BYTES,
    JoinedObject,
    ObjectChanged,
    ObjectMissing,
    ObjectStore,
    ObjectTooLarge,
    StorageFailed,
    StorageUnavailable,
    StoredPiece,
    TextNotUtf8,
    classify,
    s3_client,
)

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]


@pytest.fixture
def store(s3: Any) -> ObjectStore:
    return ObjectStore()


def test_client_follows_the_endpoint_variables(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert s3_client().meta.endpoint_url == moto_endpoint
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
    assert s3_client().meta.endpoint_url == "http://127.0.0.1:1"


def test_read_text_checks_the_size_before_reading(store: ObjectStore, s3: Any) -> None:
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/a.txt", Body="\ufeffHello, wörld.".encode())
    text = store.read_text(INPUT_BUCKET, "input/a.txt", max_bytes=100)
    assert text.text == "Hello, wörld."  # the byte-order mark is not text
    assert text.info.etag and text.info.size == 17
    with pytest.raises(ObjectTooLarge, match="17 bytes; the limit is 10 bytes"):
        store.read_text(INPUT_BUCKET, "input/a.txt", max_bytes=10)
    with pytest.raises(ObjectMissing):
        store.read_text(INPUT_BUCKET, "input/none.txt", max_bytes=10)


def test_read_text_is_pinned_to_the_announced_etag(store: ObjectStore, s3: Any) -> None:
    first = s3.put_object(Bucket=INPUT_BUCKET, Key="input/b.txt", Body=b"one")["ETag"]
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/b.txt", Body=b"two")
    with pytest.raises(ObjectChanged):
        store.read_text(INPUT_BUCKET, "input/b.txt", max_bytes=10, size=3, etag=first.strip('"'))


def test_empty_and_non_utf8_objects(store: ObjectStore, s3: Any) -> None:
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/empty.txt", Body=b"")
    assert store.read_text(INPUT_BUCKET, "input/empty.txt", max_bytes=10).text == ""
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/bad.txt", Body=b"ok \xff")
    with pytest.raises(TextNotUtf8, match="0xff at offset 3"):
        store.read_text(INPUT_BUCKET, "input/bad.txt", max_bytes=10)


def test_conditional_put_never_overwrites(store: ObjectStore, s3: Any) -> None:
    assert store.put_json(OUTPUT_BUCKET, "output/m.json", {"n": 1}, only_if_absent=True) is True
    assert store.put_json(OUTPUT_BUCKET, "output/m.json", {"n": 2}, only_if_absent=True) is False
    assert store.get_json(OUTPUT_BUCKET, "output/m.json") == {"n": 1}
    assert store.get_json(OUTPUT_BUCKET, "output/none.json") is None


def test_publish_writes_audio_then_the_manifest_once(store: ObjectStore, s3: Any) -> None:
    # Two deliveries of one event, each with its own audio key: the first manifest wins, the
    # audio it names stays as the first delivery wrote it, and the second's audio is gone again.
    publish = dict(content_type="audio/wav", manifest_key="output/x/manifest.json")
    first = {"status": "done", "audio": "output/x/audio-1.wav"}
    assert store.publish(OUTPUT_BUCKET, audio_key="output/x/audio-1.wav", audio=b"RIFF1", manifest=first, **publish) is True
    again = {"status": "done", "audio": "output/x/audio-2.wav"}
    assert store.publish(OUTPUT_BUCKET, audio_key="output/x/audio-2.wav", audio=b"RIFF2", manifest=again, **publish) is False
    assert store.get_json(OUTPUT_BUCKET, "output/x/manifest.json") == first
    remaining = [item["Key"] for item in s3.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix="output/x/")["Contents"]]
    assert sorted(remaining) == ["output/x/audio-1.wav", "output/x/manifest.json"]
    assert s3.get_object(Bucket=OUTPUT_BUCKET, Key="output/x/audio-1.wav")["Body"].read() == b"RIFF1"
    head = store.head(OUTPUT_BUCKET, "output/x/audio-1.wav")
    assert head is not None and head.content_type == "audio/wav"
    assert store.head(OUTPUT_BUCKET, "output/x/none.wav") is None


def _failing(store: ObjectStore, operation: str, when: Any = lambda params: True, answer_lost: bool = False) -> None:
    """Make ``operation`` fail with S3's 503 SlowDown where ``when(params)`` holds; S3 itself is real.
    ``answer_lost``: the request reaches S3 and only its answer fails, as on a dropped connection."""

    def mark(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["fail"] = when(params)
        if context["fail"] and not answer_lost:
            raise _client_error("SlowDown", 503)

    def fail_answer(context: dict[str, Any], **_: Any) -> None:
        if context.get("fail"):
            raise _client_error("SlowDown", 503)

    store.client.meta.events.register(f"before-parameter-build.s3.{operation}", mark)
    if answer_lost:
        store.client.meta.events.register(f"after-call.s3.{operation}", fail_answer)


def test_a_manifest_that_cannot_be_written_leaves_no_audio_behind(store: ObjectStore, s3: Any) -> None:
    _failing(store, "PutObject", when=lambda params: params["Key"].endswith("manifest.json"))
    with pytest.raises(StorageUnavailable):
        store.publish(
            OUTPUT_BUCKET,
            audio_key="output/y/audio-1.wav",
            audio=b"RIFF1",
            content_type="audio/wav",
            manifest_key="output/y/manifest.json",
            manifest={"status": "done"},
        )
    assert s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("KeyCount") == 0


def test_a_manifest_whose_answer_was_lost_keeps_its_audio(store: ObjectStore, s3: Any) -> None:
    # The PUT landed; only its answer did not arrive. The manifest names this audio: it stays.
    _failing(store, "PutObject", when=lambda params: params["Key"].endswith("manifest.json"), answer_lost=True)
    manifest = {"status": "done", "audio": "output/z/audio-1.wav"}
    assert (
        store.publish(
            OUTPUT_BUCKET,
            audio_key="output/z/audio-1.wav",
            audio=b"RIFF1",
            content_type="audio/wav",
            manifest_key="output/z/manifest.json",
            manifest=manifest,
        )
        is True
    )
    assert sorted(item["Key"] for item in s3.list_objects_v2(Bucket=OUTPUT_BUCKET)["Contents"]) == [
        "output/z/audio-1.wav",
        "output/z/manifest.json",
    ]


def test_a_failed_large_upload_leaves_no_parts(store: ObjectStore, s3: Any, tmp_path: Path) -> None:
    # Over the transfer manager's 8 MiB threshold: a multipart upload, whose parts S3 keeps (and
    # bills) until the upload is completed or aborted.
    audio = tmp_path / "audio.wav"
    audio.write_bytes(os.urandom(20 * 1024 * 1024))
    parts = iter(range(100))
    _failing(store, "UploadPart", when=lambda params: next(parts) == 1)
    with pytest.raises(StorageUnavailable):
        store.put_file(OUTPUT_BUCKET, "output/big/audio-1.wav", audio, content_type="audio/wav")
    assert not s3.list_multipart_uploads(Bucket=OUTPUT_BUCKET).get("Uploads")


def test_json_documents_are_utf8_whatever_they_hold(store: ObjectStore, s3: Any) -> None:
    assert store.put_json(OUTPUT_BUCKET, "output/u.json", {"text": "한국어", "field": "\ud800"}) is True
    raw = s3.get_object(Bucket=OUTPUT_BUCKET, Key="output/u.json")["Body"].read()
    assert raw.decode("utf-8") and store.get_json(OUTPUT_BUCKET, "output/u.json") == {"text": "한국어", "field": "\ud800"}
    assert store.put_json(OUTPUT_BUCKET, "output/s.json", {"field": "\ud800"}) is True  # a lone surrogate
    raw = s3.get_object(Bucket=OUTPUT_BUCKET, Key="output/s.json")["Body"].read()
    assert b"\\ud800" in raw and raw.decode("utf-8")


def test_head_is_pinned_to_the_version_it_names(store: ObjectStore, s3: Any) -> None:
    first = s3.put_object(Bucket=INPUT_BUCKET, Key="input/p.txt", Body=b"one", Metadata={"voice": "F1"})["ETag"]
    head = store.head(INPUT_BUCKET, "input/p.txt", etag=first.strip('"'))
    assert head is not None and head.metadata == {"voice": "F1"} and head.last_modified is not None
    s3.put_object(Bucket=INPUT_BUCKET, Key="input/p.txt", Body=b"two")
    with pytest.raises(ObjectChanged):
        store.head(INPUT_BUCKET, "input/p.txt", etag=first.strip('"'))


def test_a_bucket_is_checked_for_what_the_operator_must_fix(store: ObjectStore, s3: Any) -> None:
    store.check_bucket(OUTPUT_BUCKET)
    with pytest.raises(StorageFailed, match="does not exist: create it"):
        store.check_bucket("supertonic-no-such-bucket")
    forbidden = classify(_client_error("AccessDenied", 403), "PUT s3://b/k")
    assert type(forbidden) is StorageFailed and "grant" in forbidden.message


def test_presigned_link_works_without_credentials(store: ObjectStore, s3: Any) -> None:
    s3.put_object(Bucket=OUTPUT_BUCKET, Key="output/l.wav", Body=b"audio bytes")
    link = store.presigned_get(OUTPUT_BUCKET, "output/l.wav", expires_s=120, download=False)
    # moto does not check signatures or expiry, so the link's own parameters are checked.
    assert parse_qs(urlparse(link.url).query)["X-Amz-Expires"] == ["120"] and link.expires_s == 120
    assert fetch(link.url) == b"audio bytes"


def test_a_link_to_save_asks_for_an_attachment_and_a_link_to_play_does_not(store: ObjectStore, s3: Any) -> None:
    s3.put_object(Bucket=OUTPUT_BUCKET, Key="output/jobs/j1/speech.mp3", Body=b"audio bytes")
    to_save = store.presigned_get(OUTPUT_BUCKET, "output/jobs/j1/speech.mp3", expires_s=120, download=True)
    to_play = store.presigned_get(OUTPUT_BUCKET, "output/jobs/j1/speech.mp3", expires_s=120, download=False)
    assert asked_disposition(to_save.url) == ['attachment; filename="speech.mp3"'] and asked_disposition(to_play.url) == []
    # S3 (here moto) answers with what the signed query asks for, and nothing when it asks for nothing.
    assert disposition_of(to_save.url) == 'attachment; filename="speech.mp3"' and disposition_of(to_play.url) is None


def test_presigned_link_ends_when_its_credentials_do(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Temporary credentials whose expiry botocore knows (here from AWS_CREDENTIAL_EXPIRATION, as for
    # an assumed role): a link signed with them stops working then, so it must not promise longer.
    expiry = datetime.now(UTC) + timedelta(minutes=20)
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_CREDENTIAL_EXPIRATION", expiry.isoformat())
    link = ObjectStore().presigned_get(OUTPUT_BUCKET, "output/l.wav", expires_s=3600, download=True)
    (signed,) = parse_qs(urlparse(link.url).query)["X-Amz-Expires"]
    assert int(signed) == link.expires_s and 19 * 60 <= link.expires_s <= 20 * 60


def _client_error(code: str, status: int) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}}, "GetObject")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_client_error("SlowDown", 503), StorageUnavailable),
        (_client_error("InternalError", 500), StorageUnavailable),
        (_client_error("ConditionalRequestConflict", 409), StorageUnavailable),
        (EndpointConnectionError(endpoint_url="http://127.0.0.1:1"), StorageUnavailable),
        (_client_error("AccessDenied", 403), StorageFailed),
        (_client_error("NoSuchBucket", 404), StorageFailed),
        (_client_error("NoSuchKey", 404), ObjectMissing),
    ],
)
def test_failures_are_classified_once(error: Exception, expected: type[Exception]) -> None:
    classified = classify(error, "GET s3://b/k")  # type: ignore[arg-type]
    assert type(classified) is expected
    assert "s3://b/k" in classified.message


def test_storage_logs_through_the_function_s_json_handler() -> None:
    # storage.py logs with the standard library; its lines must reach CloudWatch as the function's JSON lines.
    from supertonic_function import storage, telemetry

    handlers = [h for name in ("supertonic_function.storage", "supertonic_function") for h in logging.getLogger(name).handlers]
    assert storage.logger.name == "supertonic_function.storage" and storage.logger.propagate
    assert telemetry.logger.registered_handler in handlers


def test_a_joined_object_copies_large_pieces_in_s3_and_groups_small_ones(store: ObjectStore, s3: Any, monkeypatch) -> None:
    big = os.urandom(MULTIPART_MIN_PART_BYTES + 17)
    small = [os.urandom(1_000_000 + n) for n in range(7)]
    s3.put_object(Bucket=OUTPUT_BUCKET, Key="parts/big", Body=big)
    for n, data in enumerate(small):
        s3.put_object(Bucket=OUTPUT_BUCKET, Key=f"parts/small{n}", Body=data)
    read: list[str] = []
    real_read = ObjectStore.read_bytes
    monkeypatch.setattr(ObjectStore, "read_bytes", lambda self, bucket, key: (read.append(key), real_read(self, bucket, key))[1])
    sizes = store.list_sizes(OUTPUT_BUCKET, "parts/")
    pieces = (
        StoredPiece("parts/big", sizes["parts/big"]),
        b"head of the rest",
        *(StoredPiece(f"parts/small{n}", sizes[f"parts/small{n}"]) for n in range(7)),
        b"tail",
    )
    store.put_joined(OUTPUT_BUCKET, "joined.bin", JoinedObject(pieces), content_type="application/octet-stream")
    body = s3.get_object(Bucket=OUTPUT_BUCKET, Key="joined.bin")["Body"].read()
    assert body == big + b"head of the rest" + b"".join(small) + b"tail"
    assert "parts/big" not in read and len(read) == 7  # the large piece was copied by S3, never read here
    assert s3.list_multipart_uploads(Bucket=OUTPUT_BUCKET).get("Uploads", []) == []


def test_a_joined_object_that_fails_leaves_no_upload_behind(store: ObjectStore, s3: Any) -> None:
    pieces = (b"x" * 10, StoredPiece("parts/missing", 10))
    with pytest.raises(ObjectMissing):
        store.put_joined(OUTPUT_BUCKET, "joined.bin", JoinedObject(pieces), content_type="application/octet-stream")
    assert s3.list_multipart_uploads(Bucket=OUTPUT_BUCKET).get("Uploads", []) == []
    assert "Contents" not in s3.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix="joined.bin")
