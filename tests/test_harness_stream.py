"""The local function URL in RESPONSE_STREAM mode relays a streamed answer as the function writes it.

Through the real front, the Runtime API proxy and RIE. Until a runtime that streams runs under RIE
(``python -m supertonic_function.runtime``), ``WireRuntime`` plays it from a thread of the test: it
takes the invocation through the proxy as a runtime does and posts the streamed wire (chunked, a
prelude and its 8 NUL bytes, trailers). Every ordering claim is proved by events (the runtime waits
for the client to have read a piece before it makes the next), never by elapsed time.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from harness_fixtures.support import FIXTURES, require_rie, sample_function, write_template

from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.furl import INTEGRATION_RESPONSE_TYPE, StreamedHead, streamed_to_http
from supertonic_harness.fronts.local import LocalFunction
from supertonic_harness.function.limits import open_limits, resolve_profile
from supertonic_harness.function.rie import (
    BUFFERED,
    ENV_INVOKE_MODE,
    RESPONSE_STREAM,
    FunctionSpec,
    UnknownInvokeMode,
)
from supertonic_harness.function.runtime_proxy import RIE_STREAM_CAP, StreamEnd
from supertonic_harness.function.sandbox import Sandbox
from supertonic_harness.function.template import Template
from supertonic_harness.replay.events import Expectation, ReplayEvent
from supertonic_harness.replay.run import replay

# How long one side waits for the other before the test fails: a hang guard, never a budget.
WAIT_S = 30.0
NEXT_PATH = "/2018-06-01/runtime/invocation/next"


def _prelude(status: int = 200, headers: dict | None = None, cookies: list[str] | None = None) -> bytes:
    return json.dumps({"statusCode": status, "headers": headers or {}, "cookies": cookies or []}).encode() + b"\0" * 8


# --- what the pieces are made of -----------------------------------------------------------------


def test_the_prelude_is_found_across_pieces_and_becomes_status_and_headers():
    head = StreamedHead(INTEGRATION_RESPONSE_TYPE)
    wire = _prelude(206, {"content-type": "audio/wav"}, ["a=1"]) + b"RIFF"
    assert head.feed(wire[:10]) == b""
    assert head.response is None
    assert head.feed(wire[10:-8]) == b""  # the NUL bytes are split between pieces
    assert head.feed(wire[-8:]) == b"RIFF"
    assert head.response is not None and head.response.status == 206
    assert head.response.headers == [("content-type", "audio/wav"), ("set-cookie", "a=1")]
    assert head.feed(b"more") == b"more"


def test_a_stream_without_a_prelude_passes_through_as_octet_stream():
    response = streamed_to_http("application/octet-stream", b"\0raw")
    assert (response.status, response.header("content-type"), response.body) == (200, "application/octet-stream", b"\0raw")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"statusCode": 200', "ended before its prelude"),
        (b"[1]" + b"\0" * 8, "not a JSON object"),
        (b'{"headers": {}}' + b"\0" * 8, "no statusCode"),
        (b'{"statusCode": 99}' + b"\0" * 8, "not an HTTP status"),
    ],
)
def test_a_prelude_no_response_can_carry_is_a_502_that_says_why(data, problem):
    response = streamed_to_http(INTEGRATION_RESPONSE_TYPE, data)
    assert response.status == 502 and problem in (response.problem or "")


def test_an_error_trailer_is_decoded():
    body = base64.b64encode(json.dumps({"errorMessage": "late"}).encode()).decode()
    ended = StreamEnd(0.0, True, {"lambda-runtime-function-error-type": "Sample.Late", "Lambda-Runtime-Function-Error-Body": body})
    assert ended.error() == ("Sample.Late", '{"errorMessage": "late"}')
    assert StreamEnd(0.0, True, {}).error() is None


# --- which runtime, which mode --------------------------------------------------------------------


def test_streaming_mode_runs_the_functions_own_loop_and_says_so_in_the_environment():
    streaming = FunctionSpec(handler="m.h", environment={ENV_INVOKE_MODE: BUFFERED}, invoke_mode=RESPONSE_STREAM)
    assert streaming.command()[1:] == ["-m", "supertonic_function.runtime", "m.h"]
    assert streaming.env({})[ENV_INVOKE_MODE] == RESPONSE_STREAM  # the chosen mode wins over the template's variable
    buffered = FunctionSpec(handler="m.h")
    assert buffered.command()[1:] == ["-m", "awslambdaric", "m.h"]
    assert buffered.env({})[ENV_INVOKE_MODE] == BUFFERED
    with pytest.raises(UnknownInvokeMode):
        FunctionSpec(invoke_mode="STREAMING")


@pytest.mark.parametrize(
    ("parameters", "url_config", "expected"),
    [
        ({}, None, BUFFERED),
        ({}, {"AuthType": "NONE", "InvokeMode": "RESPONSE_STREAM"}, RESPONSE_STREAM),
        (
            {"FunctionUrlInvokeMode": {"Type": "String", "Default": "RESPONSE_STREAM"}},
            {"InvokeMode": {"Ref": "FunctionUrlInvokeMode"}},
            RESPONSE_STREAM,
        ),
        ({"FunctionUrlInvokeMode": {"Type": "String", "Default": "BUFFERED"}}, {"InvokeMode": {"Ref": "FunctionUrlInvokeMode"}}, BUFFERED),
    ],
)
def test_the_template_says_the_function_urls_invoke_mode(tmp_path, parameters, url_config, expected):
    properties: dict = {"PackageType": "Image"}
    if url_config is not None:
        properties["FunctionUrlConfig"] = url_config
    data = {"Parameters": parameters, "Resources": {"Fn": {"Type": "AWS::Serverless::Function", "Properties": properties}}}
    assert Template.load(write_template(data, tmp_path / "template.json")).function().invoke_mode == expected


def test_invoke_mode_on_the_command_line_wins_over_the_template(tmp_path):
    from harness_fixtures.support import function_args

    from supertonic_harness.fronts.local import start_local_function

    data = {"Resources": {"Fn": {"Type": "AWS::Lambda::Function", "Properties": {"FunctionUrlConfig": {"InvokeMode": "RESPONSE_STREAM"}}}}}
    template = write_template(data, tmp_path / "template.json")
    args = function_args("--template", str(template), "--no-s3", "--model", str(tmp_path), "--invoke-mode", "BUFFERED")
    args.handler, args.task_root = "sample_functions.echo", FIXTURES
    with start_local_function(args) as local:
        assert local.sandbox.function.invoke_mode == BUFFERED
        assert local.describe()["invoke_mode"] == BUFFERED


# --- a runtime that streams, played from the test ------------------------------------------------


@dataclass(frozen=True)
class _TestPlaysTheRuntime(FunctionSpec):
    """RIE starts a process that only waits; ``WireRuntime`` speaks the Runtime API in its place."""

    def command(self) -> list[str]:
        return [sys.executable, "-c", "import time; time.sleep(3600)"]


class WireRuntime:
    """The Runtime API calls of a runtime that streams, made through the harness's proxy."""

    def __init__(self, address: str) -> None:
        self.address = address

    def next_event(self, stopped: threading.Event) -> tuple[str, dict] | None:
        """The next invocation (a long poll), None once RIE is gone. Until RIE has started the
        runtime's process (on the first invoke), a ``/next`` finds no runtime and RIE drops the
        connection (a nil dereference in its log): ask again."""
        while not stopped.is_set():
            connection = http.client.HTTPConnection(self.address)
            try:
                connection.request("GET", NEXT_PATH)
                answer = connection.getresponse()
                body = answer.read()
            except http.client.RemoteDisconnected:
                time.sleep(0.02)
                continue
            except OSError:
                return None
            finally:
                connection.close()
            if answer.status != 200:
                return None
            return answer.getheader("Lambda-Runtime-Aws-Request-Id") or "", json.loads(body)
        return None

    def open_stream(self, request_id: str, content_type: str = INTEGRATION_RESPONSE_TYPE) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection(self.address, timeout=WAIT_S)
        connection.putrequest("POST", f"/2018-06-01/runtime/invocation/{request_id}/response")
        connection.putheader("Lambda-Runtime-Function-Response-Mode", "streaming")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.putheader("Trailer", "Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body")
        connection.putheader("Content-Type", content_type)
        connection.endheaders()
        return connection

    @staticmethod
    def write(connection: http.client.HTTPConnection, data: bytes) -> None:
        connection.send(b"%x\r\n%b\r\n" % (len(data), data))

    @staticmethod
    def end(connection: http.client.HTTPConnection, trailers: dict[str, str] | None = None) -> int:
        fields = "".join(f"{name}: {value}\r\n" for name, value in (trailers or {}).items())
        connection.send(b"0\r\n" + fields.encode() + b"\r\n")
        answer = connection.getresponse()
        answer.read()
        connection.close()
        return answer.status

    def respond(self, request_id: str, body: bytes) -> int:
        """A response that is not streamed."""
        connection = http.client.HTTPConnection(self.address, timeout=WAIT_S)
        connection.request("POST", f"/2018-06-01/runtime/invocation/{request_id}/response", body=body)
        answer = connection.getresponse()
        answer.read()
        connection.close()
        return answer.status


