"""S3 faults between the function and moto: an HTTP proxy on loopback that a schedule tells when to fail.

The function's ``AWS_ENDPOINT_URL_S3`` points here instead of at moto's server, so every request
the function makes passes through, numbered from 1 and named by its S3 operation (``HeadObject``,
``GetObject``, ``PutObject``, ...). A ``FaultSchedule`` says which request gets which fault:

* ``slow_down`` and ``internal_error``: S3's own 503 ``SlowDown`` and 500 ``InternalError``
  answers, the request never reaching moto (as S3 refuses a request it is too busy for);
* ``reset``: the connection reset before the request is forwarded;
* ``lost_reply``: the request is forwarded and applied, then the connection is reset before the
  answer, so the client cannot know its write landed (S3 may also apply a request it answers
  with a 500: the client's retry then meets its own earlier write);
* ``slow_read``: the answer trickles in over ``slow_read_s`` (below botocore's read timeout);
* ``barrier``: the request is held until ``barrier_count`` matching ones have arrived (or
  ``barrier_timeout_s`` passed), then forwarded: two deliveries that ask "is there a manifest?"
  both hear "no", which is the race at-least-once delivery allows.

moto checks a conditional write (``If-None-Match: *``) and stores the object in two steps without
a lock, where S3 does both at once; the proxy forwards conditional writes one at a time, so two
deliveries racing to publish meet S3's guarantee here too.

It is bounded: it listens on loopback only, forwards only to a loopback upstream, injects at most
``max_faults`` faults, and every wait it adds has a time limit. ``exchanges`` records each request
with the fault it got and moto's status, so a test can say what happened on the wire.

    with FaultProxy(moto_url) as proxy:
        environment["AWS_ENDPOINT_URL_S3"] = proxy.url       # the function's S3, started later
        proxy.arm(FaultSchedule((Rule(Fault.SLOW_DOWN, operation="GetObject"),)))
"""

from __future__ import annotations

import http.client
import random
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from ..function.rie import LOOPBACK

UPSTREAM_TIMEOUT_S = 30.0
# Headers that describe one hop, not the message; the proxy sets its own.
_HOP_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})


class Fault(StrEnum):
    SLOW_DOWN = "slow_down"
    INTERNAL_ERROR = "internal_error"
    RESET = "reset"
    LOST_REPLY = "lost_reply"
    SLOW_READ = "slow_read"
    BARRIER = "barrier"


# What botocore's standard retries are meant to absorb; a seeded schedule draws from these.
TRANSIENT = (Fault.SLOW_DOWN, Fault.INTERNAL_ERROR, Fault.RESET, Fault.LOST_REPLY, Fault.SLOW_READ)
# S3's own error answers (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
_ERROR_ANSWERS = {
    Fault.SLOW_DOWN: (503, "SlowDown", "Please reduce your request rate."),
    Fault.INTERNAL_ERROR: (500, "InternalError", "We encountered an internal error. Please try again."),
}


@dataclass(frozen=True)
class S3Request:
    """One request as the proxy sees it: its number, S3 operation and object."""

    number: int
    method: str
    operation: str
    bucket: str | None
    key: str | None


@dataclass(frozen=True)
class Rule:
    """``fault`` for the ``nth`` to ``nth + times - 1``-th request matching ``operation``/``key``
    (``key``: a substring of the object key, e.g. ``"manifest.json"``), or for the ``request``-th
    request through the proxy whatever it is."""

    fault: Fault
    operation: str | None = None
    key: str | None = None
    nth: int = 1
    times: int = 1
    request: int | None = None

    def matches(self, request: S3Request) -> bool:
        if self.request is not None:
            return request.number == self.request
        if self.operation is not None and request.operation != self.operation:
            return False
        return self.key is None or (request.key is not None and self.key in request.key)


@dataclass(frozen=True)
class FaultSchedule:
    """Rules, tried in order for each request (the first due one wins), and the bounds on them."""

    rules: tuple[Rule, ...] = ()
    max_faults: int = 100
    slow_read_s: float = 0.5
    barrier_count: int = 2
    barrier_timeout_s: float = 10.0
    seed: int | None = None

    @classmethod
    def seeded(
        cls,
        seed: int,
        *,
        requests: int,
        rate: float,
        kinds: Sequence[Fault] = TRANSIENT,
        max_faults: int = 100,
    ) -> FaultSchedule:
        """Request numbers 1..``requests`` each get a fault with probability ``rate``, its kind drawn
        from ``kinds``: the same seed gives the same schedule, so a failing run can be replayed."""
        draw = random.Random(seed)  # a replayable test schedule, not a secret  # nosec B311
        rules = tuple(Rule(draw.choice(kinds), request=number) for number in range(1, requests + 1) if draw.random() < rate)
        return cls(rules, max_faults=max_faults, seed=seed)

    def describe(self) -> str:
        planned = Counter(rule.fault.value for rule in self.rules for _ in range(1 if rule.request else rule.times))
        seed = f"seed {self.seed}: " if self.seed is not None else ""
        return seed + (", ".join(f"{kind} x{n}" for kind, n in sorted(planned.items())) or "no faults")


