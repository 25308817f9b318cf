"""Events replayed through a running image's own emulator, checked against their ``.expect.json``.

The image's entry script starts RIE on :8080 when no Runtime API is given, exactly as a ``docker
run`` of it would: this talks to that, so what is checked is the image as shipped (its Python,
its packages, its read-only filesystem), not the repository's code. Events that need S3 (records,
or an object to seed) are left to ``replay``, which runs moto beside the function.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..fronts.furl import INTEGRATION_RESPONSE_TYPE, INTERNAL_ERROR, PRELUDE_END, HttpResponse, result_to_http, streamed_to_http
from ..function.outcome import Outcome, error_document
from ..function.rie import INVOKE_PATH
from ..replay.events import ReplayEvent, collect
from ..replay.run import answer_failures

# Jobs keep their text and state in S3: a container given no input bucket answers their routes
# 501 ``not_configured``, on purpose, and that is what is expected of it here.
JOBS_ROUTE = "/v1/jobs"
UNCONFIGURED = (501, "not_configured")


@dataclass(frozen=True)
class ImageAnswer:
    event: str
    outcome: str
    status: int | None
    content_type: str | None
    body: bytes
    wall_ms: float

    def error_code(self) -> str | None:
        try:
            document = json.loads(self.body)
        except ValueError:
            return None
        error = document.get("error") if isinstance(document, dict) else None
        return error.get("code") if isinstance(error, dict) else None


def needs_s3(event: ReplayEvent) -> bool:
    return event.seed is not None or "Records" in event.payload


def _http(body: bytes) -> HttpResponse:
    """What a function URL makes of RIE's answer: a buffered result, or a streamed one (RIE sends
    a stream's prelude, its NUL bytes and its body at once)."""
    try:
        return result_to_http(json.loads(body))
    except ValueError:
        if PRELUDE_END in body:  # RIE drops the runtime's content type, which would say it is framed
            return streamed_to_http(INTEGRATION_RESPONSE_TYPE, body)
        raise


def invoke(url: str, event: ReplayEvent, timeout_s: float = 300.0) -> ImageAnswer:
    request = urllib.request.Request(url.rstrip("/") + INVOKE_PATH, data=json.dumps(event.payload).encode(), method="POST")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # http to the container on loopback  # nosec B310
            body = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    wall_ms = (time.perf_counter() - started) * 1000
    if error_document(body) is not None:  # a function URL answers a failed invocation 502
        return ImageAnswer(event.name, Outcome.FUNCTION_ERROR.value, INTERNAL_ERROR.status, None, body, wall_ms)
    http = _http(body)
    return ImageAnswer(event.name, Outcome.SUCCESS.value, http.status, http.header("content-type"), http.body, wall_ms)


def is_job_route(event: ReplayEvent) -> bool:
    return str(event.payload.get("rawPath", "")).startswith(JOBS_ROUTE)


def problems(answer: ImageAnswer, event: ReplayEvent, *, jobs_configured: bool = False) -> list[str]:
    """Where the answer differs from the event's expectations (empty: as expected)."""
    if is_job_route(event) and not jobs_configured:
        got = (answer.status, answer.error_code())
        return [] if got == UNCONFIGURED else [f"without an input bucket expected {UNCONFIGURED}, got {got}"]
    return answer_failures(event.expect, answer.outcome, answer.status, answer.content_type)


def wait_until_ready(url: str, timeout_s: float = 120.0) -> None:
    """Until the emulator in the container accepts connections (it answers 404 to anything but invokes)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)  # http to the container on loopback  # nosec B310
            return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the container's emulator did not answer on {url} within {timeout_s:.0f} s") from None
            time.sleep(0.25)


def replay_through(url: str, sources: list[str] | list[Path]) -> list[tuple[ReplayEvent, ImageAnswer | None]]:
    """Each event with its answer; None for an event that needs S3 (not sent)."""
    results: list[tuple[ReplayEvent, ImageAnswer | None]] = []
    for event in collect([str(s) for s in sources]):
        results.append((event, None if needs_s3(event) else invoke(url, event)))
    return results
