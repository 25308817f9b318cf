"""The documents that say how a piece of work stands or ended: queued, running, done, failed, expired.

Every path builds them here and nowhere else: the JSON answer of a synchronous request (and of a
direct invoke), the manifest of an S3 job rendered in one invocation and of one rendered in parts,
the failed manifest of a refused text and of a part whose retries are spent, the status of a job
still waiting or rendering. So a document of one status has the same keys whichever path made it
(tests/test_results.py holds every producer to ``*_KEYS``); a field that does not apply to a path
is null, never missing.

Chunks are listed by the UTF-8 byte range of the text as sent that each one reads
(``start``/``end``, as speech marks count them), not by their text, so no manifest grows with the
book; only a synchronous answer, whose text is bounded, lists what the model read as well. A
sentence too long for one chunk gives its range to every chunk it spans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from supertonic_engine import SynthesisOptions

from .errors import error_detail, http_status

# What a document says of finished audio: a synchronous answer, and a done manifest around it.
AUDIO_KEYS = frozenset(
    {
        "format",
        "content_type",
        "bytes",
        "duration_s",
        "sample_rate",
        "synth_ms",
        "encode_ms",
        "rtf",
        "model",
        "precision",
        "voice",
        "lang",
        "steps",
        "speed",
        "seed",
        "characters",
        "chunks",
    }
)
CHUNK_KEYS = frozenset({"index", "start", "end", "start_s", "end_s", "synth_ms"})
# Where the work came from and when: every manifest, done or failed.
_RECORD_KEYS = frozenset({"status", "source", "parts_total", "submitted_at", "elapsed_s", "request_id", "finished_at"})
DONE_KEYS = AUDIO_KEYS | _RECORD_KEYS | {"audio", "assembly_ms", "sidecars"}
FAILED_KEYS = _RECORD_KEYS | {"error", "http_status"}
PROGRESS_KEYS = frozenset({"job_id", "status", "parts_done", "parts_total", "submitted_at", "elapsed_s"})
EXPIRED_KEYS = frozenset({"job_id", "status", "message"})


@dataclass(frozen=True)
class ChunkEntry:
    """Where one chunk's audio sits and which bytes of the text it reads."""

    index: int
    start: int | None  # byte offsets into the UTF-8 text as sent (None: a plan made before they were kept)
    end: int | None
    start_s: float
    end_s: float
    synth_ms: float | None  # None where the part's time was not recorded
    text: str | None = None  # what the model read; only a synchronous answer lists it

    def to_json(self) -> dict[str, Any]:
        entry = {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "start_s": round(self.start_s, 4),
            "end_s": round(self.end_s, 4),
            "synth_ms": None if self.synth_ms is None else round(self.synth_ms, 1),
        }
        return entry if self.text is None else entry | {"text": self.text}


@dataclass(frozen=True)
class AudioSummary:
    """What any path knows of audio it finished, in the units every document uses."""

    format: str
    content_type: str
    size_bytes: int
    duration_s: float
    sample_rate: int  # of the encoded file (Opus is always 48 kHz)
    synth_ms: float | None
    encode_ms: float | None
    model: str
    precision: str
    options: SynthesisOptions
    characters: int
    chunks: Sequence[ChunkEntry]

    @property
    def rtf(self) -> float | None:
        """Real-time factor: seconds of compute per second of audio."""
        if self.synth_ms is None or not self.duration_s:
            return None
        return self.synth_ms / 1000.0 / self.duration_s

    def to_json(self) -> dict[str, Any]:
        rtf = self.rtf
        return {
            "format": self.format,
            "content_type": self.content_type,
            "bytes": self.size_bytes,
            "duration_s": round(self.duration_s, 4),
            "sample_rate": self.sample_rate,
            "synth_ms": None if self.synth_ms is None else round(self.synth_ms, 1),
            "encode_ms": None if self.encode_ms is None else round(self.encode_ms, 1),
            "rtf": None if rtf is None else round(rtf, 4),
            "model": self.model,
            "precision": self.precision,
            "voice": self.options.voice,
            "lang": self.options.lang,
            "steps": self.options.steps,
            "speed": self.options.speed,
            "seed": self.options.seed,
            "characters": self.characters,
            "chunks": [chunk.to_json() for chunk in self.chunks],
        }


