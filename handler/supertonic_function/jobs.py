"""Long texts without waiting: ``POST /v1/jobs`` stores a job, the S3 trigger renders it, ``GET`` reads it.

This is the serverless form of "queue + task id + HTTP 202": the input bucket is the queue (an
object under ``<input prefix>jobs/`` triggers the function like any dropped ``.json``), the job
id names the object, and the status is the result manifest the S3 trigger writes, looked up by
the job object's revision exactly as the trigger derives it. Results live as long as the output
bucket's lifecycle keeps them (``SUPERTONIC_RESULT_RETENTION_DAYS``): after that the status says
``expired``, never ``queued`` for ever, and never hands out a link to audio that is gone.
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from . import fanout, results
from .errors import JobNotFound
from .layout import JOB_ID, revision
from .request import parse_request
from .s3_trigger import result_keys
from .service import Service
from .storage import ObjectTooLarge

# HEADs and presigned links made at once for a done job's files (a book's chapters each have some).
LINKS_AT_ONCE = 16


@dataclass(frozen=True)
class Job:
    job_id: str
    bucket: str
    key: str
    submitted_at: str

    def accepted(self) -> dict[str, Any]:
        return results.queued(self.job_id, self.submitted_at)


def submit(service: Service, data: object) -> Job:
    """Check the job as the renderer will, then store it; a job that would fail is refused now (4xx).

    Cheapest checks first: the fields (the S3 trigger's own parser), then the stored size (the
    trigger's download cap), and only then the text itself, which normalizing reads in full.
    """
    bucket = service.input_bucket("POST /v1/jobs")
    request = parse_request(data, voices=service.voices)
    document = json.dumps(request.to_json(), ensure_ascii=False)
    # A lone surrogate cannot be stored as UTF-8: it is counted here and refused by the text check.
    size = len(document.encode("utf-8", "surrogatepass"))
    if size > service.config.max_object_bytes:
        raise ObjectTooLarge(size, service.config.max_object_bytes)
    # The renderer would refuse unreadable characters, empty or over-long text: its check, now;
    # and the planner a job in parts too large to assemble, as far as the text alone tells.
    book, chapters = request.as_book()
    fanout.check_bounds(service, book.prepare(service.engine), chapters=chapters is not None)
    body = document.encode("utf-8")
    job_id = uuid.uuid4().hex
    job = Job(job_id, bucket, service.layout.job_key(job_id), results.utc_now())
    service.store.put(bucket, job.key, body, content_type="application/json")
    return job


def status(service: Service, job_id: str) -> dict[str, Any]:
    """``queued`` until the manifest exists, then the manifest (when done: with fresh links to the
    audio and to each sidecar); ``expired`` once the retention has removed the result (or any file
    of it is gone)."""
    if not JOB_ID.match(job_id):
        raise JobNotFound(job_id)
    bucket = service.input_bucket("GET /v1/jobs")
    info = service.store.head(bucket, service.layout.job_key(job_id))
    job_revision = None if info is None else revision(info.version_id, info.etag)
    if info is None or job_revision is None:
        raise JobNotFound(job_id)
    keys = result_keys(service, info.key, job_revision, info.metadata)
    manifest = service.store.get_json(keys.bucket, keys.manifest)
    if manifest is None:
        in_parts = fanout.progress(service, keys, job_id)
        if in_parts is not None:
            return in_parts
        if _past_retention(service, info.last_modified):
            return _expired(service, job_id, "its result")
        submitted_at = None if info.last_modified is None else results.stamp(info.last_modified)
        return results.queued(job_id, submitted_at)
    if manifest.get("status") != "done":
        return {"job_id": job_id, **results.public(manifest)}
    # Every file of the result is looked up at once: a book has a file or more per chapter. Each is
    # named (whose, name) as an expired answer names what is gone: ("its", "audio"), ("chapter 2's", "marks.jsonl").
    files = {("its", "audio"): manifest["audio"]["key"], **{("its", name): key for name, key in (manifest.get("sidecars") or {}).items()}}
    chapter_entries = manifest.get("chapters") or []
    for number, chapter in enumerate(chapter_entries, 1):
        if chapter.get("audio"):
            files[(f"chapter {number}'s", "audio")] = chapter["audio"]["key"]
        files |= {(f"chapter {number}'s", name): key for name, key in (chapter.get("sidecars") or {}).items()}
    with ThreadPoolExecutor(max_workers=LINKS_AT_ONCE) as pool:
        found = dict(zip(files, pool.map(lambda key: _link(service, keys.bucket, key), files.values()), strict=True))
    links = {what: link for what, link in found.items() if link is not None}
    audio = links.get(("its", "audio"))
    if audio is None or len(links) < len(found):
        whose, name = next(what for what, link in found.items() if link is None)
        return _expired(service, job_id, f"{whose} {name}")

    def named(whose: str) -> dict[str, results.FileLink]:
        return {name: link for (owner, name), link in links.items() if owner == whose and name != "audio"}

    sidecars = named("its")
    chapters = [
        results.ChapterLinks(links.get((f"chapter {n}'s", "audio")), named(f"chapter {n}'s")) for n in range(1, len(chapter_entries) + 1)
    ]
    document = results.public(manifest, sidecars, chapters)
    return {"job_id": job_id, **document, "audio_url": audio.url, "expires_in_s": audio.expires_s}


def _link(service: Service, bucket: str, key: str) -> results.FileLink | None:
    """A fresh link to a file of a done job, or None once the file is gone (never a dead link)."""
    info = service.store.head(bucket, key)
    if info is None:
        return None
    link = service.store.presigned_get(bucket, key, service.config.url_expires_s, download=True)  # saved by name
    return results.FileLink(link.url, link.expires_s, info.content_type, info.size)


def _past_retention(service: Service, submitted: datetime | None) -> bool:
    """Whether the lifecycle rule may have removed a result written after ``submitted``."""
    days = service.config.result_retention_days
    if days is None or submitted is None:
        return False
    return datetime.now(UTC) >= submitted + timedelta(days=days)


def _expired(service: Service, job_id: str, what: str) -> dict[str, Any]:
    days = service.config.result_retention_days
    kept = f"results are kept {days} days" if days else "it was removed"
    return results.expired(job_id, f"{what} is no longer stored ({kept}); submit the job again to render it anew")