Script = Callable[[WireRuntime, str, dict], object]


class RuntimePlayer:
    """Plays the runtime for the fixture's whole life: takes each invocation, runs the script a test
    queued for it, and asks for the next one at once, as a runtime does (RIE answers an invoke whose
    response was streamed only when its runtime asks for the next event)."""

    def __init__(self, wire: WireRuntime) -> None:
        self.wire = wire
        self.scripts: queue.Queue[Script] = queue.Queue()
        self.results: queue.Queue[object] = queue.Queue()
        self.stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-runtime", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (invocation := self.wire.next_event(self.stopped)) is not None:
            script = self.scripts.get()
            try:
                self.results.put(script(self.wire, *invocation))
            except BaseException as error:  # handed to the test by ``playing``
                self.results.put(error)

    def stop(self) -> None:
        self.stopped.set()


@dataclass
class Front:
    server: FunctionUrlServer
    runtime: RuntimePlayer
    log: list[str]
    local: LocalFunction

    def connect(self) -> http.client.HTTPConnection:
        host, port = self.server.server_address[:2]
        return http.client.HTTPConnection(str(host), int(port), timeout=WAIT_S)

    def logged(self, text: str) -> str:
        """The log line holding ``text`` once the front wrote it (the client may see the end first)."""
        deadline = time.monotonic() + WAIT_S  # a hang guard
        while time.monotonic() < deadline:
            for line in list(self.log):
                if text in line:
                    return line
            time.sleep(0.02)
        raise AssertionError(f"{text!r} not in the front's log: {self.log}")


