"""Long texts over many invocations: plan once, render the parts concurrently, assemble once.

    planner (S3 trigger / job)  plan.json, one SQS message per part, then dispatched.json
    part worker (SQS)           parts/<index>.enc: the part encoded in the job's format at its place
                                in the file (parts/<index>.f32, its samples, where the format
                                cannot be joined), stored whole or not at all
                                (a book's part also parts/<index>.chapter: encoded at its place in its
                                chapter's file, stored first)
    the last part's worker      claims assembly (assembly.json, If-None-Match: *), joins the encoded
                                parts in one multipart upload (S3 copies them; nothing is encoded),
                                then each chapter's file the same way from its parts,
                                or streams the samples into the encoder (and each chapter's
                                file beside it); publishes audio + manifest, tidies
    dead-letter queue (SQS)     a part whose retries are spent: the job's manifest says failed

All of it lives in the job's result folder (layout.ResultKeys), so the manifest stays the one
completion marker every reader looks for; while a job is in flight, its plan and the parts
stored so far tell its progress. Every step is safe under at-least-once delivery: the plan is
written only if absent, a part that exists is not rendered again, the assembly claim is a
conditional write (a claim older than the function's timeout is a dead assembler's and is taken
over), and the manifest is written only if absent.

A part message is trusted for nothing but where to look: it names the results bucket, a result
folder, the id of the plan stored there and an index (``PartOrder``); the part itself, the count
and the format come from the plan. What matches no plan is logged and dropped, on the parts queue
and on its dead-letter queue alike. A job the assembly could not hold (``check_bounds``) is
refused before any part is sent.
"""

from __future__ import annotations

import itertools
import json
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from botocore.exceptions import ClientError

from supertonic_engine import (
    JOINABLE_FORMATS,
    AudioFormat,
    AudioWriter,
    ChapterMark,
    ChapterSplitter,
    Engine,
    Part,
    PartCodec,
    PartSpan,
    Prepared,
    SynthesisOptions,
    audio_format,
    chapter_chunks,
    chapter_start_frames,
    content_type,
    part_codec,
)

from . import results
from .config import ENV_EPHEMERAL_STORAGE_MB, ENV_FUNCTION_TIMEOUT, ENV_PARTS_QUEUE_URL
from .described import store_sidecars
from .errors import JobTooLarge, PartMessageRefused, PartsQueueUnusable
from .invocation import LambdaCall
from .layout import MAX_KEY_BYTES, ResultKeys
from .results import AudioSummary, ChapterFile, ChunkEntry
from .service import Service
from .storage import MULTIPART_MAX_PARTS, MULTIPART_MIN_PART_BYTES, JoinedObject, JoinedProgress, ObjectInfo, StoredPiece
from .telemetry import logger

# The assembly reads each encoded part's render time with a HEAD; this many at once keep a
# thousand parts to about a second.
PART_HEADS_AT_ONCE = 16
# A plan keeps the noise stream's state (624 words, about 3.3 KB as JSON) of every this many
# parts; a worker draws its way from the nearest one, at most 99 chunks' noise (milliseconds).
NOISE_CHECKPOINT_PARTS = 100
PART_MESSAGE = "supertonic_part"  # the key a part message's body is recognised by
ASSEMBLY_MESSAGE = "supertonic_assembly"  # and an assembly handed to a later invocation
ASSEMBLY_FIELDS = frozenset({"bucket", "folder", "plan", "token"})
# An assembly joining a long file stops (after at least one part of its upload) when less is left
# of its invocation than RESUME_GROUPS_AHEAD times the slowest part so far plus RESUME_MIN_LEFT_S,
# and hands the upload to a later invocation through the parts queue: no file is bound by one Timeout.
RESUME_GROUPS_AHEAD = 3
RESUME_MIN_LEFT_S = 5.0
SEND_BATCH = 10  # SendMessageBatch takes at most 10 entries
SAMPLE_DTYPE = "<f4"  # parts hold the engine's float32 samples: the assembly encodes exactly what synthesis made
# A part message carries only what finds its part in the stored plan; anything else is not ours.
MESSAGE_FIELDS = frozenset({"bucket", "folder", "plan", "index"})
# The most parts a job may have: a million characters made 4,155 parts (README, fan-out
# simulation), and the plan holds about 70 bytes a part (columns) plus the noise stream's state
# every NOISE_CHECKPOINT_PARTS parts, so 5,000 parts keep it under half a megabyte.
MAX_PARTS = 5000
# What the assembly of a format it cannot join (Ogg Vorbis, trimmed silence) spends encoding a second
# of audio, measured by ``supertonic-lambda bench --encode`` (benchmarks/encode-cost.json, one writer,
# the median of two runs); it may spend at most ENCODE_SHARE_OF_TIMEOUT of the function's Timeout
# on it, the rest being for reading the parts and uploading the file.
ENCODE_MS_PER_AUDIO_S = {"wav": 0.23, "flac": 0.57, "ogg": 3.95, "mp3": 14.15, "opus": 19.73, "pcm": 1.3}
ENCODE_SHARE_OF_TIMEOUT = 0.5
# A WAV file's RIFF and data sizes are 32-bit fields (the header supertonic_engine.audio_stream
# packs): a WAV file holds less than 4 GiB of samples however large /tmp is.
WAV_MAX_BYTES = 0xFFFFFFFF - 44
# SQS error codes that no retry fixes: the queue is missing, or the role or the queue's KMS key
# refuses the function (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html
# and API_SendMessageBatch.html#API_SendMessageBatch_Errors, which spells KMS's "KmsAccessDenied",
# "KmsDisabled", ... and "InvalidSecurity"; the older query protocol answered "KMS.<name>").
QUEUE_REFUSALS = frozenset(
    {
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
        "AccessDenied",
        "AccessDeniedException",
        "InvalidAddress",
        "InvalidSecurity",
    }
)
QUEUE_REFUSAL_PREFIXES = ("KMS.", "Kms")


def fans_out(service: Service, prepared: Prepared) -> bool:
    """Whether a job is rendered in parts: a parts queue is configured and the text is long enough."""
    queue, threshold = service.config.parts_queue_url, service.config.fanout_min_chars
    return queue is not None and len(prepared.chunks) > 1 and sum(map(len, prepared.chunks)) >= threshold


