"""The runtime loop against a fake Runtime API that reads each streamed chunk as it arrives.

The fake records every call (method, path, headers, body, the chunks of a chunked body and its
trailers) and hands out events from a queue, so a test can say in what order things reached it.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from supertonic_function.runtime import StreamedAnswer
from supertonic_function.runtime.api import RuntimeApi
from supertonic_function.runtime.loop import serve_one

WAIT_S = 10.0  # how long a test waits for something that should happen; never reached when it does
PRELUDE = {"statusCode": 200, "headers": {"content-type": "audio/wav"}, "cookies": ["a=b"]}
NULS = b"\0" * 8


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    chunks: list[bytes] = field(default_factory=list)
    trailers: dict[str, str] = field(default_factory=dict)
    complete: bool = False


class FakeRuntimeApi:
    """A threaded Runtime API: ``/next`` blocks on a queue of events; a chunked POST can be cut after some chunks."""

    def __init__(self) -> None:
        self.events: queue.Queue[tuple[str, dict[str, str], bytes]] = queue.Queue()
        self.requests: list[Recorded] = []
        self.changed = threading.Condition()
        self.cut_after_chunks: int | None = None
        self.cut = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _record(self) -> Recorded:
                record = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
                with fake.changed:
                    fake.requests.append(record)
                    fake.changed.notify_all()
                return record

            def _reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                record = self._record()
                if self.path.endswith("/invocation/next"):
                    request_id, headers, event = fake.events.get()
                    self._reply(200, event, {"Lambda-Runtime-Aws-Request-Id": request_id, **headers})
                else:
                    self._reply(200)
                with fake.changed:
                    record.complete = True
                    fake.changed.notify_all()

            def do_POST(self) -> None:
                record = self._record()
                if self.headers.get("Transfer-Encoding") == "chunked":
                    if not self._read_chunks(record):
                        return
                else:
                    record.body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with fake.changed:
                    record.complete = True
                    fake.changed.notify_all()
                self._reply(202, b'{"status":"OK"}')

            def _read_chunks(self, record: Recorded) -> bool:
                while True:
                    size = int(self.rfile.readline().split(b";")[0], 16)
                    if size == 0:
                        break
                    chunk = self.rfile.read(size)
                    self.rfile.readline()
                    with fake.changed:
                        record.chunks.append(chunk)
                        record.body += chunk
                        fake.changed.notify_all()
                    if fake.cut_after_chunks is not None and len(record.chunks) >= fake.cut_after_chunks:
                        # A reset, not a polite close: what the runtime sees when the other end is gone.
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        self.connection.close()
                        self.close_connection = True
                        fake.cut.set()
                        return False
                while line := self.rfile.readline().strip():
                    name, _, value = line.decode().partition(":")
                    record.trailers[name.strip()] = value.strip()
                return True

            def finish(self) -> None:
                try:
                    super().finish()
                except OSError:
                    pass  # the connection this fake reset on purpose

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def invoke(self, event: Any, request_id: str = "req-1", **headers: str) -> None:
        deadline = str(int(time.time() * 1000) + 60_000)
        # As Lambda sends a JSON event: without the Content-Type, awslambdaric 4.2.2 does not read the event as JSON and posts no answer.
        sent = {"Lambda-Runtime-Deadline-Ms": deadline, "Content-Type": "application/json", **headers}
        self.events.put((request_id, sent, json.dumps(event).encode()))

    def wait_until(self, done: Callable[[list[Recorded]], bool]) -> list[Recorded]:
        with self.changed:
            assert self.changed.wait_for(lambda: done(self.requests), timeout=WAIT_S), [(r.method, r.path) for r in self.requests]
            return list(self.requests)

    def posts(self) -> list[Recorded]:
        with self.changed:
            return [r for r in self.requests if r.method == "POST"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[FakeRuntimeApi]:
    server = FakeRuntimeApi()
    yield server
    server.close()


def _streamed(body: Iterator[bytes], prelude: dict[str, Any] | None = PRELUDE) -> Callable[[Any, Any], StreamedAnswer]:
    return lambda event, context: StreamedAnswer(prelude, body)


def test_a_streamed_answer_is_the_prelude_eight_nuls_and_each_piece_as_a_chunk(fake: FakeRuntimeApi) -> None:
    fake.invoke({"rawPath": "/"}, "req-7")
    serve_one(RuntimeApi(fake.address), _streamed(iter([b"RIFF", b"", b"data"])))
    (post,) = fake.posts()
    assert post.path == "/2018-06-01/runtime/invocation/req-7/response" and post.complete
    assert post.headers["lambda-runtime-function-response-mode"] == "streaming"
    assert post.headers["transfer-encoding"] == "chunked"
    assert post.headers["trailer"] == "Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body"
    assert post.headers["content-type"] == "application/vnd.awslambda.http-integration-response"
    assert post.chunks == [json.dumps(PRELUDE).encode() + NULS, b"RIFF", b"data"]  # the empty piece is not a chunk
    prelude, _, body = post.body.partition(NULS)
    assert json.loads(prelude) == PRELUDE and body == b"RIFFdata"
    assert post.trailers == {}


def test_a_body_without_prelude_goes_as_plain_bytes(fake: FakeRuntimeApi) -> None:
    fake.invoke({})
    serve_one(RuntimeApi(fake.address), _streamed(iter([b"abc"]), prelude=None))
    (post,) = fake.posts()
    assert post.headers["content-type"] == "application/octet-stream"
    assert post.chunks == [b"abc"]


def test_each_piece_reaches_the_runtime_api_before_the_next_is_made(fake: FakeRuntimeApi) -> None:
    seen_when_asked: list[list[bytes]] = []

    def pieces() -> Iterator[bytes]:
        for n in range(3):
            piece = f"piece-{n}".encode()
            yield piece
            # The generator resumes only to make the next piece: piece n must already be at the API.
            records = fake.wait_until(lambda rs, piece=piece: any(piece in r.chunks for r in rs))
            seen_when_asked.append(list(next(r for r in records if r.method == "POST").chunks[1:]))

    fake.invoke({})
    serve_one(RuntimeApi(fake.address), _streamed(pieces()))
    assert seen_when_asked == [[b"piece-0"], [b"piece-0", b"piece-1"], [b"piece-0", b"piece-1", b"piece-2"]]


class DeadlineExceeded(Exception):
    pass


class Refused(Exception):
    error_type = "Synthesis.TextRefused"


@pytest.mark.parametrize(
    ("failure", "error_type"),
    [(DeadlineExceeded("out of time"), "Function.DeadlineExceeded"), (Refused("out of time"), "Synthesis.TextRefused")],
)
def test_a_body_that_fails_mid_stream_ends_with_the_error_trailers(fake: FakeRuntimeApi, failure: Exception, error_type: str) -> None:
    def pieces() -> Iterator[bytes]:
        yield b"first"
        raise failure

    fake.invoke({})
    serve_one(RuntimeApi(fake.address), _streamed(pieces()))
    (post,) = fake.posts()  # no /error: the response had started
    assert post.chunks[1:] == [b"first"] and post.complete
    assert post.trailers["Lambda-Runtime-Function-Error-Type"] == error_type
    error = json.loads(base64.b64decode(post.trailers["Lambda-Runtime-Function-Error-Body"]))
    assert error == {"errorMessage": "out of time", "errorType": error_type}


def test_any_other_result_is_posted_as_json_with_the_context_the_handler_saw(fake: FakeRuntimeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "supertonic")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "2048")

    def handler(event: Any, context: Any) -> dict[str, Any]:
        return {
            "event": event,
            "request_id": context.aws_request_id,
            "arn": context.invoked_function_arn,
            "function_name": context.function_name,
            "memory": context.memory_limit_in_mb,
            "remaining_ms": context.get_remaining_time_in_millis(),
            "identity": context.identity.cognito_identity_id,
            "installation": context.client_context.client.installation_id,
            "trace": os.environ.get("_X_AMZN_TRACE_ID"),
        }

    fake.invoke(
        {"text": "Hello."},
        "req-9",
        **{
            "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-1:123456789012:function:supertonic",
            "Lambda-Runtime-Trace-Id": "Root=1-5759e988-bd862e3fe1be46a994272793",
            "Lambda-Runtime-Cognito-Identity": json.dumps({"cognitoIdentityId": "id-1", "cognitoIdentityPoolId": "pool"}),
            "Lambda-Runtime-Client-Context": json.dumps({"client": {"installation_id": "inst-1"}, "custom": {}, "env": {}}),
        },
    )
    monkeypatch.delenv("_X_AMZN_TRACE_ID", raising=False)
    serve_one(RuntimeApi(fake.address), handler)
    (post,) = fake.posts()
    assert post.path == "/2018-06-01/runtime/invocation/req-9/response"
    assert post.headers["content-type"] == "application/json" and "transfer-encoding" not in post.headers
    result = json.loads(post.body)
    assert 0 < result.pop("remaining_ms") <= 60_000
    assert result == {
        "event": {"text": "Hello."},
        "request_id": "req-9",
        "arn": "arn:aws:lambda:us-east-1:123456789012:function:supertonic",
        "function_name": "supertonic",
        "memory": "2048",
        "identity": "id-1",
        "installation": "inst-1",
        "trace": "Root=1-5759e988-bd862e3fe1be46a994272793",
    }


def test_a_handler_exception_is_posted_to_error(fake: FakeRuntimeApi) -> None:
    def handler(event: Any, context: Any) -> Any:
        raise ValueError("boom")

    fake.invoke({}, "req-3")
    serve_one(RuntimeApi(fake.address), handler)
    (post,) = fake.posts()
    assert post.path == "/2018-06-01/runtime/invocation/req-3/error"
    assert post.headers["lambda-runtime-function-error-type"] == "ValueError"
    error = json.loads(post.body)
    assert {k: error[k] for k in ("errorMessage", "errorType", "requestId")} == {
        "errorMessage": "boom",
        "errorType": "ValueError",
        "requestId": "req-3",
    }
    assert any("raise ValueError" in line for line in error["stackTrace"])


def test_a_cut_connection_closes_the_answer_and_the_loop_goes_on(fake: FakeRuntimeApi) -> None:
    stopped = threading.Event()

    def endless() -> Iterator[bytes]:
        try:
            while True:
                yield b"x" * 1024
        finally:
            stopped.set()  # GeneratorExit from answer.close(): the synthesis behind it stops here

    fake.cut_after_chunks = 2  # the prelude and one piece
    fake.invoke({}, "req-cut")
    api = RuntimeApi(fake.address)
    serve_one(api, _streamed(endless()))
    assert fake.cut.is_set() and stopped.is_set()

    fake.cut_after_chunks = None
    fake.invoke({"n": 2}, "req-next")
    serve_one(api, lambda event, context: event)
    paths = [p.path for p in fake.posts()]
    assert paths == ["/2018-06-01/runtime/invocation/req-cut/response", "/2018-06-01/runtime/invocation/req-next/response"]  # no /error
    assert json.loads(fake.posts()[-1].body) == {"n": 2}


# The two runtime clients docker/entry.sh starts: the function's own loop (RESPONSE_STREAM) and AWS's (BUFFERED).
OWN_LOOP, AWSLAMBDARIC = "supertonic_function.runtime", "awslambdaric"


def _run_loop(fake: FakeRuntimeApi, handler: str, cwd: Path, runtime: str = OWN_LOOP, **env: str) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "AWS_LAMBDA_RUNTIME_API": fake.address, **env}
    return subprocess.Popen(
        [sys.executable, "-m", runtime, handler],
        cwd=cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_an_init_failure_is_posted_to_init_error_and_exits_1(fake: FakeRuntimeApi, tmp_path: Path) -> None:
    process = _run_loop(fake, "no_such_module.handler", tmp_path)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 1, output.decode()
    (post,) = fake.posts()
    assert post.path == "/2018-06-01/runtime/init/error"
    assert post.headers["lambda-runtime-function-error-type"] == "Runtime.ImportModuleError"
    error = json.loads(post.body)
    assert set(error) == {"errorMessage", "errorType", "requestId", "stackTrace"}
    assert error["errorType"] == "Runtime.ImportModuleError" and error["requestId"] == ""
    assert "Unable to import module 'no_such_module'" in error["errorMessage"]
    assert not any(r.path.endswith("/invocation/next") for r in fake.requests)


SNAP_START_FUNCTION = """
from supertonic_function.runtime import after_restore