@pytest.fixture(scope="module")
def front() -> Iterator[Front]:
    require_rie()
    spec = _TestPlaysTheRuntime(handler="played.by_the_test", task_root=FIXTURES, extra_paths=(), timeout_s=60, invoke_mode=RESPONSE_STREAM)
    log: list[str] = []
    with open_limits(resolve_profile("2vcpu-2gb")) as limits, Sandbox(spec, limits) as box, ExitStack() as stack:
        local = LocalFunction(box, limits, None, [], None, "played by the test", [], stack)
        server = FunctionUrlServer(local, log=log.append).start()
        player = RuntimePlayer(WireRuntime(box.rie.proxy.address))
        try:
            yield Front(server, player, log, local)
        finally:
            player.stop()
            server.stop()


@contextmanager
def playing(front: Front, script: Script) -> Iterator[Callable[[], object]]:
    """``script`` plays the runtime for the next invocation; the yielded call gives its result."""
    front.log.clear()
    front.runtime.scripts.put(script)
    outcome: list[object] = []

    def result() -> object:
        if not outcome:
            outcome.append(front.runtime.results.get(timeout=WAIT_S))
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    yield result
    result()


def test_the_client_reads_the_first_piece_before_the_function_makes_the_next(front):
    client_has_first = threading.Event()
    second_made = threading.Event()

    def runtime(wire: WireRuntime, request_id: str, event: dict) -> int:
        assert event["rawPath"] == "/speak"
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(201, {"content-type": "audio/wav", "x-sample": "streamed"}, ["a=1", "b=2"]))
        wire.write(stream, b"first piece")
        assert client_has_first.wait(WAIT_S), "the client never got the first piece"
        second_made.set()
        wire.write(stream, b"second piece")
        return wire.end(stream)

    with playing(front, runtime) as runtime_result:
        connection = front.connect()
        connection.request("POST", "/speak", body=b'{"text": "hi"}', headers={"content-type": "application/json"})
        response = connection.getresponse()
        assert response.status == 201
        assert response.getheader("content-type") == "audio/wav"
        assert response.getheader("x-sample") == "streamed"
        assert response.msg.get_all("set-cookie") == ["a=1", "b=2"]
        assert response.getheader("transfer-encoding") == "chunked"
        assert response.getheader("x-amzn-requestid")
        assert response.read1() == b"first piece"
        assert not second_made.is_set()  # the function has not made piece 2 yet
        client_has_first.set()
        assert response.read() == b"second piece"
        assert runtime_result() == 202  # RIE took the response
    line = front.logged("POST /speak")
    assert line.startswith("POST /speak: success; 201 audio/wav")  # RIE's outcome
    assert "streamed 23 body bytes in 3 pieces" in line


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_no_buffer_shows_the_first_piece_before_the_function_makes_the_next(front):
    client_has_first = threading.Event()

    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(200, {"content-type": "text/plain"}) + b"one;")
        assert client_has_first.wait(WAIT_S), "curl never printed the first piece"
        wire.write(stream, b"two.")
        return wire.end(stream)

    with playing(front, runtime) as runtime_result:
        curl = subprocess.Popen(["curl", "-s", "--no-buffer", "-d", "{}", front.server.url], stdout=subprocess.PIPE)
        assert curl.stdout is not None
        seen = b""
        while b"one;" not in seen:
            piece = os.read(curl.stdout.fileno(), 64)
            assert piece, f"curl ended having printed {seen!r}"
            seen += piece
        assert seen == b"one;"
        client_has_first.set()
        rest, _ = curl.communicate(timeout=WAIT_S)
        assert seen + rest == b"one;two." and curl.returncode == 0
        assert runtime_result() == 202


