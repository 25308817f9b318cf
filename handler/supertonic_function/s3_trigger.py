"""S3 notifications: a text object (or job) under the input prefix becomes audio plus a manifest.

Per record, in this order, so that every exit is cheap and safe under at-least-once delivery:
1. refuse the function's own outputs and anything outside the input prefix/suffixes (no loops),
   and make sure the results bucket answers (once per container) before any work;
2. derive the result folder from what decides the result - the key, its revision and, for a
   ``.txt``, the options in its metadata (a HEAD pinned to the event's ETag reads them); if its
   manifest exists, the work is done already (a re-delivered event) - stop before reading the text;
3. check the size from the event, then download at most the cap, pinned to the event's ETag;
4. synthesize under the invocation's deadline, keeping back the time the upload of what is made
   takes; publish audio, then the manifest (conditional put).
An input fault (bad text, too large, not UTF-8, unreadable characters) writes an error manifest
and is not retried; so does a deadline, but only when the text could not be rendered even with a
fresh invocation's whole time (judged from how far its synthesis got). Anything else (S3
throttling, a missing bucket, no model, a wrong setting, a bug) is raised so Lambda retries the
event and finally hands it to the on-failure destination. Records the time did not reach (a slow
download, earlier records of the same event) are left unstarted, not failed, and ``RecordsLeft``
is raised once the others are done: the retry skips the records done and renders the rest.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.data_classes import S3Event
from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventRecord, S3Object

from supertonic_engine import ChapterMark, Prepared, book_text, chapter_chunks, chapter_marks, read_epub
from supertonic_engine.errors import AudioTooLong, DeadlineExceeded

from . import fanout, results
from .described import Sidecars, store_sidecars
from .errors import PartsQueueUnusable, RecordsLeft, is_input_fault, log_error
from .invocation import LambdaCall
from .layout import KeyKind, ResultKeys, revision
from .rendering import Rendered, render
from .request import OPTION_FIELDS, TtsRequest, parse_json, parse_request
from .service import Service
from .storage import ObjectChanged, ObjectMissing, TextObject
from .telemetry import logger

# A synthesis that had at least this share of the time a fresh invocation gives had its chance:
# its deadline is the text's fault. What a fresh invocation spends before synthesis (a few S3
# requests) is the share left over; a slow download or earlier records take more, and then a
# deadline is a reason to retry, not to fail the text.
FAIR_SHARE = 0.95


@dataclass(frozen=True)
class Outcome:
    bucket: str
    key: str
    status: str  # done | planned (rendering in parts) | failed | skipped | left (for the retry: the time ran out)
    reason: str | None = None
    manifest_key: str | None = None

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
    # User metadata, lower-case keys; read (HEAD) only where it decides the result: a .txt's options.
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def revision(self) -> str | None:
        return revision(self.version_id, self.etag)

    def to_dict(self) -> dict[str, Any]:
        return {name: value for name, value in asdict(self).items() if name != "metadata"}


def blames_text(call: LambdaCall, error: DeadlineExceeded) -> bool:
    """Whether the text could not be rendered even in a fresh invocation.

    The chunks after the one the synthesis stopped in take at least as long each as the ones
    before it did on average (that chunk counted as done), so the text needs at least this much;
    only when even that passes the fair share of a fresh invocation's time is retrying pointless.
    The fresh time is the one read when this invocation began: the messages of an SQS batch are
    each an S3 event of their own, and a later one, started with what the earlier ones left, must
    not take that remainder for what a fresh invocation gets.
    """
    if call.fresh_s is None:
        return True
    spent = error.elapsed_s + error.held_back_s
    needs_at_least = spent * max(error.total_chunks, 1) / (error.done_chunks + 1)
    return needs_at_least >= FAIR_SHARE * call.fresh_s


def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> dict[str, Any]:
    service.ready()  # an init error is raised as it is, naming its setting, for the retries and the failure destination
    outcomes: list[Outcome] = []
    for record in S3Event(event).records:
        if outcomes and outcomes[-1].status == "left":  # no time for it either: do not start it
            outcomes.append(_left(record.s3.bucket.name, unquote_plus(record.s3.get_object.key)))
            continue
        outcomes.append(render_record(service, record, call))
    left = [outcome for outcome in outcomes if outcome.status == "left"]
    if left:
        logger.info("records left for the retry", extra={"results": [outcome.to_dict() for outcome in outcomes]})
        raise RecordsLeft([outcome.key for outcome in left], len(outcomes))
    return {"results": [outcome.to_dict() for outcome in outcomes]}


def render_record(service: Service, record: S3EventRecord, call: LambdaCall) -> Outcome:
    """Render one record within the time ``call`` has left; ``left`` when there was too little."""
    announced = record.s3.get_object
    submitted_at = results.utc_now()
    # Notification keys are form-encoded: "my story.txt" arrives as "my+story.txt".
    bucket, key = record.s3.bucket.name, unquote_plus(announced.key)
    refusal = _refusal(service, record.event_name, bucket, key)
    if refusal is not None:
        return _skip(bucket, key, refusal)
    service.results_bucket("rendering text")  # a missing or forbidden one fails here, before any work
    try:
        source = _source(service, bucket, key, announced)
    except ObjectChanged as error:
        return _skip(bucket, key, error.code)
    if source is None or source.revision is None:
        return _skip(bucket, key, ObjectMissing.code)
    keys = result_keys(service, source.key, source.revision, source.metadata)
    if service.store.head(keys.bucket, keys.manifest) is not None:
        return _skip(bucket, key, "already_done", keys.manifest)
    if service.store.head(keys.bucket, keys.dispatched) is not None:  # rendering in parts already
        return _skip(bucket, key, "already_planned", keys.manifest)
    budget_s = call.seconds_left()
    if budget_s is not None and budget_s <= 0:  # nothing left to start it with
        return _left(bucket, key)
    # The audio is encoded into /tmp as it is made (a long text never sits whole in memory) and
    # the folder is removed whatever happens: nothing outlives the invocation.
    with tempfile.TemporaryDirectory(prefix="supertonic-") as scratch:
        audio_path = Path(scratch) / "audio"
        try:
            prepared, chapters = _prepare(service, source)
            if fanout.fans_out(service, prepared):
                planned = fanout.plan(service, prepared, keys, source.to_dict(), call, submitted_at=submitted_at, chapters=chapters)
                return Outcome(bucket, key, planned, manifest_key=keys.manifest)
            fanout.check_bounds(service, prepared, chapters=bool(chapters))
            runs = chapter_chunks(chapters, prepared.chunk_byte_ranges) if chapters else []
            rendered = _render(service, prepared, call, audio_path, runs)
            sidecars = store_sidecars(service, prepared, keys, budget=call.synthesis_budget_s, chapters=runs)
        except (ObjectMissing, ObjectChanged) as error:
            # Deleted or overwritten since the event: the newer event (if any) covers the new bytes.
            return _skip(bucket, key, error.code)
        except PartsQueueUnusable as error:
            # No retry of the event can send the parts: the job fails, naming the setting.
            log_error(error, "fan-out", key=key)
            return _fail(service, source, keys, error, call.request_id, submitted_at)
        except DeadlineExceeded as error:
            if not blames_text(call, error):
                return _left(bucket, key)
            return _fail(service, source, keys, error, call.request_id, submitted_at)
        except Exception as error:
            if not is_input_fault(error):
                raise
            return _fail(service, source, keys, error, call.request_id, submitted_at)
        audio_key = keys.audio(rendered.extension, call.request_id)
        chapter_keys = [keys.chapter_audio(number, rendered.extension, call.request_id) for number in range(len(rendered.chapters))]
        published = service.store.publish(
            keys.bucket,
            audio_key=audio_key,
            audio=audio_path,
            content_type=rendered.content_type,
            chapters={key: chapter.path for key, chapter in zip(chapter_keys, rendered.chapters, strict=True) if chapter.path is not None},
            manifest_key=keys.manifest,
            manifest=results.done(
                rendered.summary(with_text=False),
                source=source.to_dict(),
                bucket=keys.bucket,
                audio_key=audio_key,
                request_id=call.request_id,
                submitted_at=submitted_at,
                parts_total=1,
                sidecars=sidecars.book,
                chapters=_chapter_files(service, chapters or [], rendered, chapter_keys, sidecars),
            ),
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


def result_keys(service: Service, key: str, revision: str, metadata: Mapping[str, str]) -> ResultKeys:
    """The result folder of an object at ``revision``: where its manifest is, or will be."""
    return service.layout.result_keys(key, revision, _options_in_metadata(key, metadata))


def _options_in_metadata(key: str, metadata: Mapping[str, str]) -> dict[str, str]:
    """The request options a ``.txt`` takes from its metadata; a ``.json`` job carries its own."""
    if key.endswith(".json"):
        return {}
    return {name: metadata[name] for name in OPTION_FIELDS if name in metadata}


def _source(service: Service, bucket: str, key: str, announced: S3Object) -> SourceObject | None:
    """The object as the event names it (None: it is gone). A HEAD, pinned to the event's version
    or ETag, fills in what the event left out and, for a ``.txt``, reads the metadata its options
    are in - unless the event's size already refuses the object, whatever its options."""
    etag = (announced.get("eTag") or "").strip('"') or None
    version_id = announced.version_id if announced.version_id not in (None, "null") else None
    size = announced.get("size")
    announced_only = SourceObject(bucket, key, etag, version_id, size)
    if (etag or version_id) and (key.endswith(".json") or (size is not None and size > _max_bytes(service, key))):
        return announced_only
    info = service.store.head(bucket, key, etag=etag, version_id=version_id)
    if info is None:
        return None
    return SourceObject(bucket, key, etag or info.etag, version_id or info.version_id, info.size, info.metadata)


