"""Amazon S3 for text-in, audio-out jobs: the S3 trigger's reads and its publish protocol.

What this module guarantees, whoever calls it:
- a text object is never downloaded past its size cap: the size is known (from the caller's event
  or a HEAD) before the GET, and the GET itself asks for at most one byte more than the cap;
- a result is published audio first, manifest last, and the manifest only if none exists yet
  (``If-None-Match: *``), so a manifest always describes complete audio and a re-delivered
  event cannot publish twice; each delivery uploads its audio under its own key, so one that
  loses the race, or fails to write its manifest, removes only its own audio and never touches
  the audio a manifest names; a manifest whose PUT answer was lost is recognised as the caller's
  own, not as a lost race;
- every JSON document it writes is UTF-8, whatever strings it holds (a lone surrogate from a
  ``\\ud800`` escape in a job has no UTF-8 form; JSON's own escape keeps it);
- every failure is classified once: ``StorageUnavailable`` is worth retrying (throttling, 5xx,
  network), ``StorageFailed`` is not (access denied, missing bucket), and the request-level
  problems (too large, not UTF-8) are ``InvalidRequest`` subclasses like any other bad input.

The S3 client honours ``AWS_ENDPOINT_URL_S3`` and ``AWS_ENDPOINT_URL`` (botocore reads them
itself), which is how tests and the local emulator point every call at a moto server.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# boto3 itself (and botocore's config, which loads most of botocore) is imported where a client is
# made: importing it costs about half a second of every cold start, which only S3 work should pay.
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from supertonic_engine.errors import InvalidRequest, SupertonicError

logger = logging.getLogger(__name__)

# Standard retry mode already retries throttling and 5xx a few times inside one call; what is
# still failing afterwards is surfaced as StorageUnavailable for the caller's own retry (Lambda's).
_CLIENT_CONFIG = dict(
    signature_version="s3v4",
    retries={"mode": "standard", "max_attempts": 3},
    connect_timeout=5,
    read_timeout=30,
)

# Error codes S3 documents as "try again"; ConditionalRequestConflict (409) is a concurrent
# conditional write that S3 asks the client to retry.
_TRANSIENT_CODES = frozenset(
    {
        "InternalError",
        "ServiceUnavailable",
        "SlowDown",
        "RequestTimeout",
        "RequestTimeTooSkewed",
        "Throttling",
        "ThrottlingException",
        "OperationAborted",
        "ConditionalRequestConflict",
    }
)
_MISSING_CODES = frozenset({"404", "NoSuchKey", "NotFound"})
_PRECONDITION_CODES = frozenset({"412", "PreconditionFailed"})
_FORBIDDEN_CODES = frozenset({"403", "AccessDenied", "AllAccessDisabled"})
# The longest lifetime S3 accepts for a SigV4 presigned URL (X-Amz-Expires).
MAX_PRESIGNED_URL_S = 7 * 24 * 3600


# --- errors --------------------------------------------------------------------------------------


class StorageError(SupertonicError):
    """S3 could not do what was asked."""

    code = "storage_error"


class StorageUnavailable(StorageError):
    """A transient S3 or network failure: the same call may succeed later."""

    code = "storage_unavailable"


class StorageFailed(StorageError):
    """A permanent S3 failure (access denied, no such bucket): retrying will not help."""

    code = "storage_failed"


class ObjectMissing(StorageError):
    """The object named by an event or a request does not exist (any more)."""

    code = "object_not_found"


class ObjectChanged(StorageError):
    """The object was overwritten after the event that names it; a newer event covers the new bytes."""

    code = "object_changed"


class ObjectTooLarge(InvalidRequest):
    code = "object_too_large"
    field = "text"

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"the text object is {size:,} bytes; the limit is {limit:,} bytes. Split it into several objects.")


class TextNotUtf8(InvalidRequest):
    code = "text_not_utf8"
    field = "text"

    def __init__(self, error: UnicodeDecodeError) -> None:
        bad = error.object[error.start : error.start + 1].hex()
        super().__init__(f"the text object is not UTF-8 (byte 0x{bad} at offset {error.start}); save it as UTF-8 text.")


def is_transient(error: BaseException) -> bool:
    """True when a botocore failure is worth retrying later (throttling, 5xx, network trouble)."""
    if isinstance(error, (BotoConnectionError, HTTPClientError)):
        return True
    if isinstance(error, ClientError):
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return _error_code(error) in _TRANSIENT_CODES or status >= 500
    return False


def classify(error: BotoCoreError | ClientError, what: str) -> StorageError:
    """The one translation from botocore's exceptions to this module's typed errors."""
    detail = f"{what}: {error}"
    if is_transient(error):
        return StorageUnavailable(f"{detail}. S3 is busy or unreachable; try again shortly.")
    code = _error_code(error) if isinstance(error, ClientError) else ""
    if code in _MISSING_CODES:
        return ObjectMissing(f"{detail}. The object does not exist.")
    if code == "NoSuchBucket":
        return StorageFailed(f"{detail}. The bucket does not exist: create it, or configure the name of one that does.")
    if code in _FORBIDDEN_CODES:
        return StorageFailed(
            f"{detail}. The function's role is not allowed to do this: grant the S3 action on this "
            "bucket and prefix in its policy (template.yaml, Policies)."
        )
    return StorageFailed(f"{detail}. Check the bucket name and the function's S3 permissions.")


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


# --- the store -----------------------------------------------------------------------------------


def s3_client() -> Any:
    """A boto3 S3 client with bounded retries and timeouts; endpoint overrides come from the environment."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client("s3", config=Config(**_CLIENT_CONFIG))


