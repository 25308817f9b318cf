"""The streaming loop under AWS's Runtime Interface Emulator: the bytes a function URL client would get.

RIE reads a streamed response to its end and answers the invoke once with the prelude, the eight NUL
bytes and the body together (a streaming invoke route for it is an open request in
aws/aws-lambda-runtime-interface-emulator), so this checks the framing end to end, not that pieces arrive as they are made; tests/test_runtime_loop.py
checks that against a fake Runtime API.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from supertonic_harness.function.rie import INVOKE_PATH, LOOPBACK, RieNotFound, find_rie, free_port

FIXTURES = Path(__file__).resolve().parent / "harness_fixtures"
NULS = b"\0" * 8


@pytest.fixture
def rie_url() -> Iterator[str]:
    try:
        binary = find_rie()
    except RieNotFound as missing:
        pytest.skip(str(missing))
    port, runtime_port = free_port(), free_port()
    env = {**os.environ, "AWS_LAMBDA_FUNCTION_TIMEOUT": "30", "AWS_LAMBDA_FUNCTION_NAME": "streaming", "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "supertonic_function.runtime", "sample_functions.url_stream"]
    addresses = ["--runtime-interface-emulator-address", f"{LOOPBACK}:{port}", "--runtime-api-address", f"{LOOPBACK}:{runtime_port}"]
    process = subprocess.Popen([str(binary), *addresses, *command], cwd=FIXTURES, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_listening(process, port)
        yield f"http://{LOOPBACK}:{port}{INVOKE_PATH}"
    finally:
        process.terminate()  # RIE kills the runtime it started on SIGTERM
        output, _ = process.communicate(timeout=30)
        print(output.decode(errors="replace"))


def _wait_listening(process: subprocess.Popen[bytes], port: int) -> None:
    for _ in range(500):
        if process.poll() is not None:
            raise RuntimeError(f"RIE exited with status {process.returncode} before serving")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"RIE did not listen on {LOOPBACK}:{port}")


def test_a_streamed_answer_through_rie_is_the_prelude_eight_nuls_and_the_raw_body(rie_url: str) -> None:
    event = {"version": "2.0", "rawPath": "/speech", "body": json.dumps({"pieces": 4}), "isBase64Encoded": False}
    request = urllib.request.Request(rie_url, data=json.dumps(event).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=120) as response:  # http to RIE on loopback  # nosec B310
        status, answer = response.status, response.read()
    assert status == 200
    prelude, separator, body = answer.partition(NULS)
    assert separator == NULS, answer[:200]
    assert json.loads(prelude) == {
        "statusCode": 200,
        "headers": {"content-type": "application/octet-stream", "x-sample-path": "/speech"},
        "cookies": ["sample=1"],
    }
    assert body == b"".join(bytes([i]) * 1000 for i in range(4))