def _max_bytes(service: Service, key: str) -> int:
    """The largest object of this kind the trigger downloads: a book's zip, or a text."""
    return service.config.max_book_bytes if key.endswith(".epub") else service.config.max_object_bytes


def _prepare(service: Service, source: SourceObject) -> tuple[Prepared, list[ChapterMark] | None]:
    """The object's text and options, checked (an input fault is raised here, before any work).
    A book (``.epub``, ``.md``, or a job or ``.txt`` asking for ``chapters``) is read as its
    chapters' titles and text, one after another, and comes with where each chapter begins (title,
    byte offset in that text): each gets a file."""
    store, key, most = service.store, source.key, _max_bytes(service, source.key)
    if key.endswith(".epub"):
        data, info = store.read_object(source.bucket, key, max_bytes=most, size=source.size, etag=source.etag)
        book = read_epub(data)
        request = _request_from(service, TextObject(book_text(book), info), source.metadata)
        return request.prepare(service.engine), chapter_marks(book)
    text = store.read_text(source.bucket, key, max_bytes=most, size=source.size, etag=source.etag)
    request = _request_from(service, text, source.metadata)
    if key.endswith(".md"):
        request = replace(request, chapters=True)
    request, chapters = request.as_book()
    return request.prepare(service.engine), chapters