@dataclass(frozen=True)
class ChapterFile:
    """A chapter of a book as its manifest lists it: its title, where its file begins in the book's
    audio (``supertonic_engine.chapter_files``: where the chapter is first heard) and that file."""

    title: str
    start_s: float | None  # None: nothing of it is read aloud, so it has no file
    duration_s: float | None
    audio_key: str | None
    size_bytes: int | None
    sidecars: Mapping[str, str]  # name -> key, as the book's

    @classmethod
    def of(
        cls,
        title: str,
        *,
        start: int | None,
        frames: int,
        key: str | None,
        size_bytes: int | None,
        sidecars: Mapping[str, str],
        sample_rate: int,
    ) -> ChapterFile:
        """A chapter's entry from where its file begins in the book and its length, in frames at
        ``sample_rate``; without a ``key`` (or a start) it has no file."""
        if key is None or start is None:
            return cls(title, None, None, None, None, sidecars)
        return cls(title, start / sample_rate, frames / sample_rate, key, size_bytes, sidecars)

    def to_json(self, bucket: str, content_type: str) -> dict[str, Any]:
        audio = (
            None
            if self.audio_key is None
            else {"bucket": bucket, "key": self.audio_key, "content_type": content_type, "bytes": self.size_bytes}
        )
        return {
            "title": self.title,
            "start_s": None if self.start_s is None else round(self.start_s, 3),
            "duration_s": None if self.duration_s is None else round(self.duration_s, 3),
            "audio": audio,
            "sidecars": dict(self.sidecars),
        }


def done(
    summary: AudioSummary,
    *,
    source: Mapping[str, Any] | None,
    bucket: str,
    audio_key: str,
    request_id: str,
    submitted_at: str,
    parts_total: int,
    assembly_ms: float | None = None,
    sidecars: Mapping[str, str] | None = None,
    chapters: Sequence[ChapterFile] | None = None,
) -> dict[str, Any]:
    """The manifest of a job whose audio is stored: at ``bucket``/``audio_key``, with its sidecars
    and, for a book, each chapter's own file and sidecars and where it begins in the book."""
    chapter_files = {"chapters": [chapter.to_json(bucket, summary.content_type) for chapter in chapters]} if chapters else {}
    return {
        "status": "done",
        "source": None if source is None else dict(source),
        "audio": {"bucket": bucket, "key": audio_key, "content_type": summary.content_type, "bytes": summary.size_bytes},
        **summary.to_json(),
        "parts_total": parts_total,
        "assembly_ms": None if assembly_ms is None else round(assembly_ms, 1),
        "sidecars": dict(sidecars or {}),
        **chapter_files,
        **_record(submitted_at, request_id),
    }


def failed(
    error: BaseException | Mapping[str, Any],
    *,
    source: Mapping[str, Any] | None,
    request_id: str | None,
    submitted_at: str | None = None,
    parts_total: int | None = None,
    status: int | None = None,
) -> dict[str, Any]:
    """The manifest written in place of a result: ``error`` is the exception, or an error detail
    already made (a part's, kept from the invocation that met it) with its HTTP ``status``."""
    if isinstance(error, BaseException):
        detail, status = error_detail(error, request_id), http_status(error)
    else:
        detail = dict(error)
    return {
        "status": "failed",
        "source": None if source is None else dict(source),
        "error": detail,
        "http_status": 500 if status is None else status,
        "parts_total": parts_total,
        **_record(submitted_at, request_id),
    }


