"""Real clients against the real function in RESPONSE_STREAM mode: its own runtime loop under RIE,
the tiny stand-in, the local function URL relaying each piece as the function writes it.

Each client must have its first audio bytes before the function has made its last chunk. That is
an order of events, read from two clocks of this one machine: the wall time at which the client
held its first bytes, and the timestamp of the function's ``synthesized`` log line, written after
its last chunk. The texts are long and the later chunks slow (many steps) so that the two are far
apart wherever this runs.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from harness_fixtures.support import function_args

from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.local import LocalFunction, start_local_function
from supertonic_harness.function.measure import descendants

PARAGRAPH = (
    "Streaming sends the first words while the rest are still being made. A listener hears the start "
    "at once, and the function keeps working on every sentence that follows, one chunk after another. "
)
LONG_TEXT = PARAGRAPH * 6  # about 1,200 characters: seven or more chunks
# The deployment's small first chunk, cheap to render; the later chunks are slow on purpose.
# A small first chunk; and no render-time plan: these long texts at many steps are meant to run
# until the client leaves or the deadline cuts them, which the plan would refuse up front.
FIRST_CHUNK = {"SUPERTONIC_FIRST_CHUNK_CHARS": "24", "SUPERTONIC_FIRST_CHUNK_STEPS": "1", "SUPERTONIC_SYNC_PLAN_RTF": "0"}


@pytest.fixture(scope="module")
def streaming_front(tiny_model_dir) -> Iterator[tuple[FunctionUrlServer, LocalFunction]]:
    args = function_args("--model", str(tiny_model_dir), "--timeout", "60", "--invoke-mode", "RESPONSE_STREAM")
    with start_local_function(args, environment_overrides=FIRST_CHUNK) as local:
        server = FunctionUrlServer(local, log=lambda line: None).start()
        try:
            yield server, local
        finally:
            server.stop()


def _synthesized_at(local: LocalFunction, mark: int) -> float:
    """The wall time of the function's first ``synthesized`` log line after ``mark`` (waits for it)."""
    log = local.sandbox.rie.log
    lines = log.wait_for(mark, lambda lines: any('"message":"synthesized"' in line for line in lines), 60.0)
    entry = json.loads(next(line for line in lines if '"message":"synthesized"' in line))
    return datetime.strptime(entry["timestamp"], "%Y-%m-%d %H:%M:%S,%f%z").timestamp()


def _cpu_s(root_pid: int) -> float:
    """CPU seconds (user and system) used so far by ``root_pid`` and its descendants: RIE and the runtime."""
    ticks = 0
    for pid in (root_pid, *descendants(root_pid)):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of proc(5)
    return ticks / os.sysconf("SC_CLK_TCK")


def _request(text: str = LONG_TEXT, **fields: Any) -> dict[str, Any]:
    return {"text": text, "format": "pcm", "steps": 100, "seed": 5} | fields


def test_httpx_gets_its_first_audio_before_the_last_chunk_is_made(streaming_front) -> None:
    front, local = streaming_front
    mark = local.sandbox.rie.log.mark()
    with httpx.stream("POST", front.url + "v1/tts", json=_request(), timeout=120) as response:
        assert response.status_code == 200 and response.headers["transfer-encoding"] == "chunked"
        pieces = response.iter_raw()
        first = next(pieces)
        first_at = time.time()
        rest = b"".join(pieces)
    assert first and len(first + rest) % 2 == 0
    duration = float(response.headers["x-supertonic-duration-s"])
    assert len(first + rest) / 2 / 24_000 == pytest.approx(duration, abs=0.002)
    assert first_at < _synthesized_at(local, mark)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_no_buffer_gets_its_first_audio_before_the_last_chunk_is_made(streaming_front) -> None:
    front, local = streaming_front
    mark = local.sandbox.rie.log.mark()
    command = ["curl", "--no-buffer", "-sS", "-H", "content-type: application/json", "-d", json.dumps(_request()), front.url + "v1/tts"]
    with subprocess.Popen(command, stdout=subprocess.PIPE) as curl:
        assert curl.stdout is not None
        first = curl.stdout.read1(65536)  # type: ignore[attr-defined]
        first_at = time.time()
        rest = curl.stdout.read()
    assert curl.returncode == 0 and first and len(first + rest) % 2 == 0
    assert first_at < _synthesized_at(local, mark)