def test_an_error_trailer_cuts_the_stream_and_is_logged(front):
    error = base64.b64encode(json.dumps({"errorType": "Sample.Failure", "errorMessage": "broke after the first byte"}).encode()).decode()

    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(200, {"content-type": "audio/wav"}) + b"partial")
        return wire.end(stream, {"Lambda-Runtime-Function-Error-Type": "Sample.Failure", "Lambda-Runtime-Function-Error-Body": error})

    with playing(front, runtime) as runtime_result:
        response = front.connect()
        response.request("GET", "/cut")
        answer = response.getresponse()
        assert answer.status == 200  # sent before the error was known
        assert answer.read1() == b"partial"
        with pytest.raises(http.client.IncompleteRead):  # no last chunk: the client knows the answer is broken
            answer.read()
        assert runtime_result() == 202
    line = front.logged("GET /cut")
    assert "success" in line and "cut" in line  # Lambda counts it a successful response
    assert any("Sample.Failure" in entry and "broke after the first byte" in entry for entry in front.log)


def test_a_client_that_goes_away_makes_the_functions_next_writes_fail(front):
    client_left = threading.Event()

    def runtime(wire: WireRuntime, request_id: str, _: dict) -> str:
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(200, {"content-type": "audio/wav"}) + b"first")
        assert client_left.wait(WAIT_S)
        try:
            for _ in range(10_000):  # a write into a closed socket fails once the peer's reset is back
                wire.write(stream, b"x" * 65536)
        except OSError:
            return "write failed"
        finally:
            stream.close()
        return "every write went through"

    with playing(front, runtime) as runtime_result:
        connection = front.connect()
        connection.request("GET", "/leave")
        response = connection.getresponse()
        assert response.read1() == b"first"
        connection.close()
        client_left.set()
        assert runtime_result() == "write failed"
    assert "the client went away" in front.logged("GET /leave")


