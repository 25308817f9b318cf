"""``supertonic-lambda replay EVENTS...``: every event through RIE under a profile, measured and checked.

    supertonic-lambda replay events/ --profile lambda-2048 --model tiny --report out/report.json

Prints a table (cold start, durations, RTF, peak RSS per invocation), writes the JSON report, a
PNG chart beside it and the output audio into ``<report>-audio/``, and exits 1 when an
expectation or the profile's budget is broken (2 when the run itself could not start).

Each invocation's time to its first and last body byte is reported as a client of the function URL
would see it: in ``BUFFERED`` mode both are when the answer came; in ``RESPONSE_STREAM`` mode, when
the first byte past the prelude and the last byte reached the harness's Runtime API proxy. A stream
that ends with an error after its first byte fails the invocation's check.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..fronts.furl import INTERNAL_ERROR, StreamedHead, result_to_http, streamed_to_http
from ..fronts.local import LocalFunction, add_function_arguments, start_local_function
from ..fronts.sqs import Batch, batches_summary
from ..function.outcome import Outcome
from ..function.rie import RieNotFound
from ..function.runtime_proxy import StreamEnd, StreamPiece, StreamRelay, StreamStart
from ..function.sandbox import Invocation
from .events import EventError, Expectation, ReplayEvent, collect
from .report import BUDGET_JUDGED_ON, Progress, Record, Report, header, table, write_chart
from .soak import soak_lines, soak_summary

AUDIO_EXTENSIONS = (".wav", ".flac", ".ogg", ".mp3", ".opus")
# The function says which model produced its audio (a stand-in's output is noise, not speech):
# in this header on audio responses, in the "model" field of its JSON answers; JSON answers
# and direct invokes carry the audio itself as "audio_base64" next to its "content_type".
MODEL_HEADER = "x-supertonic-model"
LOG_TAIL_LINES = 15


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay event files through the Lambda emulator under CPU/memory limits and report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("events", nargs="+", help="event files, directories of *.json, or globs")
    add_function_arguments(parser)
    parser.add_argument(
        "--repeat", type=int, default=1, help="replay the whole list N times, warm (default 1); past 1, a soak: RSS drift and durations"
    )
    parser.add_argument("--report", type=Path, help="write the JSON report here, the chart beside it (.png)")
    parser.add_argument("--audio-dir", type=Path, help="save output audio here (default: <report>-audio/)")
    parser.add_argument("--max-rtf", type=float, help="budget: fail any successful invocation slower than this RTF")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        events = collect(args.events)
        if args.repeat < 1:
            raise EventError("--repeat must be at least 1")
        need_s3 = any(event.seed is not None or "Records" in event.payload for event in events)
        with start_local_function(args, need_s3=need_s3, on_batch=_report_failed_batch) as local:
            report = replay(
                local,
                events,
                repeat=args.repeat,
                max_rtf=args.max_rtf,
                audio_dir=_audio_dir(args),
                progress=Progress(args.repeat * len(events)),
            )
            sqs_batches = {m.queue_name: m.batches for m in local.mappings if m.batches}
    except (EventError, RieNotFound, FileNotFoundError, OSError, ValueError) as error:
        print(f"supertonic-lambda replay: {error}", file=sys.stderr)
        return 2
    print(header(report))
    print(table(report.records))
    for queue, batches in sqs_batches.items():
        print(f"sqs {queue}: {batches_summary(batches)}")
    if report.soak:
        print(soak_lines(report.soak))
    if args.report:
        report.write_json(args.report)
        chart = args.report.with_suffix(".png")
        write_chart(report, chart)
        print(f"report {args.report}, chart {chart}")
    return 0 if report.passed else 1


def _report_failed_batch(batch: Batch) -> None:
    """Say so at once when a batch fails: its messages come back until the dead-letter queue takes
    them (forever without one), and the replay waits for that."""
    if not batch.succeeded:
        print(
            f"sqs {batch.queue}: {batch.describe()}; {batch.invocation.outcome.value} {batch.invocation.error_type or ''}".rstrip(),
            file=sys.stderr,
            flush=True,
        )


def _audio_dir(args: argparse.Namespace) -> Path | None:
    if args.audio_dir:
        return args.audio_dir
    if args.report:
        return args.report.with_name(args.report.stem + "-audio")
    return None


def replay(
    local: LocalFunction,
    events: list[ReplayEvent],
    *,
    repeat: int = 1,
    max_rtf: float | None = None,
    audio_dir: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run ``events`` in order, ``repeat`` times, and return the checked report."""
    limits = local.limits
    report = Report(
        profile={"name": limits.profile.name, "cpus": limits.profile.cpus, "memory_mb": limits.profile.memory_mb},
        limits={"mode": limits.mode, "detail": limits.detail, "skipped": limits.skipped},
        budget={"memory_mb": limits.profile.memory_mb, "judged_on": BUDGET_JUDGED_ON, "max_rtf": max_rtf},
        model={"kind": local.model_kind, "dir": str(local.model_dir) if local.model_dir else None},
        function=local.describe(),
    )
    total = repeat * len(events)
    for round_index in range(repeat):
        for event in events:
            index = len(report.records) + 1
            if progress:
                progress.update(index - 1, event.name)
            record = _replay_one(local, event, index, round_index, audio_dir)
            record.failures = check(record, event.expect, memory_mb=limits.profile.memory_mb, max_rtf=max_rtf)
            report.records.append(record)
    if progress:
        progress.update(total, "done")
        progress.close()
    if repeat > 1:
        report.soak = soak_summary(report.records)
    return report