@dataclass(frozen=True)
class ObjectInfo:
    """What a HEAD (or an event) says about an object."""

    bucket: str
    key: str
    size: int
    etag: str | None = None
    version_id: str | None = None
    content_type: str | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    last_modified: datetime | None = None


# A multipart upload's parts are 5 MiB to 5 GiB each (the last may be smaller), at most 10,000 of
# them (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html).
MULTIPART_MIN_PART_BYTES = 5 * 1024 * 1024
MULTIPART_MAX_PARTS = 10_000


@dataclass(frozen=True)
class StoredPiece:
    """An object in the same bucket, copied into a joined object as it is."""

    key: str
    size: int


@dataclass(frozen=True)
class JoinedObject:
    """An object made of bytes in hand and stored objects, one after another."""

    pieces: tuple[bytes | StoredPiece, ...]

    @property
    def size(self) -> int:
        return sum(len(p) if isinstance(p, bytes) else p.size for p in self.pieces)


@dataclass(frozen=True)
class JoinedProgress:
    """Where an unfinished ``put_joined`` stands: its upload, the parts sent, the first piece not in them."""

    upload_id: str
    parts: list[dict[str, Any]]  # {"ETag", "PartNumber"} as CompleteMultipartUpload takes them
    next_piece: int

    def to_json(self) -> dict[str, Any]:
        return {"upload_id": self.upload_id, "parts": self.parts, "next_piece": self.next_piece}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JoinedProgress:
        return cls(str(data["upload_id"]), [dict(p) for p in data["parts"]], int(data["next_piece"]))


# Small pieces of a joined object read at once, ahead of the one being sent (each a GET of a part).
READ_AHEAD = 8


class _ReadAhead:
    """The bytes of a joined object's stored pieces, read ``READ_AHEAD`` at a time ahead, taken in order."""

    def __init__(
        self, pool: ThreadPoolExecutor, read: Callable[[StoredPiece], bytes], pieces: tuple[bytes | StoredPiece, ...], start: int
    ) -> None:
        self._pool, self._read, self._pieces = pool, read, pieces
        self._futures: dict[int, Future[bytes]] = {}
        self._next = start

    def take(self, index: int) -> bytes:
        piece = self._pieces[index]
        if isinstance(piece, bytes):
            return piece
        while self._next < len(self._pieces) and len(self._futures) < READ_AHEAD:
            ahead = self._pieces[self._next]
            if isinstance(ahead, StoredPiece) and self._next >= index and ahead.size < MULTIPART_MIN_PART_BYTES:
                self._futures[self._next] = self._pool.submit(self._read, ahead)
            self._next += 1
        future = self._futures.pop(index, None)
        return future.result() if future is not None else self._read(piece)


