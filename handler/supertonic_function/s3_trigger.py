"""S3 notifications: a text object (or job) under the input prefix becomes audio plus a manifest.

Per record, in this order, so that every exit is cheap and safe under at-least-once delivery:
1. refuse the function's own outputs and anything outside the input prefix/suffixes (no loops);
2. derive the result folder from the key and its revision; if its manifest exists, the work is
   done already (a re-delivered event) - stop before reading anything;
3. check the size from the event, then download at most the cap, pinned to the event's ETag;
4. synthesize under the invocation's deadline; publish audio, then the manifest (conditional put).
An input fault (bad text, too large, not UTF-8, unreadable characters, a deadline passed with the
invocation's whole time) writes an error manifest and is not retried; anything else (S3
throttling, no model, a wrong setting, a bug, a record that found the time used up by the records
before it) is raised so Lambda retries the event and finally hands it to the on-failure
destination. A retry skips the records already done, so each one gets its turn at a whole timeout.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.data_classes import S3Event
from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventRecord, S3Object
from supertonic_engine.errors import DeadlineExceeded
from supertonic_engine.storage import ObjectChanged, ObjectMissing, TextObject

from .errors import error_manifest, is_input_fault, utc_now
from .layout import KeyKind, ResultKeys
from .rendering import Rendered, render, synthesis_budget_s
from .request import TtsRequest, parse_json, parse_request
from .service import Service
from .telemetry import logger


@dataclass(frozen=True)
class Outcome:
    bucket: str
    key: str
    status: str  # done | failed | skipped
    reason: str | None = None
    manifest_key: str | None = None

    @property
    def rendered(self) -> bool:
        """Whether this record went as far as rendering, and so spent the invocation's time."""
        return self.status != "skipped"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class SourceObject:
    """The text object an event announces, as the event describes it."""

    bucket: str
    key: str
    etag: str | None
    version_id: str | None
    size: int | None

    @property
    def revision(self) -> str | None:
        return self.version_id or self.etag

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any) -> dict[str, Any]:
    outcomes: list[Outcome] = []
    for record in S3Event(event).records:
        first = not any(outcome.rendered for outcome in outcomes)
        outcomes.append(render_record(service, record, request_id=request_id, context=context, whole_time=first))
    return {"results": [outcome.to_dict() for outcome in outcomes]}


def render_record(
    service: Service, record: S3EventRecord, *, request_id: str, context: Any, whole_time: bool = True
) -> Outcome:
    """Render one record. ``whole_time``: no record before it in this invocation spent any time,
    so a deadline it meets says the text is too long for the timeout, not that time ran short."""
    announced = record.s3.get_object
    # Notification keys are form-encoded: "my story.txt" arrives as "my+story.txt".
    bucket, key = record.s3.bucket.name, unquote_plus(announced.key)
    refusal = _refusal(service, record.event_name, bucket, key)
    if refusal is not None:
        return _skip(bucket, key, refusal)
    source = _source(service, bucket, key, announced)
    if source is None or source.revision is None:
        return _skip(bucket, key, ObjectMissing.code)
    keys = service.layout.result_keys(key, source.revision)
    if service.store.head(keys.bucket, keys.manifest) is not None:
        return _skip(bucket, key, "already_done", keys.manifest)
    # The audio is encoded into /tmp as it is made (a long text never sits whole in memory) and
    # the folder is removed whatever happens: nothing outlives the invocation.
    with tempfile.TemporaryDirectory(prefix="supertonic-") as scratch:
        audio_path = Path(scratch) / "audio"
        try:
            rendered = _render(service, source, context, audio_path)
        except (ObjectMissing, ObjectChanged) as error:
            # Deleted or overwritten since the event: the newer event (if any) covers the new bytes.
            return _skip(bucket, key, error.code)
        except Exception as error:
            if not is_input_fault(error) or (isinstance(error, DeadlineExceeded) and not whole_time):
                raise
            return _fail(service, source, keys, error, request_id)
        audio_key = keys.audio(rendered.extension, request_id)
        published = service.store.publish(
            keys.bucket,
            audio_key=audio_key,
            audio=audio_path,
            content_type=rendered.content_type,
            manifest_key=keys.manifest,
            manifest=_done_manifest(rendered, source, keys.bucket, audio_key, request_id),
        )
    if not published:
        return _skip(bucket, key, "already_done", keys.manifest)
    return Outcome(bucket, key, "done", manifest_key=keys.manifest)