def _replay_one(local: LocalFunction, event: ReplayEvent, index: int, round_index: int, audio_dir: Path | None) -> Record:
    payload = dict(event.payload)
    before = set()
    if local.s3 is not None:
        if event.seed is not None:
            local.s3.create_buckets([event.seed.bucket])
            fresh = local.s3.put(event.seed.bucket, event.seed.key, event.seed.body)
            payload = _with_object_metadata(payload, fresh)
        before = local.s3.keys()
    relay = StreamRelay() if local.sandbox.function.streams else None
    invocation = local.sandbox.invoke(payload, relay=relay)
    stream = _collect(relay) if relay is not None else None
    local.drain()  # what the event put in the template's SQS queues is done before its outputs are read
    record = _record(invocation, event, index, round_index)
    if stream is None:  # the answer came whole
        record.first_byte_ms = record.last_byte_ms = invocation.wall_ms
    else:
        record.first_byte_ms, record.last_byte_ms = stream.first_byte_ms, stream.last_byte_ms
        record.failures += stream.problems()
    audio: list[tuple[str, bytes]] = []
    if invocation.outcome is Outcome.SUCCESS:
        http = result_to_http(invocation.result()) if stream is None else streamed_to_http(stream.content_type, stream.data)
        if http.problem:
            record.failures.append(f"a function URL answers 502: {http.problem}")
        record.status = http.status
        record.content_type = http.header("content-type")
        record.function_model = http.header(MODEL_HEADER)
        if (record.content_type or "").startswith("audio/"):
            audio.append((_extension(record.content_type), http.body))
        elif (document := _json_document(http.body)) is not None:
            record.function_model = document.get("model", record.function_model)
            if isinstance(document.get("audio_base64"), str):
                content_type = str(document.get("content_type", "audio/wav"))
                try:
                    audio.append((_extension(content_type), base64.b64decode(document["audio_base64"], validate=True)))
                except binascii.Error:
                    record.failures.append("audio_base64 is not base64")
    if local.s3 is not None:
        for stored in local.s3.written_since(before):
            if stored.content_type.startswith("audio/") or stored.key.endswith(AUDIO_EXTENSIONS):
                audio.append((Path(stored.key).suffix or _extension(stored.content_type), stored.body))
    _measure_audio(record, audio, audio_dir)
    return record


@dataclass
class _Stream:
    """A streamed answer as the replay saw it: every byte, and when the body's first and last came."""

    content_type: str | None
    data: bytes
    first_byte_ms: float | None
    last_byte_ms: float | None
    ended: StreamEnd | None

    def problems(self) -> list[str]:
        if self.ended is None or not self.ended.complete:
            return ["the stream ended inside itself (the runtime's connection closed)"]
        error = self.ended.error()
        return [f"the stream ended with an error after its first byte: {error[0]}: {error[1]}"] if error else []


def _collect(relay: StreamRelay) -> _Stream | None:
    """The streamed answer ``relay`` received (None: the function did not stream); times in ms from the invoke."""
    start: StreamStart | None = None
    head: StreamedHead | None = None
    pieces: list[bytes] = []
    first = last = None
    ended = None
    for event in relay.events():
        if isinstance(event, StreamStart):
            start, head = event, StreamedHead(event.content_type)
        elif isinstance(event, StreamPiece) and head is not None:
            pieces.append(event.data)
            if head.feed(event.data):
                first = first if first is not None else event.at
                last = event.at
        elif isinstance(event, StreamEnd):
            ended = event
    if start is None:
        return None
    sent = relay.sent_at if relay.sent_at is not None else start.at

    def since_sent(at: float | None) -> float | None:
        return None if at is None else round((at - sent) * 1000, 1)

    return _Stream(start.content_type, b"".join(pieces), since_sent(first), since_sent(last), ended)