def progress(job_id: str, status: str, *, parts_done: int, parts_total: int | None, submitted_at: str | None) -> dict[str, Any]:
    """A job not finished yet: ``queued`` (nothing rendered), ``running`` (parts rendered) or
    ``assembling``; ``parts_total`` is null until the job is planned."""
    return {
        "job_id": job_id,
        "status": status,
        "parts_done": parts_done,
        "parts_total": parts_total,
        "submitted_at": submitted_at,
        "elapsed_s": elapsed_s(submitted_at),
    }


def queued(job_id: str, submitted_at: str | None) -> dict[str, Any]:
    """A job stored and not planned yet: nothing rendered, its number of parts not known."""
    return progress(job_id, "queued", parts_done=0, parts_total=None, submitted_at=submitted_at)


def expired(job_id: str, message: str) -> dict[str, Any]:
    """A job whose result the retention removed: never ``queued`` for ever, never a dead link."""
    return {"job_id": job_id, "status": "expired", "message": message}


@dataclass(frozen=True)
class FileLink:
    """A stored file as a job's caller gets it: a presigned link, what the file holds and its size."""

    url: str
    expires_s: int
    content_type: str | None
    size_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "content_type": self.content_type, "bytes": self.size_bytes, "expires_in_s": self.expires_s}


@dataclass(frozen=True)
class ChapterLinks:
    """A done book's chapter as its caller gets it: links to its audio and to each of its sidecars."""

    audio: FileLink | None
    sidecars: Mapping[str, FileLink]


def public(
    manifest: Mapping[str, Any], sidecars: Mapping[str, FileLink] | None = None, chapters: Sequence[ChapterLinks] | None = None
) -> dict[str, Any]:
    """A manifest as a job's caller sees it: without where things are stored. Buckets (their names
    hold the account id), keys, ETags and version ids are the operator's; a caller has the job id
    and the links. A done manifest's sidecars (name -> key) become ``sidecars``' links, by name,
    and a book's chapters their ``chapters``' links, in order."""
    document = {name: value for name, value in manifest.items() if name != "source"}
    if isinstance(document.get("audio"), dict):
        document["audio"] = _unstored(document["audio"])
    if "sidecars" in document:
        document["sidecars"] = {name: link.to_json() for name, link in (sidecars or {}).items()}
    if isinstance(document.get("chapters"), list):
        links = list(chapters or [])
        document["chapters"] = [
            _public_chapter(entry, links[n] if n < len(links) else None) for n, entry in enumerate(document["chapters"])
        ]
    return document


def _unstored(audio: Mapping[str, Any]) -> dict[str, Any]:
    return {name: audio[name] for name in ("content_type", "bytes") if name in audio}


def _public_chapter(entry: Mapping[str, Any], links: ChapterLinks | None) -> dict[str, Any]:
    audio = links.audio if links is not None else None
    return {
        **entry,
        "audio": _unstored(entry["audio"]) if isinstance(entry.get("audio"), dict) else None,
        "audio_url": None if audio is None else audio.url,
        "sidecars": {name: link.to_json() for name, link in (links.sidecars if links is not None else {}).items()},
    }


def utc_now() -> str:
    return stamp(datetime.now(UTC))


def stamp(moment: datetime) -> str:
    """``moment`` as every document writes a time: UTC, milliseconds, ``Z``."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def elapsed_s(since: str | None) -> float | None:
    """Seconds from ``since`` (a document's time) to now; None when there is no readable time."""
    if not since:
        return None
    try:
        started = datetime.fromisoformat(since.replace("Z", "+00:00"))
    except ValueError:
        return None
    return round((datetime.now(UTC) - started).total_seconds(), 1)


def _record(submitted_at: str | None, request_id: str | None) -> dict[str, Any]:
    return {"submitted_at": submitted_at, "elapsed_s": elapsed_s(submitted_at), "request_id": request_id, "finished_at": utc_now()}