def _refusal(service: Service, event_name: str, bucket: str, key: str) -> str | None:
    """Why this record must not be rendered, or None. Own outputs are refused first: no loops."""
    kind = service.layout.kind(bucket, key)
    if kind is KeyKind.OWN_OUTPUT:
        logger.warning("refusing to render the function's own output", extra={"bucket": bucket, "key": key})
        return "own_output"
    if kind is KeyKind.OTHER:
        return "not_an_input"
    if not event_name.startswith("ObjectCreated"):
        return "not_a_creation"
    return None


def _source(service: Service, bucket: str, key: str, announced: S3Object) -> SourceObject | None:
    """The object as the event names it; a HEAD fills in what the event left out (None: it is gone)."""
    etag = (announced.get("eTag") or "").strip('"') or None
    version_id = announced.version_id if announced.version_id not in (None, "null") else None
    if etag or version_id:
        return SourceObject(bucket, key, etag, version_id, announced.get("size"))
    info = service.store.head(bucket, key)
    if info is None:
        return None
    return SourceObject(bucket, key, info.etag, info.version_id, info.size)


def _render(service: Service, source: SourceObject, context: Any, audio_path: Path) -> Rendered:
    text = service.store.read_text(
        source.bucket, source.key, max_bytes=service.config.max_object_bytes, size=source.size, etag=source.etag
    )
    return render(
        service.engine,
        _request_from(service, text),
        budget_s=synthesis_budget_s(context, service.config.deadline_margin_s),
        source="s3",
        into=audio_path,
    )


def _fail(service: Service, source: SourceObject, keys: ResultKeys, error: Exception, request_id: str) -> Outcome:
    """Record an input fault as the result, so the event is done and not retried."""
    manifest = error_manifest(error, source.to_dict(), request_id) | {"request_id": request_id}
    service.store.put_json(keys.bucket, keys.manifest, manifest, only_if_absent=True)
    logger.info("text object refused", extra={"key": source.key, "error": manifest["error"]})
    return Outcome(source.bucket, source.key, "failed", manifest["error"]["code"], keys.manifest)


def _request_from(service: Service, text: TextObject) -> TtsRequest:
    """A ``.json`` object is a job in the ``POST /v1/tts`` shape; a ``.txt`` is the text, options in metadata."""
    if text.info.key.endswith(".json"):
        return parse_request(parse_json(text.text, "the job"), voices=service.voices)
    # S3 returns user metadata with lower-case keys (x-amz-meta-voice -> "voice").
    return parse_request({**text.info.metadata, "text": text.text}, voices=service.voices, from_strings=True)


def _done_manifest(rendered: Rendered, source: SourceObject, bucket: str, audio_key: str, request_id: str) -> dict[str, Any]:
    return {
        "status": "done",
        "source": source.to_dict(),
        "audio": {
            "bucket": bucket,
            "key": audio_key,
            "content_type": rendered.content_type,
            "bytes": rendered.size_bytes,
        },
        **rendered.summary(),
        "request_id": request_id,
        "finished_at": utc_now(),
    }


def _skip(bucket: str, key: str, reason: str, manifest_key: str | None = None) -> Outcome:
    logger.info("text object skipped", extra={"bucket": bucket, "key": key, "reason": reason})
    return Outcome(bucket, key, "skipped", reason, manifest_key)