def tmp_audio_s(service: Service, format_name: str, *, chapters: bool = False) -> float:
    """The most seconds of audio a job may make in ``fmt``: every job's file is encoded into /tmp
    before its upload (in one invocation, or by the assembly of its parts), at most at the format's
    largest bitrate; a WAV file also within its 32-bit sizes. A book's ``chapters`` are files
    of their own beside it there: the same audio twice."""
    fmt = audio_format(format_name)
    capacity = service.config.ephemeral_storage_mb * 2**20 / (2 if chapters else 1)
    if fmt.name == "wav":
        capacity = min(capacity, WAV_MAX_BYTES)
    return capacity / fmt.max_bytes_per_s(service.engine.sample_rate)


def check_bounds(service: Service, prepared: Prepared, *, speech_s: float = 0.0, chapters: bool = False) -> None:
    """Refuse, before any part is sent, a job that could not finish: more than ``MAX_PARTS`` parts;
    a file joined from parts past what one S3 object holds; a file encoded whole past what /tmp
    holds (``tmp_audio_s``) or whose encoding would not fit the assembly's invocation. Before
    synthesis the audio is its silence alone (SSML breaks), known from the text; the planner adds
    the forecast speech (a job made in one invocation has the engine check its forecast against
    ``tmp_audio_s``). A book's ``chapters`` are its audio again: in /tmp, and encoded again."""
    parts = len(prepared.chunks)
    fanned = fans_out(service, prepared)
    if parts > MAX_PARTS and fanned:
        raise JobTooLarge(
            f"the job makes {parts:,} parts, over the {MAX_PARTS:,} one job may have; "
            "split the text into several jobs or use fewer SSML breaks (each one starts a part)"
        )
    fmt = prepared.format
    audio_s = prepared.total_silence_s + speech_s
    if fanned and _joins(prepared):
        most_s = joined_audio_s(service, fmt.name)
        if audio_s > most_s:
            raise JobTooLarge(
                f"the job's audio is about {audio_s:,.0f} s, more than the {most_s:,.0f} s of {fmt.name} one S3 object joined "
                f"from parts holds ({MULTIPART_MAX_PARTS:,} parts of {MULTIPART_MIN_PART_BYTES // 2**20} MiB); split the text into "
                "several jobs, or ask for a compressed format"
            )
        return
    most_s = tmp_audio_s(service, fmt.name, chapters=chapters)
    if audio_s > most_s:
        raise JobTooLarge(
            f"the job's audio is about {audio_s:,.0f} s, more than the {most_s:,.0f} s of {fmt.name} the function's "
            f"{service.config.ephemeral_storage_mb:,} MB /tmp ({ENV_EPHEMERAL_STORAGE_MB}) holds for its file; split the text into "
            "several jobs, or ask for a compressed format"
        )
    timeout_s = service.config.function_timeout_s
    if fanned and timeout_s:
        encode_s = (2 if chapters else 1) * audio_s * ENCODE_MS_PER_AUDIO_S.get(fmt.name, max(ENCODE_MS_PER_AUDIO_S.values())) / 1000.0
        if encode_s > ENCODE_SHARE_OF_TIMEOUT * timeout_s:
            why = (
                "trimmed silence makes its parts' lengths unknown before they are made"
                if prepared.options.trim_silence
                else (f"{fmt.name} cannot be joined from parts")
            )
            raise JobTooLarge(
                f"the job's {audio_s:,.0f} s of {fmt.name} would take about {encode_s:,.0f} s to encode in the one invocation "
                f"that assembles it ({why}), more than half the function's {timeout_s:g} s Timeout ({ENV_FUNCTION_TIMEOUT}); "
                f"ask for {', '.join(JOINABLE_FORMATS)} (joined without encoding), drop trim_silence, raise the Timeout, or split the text"
            )


def joined_audio_s(service: Service, format_name: str) -> float:
    """The most seconds of audio a file joined from parts may hold: S3's most parts of one
    multipart upload, each part at least its least size (the assembly sends groups that large)."""
    fmt = audio_format(format_name)
    return MULTIPART_MAX_PARTS * MULTIPART_MIN_PART_BYTES / fmt.max_bytes_per_s(service.engine.sample_rate)


# --- the planner -------------------------------------------------------------------------------


def plan(
    service: Service,
    prepared: Prepared,
    keys: ResultKeys,
    source: Mapping[str, Any],
    call: LambdaCall,
    *,
    submitted_at: str,
    chapters: list[ChapterMark] | None = None,
) -> str:
    """Write the job's plan and send its parts; returns ``planned`` or ``already_planned``.

    The plan holds what every part needs in columns (where its text begins in ``chunks.txt``, its
    forecast, pause, language, and where its noise begins in the text's random stream, with the
    stream's state every ``NOISE_CHECKPOINT_PARTS`` parts), so it stays small however long the
    book: a part message only points into it. A re-delivered event whose plan was dispatched sends nothing (the trigger
    looked before reading the text; this second look, after it, narrows the window in which two
    deliveries both send); one that stopped between the plan and ``dispatched.json`` sends every
    part of the stored plan again (a part that exists by then is not rendered twice).
    A parts queue that refuses the role for good raises ``PartsQueueUnusable``; the job then fails."""
    store = service.store
    if store.head(keys.bucket, keys.dispatched) is not None:
        return "already_planned"
    document = store.get_json(keys.bucket, keys.plan)
    if document is None:
        check_bounds(service, prepared, chapters=bool(chapters))  # before the duration predictor runs once per part
        parts = service.engine.parts(prepared, deadline=call.seconds_left())
        speech_s = sum(p.speech_s for p in parts)
        check_bounds(service, prepared, speech_s=speech_s, chapters=bool(chapters))
        runs = chapter_chunks(chapters, prepared.chunk_byte_ranges) if chapters else []
        # from the durations: ready before any part is
        sidecars = store_sidecars(service, prepared, keys, budget=call.synthesis_budget_s, chapters=runs)
        texts = [part.text.encode("utf-8") for part in parts]
        store.put(keys.bucket, keys.chunks, b"".join(texts), content_type="text/plain; charset=utf-8")
        document = {
            "status": "queued",
            "plan_id": uuid.uuid4().hex,  # a message of an older plan of this folder does not match this one
            "source": dict(source),
            "format": prepared.format.name,
            "joined": _joins(prepared),
            "options": asdict(parts[0].options),
            "characters": len(prepared.text),
            "parts_total": len(parts),
            "text_offsets": [0, *itertools.accumulate(map(len, texts))],  # each part's bytes of chunks.txt
            "speech_s": [p.speech_s for p in parts],
            "langs": [p.lang for p in parts],
            "noise_offsets": [p.noise_offset for p in parts],
            "noise_checkpoints": [p.noise for p in parts[::NOISE_CHECKPOINT_PARTS]],
            "forecast_s": round(speech_s + prepared.total_silence_s, 3),
            "pauses": [p.pause_s for p in parts],  # the silence before each part (SSML breaks make them differ)
            "tail_s": prepared.tail_s,  # and after the last one
            "ranges": [list(r) for r in prepared.chunk_byte_ranges],  # each part's bytes of the text, for the manifest
            "precision": service.engine.precision,
            "sidecars": sidecars.book,
            # a book's: each chapter's title, where it begins in the text, and its sidecars
            "chapters": None if not chapters else [asdict(chapter) for chapter in chapters],
            "chapter_sidecars": sidecars.chapters,
            "submitted_at": submitted_at,
            "request_id": call.request_id,
        }
        if not store.put_json(keys.bucket, keys.plan, document, only_if_absent=True):
            document = store.get_json(keys.bucket, keys.plan) or document  # another delivery planned first: its plan
    total = int(document["parts_total"])
    _send(service, [_message(keys, str(document["plan_id"]), index) for index in range(total)])
    store.put_json(keys.bucket, keys.dispatched, {"parts": total, "dispatched_at": results.utc_now()})
    logger.info("job fanned out", extra={"parts": total, "folder": keys.folder})
    return "planned"


