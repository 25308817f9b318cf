"""A Runtime API proxy between RIE and the function, so the function's timeout starts as on Lambda.

RIE starts the runtime lazily inside the first invoke and counts that init against the invoke's
timeout: with a 4 s timeout and a 2.3 s init, the first request finds most of its time gone. Lambda
runs an on-demand init (up to 10 s) *before* the invoke and starts the timeout when the event is
handed to the runtime. To get that here:

* RIE is given the function's timeout plus ``INIT_ALLOWANCE_S`` (Lambda's init limit), so RIE's own
  timeout can only fire when Lambda's would have fired too (an init of more than 10 s, which Lambda
  retries inside the invoke under the function's timeout);
* the runtime talks to this proxy instead of RIE (its ``AWS_LAMBDA_RUNTIME_API``); the proxy passes
  every call through, and on each ``/invocation/next`` answer rewrites ``Lambda-Runtime-Deadline-Ms``
  to the moment of hand-over plus the function's timeout (never later than RIE's deadline);
* when that deadline passes without ``/response`` or ``/error`` for the request, the proxy kills the
  runtime, as Lambda does on a timeout, and remembers it; the harness then reports a timeout and
  the next invoke is a cold start, exactly as on Lambda.

A streamed ``/response`` (``Lambda-Runtime-Function-Response-Mode: streaming``, chunked) is read
chunk by chunk: each piece goes at once to the ``StreamRelay`` the invoke was given (the local
function URL front relays it to its client) and on to RIE, which cannot show incremental delivery
(it reads the body to its end and answers the invoke once). Such a response ends the invocation,
and so its watchdog, when its last chunk arrives, not when it starts. RIE answers a body of more
than 6 MiB + 100 bytes with ``Function.ResponseSizeTooLarge`` (measured with aws-sam-cli 1.170.0's
binary: a 7 MiB streamed body, errorMessage "... maximum allowed payload size (6291556 bytes)"),
while Lambda streams up to 200 MB (the Lambda guide, "Response streaming"); so RIE is sent only the
first ``RIE_STREAM_CAP`` bytes, and the invoke's outcome stays Lambda's. The relay has every byte.
(Also measured: RIE answers the invoke of a streamed response only when the runtime next asks for
``/invocation/next``, which every runtime loop does at once.)
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import http.client
import queue
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

INIT_ALLOWANCE_S = 10.0
DEADLINE_HEADER = "Lambda-Runtime-Deadline-Ms"
REQUEST_ID_HEADER = "Lambda-Runtime-Aws-Request-Id"
_NEXT_SUFFIX = "/runtime/invocation/next"
_HOST = "127.0.0.1"  # the runtime reaches it on loopback, like RIE's own Runtime API
# Headers http.server/http.client manage themselves; passing them through would duplicate them.
_HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}
RESPONSE_MODE_HEADER = "Lambda-Runtime-Function-Response-Mode"
ERROR_TYPE_TRAILER = "Lambda-Runtime-Function-Error-Type"
ERROR_BODY_TRAILER = "Lambda-Runtime-Function-Error-Body"
# What RIE is sent of a streamed body: 6 MiB, under the 6291556 bytes it refuses past (see above).
RIE_STREAM_CAP = 6 * 1024 * 1024
# Longest chunk-size or trailer line read (RFC 9112 §7.1 sets none; a reader must set one).
MAX_CHUNK_LINE = 8192
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")


class ByteStream(Protocol):
    """What a chunked body is read from: a socket's buffered reader, or bytes in a test."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readline(self, size: int = -1, /) -> bytes: ...


class BadChunking(ValueError):
    """A chunked body that breaks RFC 9112 §7.1, or a connection that ends inside one."""


def read_chunks(stream: ByteStream, trailers: dict[str, str] | None = None) -> Iterator[bytes]:
    """Each chunk's data (``size[;extension] CRLF data CRLF``) as it arrives, up to the zero-size
    chunk; then the trailer fields up to the empty line, into ``trailers`` when given."""
    while True:
        size_field = _chunk_line(stream).split(b";", 1)[0].strip()
        if not _CHUNK_SIZE.fullmatch(size_field):
            raise BadChunking(f"chunk size {size_field[:20]!r} is not hexadecimal")
        size = int(size_field, 16)
        if size == 0:
            break
        data = stream.read(size)
        if len(data) != size or stream.read(2) != b"\r\n":
            raise BadChunking("a chunk ended before its size or without CRLF")
        yield data
    while line := _chunk_line(stream).strip():
        name, _, value = line.decode("latin-1").partition(":")
        if trailers is not None:
            trailers[name.strip()] = value.strip()


def _chunk_line(stream: ByteStream) -> bytes:
    line = stream.readline(MAX_CHUNK_LINE + 1)
    if not line.endswith(b"\n") or len(line) > MAX_CHUNK_LINE:
        raise BadChunking("a chunk's size line or a trailer is cut off or too long")
    return line


@dataclass(frozen=True)
class StreamStart:
    """The runtime began a streamed response (``at``: ``time.perf_counter()``)."""

    request_id: str
    content_type: str | None
    at: float