restored = []
after_restore(lambda: restored.append("hook"))


def handler(event, context):
    return {"restored": restored}
"""


@pytest.mark.parametrize("runtime", [OWN_LOOP, AWSLAMBDARIC])
def test_snap_start_calls_restore_next_and_runs_the_hooks_before_the_first_next(fake: FakeRuntimeApi, tmp_path: Path, runtime: str) -> None:
    # One registration serves whichever client docker/entry.sh starts.
    (tmp_path / "snap_function.py").write_text(SNAP_START_FUNCTION)
    fake.invoke({})
    process = _run_loop(fake, "snap_function.handler", tmp_path, runtime, AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")
    try:
        records = fake.wait_until(lambda rs: any(r.method == "POST" and r.complete for r in rs))
    finally:
        process.kill()
        process.communicate(timeout=30)
    assert [r.path for r in records][:3] == [
        "/2018-06-01/runtime/restore/next",
        "/2018-06-01/runtime/invocation/next",
        "/2018-06-01/runtime/invocation/req-1/response",
    ]
    assert json.loads(records[2].body) == {"restored": ["hook"]}


FAILING_RESTORE_FUNCTION = """
from supertonic_function.runtime import after_restore


def reopen():
    raise ConnectionError("no network after the restore")


after_restore(reopen)