def test_an_answer_that_is_not_streamed_is_answered_as_in_buffered_mode(front):
    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        return wire.respond(
            request_id, json.dumps({"statusCode": 202, "headers": {"content-type": "text/plain"}, "body": "whole"}).encode()
        )

    with playing(front, runtime) as runtime_result:
        connection = front.connect()
        connection.request("GET", "/whole")
        response = connection.getresponse()
        assert (response.status, response.getheader("content-length"), response.read()) == (202, "5", b"whole")
        assert runtime_result() == 202
    assert front.logged("GET /whole").startswith("GET /whole: success; 202 text/plain")


def test_a_stream_without_a_prelude_reaches_the_client_as_octet_stream(front):
    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        stream = wire.open_stream(request_id, content_type="application/octet-stream")
        wire.write(stream, b"\0raw bytes")
        return wire.end(stream)

    with playing(front, runtime) as runtime_result:
        connection = front.connect()
        connection.request("GET", "/raw")
        response = connection.getresponse()
        assert (response.status, response.getheader("content-type"), response.read()) == (200, "application/octet-stream", b"\0raw bytes")
        assert runtime_result() == 202


def test_a_stream_past_what_rie_takes_reaches_the_client_whole_and_succeeds(front):
    piece = bytes(range(256)) * 256  # 64 KiB
    count = RIE_STREAM_CAP // len(piece) + 16  # 1 MiB past RIE's cap

    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(200, {"content-type": "application/octet-stream"}))
        for _ in range(count):
            wire.write(stream, piece)
        return wire.end(stream)

    with playing(front, runtime) as runtime_result:
        connection = front.connect()
        connection.request("GET", "/large")
        response = connection.getresponse()
        assert response.read() == piece * count
        assert runtime_result() == 202  # RIE did not refuse it as too large
    assert front.logged("GET /large").startswith("GET /large: success; 200")


def test_replay_reports_when_the_first_and_last_body_bytes_came_in_streaming_mode(front):
    def runtime(wire: WireRuntime, request_id: str, _: dict) -> int:
        stream = wire.open_stream(request_id)
        wire.write(stream, _prelude(200, {"content-type": "text/plain"}))
        wire.write(stream, b"first")
        wire.write(stream, b"last")
        return wire.end(stream)

    event = ReplayEvent("streamed", Path("streamed.json"), {"rawPath": "/"}, Expectation(status=200, content_type="text/plain"))
    with playing(front, runtime):
        report = replay(front.local, [event])
    (record,) = report.records
    assert record.passed, record.failures
    assert record.first_byte_ms is not None and record.last_byte_ms is not None
    assert 0 < record.first_byte_ms <= record.last_byte_ms <= record.wall_ms
    assert record.status == 200 and record.content_type == "text/plain"


# --- the function's own runtime loop, once it is on this branch ----------------------------------


def test_the_runtime_loop_streams_a_handlers_answer_through_the_front(tmp_path):
    pytest.importorskip("supertonic_function.runtime.loop")
    spec = replace(sample_function("stream_pieces", timeout_s=30), invoke_mode=RESPONSE_STREAM)
    signal = tmp_path / "make-piece-2"
    log: list[str] = []
    with open_limits(resolve_profile("2vcpu-2gb")) as limits, Sandbox(spec, limits) as box, ExitStack() as stack:
        server = FunctionUrlServer(LocalFunction(box, limits, None, [], None, "none", [], stack), log=log.append).start()
        try:
            host, port = server.server_address[:2]
            connection = http.client.HTTPConnection(str(host), int(port), timeout=WAIT_S)
            connection.request("POST", "/", body=json.dumps({"signal": str(signal)}).encode(), headers={"content-type": "application/json"})
            response = connection.getresponse()
            assert (response.status, response.getheader("x-sample"), response.getheader("set-cookie")) == (201, "streamed", "a=1")
            assert response.read1() == b"piece 1;"  # piece 2 waits for the signal, which is not there yet
            signal.touch()
            assert response.read() == b"piece 2."
        finally:
            server.stop()