def _joins(prepared: Prepared) -> bool:
    """Whether the workers encode their own parts for a file joined from bytes: the format can be
    joined, and every part's length is known before it is rendered (trimmed silence is not)."""
    return part_codec(prepared.format) is not None and not prepared.options.trim_silence


def _message(keys: ResultKeys, plan_id: str, index: int) -> dict[str, Any]:
    return {PART_MESSAGE: {"bucket": keys.bucket, "folder": keys.folder, "plan": plan_id, "index": index}}


def _send(service: Service, messages: list[dict[str, Any]]) -> None:
    """SendMessageBatch, ten at a time; an entry SQS refuses is raised (the event is retried), and
    so is a transient error (throttling, 5xx); a queue that refuses the role is ``PartsQueueUnusable``."""
    queue = service.config.parts_queue_url
    for start in range(0, len(messages), SEND_BATCH):
        entries = [
            {"Id": str(index), "MessageBody": json.dumps(message, ensure_ascii=False)}
            for index, message in enumerate(messages[start : start + SEND_BATCH], start)
        ]
        try:
            reply = service.queue_client.send_message_batch(QueueUrl=queue, Entries=entries)
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in QUEUE_REFUSALS or code.startswith(QUEUE_REFUSAL_PREFIXES):
                raise PartsQueueUnusable(
                    f"the parts queue refused the job's parts ({code}): set {ENV_PARTS_QUEUE_URL} to the URL of the parts "
                    "queue and let the function's role send to it (and use its KMS key), then submit the job again",
                    field=ENV_PARTS_QUEUE_URL,
                ) from error
            raise
        if reply.get("Failed"):
            raise RuntimeError(f"SQS refused parts {[f['Id'] for f in reply['Failed']]}: {reply['Failed'][0].get('Message')}")


# --- the part workers ---------------------------------------------------------------------------


def is_part_message(body: object) -> bool:
    """A message of a long job's own: a part to render, or an assembly to go on with."""
    return isinstance(body, Mapping) and any(isinstance(body.get(kind), Mapping) for kind in (PART_MESSAGE, ASSEMBLY_MESSAGE))


@dataclass(frozen=True)
class PartOrder:
    """A part message checked against its job's stored plan: the plan's part, never the message's words.

    Anyone able to put a message on the parts queue or its dead-letter queue could otherwise
    finish, fill or fail any job in flight, or have the function write where it is told; so the
    message only locates a planned part (results bucket, a result folder, the plan's id, an
    index) and everything else comes from the plan."""

    keys: ResultKeys
    plan: Mapping[str, Any]
    part: Part

    @property
    def total(self) -> int:
        return int(self.plan["parts_total"])

    @classmethod
    def from_message(cls, service: Service, body: object) -> PartOrder:
        """The planned part ``body`` names, or ``PartMessageRefused`` naming the field that does not match."""
        message = body.get(PART_MESSAGE) if isinstance(body, Mapping) else None
        if not isinstance(message, Mapping) or set(message) != MESSAGE_FIELDS:
            raise PartMessageRefused(f"a part message holds exactly {', '.join(sorted(MESSAGE_FIELDS))}", field=PART_MESSAGE)
        keys, plan_doc = _located(service, message)
        index, total = message["index"], plan_doc.get("parts_total")
        if not isinstance(index, int) or isinstance(index, bool) or not isinstance(total, int) or not 0 <= index < total:
            raise PartMessageRefused("the plan has no part of that index", field="index")
        return cls(keys, plan_doc, planned_part(service, keys, plan_doc, index))


def _located(service: Service, message: Mapping[str, Any]) -> tuple[ResultKeys, dict[str, Any]]:
    """The result folder and plan a message names, checked: ``PartMessageRefused`` naming the field that does not match."""
    bucket, folder, plan_id = message["bucket"], message["folder"], message["plan"]
    if bucket != service.config.results_bucket:
        raise PartMessageRefused("the part names another bucket than the results bucket", field="bucket")
    prefix = service.config.results_prefix
    if not _is_result_folder(folder, prefix):
        raise PartMessageRefused(f"the part's folder is not a result folder under {prefix!r}", field="folder")
    keys = ResultKeys(bucket, folder)
    plan_doc = service.store.get_json(keys.bucket, keys.plan)
    if plan_doc is None or not isinstance(plan_id, str) or plan_doc.get("plan_id") != plan_id:
        raise PartMessageRefused("no plan of that id in the part's folder", field="plan")
    return keys, plan_doc