def handler(event, context):
    return {}
"""


@pytest.mark.parametrize("runtime", [OWN_LOOP, AWSLAMBDARIC])
def test_a_failing_after_restore_hook_is_posted_to_restore_error_and_exits_65(fake: FakeRuntimeApi, tmp_path: Path, runtime: str) -> None:
    (tmp_path / "snap_function.py").write_text(FAILING_RESTORE_FUNCTION)
    process = _run_loop(fake, "snap_function.handler", tmp_path, runtime, AWS_LAMBDA_INITIALIZATION_TYPE="snap-start")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 65, output.decode()
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/2018-06-01/runtime/restore/next"),
        ("POST", "/2018-06-01/runtime/restore/error"),
    ]
    error = json.loads(fake.requests[1].body)
    assert "no network after the restore" in error["errorMessage"] and error["errorType"] == "ConnectionError"


def test_a_prelude_that_is_not_json_is_an_error_before_the_response_starts(fake: FakeRuntimeApi) -> None:
    closed = threading.Event()

    def pieces() -> Iterator[bytes]:
        try:
            yield b"never sent"
        finally:
            closed.set()

    body = pieces()
    next(body)  # started, so closing it runs its finally
    fake.invoke({}, "req-bad")
    serve_one(RuntimeApi(fake.address), lambda event, context: StreamedAnswer({"statusCode": 200, "headers": {"x": {1, 2}}}, body))
    (post,) = fake.posts()
    assert post.path == "/2018-06-01/runtime/invocation/req-bad/error"
    assert json.loads(post.body)["errorType"] == "Runtime.MarshalError" and closed.is_set()
