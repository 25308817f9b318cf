"""Ten thousand generated events through the real handler, in process, on the tiny stand-in model.

Whatever arrives (tests/event_fuzzer.py makes function URL requests, direct invokes, S3
notifications and other JSON, mostly malformed), the answer must hold:
- the handler returns (no exception: the runtime would hand the caller a stack trace) and its
  result encodes as JSON in UTF-8, as the runtime sends it; every log line reaches a UTF-8 stdout;
  the one exception is an event the function cannot serve at all (not recognised, or a wrapper
  such as an SQS batch that is malformed), raised as a typed error so Lambda retries or
  dead-letters it, its message free of traces and paths;
- no 5xx but 503 (the function cannot serve) and 504 (the deadline passed);
- every error is ``{"error": {"code", "message", "field"}}`` and nothing names a file or a trace;
- a function URL answer is one HTTP can carry, and its headers match the audio: the content type
  against the bytes' magic, the length where one is given; HEAD has GET's headers and no body.

``SUPERTONIC_FUZZ_SEED`` and ``SUPERTONIC_FUZZ_EVENTS`` choose another run; a failure names the
seed and index that make its event again.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import logging
import os
import re
import sys
import time
from collections import Counter
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent
from awslambdaric.lambda_runtime_marshaller import to_json
from event_fuzzer import EventFuzzer, FuzzEvent
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, REPO, LambdaContext, load_event, sample_events, seeded

from supertonic_engine.errors import SupertonicError
from supertonic_function.config import FunctionConfig
from supertonic_function.envelopes import check_function_url
from supertonic_function.errors import MalformedEvent
from supertonic_function.http_api import OPENAI_PATH
from supertonic_function.http_call import HttpCall
from supertonic_function.invocation import LambdaCall
from supertonic_function.service import Service
from supertonic_function.sources import DirectInvokeSource, FunctionUrlSource, source_of
from supertonic_harness.fronts.furl import result_to_http

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

SEED = int(os.environ.get("SUPERTONIC_FUZZ_SEED", "20261203"))
EVENTS = int(os.environ.get("SUPERTONIC_FUZZ_EVENTS", "10000"))
ALLOWED_5XX = (503, 504)
# The typed errors an invocation may fail with: events that are no request to answer.
RAISED_CODES = ("unknown_event", "malformed_event", "batch_failed")
ERROR_CODE = re.compile(r"[a-z][a-z0-9_]*")
# What a leaked stack trace or file path looks like in a body.
LEAKS = ("Traceback (most recent call last)", 'File "', str(REPO), sys.prefix, "site-packages")
# The first bytes of each audio type the function sends (audio/pcm is raw 16-bit samples: no header).
MAGIC = {
    "audio/wav": lambda b: b[:4] == b"RIFF" and b[8:12] == b"WAVE",
    "audio/flac": lambda b: b[:4] == b"fLaC",
    "audio/ogg": lambda b: b[:4] == b"OggS",
    "audio/mpeg": lambda b: b[:3] == b"ID3" or (len(b) > 1 and b[0] == 0xFF and b[1] & 0xE0 == 0xE0),
    "audio/pcm": lambda b: len(b) % 2 == 0,
}
# Text objects in the input bucket that S3 records may name: (key, body, metadata).
STORED = [
    ("input/fuzz/hello.txt", b"Hello from the fuzzer.", {"steps": "1"}),
    ("input/fuzz/bad-steps.txt", b"Steps spelled as Python reads them.", {"steps": "1_0"}),
    ("input/fuzz/job.json", b'{"text": "A short job.", "steps": 2, "format": "mp3"}', {}),
    ("input/fuzz/lone.json", b'{"text": "\\ud800", "steps": 1}', {}),
    ("input/fuzz/junk.json", b"{", {}),
    ("input/fuzz/latin1.txt", "caf\u00e9".encode("latin-1"), {"steps": "1"}),
]


@pytest.fixture
def fuzz_service(app: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The app with CORS on (so preflights and origins are answered), and the text objects stored.

    Synchronous texts are capped at 60 characters: the stand-in speaks about 0.13 s a character, so
    a longer text that passes would cost more than the thousand malformed events around it (the
    limit's own refusal is still exercised by every text over it)."""
    config = FunctionConfig(
        input_bucket=INPUT_BUCKET,
        output_bucket=OUTPUT_BUCKET,
        warm_up=False,
        cors_allow_origins=("https://app.example.com",),
        sync_max_text_chars=60,
    )
    monkeypatch.setattr(app, "service", Service(config, app.service.engine_or_error))
    stored = []
    for key, body, metadata in STORED:
        reply = s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=body, Metadata=metadata)
        stored.append((key, reply["ETag"].strip('"')))
    return stored


