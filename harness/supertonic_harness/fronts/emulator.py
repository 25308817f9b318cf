"""``supertonic-lambda emulate``: the function served locally, as Lambda would run it, on loopback.

Two fronts reach the same RIE-run function:

* RIE's own Invoke API, ``POST http://127.0.0.1:<rie-port>/2015-03-31/functions/function/invocations``
  (the AWS documentation's curl examples work against it, with any event JSON);
* a function URL, ``http://127.0.0.1:<port>/``: each HTTP request becomes a payload 2.0 event and
  the handler's answer becomes the HTTP response, so
  ``curl localhost:8000/ -d '{"text":"안녕하세요"}' -o out.wav`` works.

With the template's buckets in moto's S3, ``--upload notes.txt`` stores the file where the S3
trigger for its suffix listens (``job.json`` where ``.json`` jobs are picked up) and delivers the
matching S3 event as Lambda does: asynchronously, so a failed invocation is retried twice more. An
object the function itself writes where a trigger listens (a ``POST /v1/jobs``) is delivered the
same way after the answer, as S3's notification would be, so a job submitted through the function
URL gets done. With the template's SQS event source mappings (queues in moto's SQS), batches are
invoked as they arrive, on ``--concurrency N`` sandboxes; an upload waits until the queues are
drained and prints the wall time.

With the function URL in ``RESPONSE_STREAM`` mode (the template's ``FunctionUrlInvokeMode``, or
``--invoke-mode``), a streamed answer reaches the client as the function writes it: the status and
headers as soon as the prelude is complete, then each piece as a chunk. An error the function
reports after the first byte is logged here and cuts the connection without the last chunk (this
harness's choice, so a client cannot take a broken answer for a whole one). RIE itself answers an
invoke only at its end, with at most the first 6 MiB (see ``runtime_proxy``); its Invoke API shows
the bytes, not their timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..function.outcome import Outcome
from ..function.rie import LOOPBACK, RieNotFound
from ..function.rie_log import is_emulator_detail
from ..function.runtime_proxy import StreamEnd, StreamPiece, StreamRelay, StreamStart
from ..function.sandbox import Invocation
from ..function.template import S3Trigger, trigger_for
from .delivery import Delivery, deliver
from .furl import INTERNAL_ERROR, HttpResponse, StreamedHead, UnreadableBody, http_to_event, read_body, result_to_http
from .local import LocalFunction, add_function_arguments, start_local_function
from .s3 import LocalS3, s3_put_event
from .sqs import Batch, batches_summary

DEFAULT_PORT = 8000
BAD_REQUEST = HttpResponse(400, [("content-type", "application/json")], b'{"Message":"Bad Request"}')
DEFAULT_RIE_PORT = 9000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "emulate",
        help="serve the function locally through the Lambda emulator (Invoke API + function URL)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_function_arguments(parser)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"function URL port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--rie-port", type=int, default=DEFAULT_RIE_PORT, help=f"RIE Invoke API port (default {DEFAULT_RIE_PORT}, as in the AWS docs)"
    )
    parser.add_argument(
        "--upload",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="upload FILE to the S3 trigger's bucket and invoke with its S3 event (repeatable)",
    )
    parser.add_argument("--no-serve", action="store_true", help="exit after the uploads instead of serving")
    # Not --verbose: that is the top-level flag (supertonic-lambda -v emulate), which a
    # subcommand flag of the same name would silently reset.
    parser.add_argument("--rie-log", action="store_true", help="also echo RIE's own INFO lines")
    parser.set_defaults(func=run)


def summarize(invocation: Invocation, response: HttpResponse | None = None) -> str:
    """One line per invocation: outcome, answer, cold start, durations, memory."""
    parts = [invocation.outcome.value]
    if response is not None:
        parts.append(f"{response.status} {response.header('content-type') or ''}".strip())
    if invocation.cold_start:
        parts.append(f"cold start, init {invocation.init_ms or 0:.0f} ms")
    if invocation.duration_ms is not None:
        parts.append(f"{invocation.duration_ms:.0f} ms (billed {invocation.billed_ms} ms)")
    memory = f"peak RSS {invocation.peak_rss_mb:.0f} MB"
    if invocation.cgroup_peak_mb is not None:
        memory += f", cgroup {invocation.cgroup_peak_mb:.0f} MB"
    parts.append(memory)
    if invocation.error_type:
        parts.append(f"{invocation.error_type}: {invocation.error_message}")
    return "; ".join(parts)


def function_url_response(invocation: Invocation) -> HttpResponse:
    """What the function URL answers for one invocation: the handler's response, or a 502."""
    if invocation.outcome is not Outcome.SUCCESS:
        return INTERNAL_ERROR
    response = result_to_http(invocation.result())
    if invocation.request_id:
        response.headers.append(("x-amzn-requestid", invocation.request_id))
    return response