@dataclass
class Exchange:
    """What happened to one request: the fault it got and moto's status (None: never answered)."""

    request: S3Request
    fault: Fault | None
    upstream_status: int | None = None


def s3_operation(method: str, path: str, headers: Iterable[tuple[str, str]] = ()) -> tuple[str, str | None, str | None]:
    """(operation, bucket, key) of a path-style S3 request, as botocore names the operation."""
    parts = urlsplit(path)
    query = parse_qs(parts.query, keep_blank_values=True)
    bucket_part, _, key_part = parts.path.lstrip("/").partition("/")
    bucket, key = unquote(bucket_part) or None, unquote(key_part) or None
    if "x-id" in query:  # botocore names the operation itself on most object requests
        return query["x-id"][0], bucket, key
    if bucket is None:
        return "ListBuckets", None, None
    if key is None:
        by_method = {
            "GET": "ListObjectsV2" if "list-type" in query else "ListObjects",
            "HEAD": "HeadBucket",
            "PUT": "CreateBucket",
            "DELETE": "DeleteBucket",
            "POST": "DeleteObjects",
        }
        return by_method.get(method, method), bucket, None
    if "uploadId" in query:
        by_method = {"PUT": "UploadPart", "POST": "CompleteMultipartUpload", "DELETE": "AbortMultipartUpload", "GET": "ListParts"}
        return by_method.get(method, method), bucket, key
    if method == "POST" and "uploads" in query:
        return "CreateMultipartUpload", bucket, key
    if method == "PUT" and any(name.lower() == "x-amz-copy-source" for name, _ in headers):
        return "CopyObject", bucket, key
    by_method = {"GET": "GetObject", "HEAD": "HeadObject", "PUT": "PutObject", "DELETE": "DeleteObject"}
    return by_method.get(method, method), bucket, key