def test_the_openai_sdk_iterates_bytes_while_the_function_renders(streaming_front) -> None:
    front, local = streaming_front
    client = openai.OpenAI(base_url=front.url + "v1", api_key="x", max_retries=0, timeout=120)
    mark = local.sandbox.rie.log.mark()
    # tts-1-hd renders at 12 steps; the deployment's first chunk at 1.
    with client.audio.speech.with_streaming_response.create(
        model="tts-1-hd", voice="nova", input=LONG_TEXT, response_format="pcm"
    ) as answer:
        pieces = answer.iter_bytes()
        first = next(pieces)
        first_at = time.time()
        data = first + b"".join(pieces)
    assert len(data) / 2 / 24_000 == pytest.approx(float(answer.headers["x-supertonic-duration-s"]), abs=0.002)
    assert first_at < _synthesized_at(local, mark)


def test_the_openai_sdk_reads_server_sent_events_as_they_come(streaming_front) -> None:
    front, local = streaming_front
    client = openai.OpenAI(base_url=front.url + "v1", api_key="x", max_retries=0, timeout=120)
    mark = local.sandbox.rie.log.mark()
    events: list[dict[str, Any]] = []
    first_at = None
    with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="nova", input=LONG_TEXT, response_format="pcm", stream_format="sse"
    ) as answer:
        assert answer.headers["content-type"].startswith("text/event-stream")
        for line in answer.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
                if first_at is None:
                    first_at = time.time()
    assert events[0]["type"] == "speech.audio.delta" and events[-1]["type"] == "speech.audio.done"
    audio = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    assert events[-1]["duration_s"] == pytest.approx(len(audio) / 2 / 24_000, abs=0.002)
    assert events[-1]["usage"]["input_tokens"] > len(LONG_TEXT) // 2
    assert first_at is not None and first_at < _synthesized_at(local, mark)


def test_a_deadline_mid_stream_cuts_the_answer_after_a_valid_prefix(tiny_model_dir) -> None:
    # A 4 s timeout, no margin: the cheap first chunk goes out, a later one at 100 steps passes the deadline.
    args = function_args("--model", str(tiny_model_dir), "--timeout", "4", "--invoke-mode", "RESPONSE_STREAM")
    with start_local_function(args, environment_overrides=FIRST_CHUNK | {"SUPERTONIC_DEADLINE_MARGIN_S": "0"}) as local:
        lines: list[str] = []
        front = FunctionUrlServer(local, log=lines.append).start()
        try:
            connection = http.client.HTTPConnection(front.url.split("//")[1].rstrip("/"), timeout=120)
            connection.request("POST", "/v1/tts", json.dumps(_request(LONG_TEXT * 2)), {"content-type": "application/json"})
            response = connection.getresponse()
            assert response.status == 200
            with pytest.raises(http.client.IncompleteRead) as cut:
                response.read()
            prefix = cut.value.partial
        finally:
            front.stop()
    assert len(prefix) > 0 and len(prefix) % 2 == 0  # whole samples of the chunks sent
    assert any("DeadlineExceeded" in line for line in lines)  # the trailer, logged by the front
    cut_log = [json.loads(line) for line in local.sandbox.rie.log.since(0) if '"message":"stream cut"' in line]
    assert cut_log and cut_log[0]["audio_s_sent"] == pytest.approx(len(prefix) / 2 / 24_000, abs=0.01)


def test_a_client_that_leaves_stops_the_synthesis(streaming_front) -> None:
    front, local = streaming_front
    log = local.sandbox.rie.log
    mark = log.mark()
    connection = http.client.HTTPConnection(front.url.split("//")[1].rstrip("/"), timeout=120)
    connection.request("POST", "/v1/tts", json.dumps(_request(LONG_TEXT * 2)), {"content-type": "application/json"})
    response = connection.getresponse()
    assert response.status == 200 and response.read1()
    connection.sock.shutdown(socket.SHUT_RDWR)  # the listener leaves after the first audio
    connection.close()
    lines = log.wait_for(mark, lambda lines: any("the client went away" in line for line in lines), 60.0)
    stopped = json.loads(next(line for line in lines if "the client went away" in line))
    assert stopped["chunks_sent"] < stopped["chunks"]  # the synthesis stopped there, the text unfinished
    # Nothing keeps computing after it: the function's CPU time stays still (as the deadline tests measure it).
    root = local.sandbox.rie.process.pid
    cpu_before = _cpu_s(root)
    time.sleep(0.5)
    assert _cpu_s(root) - cpu_before < 0.2