class _StrictStdout(io.TextIOBase):
    """Lambda's stdout as the log handler meets it: UTF-8, strict (what it cannot encode is lost)."""

    def write(self, text: str) -> int:
        text.encode("utf-8")
        return len(text)


@pytest.fixture
def lost_log_lines(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[logging.LogRecord]:
    """The function's log records its stdout could not take (logging swallows the error; the line is gone)."""
    from supertonic_function.telemetry import logger

    handler = logger.registered_handler
    lost: list[logging.LogRecord] = []
    monkeypatch.setattr(handler, "stream", _StrictStdout())
    monkeypatch.setattr(handler, "handleError", lost.append)
    return lost


def test_no_generated_event_breaks_the_handler(
    app: Any, fuzz_service: list[tuple[str, str]], lost_log_lines: list[logging.LogRecord], capsys: pytest.CaptureFixture[str]
) -> None:
    fuzzer = EventFuzzer(
        SEED, corpus=[seeded(e) for e in sample_events()], input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET, objects=fuzz_service
    )
    kinds: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    synthesized = 0
    failures: list[str] = []
    started = time.perf_counter()
    for fuzz in fuzzer.events(EVENTS):
        kinds[fuzz.kind] += 1
        began = time.perf_counter()
        try:
            result = app.lambda_handler(fuzz.event, LambdaContext())
        except SupertonicError as error:
            result = error  # judged by check(): only an event that is no request may fail the invocation
        except Exception as error:  # noqa: BLE001 - the finding itself
            failures.append(_describe(fuzz, [f"raised {type(error).__name__}: {error}"]))
            continue
        finally:
            seconds[fuzz.kind] += time.perf_counter() - began
        problems, status, audio = check(fuzz, result)
        if lost_log_lines:
            problems.append(f"log lines lost: {[record.getMessage() for record in lost_log_lines]}")
            lost_log_lines.clear()
        statuses[status] += 1
        synthesized += audio
        if problems:
            failures.append(_describe(fuzz, problems))
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        per_kind = ", ".join(f"{kind} {kinds[kind]} in {seconds[kind]:.1f} s" for kind in sorted(kinds))
        print(
            f"\nfuzz: {EVENTS} events (seed {SEED}) in {elapsed:.1f} s ({per_kind}), {synthesized} with audio; "
            f"statuses {dict(sorted(statuses.items()))}"
        )
    assert not failures, f"{len(failures)} of {EVENTS} events broke a rule (seed {SEED}):\n" + "\n".join(failures[:10])
    # The run is worth its time only if a share of it reached the engine and the encoders.
    assert synthesized >= EVENTS // 100, f"only {synthesized} events synthesized"


def _describe(fuzz: FuzzEvent, problems: list[str]) -> str:
    event = json.dumps(fuzz.event, ensure_ascii=True)
    return f"- event {fuzz.index} ({fuzz.kind}): {'; '.join(problems)}\n  {event[:600]}"


# --- the rules ----------------------------------------------------------------------------------------


def check(fuzz: FuzzEvent, result: Any) -> tuple[list[str], int, bool]:
    """The rules ``result`` breaks, the HTTP status it stands for, and whether it carries audio."""
    problems: list[str] = []
    if isinstance(result, SupertonicError):
        return _check_raised(fuzz.event, result, problems)
    try:
        to_json(result).encode("utf-8")  # what awslambdaric sends from a custom image
        json.dumps(result, ensure_ascii=False).encode("utf-8")  # and from AWS's managed runtimes
    except (TypeError, ValueError) as error:
        return [f"the result does not encode as JSON in UTF-8: {error}"], 0, False
    if source_of(fuzz.event) is FunctionUrlSource:
        if not (isinstance(result, dict) and "statusCode" in result):
            return ["a function URL request was not answered with statusCode"], 0, False
        return _check_http(fuzz.event, result, problems)
    return _check_document(result, problems)


def _check_http(event: dict[str, Any], result: dict[str, Any], problems: list[str]) -> tuple[list[str], int, bool]:
    http = result_to_http(result)
    status = result["statusCode"]
    if http.problem:
        return [f"no HTTP response can carry it: {http.problem}"], status if isinstance(status, int) else 0, False
    _check_status(status, problems)
    headers = {k.lower(): v for k, v in result.get("headers", {}).items()}
    content_type = headers.get("content-type", "")
    media = content_type.split(";")[0].strip().lower()
    if status != 204 and not content_type:
        problems.append("no content-type")
    if _method(event) == "HEAD":
        if http.body:
            problems.append("HEAD answered with a body")
        length = headers.get("content-length")
        if length is not None and not length.isdigit():
            problems.append(f"HEAD answered with content-length {length!r}")
        if length is None and status >= 400:  # audio's length may be known only once made; an error's always is
            problems.append("HEAD answered an error without the length GET would send")
        return problems, status, False
    if "content-length" in headers and headers["content-length"] != str(len(http.body)):
        problems.append(f"content-length {headers['content-length']} but {len(http.body)} bytes")
    audio = False
    if media.startswith("audio/"):
        _check_magic(media, http.body, problems)
        if status >= 400 and "x-supertonic-error" not in headers:
            problems.append("an error clip without x-supertonic-error")
        audio = status == 200
        if audio and headers.get("x-supertonic-model") != "stand-in":
            problems.append("audio without x-supertonic-model")
    elif media == "application/json" or status >= 400:
        try:
            document = json.loads(http.body)
        except ValueError:
            problems.append(f"{content_type} body is not JSON")
            return problems, status, False
        if status >= 400:
            _check_error(document, problems, openai=_on_openai_route(event))
        elif isinstance(document, dict) and "audio_base64" in document:
            audio = _check_inline_audio(document, problems)
        if status == 303 and not headers.get("location"):
            problems.append("303 without location")
    _check_leaks(http.body.decode("utf-8", "replace") if not media.startswith("audio/") else "", problems)
    return problems, status, audio


def _method(event: dict[str, Any]) -> str:
    http = event["requestContext"]["http"]
    return http["method"].upper() if isinstance(http, dict) and isinstance(http.get("method"), str) else ""


def _check_document(result: Any, problems: list[str]) -> tuple[list[str], int, bool]:
    """A direct invoke's, an S3 event's or an unknown event's result: a JSON document, not HTTP."""
    _check_leaks(json.dumps(result, ensure_ascii=False), problems)
    if not isinstance(result, dict):
        return problems + [f"the result is a {type(result).__name__}, not an object"], 0, False
    if "error" in result:
        status = result.get("status")
        if not isinstance(status, int) or not 400 <= status <= 599:
            problems.append(f"an error result with status {status!r}")
        else:
            _check_status(status, problems)
        _check_error({"error": result["error"]}, problems)
        return problems, status if isinstance(status, int) else 0, False
    if "results" in result:
        for outcome in result["results"]:
            if outcome.get("status") not in ("done", "failed", "skipped"):
                problems.append(f"an S3 record ended {outcome!r}")
        return problems, 200, any(o.get("status") == "done" for o in result["results"])
    if "audio_base64" in result:
        return problems, 200, _check_inline_audio(result, problems)
    return problems + [f"a result that is no answer: keys {sorted(result)}"], 200, False


def _check_raised(event: Any, error: SupertonicError, problems: list[str]) -> tuple[list[str], int, bool]:
    """A failed invocation: only for an event that is no request (a function URL request or a
    direct invoke is always answered), with a typed error whose message leaks nothing."""
    if error.code not in RAISED_CODES:
        problems.append(f"raised {type(error).__name__} ({error.code}): {error.message}")
    elif source_of(event) in (FunctionUrlSource, DirectInvokeSource):
        problems.append(f"a request failed the invocation with {error.code}")
    _check_leaks(error.message, problems)
    return problems, 502, False


def _check_status(status: object, problems: list[str]) -> None:
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        problems.append(f"status {status!r}")
    elif status >= 500 and status not in ALLOWED_5XX:
        problems.append(f"status {status}")


def _on_openai_route(event: dict[str, Any]) -> bool:
    """Whether the handler routes ``event`` to OpenAI's endpoint (a malformed envelope is routed nowhere)."""
    try:
        check_function_url(event)
    except MalformedEvent:
        return False
    return HttpCall(LambdaFunctionUrlEvent(event), LambdaCall.begin(None, margin_s=0.0, request_id="fuzz")).path == OPENAI_PATH


def _check_error(document: object, problems: list[str], openai: bool = False) -> None:
    """``{"error": {"code", "message", "field"}}``; on OpenAI's route with its ``type`` and ``param`` too."""
    if not isinstance(document, dict) or set(document) != {"error"} or not isinstance(document["error"], dict):
        problems.append(f"error body {str(document)[:120]!r} is not {{'error': {{...}}}}")
        return
    error = document["error"]
    if set(error) != {"code", "message", "field"} | ({"type", "param"} if openai else set()):
        problems.append(f"error keys {sorted(error)}")
    elif openai and error["type"] not in ("invalid_request_error", "server_error"):
        problems.append(f"OpenAI error type {error['type']!r}")
    elif openai and error["param"] is not None and not isinstance(error["param"], str):
        problems.append(f"OpenAI error param {error['param']!r}")
    elif not (isinstance(error["code"], str) and ERROR_CODE.fullmatch(error["code"])):
        problems.append(f"error code {error['code']!r}")
    elif not (isinstance(error["message"], str) and error["message"]):
        problems.append("an error without a message")
    elif error["field"] is not None and not isinstance(error["field"], str):
        problems.append(f"error field {error['field']!r}")
    elif error["code"] == "internal_error":
        problems.append("internal_error")


def _check_inline_audio(document: dict[str, Any], problems: list[str]) -> bool:
    try:
        audio = base64.b64decode(document["audio_base64"], validate=True)
    except (binascii.Error, TypeError):
        problems.append("audio_base64 is not base64")
        return False
    _check_magic(str(document.get("content_type", "")).split(";")[0].strip().lower(), audio, problems)
    if document.get("bytes") != len(audio):
        problems.append(f"bytes {document.get('bytes')} but {len(audio)} bytes of audio")
    return True


def _check_magic(media: str, audio: bytes, problems: list[str]) -> None:
    matches = MAGIC.get(media)
    if matches is None:
        problems.append(f"audio type {media!r} is not one the function sends")
    elif not audio or not matches(audio):
        problems.append(f"{media} but the bytes start {audio[:12]!r}")


def _check_leaks(text: str, problems: list[str]) -> None:
    leaked = [marker for marker in LEAKS if marker in text]
    if leaked:
        problems.append(f"the answer shows {leaked}")


def test_the_fuzzer_makes_the_same_events_from_the_same_seed() -> None:
    def first(seed: int) -> list[Any]:
        fuzzer = EventFuzzer(seed, corpus=[load_event("furl_post_tts")], input_bucket="in", output_bucket="out")
        return [f.event for f in fuzzer.events(200)]

    assert json.dumps(first(7)) == json.dumps(first(7)) != json.dumps(first(8))


def test_the_rules_catch_what_they_are_for() -> None:
    """Each rule of ``check`` fails on an answer that breaks it (a rule that cannot fail guards nothing)."""
    furl = FuzzEvent(0, "furl", load_event("furl_post_tts"), False)
    wav = base64.b64encode(b"RIFF\0\0\0\0WAVEfmt ").decode()

    def http(status: int, body: str, headers: dict[str, str], encoded: bool = False) -> dict[str, Any]:
        return {"statusCode": status, "headers": headers, "body": body, "isBase64Encoded": encoded}

    broken = {
        "status 500": http(500, '{"error": {"code": "x", "message": "m", "field": null}}', {"content-type": "application/json"}),
        "error keys": http(400, '{"error": {"code": "x"}}', {"content-type": "application/json"}),
        "bytes start": http(200, wav, {"content-type": "audio/flac", "x-supertonic-model": "stand-in"}, True),
        "content-length": http(200, wav, {"content-type": "audio/wav", "content-length": "3", "x-supertonic-model": "stand-in"}, True),
        "shows": http(
            400, json.dumps({"error": {"code": "x", "message": f'File "{REPO}/a.py"', "field": None}}), {"content-type": "application/json"}
        ),
        "UTF-8": http(400, '{"error": {"code": "x", "message": "\udfff", "field": null}}', {"content-type": "application/json"}),
        "internal_error": http(
            503, '{"error": {"code": "internal_error", "message": "m", "field": null}}', {"content-type": "application/json"}
        ),
    }
    for rule, result in broken.items():
        problems, _, _ = check(furl, result)
        assert any(rule in p for p in problems), (rule, problems)
    good = http(
        200, wav, {"content-type": "audio/wav", "content-length": str(len(base64.b64decode(wav))), "x-supertonic-model": "stand-in"}, True
    )
    assert check(furl, good) == ([], 200, True)
    assert check(FuzzEvent(0, "direct", {"text": "x"}, False), {"error": {"code": "x", "message": "m", "field": None}, "status": 502})[0]
    # OpenAI's route: its errors must carry OpenAI's type and param too, and only the two it knows.
    speech = FuzzEvent(0, "furl", {**load_event("furl_post_tts"), "rawPath": OPENAI_PATH}, False)
    ours = {"code": "x", "message": "m", "field": "input"}
    for rule, error in {
        "error keys": ours,
        "OpenAI error type": {**ours, "type": "oops", "param": "input"},
        "OpenAI error param": {**ours, "type": "invalid_request_error", "param": 3},
    }.items():
        problems, _, _ = check(speech, http(400, json.dumps({"error": error}), {"content-type": "application/json"}))
        assert any(rule in p for p in problems), (rule, problems)
    openai_error = {**ours, "type": "invalid_request_error", "param": "input"}
    assert check(speech, http(400, json.dumps({"error": openai_error}), {"content-type": "application/json"}))[0] == []