class FunctionUrlServer(ThreadingHTTPServer):
    """An HTTP server on loopback whose every request invokes the function as its function URL."""

    daemon_threads = True

    def __init__(self, local: LocalFunction, port: int = 0, log: Callable[[str], None] = print) -> None:
        self.local = local
        self.log = log
        super().__init__((LOOPBACK, port), _FunctionUrlHandler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}/"

    def watched_keys(self) -> set[tuple[str, str, str]] | None:
        """What the trigger buckets hold now (None without S3 or triggers): compare after a request."""
        if self.local.s3 is None or not self.local.triggers:
            return None
        return self.local.s3.keys({t.bucket for t in self.local.triggers})

    def notify_since(self, before: set[tuple[str, str, str]] | None) -> None:
        """Invoke the function, in the background, with the S3 event of each object written since
        ``before`` where a trigger listens."""
        now = self.watched_keys()
        if before is None or now is None or self.local.s3 is None:
            return
        events = [
            s3_put_event(bucket, key, len(self.local.s3.fetch(bucket, key).body), etag, region=self.local.sandbox.function.region)
            for bucket, key, etag in sorted(now - before)
            if any(trigger.fires_for(bucket, key) for trigger in self.local.triggers)
        ]
        if events:
            threading.Thread(target=self._deliver, args=(events,), name="s3-notification", daemon=True).start()

    def _deliver(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            key = event["Records"][0]["s3"]["object"]["key"]
            try:
                delivery = deliver(self.local.sandbox, event)
            except OSError as error:  # the emulator is stopping
                self.log(f"S3 notification {key}: not delivered: {error}")
                return
            self.log(f"S3 notification {key}: {summarize(delivery.final)}")
            if delivery.retries:
                self.log(f"  {delivery.describe()}")

    def start(self) -> FunctionUrlServer:
        self._thread = threading.Thread(target=self.serve_forever, name="function-url", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(5)


class _FunctionUrlHandler(BaseHTTPRequestHandler):
    server: FunctionUrlServer
    protocol_version = "HTTP/1.1"

    def _invoke(self) -> None:
        codings = self.headers.get_all("transfer-encoding")
        try:
            body = read_body(self.rfile, ", ".join(codings) if codings else None, self.headers.get("content-length"))
        except UnreadableBody as error:
            # The connection cannot be read past a body of unknown length: answer and close it.
            self.server.log(f"{self.command} {self.path}: 400 ({error})")
            self.close_connection = True
            self._send(BAD_REQUEST)
            return
        event = http_to_event(
            self.command,
            self.path,
            self.headers.items(),
            body,
            source_ip=self.client_address[0],
            region=self.server.local.sandbox.function.region,
        )
        before = self.server.watched_keys()
        if self.server.local.sandbox.function.streams:
            self._invoke_streaming(event)
            self.server.notify_since(before)
            return
        invocation = self.server.local.sandbox.invoke(event)
        response = function_url_response(invocation)
        problem = f" ({response.problem})" if response.problem else ""
        self.server.log(f"{self.command} {self.path}: {summarize(invocation, response)}{problem}")
        self._send(response)
        self.server.notify_since(before)

    def _invoke_streaming(self, event: dict[str, Any]) -> None:
        """Invoke on a thread and relay what the function streams as it arrives; an answer it did
        not stream (a buffered result, an error before the first byte) is sent as it is today."""
        relay = StreamRelay()
        done: list[Invocation | BaseException] = []

        def invoke() -> None:
            try:
                done.append(self.server.local.sandbox.invoke(event, relay=relay))
            except BaseException as error:  # the emulator is stopping: answered below as a failure
                done.append(error)
                relay.close()

        worker = threading.Thread(target=invoke, name="function-url-invoke", daemon=True)
        worker.start()
        streamed = self._relay(relay)
        worker.join()
        outcome = done[0] if done else None
        if not isinstance(outcome, Invocation):
            self.server.log(f"{self.command} {self.path}: not invoked: {outcome}")
            if streamed is None:
                self._send(INTERNAL_ERROR)
            return
        if streamed is None:
            response = function_url_response(outcome)
            problem = f" ({response.problem})" if response.problem else ""
            self.server.log(f"{self.command} {self.path}: {summarize(outcome, response)}{problem}")
            self._send(response)
            return
        self.server.log(f"{self.command} {self.path}: {summarize(outcome, streamed.response)}; {streamed.describe()}")
        for line in streamed.errors:
            self.server.log(f"  {line}")

    def _relay(self, relay: StreamRelay) -> _Relayed | None:
        """Write each streamed event to the client as it comes; None when nothing was streamed."""
        relayed: _Relayed | None = None
        head: StreamedHead | None = None
        for event in relay.events():
            if isinstance(event, StreamStart):
                head, relayed = StreamedHead(event.content_type), _Relayed(event, sent_at=relay.sent_at or event.at)
            elif relayed is None or head is None:
                continue  # pieces of no started stream: nothing the proxy sends
            elif isinstance(event, StreamPiece):
                relayed.pieces += 1
                self._relay_piece(relayed, head, event, relay)
            elif isinstance(event, StreamEnd):
                relayed.ended = event
                self._relay_end(relayed, head)
        return relayed

    def _relay_piece(self, relayed: _Relayed, head: StreamedHead, piece: StreamPiece, relay: StreamRelay) -> None:
        body = head.feed(piece.data)
        if head.response is None or relayed.client_gone or relayed.refused:
            return
        if body and relayed.first_byte_at is None:
            relayed.first_byte_at = piece.at
        relayed.body_bytes += len(body)
        try:
            if not relayed.head_sent:
                relayed.response = head.response
                if head.response.problem:
                    # A prelude no HTTP response can carry: the 502 a buffered answer would get.
                    relayed.refused = True
                    relayed.errors.append(f"the streamed prelude becomes a 502: {head.response.problem}")
                    self._send(head.response)
                    return
                self._send_head(head.response, relayed.start.request_id)
                relayed.head_sent = True
            if body and self.command != "HEAD":
                self.wfile.write(b"%x\r\n%b\r\n" % (len(body), body))
                self.wfile.flush()
        except OSError:
            # The client went away: the runtime's next write fails, as on Lambda.
            relayed.client_gone = True
            relay.cancel()
            self.close_connection = True

    def _relay_end(self, relayed: _Relayed, head: StreamedHead) -> None:
        ended = relayed.ended
        if ended is None or relayed.client_gone or relayed.refused:
            return
        error = ended.error()
        if error is not None:
            relayed.errors.append(f"the function's stream ended with {error[0]}: {error[1]}")
        elif not ended.complete:
            relayed.errors.append("the runtime's connection ended inside the stream")
        try:
            if not relayed.head_sent:
                # Ended before its prelude did: nothing was sent, so the client still gets an answer.
                relayed.response = head.response if head.response is not None else INTERNAL_ERROR
                if head.response is None:
                    relayed.errors.append("the streamed answer ended before its prelude (8 NUL bytes) did")
                if head.response is None or error is not None or not ended.complete:
                    self._send(INTERNAL_ERROR)
                    return
                self._send_head(head.response, relayed.start.request_id)
                relayed.head_sent = True
            if error is not None or not ended.complete:
                self.close_connection = True  # cut: no last chunk, so the client sees an incomplete answer
                return
            if self.command != "HEAD":
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            relayed.client_gone = True
            self.close_connection = True

    def _send_head(self, response: HttpResponse, request_id: str) -> None:
        self.send_response(response.status)
        for name, value in response.headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("x-amzn-requestid", request_id)
        if self.command != "HEAD":
            self.send_header("transfer-encoding", "chunked")
        elif (length := response.header("content-length")) is not None:
            self.send_header("content-length", length)  # as _send: the length GET would send
        self.end_headers()
        self.wfile.flush()

    def _send(self, response: HttpResponse) -> None:
        self.send_response(response.status)
        for name, value in response.headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        if self.command != "HEAD":
            self.send_header("content-length", str(len(response.body)))
        elif (length := response.header("content-length")) is not None:
            # HEAD has no body; its length is the one GET would send (RFC 9110 §9.3.2), as the function says.
            self.send_header("content-length", length)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)
        self.wfile.flush()

    def __getattr__(self, name: str) -> Any:
        """``do_<METHOD>`` for every method (TRACE, QUERY, ...): the function, not the server, says
        which ones a path takes (a 405 with Allow), as behind a function URL."""
        if name.startswith("do_"):
            return self._invoke
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: ``_invoke`` logs one richer line per request."""


@dataclass
class _Relayed:
    """What the front made of one streamed answer, for its log line."""

    start: StreamStart
    sent_at: float  # when the invoke was sent (``time.perf_counter()``)
    response: HttpResponse | None = None
    ended: StreamEnd | None = None
    pieces: int = 0
    body_bytes: int = 0
    first_byte_at: float | None = None
    head_sent: bool = False
    client_gone: bool = False
    refused: bool = False  # a 502 went out in place of the stream
    errors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        parts = [f"streamed {self.body_bytes} body bytes in {self.pieces} pieces"]
        if self.first_byte_at is not None:
            parts.append(f"first body byte {(self.first_byte_at - self.sent_at) * 1000:.0f} ms after the invoke")
        if self.client_gone:
            parts.append("the client went away")
        elif self.ended is not None and (self.ended.error() or not self.ended.complete):
            parts.append("cut")
        return ", ".join(parts)


def upload_and_deliver(local: LocalFunction, path: Path, trigger: S3Trigger) -> tuple[dict, Delivery, list[str]]:
    """Upload ``path`` where ``trigger`` fires, deliver that S3 event and wait until the SQS queues
    it may have filled are drained; returns what was written."""
    if local.s3 is None:
        raise ValueError("uploads need the local S3 server; drop --no-s3")
    event = local.s3.upload_file(path, trigger.bucket, trigger.key_for(path.name))
    before = local.s3.keys()
    delivery = deliver(local.sandbox, event)
    local.drain()
    written = [f"s3://{o.bucket}/{o.key}" for o in local.s3.written_since(before)]
    return event, delivery, written


def jobs_in_parts(s3: LocalS3) -> dict[str, str]:
    """Each long job's progress as its folder shows it (fanout.py): parts stored of the plan's total,
    then assembling, then the manifest's status."""
    stored = s3.keys()
    keys = {key for _, key, _ in stored}
    buckets = {key: bucket for bucket, key, _ in stored}
    found: dict[str, str] = {}
    for plan_key in sorted(k for k in keys if k.endswith("/plan.json")):
        folder = plan_key[: -len("plan.json")]
        if folder + "manifest.json" in keys:
            found[folder] = json.loads(s3.fetch(buckets[plan_key], folder + "manifest.json").body)["status"]
            continue
        total = json.loads(s3.fetch(buckets[plan_key], plan_key).body)["parts_total"]
        done = sum(1 for k in keys if k.startswith(folder + "parts/") and k.endswith((".f32", ".enc")))
        found[folder] = f"{done}/{total} parts" + (", assembling" if folder + "assembly.json" in keys else "")
    return found


def run(args: argparse.Namespace) -> int:
    def echo(line: str) -> None:
        if args.rie_log or not is_emulator_detail(line):
            print(line, file=sys.stderr, flush=True)

    told: dict[str, str] = {}

    def on_batch(batch: Batch) -> None:
        print(f"sqs {batch.queue}: {batch.describe()}; {summarize(batch.invocation)}", flush=True)
        if local.s3 is not None:
            for folder, progress in jobs_in_parts(local.s3).items():
                if told.get(folder) != progress:
                    told[folder] = progress
                    print(f"  job {folder}: {progress}", flush=True)

    try:
        local = start_local_function(args, rie_port=args.rie_port, echo=echo, need_s3=bool(args.upload), on_batch=on_batch)
    except (RieNotFound, FileNotFoundError, OSError, ValueError) as error:
        print(f"supertonic-lambda emulate: {error}", file=sys.stderr)
        return 2
    with local:
        limits = local.limits
        print(f"profile {limits.profile.describe()}; limits {limits.mode}: {limits.detail}")
        print(f"model: {local.model_kind}{' at ' + str(local.model_dir) if local.model_dir else ''}")
        for note in local.notes:
            print(f"note: {note}")
        if local.s3 is not None:
            print(f"S3 (moto): {local.s3.endpoint_url}")
        for mapping in local.mappings:
            print(
                f"SQS event source mapping: {mapping.queue_name} -> {len(mapping.sandboxes)} sandbox(es), "
                f"batch size {mapping.trigger.batch_size}"
            )
        status = _uploads(local, args.upload)
        if args.no_serve:
            return status
        server = FunctionUrlServer(local, args.port).start()
        print(f"Invoke API: curl {local.sandbox.invoke_url} -d '{{}}'")
        print(f'function URL: curl {server.url} -d \'{{"text":"안녕하세요"}}\' -o out.wav')
        print(f"function URL invoke mode: {local.sandbox.function.invoke_mode}")
        print(f"playground: open {server.url} in a browser")
        print("Ctrl-C to stop", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
    return 0


def _uploads(local: LocalFunction, paths: list[Path]) -> int:
    """Upload and invoke each file; 1 if any invocation failed or no S3 trigger exists."""
    if not paths:
        return 0
    if not local.triggers:
        print("--upload needs an S3 event in the template (Events: Type: S3)", file=sys.stderr)
        return 1
    status = 0
    for path in paths:
        trigger = trigger_for(path.name, local.triggers)
        started = time.monotonic()
        batches_before = [len(m.batches) for m in local.mappings]
        event, delivery, written = upload_and_deliver(local, path, trigger)
        key = event["Records"][0]["s3"]["object"]["key"]
        print(f"upload {path} -> s3://{trigger.bucket}/{key}: {summarize(delivery.final)}")
        if delivery.retries:
            print(f"  {delivery.describe()}")
        batches = [b for m, n in zip(local.mappings, batches_before, strict=True) for b in m.batches[n:]]
        if batches:
            print(f"  queues drained: {batches_summary(batches)}; wall {time.monotonic() - started:.1f} s")
        for uri in written:
            print(f"  wrote {uri}")
        status |= not delivery.succeeded
    return status