def _chapter_files(
    service: Service, chapters: list[ChapterMark], rendered: Rendered, keys: list[str], sidecars: Sidecars
) -> list[results.ChapterFile]:
    """What the manifest says of each chapter: where its file begins in the book, and the file."""
    files, start = [], 0
    for number, (chapter, audio) in enumerate(zip(chapters, rendered.chapters, strict=True)):
        files.append(
            results.ChapterFile.of(
                chapter.title,
                start=start,
                frames=audio.frames,
                key=keys[number] if audio.path is not None else None,
                size_bytes=audio.size_bytes,
                sidecars=sidecars.chapters[number] if number < len(sidecars.chapters) else {},
                sample_rate=service.engine.sample_rate,
            )
        )
        start += audio.frames
    return files


def _render(service: Service, prepared: Prepared, call: LambdaCall, audio_path: Path, chapters: list[range]) -> Rendered:
    # Encoded into /tmp: the engine refuses, on its forecast and before any audio, more than it holds.
    most_s = fanout.tmp_audio_s(service, prepared.format.name, chapters=bool(chapters))
    if prepared.limits.max_audio_s is None or prepared.limits.max_audio_s > most_s:
        prepared = replace(prepared, limits=replace(prepared.limits, max_audio_s=most_s))
    try:
        return render(
            service.engine,
            prepared,
            budget_s=call.seconds_left(),  # read after the download, which may have been slow
            source="s3",
            into=audio_path,
            upload_bytes_per_s=service.config.upload_mb_per_s * 1e6,
            chapters=chapters,
        )
    except AudioTooLong as error:
        if error.limit < most_s:
            raise  # a bound of the request's own
        # /tmp's: refused as the planner refuses it, naming the setting and the ways out.
        fanout.check_bounds(service, prepared, speech_s=error.length - prepared.total_silence_s, chapters=bool(chapters))
        raise


def _fail(service: Service, source: SourceObject, keys: ResultKeys, error: Exception, request_id: str, submitted_at: str) -> Outcome:
    """Record an input fault as the result, so the event is done and not retried."""
    manifest = results.failed(error, source=source.to_dict(), request_id=request_id, submitted_at=submitted_at)
    service.store.put_json(keys.bucket, keys.manifest, manifest, only_if_absent=True)
    logger.info("text object refused", extra={"key": source.key, "error": manifest["error"]})
    return Outcome(source.bucket, source.key, "failed", manifest["error"]["code"], keys.manifest)


def _request_from(service: Service, text: TextObject, metadata: Mapping[str, str]) -> TtsRequest:
    """A ``.json`` object is a job in the ``POST /v1/tts`` shape; a ``.txt`` is the text, options in
    ``metadata`` (the HEAD's, which the result folder was derived from, not the GET's: a copy in
    place can change metadata and keep the ETag in between)."""
    if text.info.key.endswith(".json"):
        return parse_request(parse_json(text.text, "the job"), voices=service.voices)
    # S3 returns user metadata with lower-case keys (x-amz-meta-voice -> "voice").
    options = _options_in_metadata(text.info.key, metadata)
    return parse_request({**options, "text": text.text}, voices=service.voices, from_strings=True)


def _left(bucket: str, key: str) -> Outcome:
    logger.info("text object left for the retry", extra={"bucket": bucket, "key": key})
    return Outcome(bucket, key, "left", "time_ran_out")


def _skip(bucket: str, key: str, reason: str, manifest_key: str | None = None) -> Outcome:
    logger.info("text object skipped", extra={"bucket": bucket, "key": key, "reason": reason})
    return Outcome(bucket, key, "skipped", reason, manifest_key)