@dataclass(frozen=True)
class StreamPiece:
    """One chunk of the streamed body, as the runtime wrote it."""

    data: bytes
    at: float


@dataclass(frozen=True)
class StreamEnd:
    """The stream is over: ``complete`` when its last chunk came, False when the runtime's
    connection ended inside it (killed at its timeout, crashed)."""

    at: float
    complete: bool
    trailers: Mapping[str, str] = field(default_factory=dict)

    def error(self) -> tuple[str, str] | None:
        """(type, body) of an error the function reported after the first byte; the body is the
        trailer's base64 decoded (kept as sent when it is not base64)."""
        found = {k.lower(): v for k, v in self.trailers.items()}
        error_type = found.get(ERROR_TYPE_TRAILER.lower())
        if error_type is None:
            return None
        raw = found.get(ERROR_BODY_TRAILER.lower(), "")
        try:
            body = base64.b64decode(raw, validate=True).decode("utf-8", "replace")
        except binascii.Error:
            body = raw
        return error_type, body


StreamEvent = StreamStart | StreamPiece | StreamEnd


class StreamRelay:
    """One invoke's streamed response, handed over piece by piece as the proxy reads it.

    The proxy puts events from its thread; ``events()`` yields them to one reader until the invoke
    is over (``close``). A response that was not streamed yields nothing. ``cancel`` says the
    client is gone: the proxy then closes the runtime's connection, so its next write fails, as
    on Lambda when a function URL's client goes away.
    """

    def __init__(self) -> None:
        self._events: queue.SimpleQueue[StreamEvent | None] = queue.SimpleQueue()
        self._cancelled = threading.Event()
        self.sent_at: float | None = None  # when the invoke was sent (``time.perf_counter()``)

    def put(self, event: StreamEvent) -> None:
        self._events.put(event)

    def close(self) -> None:
        self._events.put(None)

    def events(self) -> Iterator[StreamEvent]:
        while (event := self._events.get()) is not None:
            yield event

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()


