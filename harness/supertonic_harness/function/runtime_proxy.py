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
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INIT_ALLOWANCE_S = 10.0
DEADLINE_HEADER = "Lambda-Runtime-Deadline-Ms"
REQUEST_ID_HEADER = "Lambda-Runtime-Aws-Request-Id"
_NEXT_SUFFIX = "/runtime/invocation/next"
_HOST = "127.0.0.1"  # the runtime reaches it on loopback, like RIE's own Runtime API
# Headers http.server/http.client manage themselves; passing them through would duplicate them.
_HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


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
        timer.start()
        return deadline_ms

    def _answered(self, request_id: str) -> None:
        with self._lock:
            timer = self._watchdogs.pop(request_id, None)
        if timer is not None:
            timer.cancel()

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
                self.send_response(status)
                for key, value in reply_headers:
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

        return Handler