class FaultProxy(ThreadingHTTPServer):
    """The proxy: forwards to ``upstream`` (moto) and injects what ``schedule`` says, on a thread."""

    daemon_threads = True

    def __init__(self, upstream: str, schedule: FaultSchedule = FaultSchedule()) -> None:
        target = urlsplit(upstream)
        if target.hostname not in (LOOPBACK, "localhost") or target.port is None:
            raise ValueError(f"the fault proxy forwards to a loopback address only, not {upstream}")
        self.upstream = (target.hostname, target.port)
        self._lock = threading.Lock()
        self._barrier = threading.Condition(self._lock)
        self._conditional_writes = threading.Lock()
        self._closing = False
        self.arm(schedule)
        super().__init__((LOOPBACK, 0), _ProxyHandler)
        self._thread = threading.Thread(target=self.serve_forever, name="s3-fault-proxy", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}"

    def arm(self, schedule: FaultSchedule) -> None:
        """Follow ``schedule`` from now on, numbering requests from 1 again and forgetting the exchanges."""
        with self._lock:
            self.schedule = schedule
            self.exchanges: list[Exchange] = []
            self._seen = [0] * len(schedule.rules)  # matching requests so far, per rule
            self._injected = 0
            self._barrier_arrived: dict[int, int] = {}

    def decide(self, method: str, path: str, headers: Iterable[tuple[str, str]]) -> tuple[S3Request, Fault | None, int | None]:
        """Number the request and pick its fault (and the rule that gave it); every rule counts it."""
        operation, bucket, key = s3_operation(method, path, headers)
        with self._lock:
            request = S3Request(len(self.exchanges) + 1, method, operation, bucket, key)
            chosen: tuple[Fault | None, int | None] = (None, None)
            for index, rule in enumerate(self.schedule.rules):
                if not rule.matches(request):
                    continue
                self._seen[index] += 1
                due = rule.request is not None or rule.nth <= self._seen[index] < rule.nth + rule.times
                if due and chosen[0] is None and self._injected < self.schedule.max_faults:
                    chosen = (rule.fault, index)
            if chosen[0] is not None:
                self._injected += 1
            self.exchanges.append(Exchange(request, chosen[0]))
            return request, *chosen

    def wait_at_barrier(self, rule_index: int) -> None:
        """Hold until ``barrier_count`` requests of this rule have arrived, or the time limit."""
        deadline = time.monotonic() + self.schedule.barrier_timeout_s
        with self._barrier:
            self._barrier_arrived[rule_index] = self._barrier_arrived.get(rule_index, 0) + 1
            self._barrier.notify_all()
            while self._barrier_arrived[rule_index] < self.schedule.barrier_count and not self._closing:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._barrier.wait(remaining)

    def answered(self, request: S3Request, status: int) -> None:
        with self._lock:
            self.exchanges[request.number - 1].upstream_status = status

    def injected(self) -> dict[str, int]:
        """Faults injected so far, by kind."""
        with self._lock:
            return dict(Counter(e.fault.value for e in self.exchanges if e.fault is not None))

    def operations(self, operation: str, key: str | None = None) -> list[Exchange]:
        """The exchanges of one operation (on keys containing ``key``), in order."""
        with self._lock:
            return [e for e in self.exchanges if e.request.operation == operation and (key is None or key in (e.request.key or ""))]

    def close(self) -> None:
        with self._barrier:
            self._closing = True
            self._barrier.notify_all()
        self.shutdown()
        self.server_close()
        self._thread.join(5)

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _ProxyHandler(BaseHTTPRequestHandler):
    server: FaultProxy
    protocol_version = "HTTP/1.1"
    timeout = UPSTREAM_TIMEOUT_S  # an idle or stuck client connection does not hold a thread forever

    def _handle(self) -> None:
        body = self._read_body()
        request, fault, rule = self.server.decide(self.command, self.path, self.headers.items())
        if fault in _ERROR_ANSWERS:
            self._error_answer(*_ERROR_ANSWERS[fault], request)
            return
        if fault is Fault.RESET:
            self._reset()
            return
        if fault is Fault.BARRIER and rule is not None:
            self.server.wait_at_barrier(rule)
        status, headers, payload = self._forward(body)
        self.server.answered(request, status)
        if fault is Fault.LOST_REPLY:
            self._reset()
            return
        self._reply(status, headers, payload, slow=fault is Fault.SLOW_READ)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _handle

    def _read_body(self) -> bytes:
        """The request body exactly as sent (a chunked one with its framing), to forward unchanged."""
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            raw = bytearray()
            while True:
                size_line = self.rfile.readline()
                raw += size_line
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    break
                raw += self.rfile.read(size + 2)  # the chunk and its CRLF
            while True:  # trailers (aws-chunked checksums), up to the blank line
                line = self.rfile.readline()
                raw += line
                if line in (b"\r\n", b"\n", b""):
                    return bytes(raw)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _forward(self, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        if self.command in ("PUT", "POST") and (self.headers.get("if-none-match") or self.headers.get("if-match")):
            with self.server._conditional_writes:  # atomic, as S3 applies them (see the module's docstring)
                return self._forward_now(body)
        return self._forward_now(body)

    def _forward_now(self, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        connection = http.client.HTTPConnection(*self.server.upstream, timeout=UPSTREAM_TIMEOUT_S)
        try:
            connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():  # Host included: the signature covers it
                if name.lower() not in ("connection", "keep-alive"):
                    connection.putheader(name, value)
            connection.endheaders(body or None)
            response = connection.getresponse()
            payload = response.read()
            return response.status, response.getheaders(), payload
        finally:
            connection.close()

    def _reply(self, status: int, headers: list[tuple[str, str]], payload: bytes, *, slow: bool) -> None:
        delay = self.server.schedule.slow_read_s if slow else 0.0
        pieces = 8 if payload and slow else 1
        if slow and not payload:
            time.sleep(delay)  # nothing to trickle (HEAD): the answer itself comes late
        self.send_response_only(status)
        for name, value in headers:
            # A HEAD answer keeps moto's Content-Length: it is the object's size, not this body's.
            if name.lower() not in _HOP_HEADERS or (self.command == "HEAD" and name.lower() == "content-length"):
                self.send_header(name, value)
        if self.command != "HEAD":
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command == "HEAD":
            return
        step = -(-len(payload) // pieces) or 1
        for start in range(0, len(payload), step):
            self.wfile.write(payload[start : start + step])
            self.wfile.flush()
            if pieces > 1:
                time.sleep(delay / pieces)

    def _error_answer(self, status: int, code: str, message: str, request: S3Request) -> None:
        resource = f"/{request.bucket or ''}/{request.key or ''}".rstrip("/")
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{code}</Code><Message>{message}</Message><Resource>{resource}</Resource>"
            f"<RequestId>FAULT{request.number:08d}</RequestId></Error>"
        ).encode()
        self.send_response_only(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":  # S3 answers a HEAD's error with the status alone
            self.wfile.write(body)

    def _reset(self) -> None:
        """Close with RST (linger 0), as a dropped connection looks to the client."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def log_message(self, format: str, *args: object) -> None:
        """Silenced: ``exchanges`` keeps what a test needs."""