@dataclass(frozen=True)
class PresignedUrl:
    url: str
    expires_s: int  # how long the link works, which may be less than asked for


@dataclass(frozen=True)
class TextObject:
    text: str
    info: ObjectInfo


class ObjectStore:
    """S3 reads and writes with the guarantees listed in the module docstring."""

    def __init__(self, client: Any | None = None) -> None:
        self._client = client if client is not None else s3_client()

    @property
    def client(self) -> Any:
        return self._client

    def head(self, bucket: str, key: str, *, etag: str | None = None, version_id: str | None = None) -> ObjectInfo | None:
        """The object's size, ETag, version and metadata, or None when it does not exist.

        ``version_id`` asks for that version; ``etag`` pins the answer to those bytes
        (``ObjectChanged`` when the object was overwritten since).
        """
        request: dict[str, Any] = {"Bucket": bucket, "Key": key}
        if version_id:
            request["VersionId"] = version_id
        if etag:
            request["IfMatch"] = _quoted(etag)
        try:
            reply = self._client.head_object(**request)
        except (BotoCoreError, ClientError) as error:
            if isinstance(error, ClientError) and _error_code(error) in _MISSING_CODES:
                return None
            if isinstance(error, ClientError) and _error_code(error) in _PRECONDITION_CODES:
                raise ObjectChanged(f"s3://{bucket}/{key} changed since its event (ETag {etag}).") from error
            if version_id and isinstance(error, ClientError) and _error_code(error) in ("400", "InvalidArgument"):
                # A version id S3 never issued (a hand-made event): no such version of the object.
                return None
            raise classify(error, f"HEAD s3://{bucket}/{key}") from error
        return _info(bucket, key, reply)

    def check_bucket(self, bucket: str) -> None:
        """Raise ``StorageFailed`` (saying what to fix) unless ``bucket`` exists and this role may use it.

        A HEAD of a key cannot tell a missing bucket from a missing key (both are a bare 404), so
        a caller that must not mistake one for the other asks about the bucket itself first.
        """
        try:
            self._client.head_bucket(Bucket=bucket)
        except (BotoCoreError, ClientError) as error:
            if is_transient(error) or not isinstance(error, ClientError):
                raise classify(error, f"HEAD s3://{bucket}") from error
            code = _error_code(error)
            if code in ("404", "NoSuchBucket", "NotFound"):
                raise StorageFailed("the bucket does not exist: create it, or configure the name of one that does.") from error
            if code in _FORBIDDEN_CODES:
                raise StorageFailed(
                    "the function's role may not use the bucket: grant it s3:ListBucket on the bucket "
                    "(and the object actions on its prefixes) in its policy, or configure the right bucket."
                ) from error
            if code in ("301", "PermanentRedirect"):
                raise StorageFailed("the bucket is in another region: use a bucket in the function's region.") from error
            raise classify(error, f"HEAD s3://{bucket}") from error

    def read_object(
        self,
        bucket: str,
        key: str,
        *,
        max_bytes: int,
        size: int | None = None,
        etag: str | None = None,
    ) -> tuple[bytes, ObjectInfo]:
        """Download an object of at most ``max_bytes``.

        ``size``/``etag`` come from the event when there is one: the size cap is then checked
        without any request, and the GET is pinned to that ETag so the bytes read are the bytes
        the event announced (``ObjectChanged`` otherwise).
        """
        if size is None:
            known = self.head(bucket, key)
            if known is None:
                raise ObjectMissing(f"s3://{bucket}/{key} does not exist.")
            size, etag = known.size, etag or known.etag
        if size > max_bytes:
            raise ObjectTooLarge(size, max_bytes)
        request: dict[str, Any] = {"Bucket": bucket, "Key": key}
        if etag:
            request["IfMatch"] = _quoted(etag)
        if size > 0:  # a Range on an empty object is an error (416), not an empty body
            request["Range"] = f"bytes=0-{max_bytes}"
        try:
            reply = self._client.get_object(**request)
            body = reply["Body"].read(max_bytes + 1)
        except (BotoCoreError, ClientError) as error:
            if isinstance(error, ClientError) and _error_code(error) in _PRECONDITION_CODES:
                raise ObjectChanged(f"s3://{bucket}/{key} changed since its event (ETag {etag}).") from error
            raise classify(error, f"GET s3://{bucket}/{key}") from error
        if len(body) > max_bytes:  # the object grew between the event and the GET
            raise ObjectTooLarge(_total_size(reply, len(body)), max_bytes)
        return body, _info(bucket, key, reply)

    def read_text(
        self,
        bucket: str,
        key: str,
        *,
        max_bytes: int,
        size: int | None = None,
        etag: str | None = None,
    ) -> TextObject:
        """Download a UTF-8 text object of at most ``max_bytes`` (``read_object``)."""
        body, info = self.read_object(bucket, key, max_bytes=max_bytes, size=size, etag=etag)
        try:
            text = body.decode("utf-8-sig")  # a leading BOM is an encoding mark, not text to read
        except UnicodeDecodeError as error:
            raise TextNotUtf8(error) from None
        return TextObject(text, info)

    def get_json(self, bucket: str, key: str) -> dict[str, Any] | None:
        """A small JSON document (a manifest), or None when it does not exist."""
        try:
            body = self._client.get_object(Bucket=bucket, Key=key)["Body"].read()
        except (BotoCoreError, ClientError) as error:
            if isinstance(error, ClientError) and _error_code(error) in _MISSING_CODES:
                return None
            raise classify(error, f"GET s3://{bucket}/{key}") from error
        return json.loads(body)

    def read_bytes(self, bucket: str, key: str) -> tuple[bytes, dict[str, str]]:
        """A whole object that must exist (a stored part) and its user metadata: ``ObjectMissing`` when it does not."""
        try:
            reply = self._client.get_object(Bucket=bucket, Key=key)
            return reply["Body"].read(), dict(reply.get("Metadata") or {})
        except (BotoCoreError, ClientError) as error:
            raise classify(error, f"GET s3://{bucket}/{key}") from error

    def read_range(self, bucket: str, key: str, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end`` (exclusive) of an object that must exist: ``ObjectMissing`` when it does not."""
        if end <= start:
            return b""
        try:
            reply = self._client.get_object(Bucket=bucket, Key=key, Range=f"bytes={start}-{end - 1}")
            return reply["Body"].read()
        except (BotoCoreError, ClientError) as error:
            raise classify(error, f"GET s3://{bucket}/{key} bytes {start}-{end - 1}") from error

    def list_keys(self, bucket: str, prefix: str) -> list[str]:
        """Every key under ``prefix``, in key order."""
        return list(self.list_sizes(bucket, prefix))

    def list_sizes(self, bucket: str, prefix: str) -> dict[str, int]:
        """Every key under ``prefix`` with its size in bytes, in key order (as S3 lists them)."""
        sizes: dict[str, int] = {}
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
                sizes.update((item["Key"], int(item["Size"])) for item in page.get("Contents", ()))
        except (BotoCoreError, ClientError) as error:
            raise classify(error, f"LIST s3://{bucket}/{prefix}") from error
        return sizes

    def put_joined(
        self,
        bucket: str,
        key: str,
        joined: JoinedObject,
        *,
        content_type: str,
        progress: JoinedProgress | None = None,
        stop: Callable[[], bool] = lambda: False,
    ) -> JoinedProgress | None:
        """Write ``joined`` in one multipart upload. A stored piece of at least
        ``MULTIPART_MIN_PART_BYTES`` is copied by S3 itself (UploadPartCopy); smaller ones and the
        bytes in hand are read (``READ_AHEAD`` at once) and sent in groups of at least that size
        (every part but the last must be), so memory holds a group and the pieces read ahead.

        Resumable: after each part sent, ``stop()`` may end this call; it then returns where the
        upload stands (the upload stays open), and a later call given that ``progress`` goes on from
        there. Returns None once the object is complete. On a failure the upload is aborted."""
        where = f"PUT s3://{bucket}/{key}"
        try:
            if progress is None:
                upload = self._client.create_multipart_upload(Bucket=bucket, Key=key, ContentType=content_type)["UploadId"]
                progress = JoinedProgress(upload, [], 0)
        except (BotoCoreError, ClientError) as error:
            raise classify(error, where) from error
        upload, done = progress.upload_id, list(progress.parts)
        sent_here = 0

        def send(data: bytes) -> None:
            number = len(done) + 1
            reply = self._client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=data)
            done.append({"ETag": reply["ETag"], "PartNumber": number})

        def copy(piece: StoredPiece) -> None:
            number = len(done) + 1
            reply = self._client.upload_part_copy(
                Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, CopySource={"Bucket": bucket, "Key": piece.key}
            )
            done.append({"ETag": reply["CopyPartResult"]["ETag"], "PartNumber": number})

        pieces = joined.pieces
        start = progress.next_piece
        try:
            with ThreadPoolExecutor(max_workers=READ_AHEAD) as pool:
                reads = _ReadAhead(pool, lambda piece: self.read_bytes(bucket, piece.key)[0], pieces, start)
                pending = bytearray()
                for index in range(start, len(pieces)):
                    if not pending and (sent_here and stop()):
                        return JoinedProgress(upload, done, index)
                    piece = pieces[index]
                    if isinstance(piece, StoredPiece) and not pending and piece.size >= MULTIPART_MIN_PART_BYTES:
                        copy(piece)
                        sent_here += 1
                        continue
                    pending += reads.take(index)
                    if len(pending) >= MULTIPART_MIN_PART_BYTES:
                        send(bytes(pending))
                        sent_here += 1
                        pending.clear()
                if pending or not done:
                    send(bytes(pending))
            if len(done) > MULTIPART_MAX_PARTS:
                raise StorageFailed(f"{where}: {len(done):,} parts, over S3's {MULTIPART_MAX_PARTS:,} for one object")
            self._client.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": done})
        except BaseException as error:
            try:
                self._client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload)
            except (BotoCoreError, ClientError) as abort_error:  # the bucket's lifecycle rule for incomplete uploads ends it
                logger.warning("could not abort a multipart upload", extra={"key": key, "error": str(abort_error)})
            if isinstance(error, (BotoCoreError, ClientError)):
                raise classify(error, where) from error
            raise
        return None

    def delete_many(self, bucket: str, keys: list[str]) -> None:
        """Remove ``keys``, a thousand a request (DeleteObjects' limit); missing ones are no error."""
        for start in range(0, len(keys), 1000):
            batch = [{"Key": key} for key in keys[start : start + 1000]]
            try:
                reply = self._client.delete_objects(Bucket=bucket, Delete={"Objects": batch, "Quiet": True})
            except (BotoCoreError, ClientError) as error:
                raise classify(error, f"DELETE s3://{bucket}/ ({len(batch)} keys)") from error
            if reply.get("Errors"):
                first = reply["Errors"][0]
                raise StorageFailed(f"DELETE s3://{bucket}/{first.get('Key')} failed: {first.get('Message')}")

    def put(
        self,
        bucket: str,
        key: str,
        body: bytes,
        *,
        content_type: str,
        metadata: Mapping[str, str] | None = None,
        only_if_absent: bool = False,
        if_match: str | None = None,
    ) -> bool:
        """Write one object in a single PUT; with ``only_if_absent`` returns False instead of
        overwriting, with ``if_match`` (an ETag) False instead of overwriting any other version:
        a compare-and-swap (https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html)."""
        request: dict[str, Any] = {"Bucket": bucket, "Key": key, "Body": body, "ContentType": content_type}
        if metadata:
            request["Metadata"] = dict(metadata)
        if only_if_absent:
            request["IfNoneMatch"] = "*"
        if if_match is not None:
            request["IfMatch"] = _quoted(if_match)
        conditional = only_if_absent or if_match is not None
        try:
            self._client.put_object(**request)
        except (BotoCoreError, ClientError) as error:
            if conditional and isinstance(error, ClientError) and _error_code(error) in _PRECONDITION_CODES:
                return False
            raise classify(error, f"PUT s3://{bucket}/{key}") from error
        return True

    def put_file(self, bucket: str, key: str, path: str | os.PathLike[str], *, content_type: str) -> None:
        """Upload a file from disk, in parts when it is large, without reading it into memory."""
        from boto3.exceptions import S3UploadFailedError  # loaded already: the client's upload_file is boto3's

        try:
            self._client.upload_file(str(path), bucket, key, ExtraArgs={"ContentType": content_type})
        except (BotoCoreError, ClientError) as error:
            raise classify(error, f"PUT s3://{bucket}/{key}") from error
        except S3UploadFailedError as error:
            # The transfer manager wraps the client's error; classify that one. Unknown: retry, lose nothing.
            cause = error.__cause__ or error.__context__
            if isinstance(cause, (BotoCoreError, ClientError)):
                raise classify(cause, f"PUT s3://{bucket}/{key}") from error
            raise StorageUnavailable(f"PUT s3://{bucket}/{key} failed: {error}") from error

    def put_json(
        self, bucket: str, key: str, document: Mapping[str, Any], *, only_if_absent: bool = False, if_match: str | None = None
    ) -> bool:
        return self.put(
            bucket, key, json_bytes(document), content_type="application/json", only_if_absent=only_if_absent, if_match=if_match
        )

    def delete(self, bucket: str, key: str) -> None:
        """Remove one object; removing one that does not exist is not an error (S3 says 204 either way)."""
        try:
            self._client.delete_object(Bucket=bucket, Key=key)
        except (BotoCoreError, ClientError) as error:
            raise classify(error, f"DELETE s3://{bucket}/{key}") from error

    def publish(
        self,
        bucket: str,
        *,
        audio_key: str,
        audio: bytes | Path | None,
        content_type: str,
        manifest_key: str,
        manifest: Mapping[str, Any],
        shared_key: bool = False,
        chapters: Mapping[str, Path | None] | None = None,
    ) -> bool:
        """Upload finished audio, then its manifest if no manifest exists yet.

        The manifest is the completion marker: readers look for it, never for the audio.
        ``audio_key`` must be this delivery's own (another delivery of the same event may be
        publishing at the same moment). Returns False when another delivery published first: its
        manifest stands, and the audio uploaded here is removed again, as it is when writing the
        manifest fails (the error is raised then). ``shared_key``: the audio is at ``audio_key``
        already, where another delivery may have published it (an upload finished over several
        invocations): it is never removed. ``chapters``: a book's chapter files, key -> file (None:
        stored there already), uploaded before the manifest and removed with the audio.
        """
        if isinstance(audio, Path):
            self.put_file(bucket, audio_key, audio, content_type=content_type)
        elif audio is not None:  # None: stored at audio_key already (a joined upload finished over several invocations)
            self.put(bucket, audio_key, audio, content_type=content_type)
        for key, path in (chapters or {}).items():
            if path is not None:
                self.put_file(bucket, key, path, content_type=content_type)
        ours = [audio_key, *(chapters or {})]
        try:
            published = self.put_json(bucket, manifest_key, manifest, only_if_absent=True)
        except Exception:
            # The write may have landed with its answer lost: then the manifest is ours and names
            # this audio. Otherwise no manifest ever will (a retry uploads its own audio), so it
            # goes; when even that cannot be told, it stays for the retention rule.
            landed = self._holds(bucket, manifest_key, manifest)
            if landed:
                return True
            if landed is False and not shared_key:
                self._discard(bucket, ours)
            raise
        if published:
            return True
        # Refused: another delivery's manifest, or this one's own, stored by a try whose answer was
        # lost (botocore retried the PUT and S3 refused the retry with the first try's write).
        landed = self._holds(bucket, manifest_key, manifest)
        if landed:
            return True
        if landed is False and not shared_key:
            self._discard(bucket, ours)
        return False

    def _holds(self, bucket: str, key: str, document: Mapping[str, Any]) -> bool | None:
        """Whether ``key`` holds exactly ``document``; None when S3 cannot say."""
        try:
            stored = self.get_json(bucket, key)
        except (StorageError, ValueError):
            return None
        return stored is not None and stored == json.loads(json_bytes(document))

    def _discard(self, bucket: str, keys: list[str]) -> None:
        for key in keys:
            try:
                self.delete(bucket, key)
            except StorageError as error:  # only tidiness is lost; any published result is intact
                logger.warning("could not remove audio no manifest names", extra={"bucket": bucket, "key": key, "error": error.message})

    def presigned_get(self, bucket: str, key: str, expires_s: int, *, download: bool) -> PresignedUrl:
        """A time-limited GET link that needs no AWS credentials to use.

        ``download``: a link handed over for saving (a job's files, a JSON answer's ``audio_url``)
        asks S3 to answer it as an attachment named after the key; a link that is followed to play
        the audio (a 303's ``location``: a browser tab, a player, ``<audio src>``) asks for nothing,
        so it plays where it is opened.

        A link stops working when the credentials that signed it expire, whatever it says, so its
        lifetime is cut to what the signing credentials have left where botocore knows it.
        """
        lifetime = int(expires_s)
        expiry = _credentials_expiry(self._client)
        if expiry is not None:
            left = int((expiry - datetime.now(UTC)).total_seconds())
            lifetime = max(1, min(lifetime, left))
        params = {"Bucket": bucket, "Key": key} | ({"ResponseContentDisposition": _attachment(key)} if download else {})
        url = self._client.generate_presigned_url("get_object", Params=params, ExpiresIn=lifetime)
        return PresignedUrl(url, lifetime)


# A name any browser saves as it is, quoted or not.
_PLAIN_FILE_NAME = re.compile(r"[A-Za-z0-9._-]{1,200}")


def _attachment(key: str) -> str:
    """The Content-Disposition S3 answers a link to save with: the file under its key's last part. A
    link is on S3's origin, where a page's <a download="..."> is ignored. An <audio> element still
    plays it (tests/test_playground_browser.py plays a job's link in Chromium), but a browser tab
    that opens it saves it instead, as an attachment is meant to be (RFC 6266 §4.2).
    S3 answers ``response-content-disposition`` on signed requests only, as a presigned link is:
    https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html"""
    name = key.rsplit("/", 1)[-1]
    return f'attachment; filename="{name}"' if _PLAIN_FILE_NAME.fullmatch(name) else "attachment"


def _credentials_expiry(client: Any) -> datetime | None:
    """When the credentials ``client`` signs with expire: known for temporary credentials that
    botocore refreshes (an assumed role, container or instance credentials, or
    ``AWS_CREDENTIAL_EXPIRATION`` beside the keys), None for plain keys.

    botocore keeps the signer's credentials and their expiry on private attributes only, so a
    missing attribute means "unknown", never an error.
    """
    credentials = getattr(getattr(client, "_request_signer", None), "_credentials", None)
    if credentials is None:
        return None
    if callable(getattr(credentials, "get_frozen_credentials", None)):
        credentials.get_frozen_credentials()  # refreshes credentials that are about to expire first
    expiry = getattr(credentials, "_expiry_time", None)
    return expiry if isinstance(expiry, datetime) else None


def json_bytes(document: Mapping[str, Any]) -> bytes:
    """``document`` as UTF-8 JSON, readable (non-ASCII as is) unless a string has no UTF-8 form."""
    try:
        return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON's \uXXXX escape spells it in ASCII
        return json.dumps(document, ensure_ascii=True, indent=1).encode("ascii")


def _info(bucket: str, key: str, reply: Mapping[str, Any]) -> ObjectInfo:
    version = reply.get("VersionId")
    return ObjectInfo(
        bucket=bucket,
        key=key,
        size=_total_size(reply, int(reply.get("ContentLength", 0))),
        etag=(reply.get("ETag") or "").strip('"') or None,
        version_id=None if version in (None, "null") else version,  # "null": versioning suspended
        content_type=reply.get("ContentType"),
        metadata=dict(reply.get("Metadata") or {}),
        last_modified=reply.get("LastModified"),
    )


def _total_size(reply: Mapping[str, Any], default: int) -> int:
    """The whole object's size, also for a ranged GET (``Content-Range: bytes 0-9/1234``)."""
    content_range = reply.get("ContentRange") or ""
    total = content_range.rpartition("/")[2]
    return int(total) if total.isdigit() else default


def _quoted(etag: str) -> str:
    return etag if etag.startswith('"') else f'"{etag}"'