@dataclass(frozen=True)
class AssemblyOrder:
    """An assembly message checked against its job's plan: which folder's assembly to go on with,
    and the token its claim must hold (a claim with another token is another assembler's)."""

    keys: ResultKeys
    plan: Mapping[str, Any]
    token: str

    @classmethod
    def from_message(cls, service: Service, body: object) -> AssemblyOrder:
        message = body.get(ASSEMBLY_MESSAGE) if isinstance(body, Mapping) else None
        if not isinstance(message, Mapping) or set(message) != ASSEMBLY_FIELDS or not isinstance(message["token"], str):
            raise PartMessageRefused(f"an assembly message holds exactly {', '.join(sorted(ASSEMBLY_FIELDS))}", field=ASSEMBLY_MESSAGE)
        keys, plan_doc = _located(service, message)
        return cls(keys, plan_doc, message["token"])


def planned_part(service: Service, keys: ResultKeys, plan_doc: Mapping[str, Any], index: int) -> Part:
    """Part ``index`` of a stored plan: its text read from ``chunks.txt`` (its bytes only), its noise
    advanced from the nearest checkpoint of the stream."""
    if "parts" in plan_doc:  # a plan written when plans held every part whole
        return Part.from_json(plan_doc["parts"][index])
    offsets = plan_doc["text_offsets"]
    text = service.store.read_range(keys.bucket, keys.chunks, offsets[index], offsets[index + 1]).decode("utf-8")
    checkpoint = index - index % NOISE_CHECKPOINT_PARTS
    drawn = plan_doc["noise_offsets"]
    return Part.from_checkpoint(
        index,
        text,
        SynthesisOptions(**plan_doc["options"]),
        plan_doc["noise_checkpoints"][checkpoint // NOISE_CHECKPOINT_PARTS],
        drawn[index] - drawn[checkpoint],
        speech_s=float(plan_doc["speech_s"][index]),
        lang=str(plan_doc["langs"][index]),
        pause_s=float(plan_doc["pauses"][index]),
        noise_offset=int(drawn[index]),
    )


def _forecasts(plan_doc: Mapping[str, Any]) -> tuple[list[float], list[float]]:
    """Every part's speech and the silence before it, in seconds, from the plan."""
    if "parts" in plan_doc:  # a plan written when plans held every part whole
        parts = [Part.from_json(p) for p in plan_doc["parts"]]
        return [p.speech_s for p in parts], [p.pause_s for p in parts]
    return [float(v) for v in plan_doc["speech_s"]], [float(v) for v in plan_doc["pauses"]]


def _is_result_folder(folder: object, prefix: str) -> bool:
    """A folder under the results prefix that S3 can take keys under (valid UTF-8, short enough)."""
    if not isinstance(folder, str) or not folder.startswith(prefix) or not folder.endswith("/") or len(folder) == len(prefix):
        return False
    try:
        longest = ResultKeys("", folder).part_error(MAX_PARTS).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no key can hold it
        return False
    return len(longest) <= MAX_KEY_BYTES


def _order(service: Service, body: object, queue: str) -> PartOrder | None:
    """The message's planned part, or None after logging why it is dropped (a raise would only bring it back)."""
    try:
        return PartOrder.from_message(service, body)
    except PartMessageRefused as error:
        logger.warning("part message dropped", extra={"queue": queue, "error": error.to_dict()})
        return None


def serve_part(service: Service, body: Mapping[str, Any], call: LambdaCall) -> dict[str, Any]:
    """Render one planned part (unless stored already), then assemble if it was the last one missing;
    go on with an assembly handed over by an earlier invocation; a message that names no planned
    part or assembly is dropped."""
    if ASSEMBLY_MESSAGE in body:
        return _serve_assembly(service, body, call)
    order = _order(service, body, "parts")
    if order is None:
        return {"status": "dropped"}
    keys, part, total = order.keys, order.part, order.total
    store = service.store
    if store.head(keys.bucket, keys.manifest) is not None:
        return {"part": part.index, "status": "job_finished"}
    joined = bool(order.plan.get("joined"))
    key = keys.encoded_part(part.index) if joined else keys.part(part.index)
    status = "stored_already"
    if store.head(keys.bucket, key) is None:
        started = time.perf_counter()
        try:
            samples = service.engine.render_part(part, deadline=call.seconds_left())
            synth_ms = (time.perf_counter() - started) * 1000.0
            data, chapter_data = _encoded(service, order, samples) if joined else (samples.astype(SAMPLE_DTYPE).tobytes(), None)
        except Exception as error:
            # Kept for the dead-letter handler, which only has the message: why this part failed.
            store.put_json(
                keys.bucket, keys.part_error(part.index), results.failed(error, source={"part": part.index}, request_id=call.request_id)
            )
            raise
        metadata = {"synth-ms": f"{synth_ms:.1f}"}
        if chapter_data is not None:  # first: a stored part means its chapter's bytes are stored too
            store.put(
                keys.bucket, keys.encoded_chapter_part(part.index), chapter_data, content_type="application/octet-stream", metadata=metadata
            )
        store.put(keys.bucket, key, data, content_type="application/octet-stream", metadata=metadata)
        status = "rendered"
        logger.info("part rendered", extra={"part": part.index, "total": total, "synth_ms": round(synth_ms, 1)})
    result: dict[str, Any] = {"part": part.index, "status": status}
    if _all_rendered(service, keys, order.plan):  # every part's audio, not its errors
        result["assembly"] = assemble(service, keys, str(order.plan["format"]), part.options, total, call)
    return result


def _encoded(service: Service, order: PartOrder, samples: np.ndarray) -> tuple[bytes, bytes | None]:
    """The part's bytes at its place in the joined file: the silence before it, its speech, and
    after the last part the silence at the end, encoded as its span in the whole file says; and in
    a book, its bytes at its place in its chapter's file too (None: the plan has no chapters)."""
    engine, plan_doc, index = service.engine, order.plan, order.part.index
    book = book_spans(engine, plan_doc)
    span = book[index]
    tail = engine.frames(float(plan_doc.get("tail_s") or 0.0)) if span.last else 0
    if span.lead + samples.size + tail != span.frames:
        raise RuntimeError(f"part {index} rendered {samples.size} samples, its forecast {span.frames - span.lead - tail}")
    codec = part_codec(str(plan_doc["format"]))
    if codec is None:
        raise RuntimeError(f"the plan joins {plan_doc['format']} parts, which this function cannot encode apart")
    runs = chapter_runs(plan_doc)
    in_chapter = [chapter[index - run.start] for run, chapter in zip(runs, chapter_spans(book, runs), strict=True) if index in run]
    return _at_span(codec, samples, span), _at_span(codec, samples, in_chapter[0]) if in_chapter else None


def _at_span(codec: PartCodec, samples: np.ndarray, span: PartSpan) -> bytes:
    """A part's speech encoded at ``span``: after the silence the span starts with, and before the
    silence that fills the rest of it (the last part's: the silence at the end of its file)."""
    after = span.frames - span.lead - samples.size
    return codec.encode_part(
        np.concatenate([np.zeros(span.lead, np.float32), samples.astype(np.float32), np.zeros(after, np.float32)]), span
    )


def book_spans(engine: Engine, plan_doc: Mapping[str, Any]) -> list[PartSpan]:
    """Where each part sits in the book's file (``Engine.part_spans``), from the plan's forecasts."""
    return list(engine.part_spans(*_forecasts(plan_doc), float(plan_doc.get("tail_s") or 0.0)))


def chapter_runs(plan_doc: Mapping[str, Any]) -> list[range]:
    """Each chapter's parts (a part is a chunk: ``chapter_chunks``); none for a plan without chapters,
    or one planned before chapters had files of their own (it has no ``chapter_sidecars``): parts
    its workers stored then have no chapter bytes, so its book is joined alone."""
    marks = [ChapterMark(str(c["title"]), int(c["start"])) for c in plan_doc.get("chapters") or []]
    if not marks or "chapter_sidecars" not in plan_doc:
        return []
    return chapter_chunks(marks, [(int(start), int(end)) for start, end in plan_doc["ranges"]])


def chapter_spans(book: Sequence[PartSpan], runs: Sequence[range]) -> list[list[PartSpan]]:
    """Where each part sits in its chapter's file, from where it sits in the book's (``book``) and
    each chapter's parts (``runs``). A chapter's file is cut where the chapter is first heard
    (``supertonic_engine.chapter_files``): its first part starts without the silence before it
    (which ends the chapter before; the book's first chapter keeps it), and its last part ends with
    the silence before the next chapter's first part (the book's last, with the silence at the
    end, which its span in the book holds already). A chapter with no parts has no spans."""
    out = []
    for number, run in enumerate(runs):
        leads = [0 if index == run.start and number else book[index].lead for index in run]
        frames = [book[index].frames - book[index].lead + lead for index, lead in zip(run, leads, strict=True)]
        if run and run.stop < len(book):
            frames[-1] += book[run.stop].lead
        out.append(PartSpan.of_parts(frames, book[0].sample_rate, leads) if run else [])
    return out


def _part_key(keys: ResultKeys, index: int, joined: bool) -> str:
    return keys.encoded_part(index) if joined else keys.part(index)


def _serve_assembly(service: Service, body: Mapping[str, Any], call: LambdaCall) -> dict[str, Any]:
    """Go on with a handed-over assembly: its claim's token matches, or no claim stands any more (the
    assembly that parked it failed and let go: this message's retry assembles anew)."""
    try:
        order = AssemblyOrder.from_message(service, body)
    except PartMessageRefused as error:
        logger.warning("assembly message dropped", extra={"error": error.to_dict()})
        return {"status": "dropped"}
    keys, plan_doc, store = order.keys, order.plan, service.store
    if store.head(keys.bucket, keys.manifest) is not None:
        return {"assembly": "finished_already"}
    options, total = SynthesisOptions(**plan_doc["options"]), int(plan_doc["parts_total"])
    held = store.head(keys.bucket, keys.claim)
    if held is None:
        # Its assembly failed and let go: this retry assembles anew, once every part is there (a
        # message naming a job still rendering is no assembly of it, whoever sent it).
        if not _all_rendered(service, keys, plan_doc):
            logger.warning("assembly message dropped", extra={"folder": keys.folder, "why": "parts missing"})
            return {"status": "dropped"}
        return {"assembly": assemble(service, keys, str(plan_doc["format"]), options, total, call)}
    claim = store.get_json(keys.bucket, keys.claim)
    if claim is None or held.etag is None:
        return {"assembly": "claimed_elsewhere"}
    if claim.get("token") != order.token:
        # Another assembler's, unless it is older than the Timeout: then that one died (the message
        # that handed it over is spent, as this one would be), and this delivery goes on for it.
        if not _stale(service, held):
            return {"assembly": "claimed_elsewhere"}
        if "audio_key" not in claim:  # a first assembly that died before it parked: assembled anew
            return {"assembly": assemble(service, keys, str(plan_doc["format"]), options, total, call)}
    # Taken over with a compare-and-swap: of two deliveries of this message one goes on, and the
    # claim's new age says this invocation is alive. Its token changes too, so a delivery that reads
    # the renewed claim later cannot take it over (and resume an upload this one is finishing).
    renewed = {**claim, "token": uuid.uuid4().hex, "request_id": call.request_id, "claimed_at": results.utc_now()}
    if not store.put_json(keys.bucket, keys.claim, renewed, if_match=held.etag):
        return {"assembly": "claimed_elsewhere"}
    return {"assembly": assemble(service, keys, str(plan_doc["format"]), options, total, call, resumed=claim)}


def _all_rendered(service: Service, keys: ResultKeys, plan_doc: Mapping[str, Any]) -> bool:
    rendered, joined = _rendered(service, keys), bool(plan_doc.get("joined"))
    return all(_part_key(keys, index, joined) in rendered for index in range(int(plan_doc["parts_total"])))


def serve_dead_letter(service: Service, record: Mapping[str, Any], call: LambdaCall) -> dict[str, Any]:
    """A part whose retries are spent fails its job; what names no planned part is logged and
    dropped. Never raised for its content: the dead-letter queue has no queue behind it, so a
    raise would bring the message back every visibility timeout until its retention ends."""
    try:
        body: object = json.loads(str(record.get("body")))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        body = None
    if isinstance(body, Mapping) and ASSEMBLY_MESSAGE in body:
        try:
            assembly = AssemblyOrder.from_message(service, body)
        except PartMessageRefused as error:
            logger.warning("part message dropped", extra={"queue": "dead_letter", "error": error.to_dict()})
            return {"status": "dropped"}
        # Only the assembly the claim hands on (or, with no claim, one that had every part to join)
        # fails its job: a message someone forged for a job still rendering does not.
        claim = service.store.get_json(assembly.keys.bucket, assembly.keys.claim)
        ours = claim.get("token") == assembly.token if claim is not None else _all_rendered(service, assembly.keys, assembly.plan)
        if not ours:
            logger.warning("part message dropped", extra={"queue": "dead_letter", "why": "not the job's assembly"})
            return {"status": "dropped"}
        return _fail_job(service, assembly.keys, None, call.request_id)
    order = _order(service, body, "dead_letter")
    if order is None:
        return {"status": "dropped"}
    return _fail_job(service, order.keys, order.part.index, call.request_id)


def _rendered(service: Service, keys: ResultKeys) -> set[str]:
    """The keys of the parts whose audio is stored (a part that failed once leaves its error beside them)."""
    return {key for key in service.store.list_keys(keys.bucket, keys.parts_prefix) if key.endswith((".f32", ".enc"))}


# --- the assembly -------------------------------------------------------------------------------


def assemble(
    service: Service,
    keys: ResultKeys,
    format: str,
    options: SynthesisOptions,
    total: int,
    call: LambdaCall,
    *,
    resumed: Mapping[str, Any] | None = None,
) -> str:
    """Make the parts one file exactly once: ``done``, ``parked`` (a joined upload handed to a later
    invocation, ``resumed`` there with the claim it left), ``claimed_elsewhere`` or ``finished_already``."""
    store = service.store
    request_id = call.request_id
    if resumed is None and not _claim(service, keys, request_id):
        return "claimed_elsewhere"
    try:
        if store.head(keys.bucket, keys.manifest) is not None:
            return "finished_already"
        plan_doc = store.get_json(keys.bucket, keys.plan) or {}
        fmt = audio_format(format)
        sample_rate = service.engine.sample_rate
        started = time.perf_counter()
        before_ms = float(resumed.get("assembly_ms") or 0.0) if resumed else 0.0
        audio_key = str(resumed["audio_key"]) if resumed else keys.audio(fmt.extension, request_id)
        with tempfile.TemporaryDirectory(prefix="supertonic-") as scratch:
            joined: JoinedObject | None = None
            if plan_doc.get("joined"):
                made, joined = _joined(service, keys, plan_doc, total)
            else:
                made = _encoded_whole(service, keys, plan_doc, options, total, fmt, Path(scratch))
            # The chapters' keys are named after the assembly that started, as the book's is.
            chapter_keys = (
                [None if key is None else str(key) for key in resumed["chapter_keys"]]
                if resumed and "chapter_keys" in resumed
                else [None if c.start is None else keys.chapter_audio(n, fmt.extension, request_id) for n, c in enumerate(made.chapters)]
            )
            if joined is not None:
                files = [(audio_key, joined), *((k, c.joined) for k, c in zip(chapter_keys, made.chapters, strict=True) if k and c.joined)]
                first = int(resumed.get("file") or 0) if resumed else 0
                stop = _ShortOfTime(call)
                for number in range(first, len(files)):  # the files before ``first`` are complete
                    key, pieces = files[number]
                    if number > first and stop():  # a file done here already: the next one may wait for a later invocation
                        joining = _Joining(audio_key, chapter_keys, number, None)
                        _park(service, keys, plan_doc, joining, before_ms + (time.perf_counter() - started) * 1000.0, request_id)
                        return "parked"
                    upload = resumed.get("upload") if resumed and number == first else None
                    progress = JoinedProgress.from_json(upload) if upload else None
                    left = store.put_joined(
                        keys.bucket, key, pieces, content_type=content_type(fmt, sample_rate), progress=progress, stop=stop
                    )
                    if left is not None:
                        joining = _Joining(audio_key, chapter_keys, number, left)
                        _park(service, keys, plan_doc, joining, before_ms + (time.perf_counter() - started) * 1000.0, request_id)
                        return "parked"
            assembly_ms = before_ms + (time.perf_counter() - started) * 1000.0
            summary = AudioSummary(
                format=fmt.name,
                content_type=content_type(fmt, sample_rate),
                size_bytes=made.size_bytes,
                duration_s=made.frames / sample_rate,
                sample_rate=fmt.sample_rate or sample_rate,
                synth_ms=made.synth_ms,
                encode_ms=assembly_ms,  # the assembly's own time: joining, or encoding the samples whole
                model=service.engine.model_kind,
                precision=plan_doc.get("precision") or service.engine.precision,
                options=options,
                characters=int(plan_doc.get("characters") or 0),
                chunks=made.chunks,
            )
            manifest = results.done(
                summary,
                source=plan_doc.get("source"),
                bucket=keys.bucket,
                audio_key=audio_key,
                request_id=request_id,
                submitted_at=plan_doc.get("submitted_at") or results.utc_now(),
                parts_total=total,
                assembly_ms=assembly_ms,
                sidecars=plan_doc.get("sidecars"),
                chapters=_chapter_files(plan_doc, made.chapters, chapter_keys, sample_rate),
            )
            store.publish(
                keys.bucket,
                audio_key=audio_key,
                audio=made.audio,
                content_type=summary.content_type,
                manifest_key=keys.manifest,
                manifest=manifest,
                shared_key=resumed is not None,
                chapters={key: c.path for key, c in zip(chapter_keys, made.chapters, strict=True) if key is not None},
            )
    except BaseException:
        _release(service, keys)  # the retry of this message (or another last part) assembles anew
        raise
    _tidy(service, keys)
    logger.info("job assembled", extra={"parts": total, "duration_s": manifest["duration_s"], "assembly_ms": manifest["assembly_ms"]})
    return "done"


def _chapter_files(
    plan_doc: Mapping[str, Any], chapters: Sequence[_ChapterMade], chapter_keys: Sequence[str | None], sample_rate: int
) -> list[ChapterFile] | None:
    """What the manifest says of each chapter of a book: where its file begins in the book, and the
    file (none for a chapter that reads nothing aloud); None for a job that is no book."""
    titles = [str(c["title"]) for c in plan_doc.get("chapters") or []]
    if not titles or not chapters:  # no book, or one planned before chapters had files (``chapter_runs``)
        return None
    sidecars = plan_doc.get("chapter_sidecars") or []
    return [
        ChapterFile.of(
            title,
            start=made.start,
            frames=made.frames,
            key=key,
            size_bytes=made.size_bytes,
            sidecars=sidecars[number] if number < len(sidecars) else {},
            sample_rate=sample_rate,
        )
        for number, (title, made, key) in enumerate(zip(titles, chapters, chapter_keys, strict=True))
    ]


@dataclass(frozen=True)
class _ChapterMade:
    """A chapter's file as the assembly makes it: joined from its parts' bytes, or encoded whole in scratch."""

    start: int | None  # where its file begins in the book, in frames; None: it reads nothing aloud, so it has no file
    frames: int  # its file's, at the engine's rate
    joined: JoinedObject | None = None
    path: Path | None = None

    @property
    def size_bytes(self) -> int | None:
        if self.joined is not None:
            return self.joined.size
        return None if self.path is None else self.path.stat().st_size


@dataclass(frozen=True)
class _Assembled:
    audio: Path | None  # None: joined in S3 at the audio key already
    size_bytes: int
    frames: int  # at the engine's rate
    chunks: list[ChunkEntry]
    synth_ms: float | None  # the parts' render times summed; None when a part has none
    chapters: list[_ChapterMade]  # a book's, one a chapter; none for a job that is no book


def _joined(service: Service, keys: ResultKeys, plan_doc: Mapping[str, Any], total: int) -> tuple[_Assembled, JoinedObject]:
    """The file as the encoded parts between the format's head and tail: S3 copies the parts, the
    function reads only their sizes and render times. A book's chapters likewise, each from its
    parts encoded at their place in its file."""
    engine, store = service.engine, service.store
    codec = part_codec(str(plan_doc["format"]))
    if codec is None:
        raise RuntimeError(f"the plan joins {plan_doc['format']} parts, which this function cannot join")
    spans = book_spans(engine, plan_doc)
    sizes = store.list_sizes(keys.bucket, keys.parts_prefix)
    part_keys = [keys.encoded_part(index) for index in range(total)]
    frames = spans[-1].total
    joined = _joined_object(codec, frames, engine.sample_rate, part_keys, sizes)
    with ThreadPoolExecutor(max_workers=PART_HEADS_AT_ONCE) as pool:
        infos = list(pool.map(lambda key: store.head(keys.bucket, key), part_keys))
    part_ms = [_part_synth_ms(info.metadata) if info is not None else None for info in infos]
    tail_frames = engine.frames(float(plan_doc.get("tail_s") or 0.0))
    ranges = plan_doc.get("ranges") or [[None, None]] * total
    rate = engine.sample_rate
    chunks = [
        ChunkEntry(
            s.index, ranges[s.index][0], ranges[s.index][1], (s.start + s.lead) / rate, (s.end - (tail_frames if s.last else 0)) / rate, ms
        )
        for s, ms in zip(spans, part_ms, strict=True)
    ]
    runs = chapter_runs(plan_doc)
    starts = chapter_start_frames(runs, [s.start + s.lead for s in spans])
    chapters = [
        _ChapterMade(None, 0)
        if start is None
        else _ChapterMade(
            start,
            chapter[-1].total,
            _joined_object(codec, chapter[-1].total, rate, [keys.encoded_chapter_part(index) for index in run], sizes),
        )
        for run, chapter, start in zip(runs, chapter_spans(spans, runs), starts, strict=True)
    ]
    synth_ms = None if None in part_ms else sum(ms for ms in part_ms if ms is not None)
    return _Assembled(None, joined.size, frames, chunks, synth_ms, chapters), joined


def _joined_object(codec: PartCodec, frames: int, sample_rate: int, part_keys: Sequence[str], sizes: Mapping[str, int]) -> JoinedObject:
    """A file of ``frames`` as its stored parts (``part_keys``, of ``sizes``) between the format's head and tail."""
    part_bytes = [sizes[key] for key in part_keys]
    head = codec.head(frames, sample_rate, part_bytes)
    tail = codec.tail(frames, sample_rate, part_bytes)
    return JoinedObject((head, *(StoredPiece(key, size) for key, size in zip(part_keys, part_bytes, strict=True)), tail))


def _encoded_whole(
    service: Service, keys: ResultKeys, plan_doc: Mapping[str, Any], options: SynthesisOptions, total: int, fmt: AudioFormat, scratch: Path
) -> _Assembled:
    """The parts' samples streamed through one encoder into a file in ``scratch``, one part in memory
    at a time; a book's chapters each into a file of its own beside it as they pass (``ChapterSplitter``)."""
    store, engine = service.store, service.engine
    sample_rate = engine.sample_rate
    # A plan made before pauses were per part holds none: the usual silence between every two.
    pauses = plan_doc.get("pauses") or [options.pause_before(index) for index in range(total)]
    # A plan made before ranges were kept has none: the chunks are listed without their bytes.
    ranges = plan_doc.get("ranges") or [[None, None]] * total
    leads = [engine.frames(pause) for pause in pauses]
    tail = engine.frames(float(plan_doc.get("tail_s") or 0.0))
    runs = chapter_runs(plan_doc)
    path, chapter_paths = scratch / f"audio.{fmt.extension}", {}

    def open_chapter(number: int) -> AudioWriter:
        chapter_paths[number] = scratch / f"chapter-{number + 1:04d}.{fmt.extension}"
        return AudioWriter(chapter_paths[number], fmt, sample_rate)

    chunks: list[ChunkEntry] = []
    speech_starts: list[int] = []
    position = 0
    synth_ms: float | None = 0.0
    with AudioWriter(path, fmt, sample_rate) as writer, ChapterSplitter(writer, runs, leads, open_chapter) as splitter:
        for index in range(total):
            body, metadata = store.read_bytes(keys.bucket, keys.part(index))
            samples = np.frombuffer(body, dtype=SAMPLE_DTYPE)
            after = tail if index == total - 1 else 0
            # One write a part, as the splitter cuts them: the silence before it, its samples (and the tail after the last).
            splitter.write(np.concatenate([np.zeros(leads[index], np.float32), samples, np.zeros(after, np.float32)]))
            part_ms = _part_synth_ms(metadata)
            synth_ms = None if synth_ms is None or part_ms is None else synth_ms + part_ms
            start, end = ranges[index]
            position += leads[index]
            speech_starts.append(position)
            chunks.append(ChunkEntry(index, start, end, position / sample_rate, (position + samples.size) / sample_rate, part_ms))
            position += samples.size + after
    starts = chapter_start_frames(runs, speech_starts)
    chapters = [
        _ChapterMade(start, frames, path=chapter_paths.get(number))
        for number, (start, frames) in enumerate(zip(starts, splitter.frames, strict=True))
    ]
    return _Assembled(path, path.stat().st_size, position, chunks, synth_ms, chapters)


class _ShortOfTime:
    """Asked after each part of an upload: whether the time left could not take a few more like the slowest yet."""

    def __init__(self, call: LambdaCall) -> None:
        self.call, self.slowest_s, self.since = call, 0.0, time.perf_counter()

    def __call__(self) -> bool:
        now = time.perf_counter()
        self.slowest_s, self.since = max(self.slowest_s, now - self.since), now
        left = self.call.seconds_left()
        return left is not None and left < RESUME_GROUPS_AHEAD * self.slowest_s + RESUME_MIN_LEFT_S


@dataclass(frozen=True)
class _Joining:
    """Where an assembly's uploads stand: the files' keys (the book's, then each chapter's; None:
    a chapter with no file), which of the files joined (book first, then each chapter with a file)
    is under way, and that one's upload."""

    audio_key: str
    chapter_keys: list[str | None]
    file: int
    upload: JoinedProgress | None  # None: the file is not begun


def _park(
    service: Service,
    keys: ResultKeys,
    plan_doc: Mapping[str, Any],
    joining: _Joining,
    assembly_ms: float,
    request_id: str,
) -> None:
    """Hand the unfinished uploads to a later invocation: the claim records where they stand under
    a new token, and an assembly message with that token goes to the parts queue (a part's receives
    are not spent on it)."""
    token = uuid.uuid4().hex
    progress = joining.upload
    claim = {
        "request_id": request_id,
        "claimed_at": results.utc_now(),
        "token": token,
        "audio_key": joining.audio_key,
        "chapter_keys": joining.chapter_keys,
        "file": joining.file,
        "upload": None if progress is None else progress.to_json(),
        "assembly_ms": round(assembly_ms, 1),
    }
    service.store.put_json(keys.bucket, keys.claim, claim)
    message = {ASSEMBLY_MESSAGE: {"bucket": keys.bucket, "folder": keys.folder, "plan": str(plan_doc["plan_id"]), "token": token}}
    _send(service, [message])
    logger.info(
        "assembly parked",
        extra={
            "folder": keys.folder,
            "file": joining.file,
            "next_piece": 0 if progress is None else progress.next_piece,
            "parts_sent": 0 if progress is None else len(progress.parts),
        },
    )


def _claim(service: Service, keys: ResultKeys, request_id: str) -> bool:
    """Take the assembly, or leave it to the worker that holds it; a claim older than the
    function's timeout was a worker that died (timeout, out of memory) and is taken over."""
    store = service.store
    claim = {"request_id": request_id, "claimed_at": results.utc_now()}
    if store.put_json(keys.bucket, keys.claim, claim, only_if_absent=True):
        return True
    held = store.head(keys.bucket, keys.claim)
    if held is not None and _stale(service, held):
        # Only the claim that was seen stale: one renewed meanwhile (an assembly going on) stands.
        return held.etag is not None and store.put_json(keys.bucket, keys.claim, claim, if_match=held.etag)
    return False


def _stale(service: Service, held: ObjectInfo) -> bool:
    """Whether a claim is older than the function's timeout: its assembler died (timeout, out of memory)."""
    timeout_s = service.config.function_timeout_s or 900.0
    return held.last_modified is not None and (datetime.now(UTC) - held.last_modified).total_seconds() > timeout_s


def _release(service: Service, keys: ResultKeys) -> None:
    try:
        service.store.delete(keys.bucket, keys.claim)
    except Exception as error:  # the claim then expires after the timeout
        logger.warning("could not release the assembly claim", extra={"error": str(error)})


def _tidy(service: Service, keys: ResultKeys) -> None:
    """Remove the parts, errors, chunks and claim once the manifest stands (the plan stays: it is small)."""
    store = service.store
    store.delete_many(keys.bucket, [*store.list_keys(keys.bucket, keys.parts_prefix), keys.chunks, keys.claim])


# --- failure and progress -----------------------------------------------------------------------


def _fail_job(service: Service, keys: ResultKeys, index: int | None, request_id: str) -> dict[str, Any]:
    """A part's (``index``) or the assembly's (None) retries are spent: the job's manifest says failed, naming which and why."""
    store = service.store
    why = (store.get_json(keys.bucket, keys.part_error(index)) or {}) if index is not None else {}
    if index is None:
        error = {"code": "assembly_failed", "message": "the assembly of the parts stopped without an answer (timeout or out of memory)"}
    else:
        error = why.get("error") or {
            "code": "part_failed",
            "message": "the part's worker stopped without an answer (timeout or out of memory)",
        }
    what = f"part {index}" if index is not None else "the assembly"
    plan_doc = store.get_json(keys.bucket, keys.plan) or {}
    manifest = results.failed(
        {**error, "part": index, "message": f"{what} failed after every retry: {error.get('message')}"},
        status=why.get("http_status"),
        source=plan_doc.get("source"),
        request_id=request_id,
        submitted_at=plan_doc.get("submitted_at"),
        parts_total=plan_doc.get("parts_total"),
    )
    written = store.put_json(keys.bucket, keys.manifest, manifest, only_if_absent=True)
    logger.error("job failed", extra={"part": index, "error": manifest["error"], "written": written})
    return {"part": index, "status": "job_failed" if written else "job_finished"}


def progress(service: Service, keys: ResultKeys, job_id: str) -> dict[str, Any] | None:
    """An in-flight fanned-out job's status (queued, running, assembling), or None when it has no plan."""
    store = service.store
    plan_doc = store.get_json(keys.bucket, keys.plan)
    if plan_doc is None:
        return None
    done = len(_rendered(service, keys))
    if store.head(keys.bucket, keys.claim) is not None:
        status = "assembling"
    else:
        status = "running" if done else "queued"
    return results.progress(
        job_id, status, parts_done=done, parts_total=int(plan_doc["parts_total"]), submitted_at=plan_doc.get("submitted_at")
    )


def _part_synth_ms(metadata: Mapping[str, str]) -> float | None:
    """The render time a part worker stored with its part (None for a part stored without one)."""
    try:
        return float(metadata["synth-ms"])
    except (KeyError, ValueError):
        return None