class RuntimeApiProxy:
    """Serves the Runtime API on ``address`` and forwards it to RIE's at ``upstream`` (host:port).

    ``timeout_s`` is the function's timeout as Lambda counts it; ``kill_runtime`` ends the runtime
    when an invocation outlives it.
    """

    def __init__(self, upstream: str, timeout_s: float, kill_runtime: Callable[[], None]) -> None:
        self.upstream = upstream
        self.timeout_s = timeout_s
        self._kill_runtime = kill_runtime
        self._lock = threading.Lock()
        self._watchdogs: dict[str, threading.Timer] = {}
        self._timed_out: set[str] = set()
        self._pending_relay: StreamRelay | None = None
        self._relays: dict[str, StreamRelay] = {}
        self._server = ThreadingHTTPServer((_HOST, 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="runtime-api-proxy", daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"{_HOST}:{self._server.server_port}"

    def timed_out(self, request_id: str | None) -> bool:
        """The proxy killed the runtime because this invocation outlived the function's timeout."""
        with self._lock:
            return request_id in self._timed_out

    def expect_stream(self, relay: StreamRelay | None) -> None:
        """The next invocation handed over streams into ``relay`` (None: into nothing); a relay no
        longer wanted is forgotten."""
        with self._lock:
            self._pending_relay = relay
            self._relays.clear()  # one invocation at a time: any other binding is stale

    def close(self) -> None:
        with self._lock:
            for timer in self._watchdogs.values():
                timer.cancel()
            self._watchdogs.clear()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(2.0)

    # --- what the handler class calls -----------------------------------------------------------

    def _handed_over(self, request_id: str, rie_deadline_ms: int | None) -> int:
        """The invocation reaches the runtime now: its deadline, and a watchdog for it."""
        now_ms = time.time() * 1000.0
        deadline_ms = int(now_ms + self.timeout_s * 1000.0)
        if rie_deadline_ms is not None:
            deadline_ms = min(deadline_ms, rie_deadline_ms)
        timer = threading.Timer(max(0.0, (deadline_ms - now_ms) / 1000.0), self._expire, args=(request_id,))
        timer.daemon = True
        with self._lock:
            self._watchdogs[request_id] = timer
            if self._pending_relay is not None:
                self._relays[request_id] = self._pending_relay
                self._pending_relay = None
        timer.start()
        return deadline_ms

    def _answered(self, request_id: str) -> None:
        with self._lock:
            timer = self._watchdogs.pop(request_id, None)
        if timer is not None:
            timer.cancel()

    def _relay_for(self, request_id: str) -> StreamRelay | None:
        with self._lock:
            return self._relays.pop(request_id, None)

    def _expire(self, request_id: str) -> None:
        with self._lock:
            if self._watchdogs.pop(request_id, None) is None:
                return  # answered in the meantime
            self._timed_out.add(request_id)
        self._kill_runtime()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._forward()

            def do_POST(self) -> None:
                self._forward()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
                pass  # RIE logs every call already

            def _forward(self) -> None:
                if self.command == "POST" and (self.headers.get(RESPONSE_MODE_HEADER) or "").lower() == "streaming":
                    self._forward_stream()
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS}
                if self.command == "POST":
                    # .../invocation/{id}/response or /error: the runtime has answered in time.
                    parts = self.path.rstrip("/").split("/")
                    if len(parts) >= 2 and parts[-1] in ("response", "error"):
                        proxy._answered(parts[-2])
                # No timeout: /next is a long poll that waits for the next event.
                upstream = http.client.HTTPConnection(proxy.upstream)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                    data = answer.read()
                    reply_headers = [(k, v) for k, v in answer.getheaders() if k.lower() not in _HOP_HEADERS]
                    status = answer.status
                except OSError:
                    # RIE is going away (stop, reset): the runtime sees its Runtime API fail, as it would.
                    self.close_connection = True
                    return
                finally:
                    upstream.close()
                if self.command == "GET" and self.path.endswith(_NEXT_SUFFIX) and status == 200:
                    reply_headers = self._with_deadline(reply_headers)
                self._reply(status, reply_headers, data)

            def _reply(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
                """RIE's answer, passed back to the runtime."""
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _with_deadline(self, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
                found = {k.lower(): v for k, v in headers}
                request_id = found.get(REQUEST_ID_HEADER.lower())
                if request_id is None:
                    return headers
                rie_deadline = found.get(DEADLINE_HEADER.lower())
                deadline_ms = proxy._handed_over(request_id, int(rie_deadline) if rie_deadline else None)
                kept = [(k, v) for k, v in headers if k.lower() != DEADLINE_HEADER.lower()]
                return [*kept, (DEADLINE_HEADER, str(deadline_ms))]

            def _forward_stream(self) -> None:
                """A streamed ``/response``: each chunk to the relay and on to RIE as it comes."""
                request_id = self.path.rstrip("/").split("/")[-2]
                relay = proxy._relay_for(request_id)
                headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS]
                upstream = http.client.HTTPConnection(proxy.upstream)
                try:
                    self._stream(request_id, relay, headers, upstream)
                finally:
                    upstream.close()
                    proxy._answered(request_id)  # only now: the response ends when its stream does

            def _stream(
                self, request_id: str, relay: StreamRelay | None, headers: list[tuple[str, str]], upstream: http.client.HTTPConnection
            ) -> None:
                try:
                    upstream.putrequest("POST", self.path, skip_accept_encoding=True)
                    for key, value in headers:
                        upstream.putheader(key, value)
                    upstream.putheader("Transfer-Encoding", "chunked")
                    upstream.endheaders()
                except OSError:
                    self.close_connection = True
                    return
                if relay is not None:
                    relay.put(StreamStart(request_id, self.headers.get("Content-Type"), time.perf_counter()))
                trailers: dict[str, str] = {}
                forwarded = 0
                try:
                    for data in read_chunks(self.rfile, trailers):
                        if relay is not None:
                            relay.put(StreamPiece(data, time.perf_counter()))
                        kept = data[: max(0, RIE_STREAM_CAP - forwarded)]
                        if kept:
                            upstream.send(b"%x\r\n%b\r\n" % (len(kept), kept))
                            forwarded += len(kept)
                        if relay is not None and relay.cancelled:
                            break
                    else:
                        if relay is not None:
                            relay.put(StreamEnd(time.perf_counter(), True, trailers))
                except (BadChunking, OSError):
                    # The runtime's connection ended inside the stream (killed, crashed): RIE is cut
                    # off too, and sees the runtime's end as it would have without the proxy.
                    if relay is not None:
                        relay.put(StreamEnd(time.perf_counter(), False, trailers))
                    self.close_connection = True
                    return
                if relay is not None and relay.cancelled:
                    # The client went away: RIE gets a complete response (the invocation ends now), and
                    # the runtime a closed connection, so its next write fails.
                    relay.put(StreamEnd(time.perf_counter(), False, trailers))
                    self._finish_upstream(upstream, {})
                    self.close_connection = True
                    with contextlib.suppress(OSError):  # the runtime may have closed it already
                        self.connection.shutdown(socket.SHUT_RDWR)
                    return
                answer = self._finish_upstream(upstream, trailers)
                if answer is None:
                    self.close_connection = True
                    return
                self._reply(*answer)

            def _finish_upstream(
                self, upstream: http.client.HTTPConnection, trailers: Mapping[str, str]
            ) -> tuple[int, list[tuple[str, str]], bytes] | None:
                """The last chunk and the trailers to RIE, and RIE's answer (None: RIE is gone)."""
                fields = "".join(f"{name}: {value}\r\n" for name, value in trailers.items())
                try:
                    upstream.send(b"0\r\n" + fields.encode("latin-1") + b"\r\n")
                    answer = upstream.getresponse()
                    data = answer.read()
                except OSError:
                    return None
                return answer.status, [(k, v) for k, v in answer.getheaders() if k.lower() not in _HOP_HEADERS], data

        return Handler