def _with_object_metadata(payload: dict, fresh_event: dict) -> dict:
    """The event with the stored object's real size and eTag (the file may differ from the sample)."""
    records = [dict(r) for r in payload["Records"]]
    s3 = dict(records[0]["s3"])
    fresh_object = fresh_event["Records"][0]["s3"]["object"]
    s3["object"] = {**s3["object"], "size": fresh_object["size"], "eTag": fresh_object["eTag"]}
    records[0] = {**records[0], "s3": s3}
    return {**payload, "Records": records}


def _record(invocation: Invocation, event: ReplayEvent, index: int, round_index: int) -> Record:
    failed = invocation.outcome is not Outcome.SUCCESS
    return Record(
        index=index,
        event=event.name,
        repeat=round_index,
        outcome=invocation.outcome.value,
        # A function URL turns every failed invocation into a 502, whatever RIE answered.
        status=INTERNAL_ERROR.status if failed else None,
        **invocation.measurements(),
        error_type=invocation.error_type,
        error_message=invocation.error_message,
        log_tail=invocation.log_lines[-LOG_TAIL_LINES:] if failed else [],
    )


def _json_document(body: bytes) -> dict | None:
    """A JSON object body (the function's JSON answers and direct-invoke results), else None."""
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _extension(content_type: str | None) -> str:
    subtype = (content_type or "").split(";")[0].split("/")[-1].strip()
    return {"mpeg": ".mp3", "x-wav": ".wav", "wave": ".wav"}.get(subtype, f".{subtype or 'bin'}")


def _measure_audio(record: Record, audio: list[tuple[str, bytes]], audio_dir: Path | None) -> None:
    """Decode every audio output (it must decode), add up its seconds, save it, compute the RTF."""
    import soundfile

    seconds = 0.0
    for number, (extension, data) in enumerate(audio):
        try:
            seconds += soundfile.info(io.BytesIO(data)).duration
        except RuntimeError as error:  # soundfile's LibsndfileError
            record.failures.append(f"output audio does not decode: {error}")
        if audio_dir is not None:
            audio_dir.mkdir(parents=True, exist_ok=True)
            suffix = f"-{number + 1}" if len(audio) > 1 else ""
            name = f"{record.index:03d}-{_safe(record.event)}{suffix}{extension}"
            (audio_dir / name).write_bytes(data)
            record.audio_files.append(str(audio_dir / name))
    if audio and seconds > 0:
        record.audio_s = round(seconds, 3)
        if record.duration_ms is not None:
            # Handler time over audio time; a cold start's init is reported apart, as Lambda does.
            record.rtf = round(record.duration_ms / 1000 / seconds, 4)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name)


def answer_failures(expect: Expectation, outcome: str, status: int | None, content_type: str | None) -> list[str]:
    """Where an answer's outcome, status and content type differ from the expectations."""
    failures = []
    if outcome != expect.outcome.value:
        failures.append(f"expected outcome {expect.outcome.value}, got {outcome}")
    if expect.status is not None and status != expect.status:
        failures.append(f"expected status {expect.status}, got {status}")
    if expect.content_type and not (content_type or "").startswith(expect.content_type):
        failures.append(f"expected content type {expect.content_type}, got {content_type}")
    return failures


def check(record: Record, expect: Expectation, *, memory_mb: int, max_rtf: float | None = None) -> list[str]:
    """Broken expectations and budgets of one invocation, each as a sentence (empty = passed)."""
    failures = list(record.failures)  # what was found while collecting the audio
    failures += answer_failures(expect, record.outcome, record.status, record.content_type)
    rtf_limit = expect.max_rtf if expect.max_rtf is not None else max_rtf
    if rtf_limit is not None and record.outcome == Outcome.SUCCESS.value:
        if record.rtf is None:
            failures.append(f"RTF budget {rtf_limit:g} set, but the invocation produced no audio to measure")
        elif record.rtf > rtf_limit:
            failures.append(f"RTF {record.rtf:.3f} is over the budget of {rtf_limit:g}")
    # The memory budget holds whatever the expectations say: an expected OOM is still over budget.
    if record.outcome == Outcome.OOM.value:
        failures.append(f"over the memory budget: OOM-killed at {memory_mb} MB")
    elif record.peak_rss_mb > memory_mb:
        failures.append(f"over the memory budget: peak RSS {record.peak_rss_mb:.0f} MB > {memory_mb} MB")
    return failures
