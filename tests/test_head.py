"""HEAD on the audio route answers from the duration predictor alone: the GET's status and headers,
with nothing synthesized and nothing stored, and the length only where it follows from the forecast."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from fixtures_s3 import OUTPUT_BUCKET, HttpAnswer, LambdaContext

from supertonic_engine import available_formats
from supertonic_function.http_api import ROUTES
from supertonic_function.runtime import StreamedAnswer
from supertonic_harness.fronts.furl import http_to_event

pytest_plugins = ["fixtures_s3"]

# Over 6 MB of WAV at one step: a buffered GET parks it in S3 and answers 303 (tests/test_handler_http.py).
LONG_TEXT = "Every sentence here adds a few seconds of audio to the answer. " * 13
TEXT = "Hello there, my friend. This answer is read in several chunks."
# Only the synthesis can tell how long it took.
TIMINGS = ("x-supertonic-rtf", "x-supertonic-synth-ms")


def _call(app: Any, method: str, fields: dict[str, Any], accept: str = "*/*") -> HttpAnswer:
    event = http_to_event(method, "/?" + urlencode(fields), [("accept", accept), ("user-agent", "curl/8.5.0")], b"")
    result = app.lambda_handler(event, LambdaContext(remaining_ms=60_000))
    if isinstance(result, StreamedAnswer):  # read as the function URL does: the prelude, then the body
        assert result.prelude is not None
        body = b"".join(result.body)
        return HttpAnswer(result.prelude["statusCode"], {k.lower(): v for k, v in result.prelude["headers"].items()}, body)
    return HttpAnswer.of(result)


def _stored(s3: Any) -> list[str]:
    return [item["Key"] for item in s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("Contents", [])]


def _without(headers: dict[str, str], *names: str) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in names}


def test_head_of_a_long_text_synthesizes_and_stores_nothing(app: Any, s3: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure(sync_max_text_chars=10_000)
    fields = {"text": LONG_TEXT, "steps": 1, "format": "wav"}
    head = _call(app, "HEAD", fields)
    assert (counted_chunks, _stored(s3), head.body) == ([], [], b"")
    get = _call(app, "GET", fields)
    assert counted_chunks and _stored(s3)  # the GET did both
    assert head.status == get.status == 303
    # The link exists only once a GET has stored the audio; HTTP lets HEAD leave out what only making the answer decides.
    assert _without(head.headers, "content-length") == _without(get.headers, "content-length", "location")


def test_head_of_a_long_text_without_a_bucket_is_the_get_s_413_before_any_synthesis(
    app: Any, configure: Any, counted_chunks: list[int]
) -> None:
    configure(input_bucket=None, output_bucket=None, sync_max_text_chars=10_000)
    fields = {"text": LONG_TEXT, "steps": 1, "format": "wav"}
    head = _call(app, "HEAD", fields)
    assert (head.status, counted_chunks, head.body) == (413, [], b"")
    get = _call(app, "GET", fields)
    assert get.status == 413 and get.json()["error"]["code"] == "response_too_large"
    assert head.headers == get.headers | {"content-length": str(len(get.body))}


@pytest.mark.parametrize("mode", ["BUFFERED", "RESPONSE_STREAM"])
@pytest.mark.parametrize("fmt", [f for f in ("wav", "pcm", "mp3", "opus", "flac") if f in available_formats()])
def test_head_answers_the_get_s_headers_without_synthesis(app: Any, configure: Any, counted_chunks: list[int], mode: str, fmt: str) -> None:
    configure(invoke_mode=mode)
    fields = {"text": TEXT, "steps": 2, "seed": 7, "format": fmt}
    head = _call(app, "HEAD", fields)
    assert (head.status, counted_chunks, head.body) == (200, [], b"")
    get = _call(app, "GET", fields)
    assert get.status == 200 and counted_chunks
    if fmt in ("wav", "pcm"):  # known exactly from the forecast
        assert head.headers["content-length"] == str(len(get.body))
    else:  # known only once encoded, so not said (RFC 9110 §9.3.2)
        assert "content-length" not in head.headers
    assert _without(head.headers, "content-length") == _without(get.headers, "content-length", *TIMINGS)


def test_head_of_the_json_answer_says_no_length_and_synthesizes_nothing(app: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure()
    fields = {"text": TEXT, "steps": 2, "seed": 7, "format": "wav"}
    head = _call(app, "HEAD", fields, accept="application/json")
    assert (head.status, counted_chunks, head.body) == (200, [], b"")
    get = _call(app, "GET", fields, accept="application/json")
    assert "content-length" not in head.headers  # the JSON holds the synthesis's timings
    assert head.headers == _without(get.headers, "content-length", *TIMINGS)


def test_head_of_trimmed_audio_says_neither_length_nor_duration(app: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure()
    fields = {"text": TEXT, "steps": 2, "seed": 7, "format": "wav", "trim_silence": "true"}
    head = _call(app, "HEAD", fields)
    assert (head.status, counted_chunks) == (200, [])
    get = _call(app, "GET", fields)
    # Trimmed silence is known only once it is made: the forecast is an upper bound, not the answer's.
    assert "content-length" not in head.headers and "x-supertonic-duration-s" not in head.headers
    assert head.headers == _without(get.headers, "content-length", "x-supertonic-duration-s", *TIMINGS)


@pytest.mark.parametrize("mode", ["BUFFERED", "RESPONSE_STREAM"])
def test_head_of_server_sent_events_synthesizes_nothing(app: Any, configure: Any, counted_chunks: list[int], mode: str) -> None:
    configure(invoke_mode=mode)
    fields = {"text": TEXT, "steps": 2, "seed": 7, "format": "pcm", "stream_format": "sse"}
    head = _call(app, "HEAD", fields)
    assert (head.status, counted_chunks, head.body) == (200, [], b"")
    get = _call(app, "GET", fields)
    assert get.status == 200 and counted_chunks
    assert head.headers == _without(get.headers, "content-length")


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"text": TEXT, "steps": "many"}, 400),
        ({"text": TEXT, "voice": "nobody"}, 422),
        ({"text": TEXT, "format": "aiff"}, 422),
        ({"text": "x" * 20_000}, 413),
    ],
)
def test_head_refuses_what_the_get_refuses(
    app: Any, configure: Any, counted_chunks: list[int], fields: dict[str, Any], status: int
) -> None:
    configure()
    head, get = _call(app, "HEAD", fields), _call(app, "GET", fields)
    assert (head.status, counted_chunks) == (get.status, [])
    assert get.status == status
    assert head.headers["content-length"] == str(len(get.body))


# --- the README's curl lines against the routes --------------------------------------------------------

README = Path(__file__).resolve().parent.parent / "README.md"
FUNCTION_URL = "https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws/"  # as the stack's output, with its slash
FRONTS = ("${URL}", "$URL", "localhost:8000")  # the function URL, deployed or local; localhost:9000 is RIE's Invoke API
# curl's options that take a value (curl --help all), so the value is not read as the URL.
WITH_VALUE = {"-o", "-H", "-d", "-T", "-u", "-X", "-F", "-A", "-w", "--user", "--aws-sigv4", "--request", "--upload-file", "--data",
              "--data-binary", "--data-raw", "--data-urlencode", "--form", "--header", "--output"}  # fmt: skip


def _curl_commands() -> list[str]:
    """Every curl command the README shows: whole lines in code blocks (quotes may span lines) and inline code."""
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"`(curl [^`\n]+)`", text)
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        lines = block.replace("\\\n", " ").splitlines()
        for n, line in enumerate(lines):
            if line.lstrip().startswith("curl "):
                command = line.strip()
                for more in lines[n + 1 :]:
                    try:
                        shlex.split(command, comments=True)
                        break
                    except ValueError:  # a quote still open: the command goes on
                        command += "\n" + more
                commands.append(command)
    return commands


def _method_and_path(command: str) -> tuple[str, str] | None:
    """What curl sends: -X, else -I is HEAD, -T PUT, a body POST, nothing GET; None when not the function URL's."""
    words = shlex.split(command, comments=True)[1:]
    words = words[: words.index("|")] if "|" in words else words
    method, url, options = None, None, set()
    for n, word in enumerate(words):
        previous = words[n - 1] if n else ""
        if previous in ("-X", "--request"):
            method = word
        elif word.startswith("-"):
            options.add(word)
        elif previous not in WITH_VALUE and previous != "<" and word != "<" and any(front in word for front in FRONTS):
            url = word
    if url is None:
        return None
    if method is None:
        sends_body = options & {"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form"}
        method = "HEAD" if options & {"-I", "--head"} else "PUT" if options & {"-T", "--upload-file"} else "POST" if sends_body else "GET"
    target = url.replace("${URL}", FUNCTION_URL).replace("$URL", FUNCTION_URL)
    return method, urlsplit(target if "://" in target else "http://" + target).path


def test_every_readme_curl_line_sends_a_method_its_route_serves() -> None:
    checked = [(command, _method_and_path(command)) for command in _curl_commands()]
    sent = [(command, found) for command, found in checked if found is not None]
    assert len(sent) >= 5, f"the README's curl lines were not found: {checked}"
    for command, (method, path) in sent:
        routed = path.rstrip("/") or "/"  # as HttpCall.path: no trailing slash, and a double slash is a path of its own
        served = [m for route in ROUTES if route.match(routed) is not None for m in route.methods]
        assert method in served, f"{command!r} sends {method} {path}; that path serves {served or 'nothing'}"


# --- through the local function URL with a real client -------------------------------------------------


@pytest.fixture(scope="module")
def front(tiny_model_dir: Path) -> Any:
    """The repository's handler under RIE on the tiny model, behind the local function URL."""
    from harness_fixtures.support import function_args

    from supertonic_harness.fronts.emulator import FunctionUrlServer
    from supertonic_harness.fronts.local import start_local_function

    with start_local_function(function_args("--model", str(tiny_model_dir), "--timeout", "30")) as local:
        server = FunctionUrlServer(local).start()
        try:
            yield server
        finally:
            server.stop()


@pytest.mark.parametrize("fmt", [f for f in ("wav", "mp3") if f in available_formats()])
def test_httpx_head_gets_the_get_s_headers_and_a_length_only_for_wav(front: Any, fmt: str) -> None:
    import httpx

    url = front.url + "?" + urlencode({"text": TEXT, "steps": 2, "seed": 7, "format": fmt})
    with httpx.Client(timeout=60) as client:
        head, get = client.head(url), client.get(url)
    assert head.status_code == get.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["x-supertonic-duration-s"] == get.headers["x-supertonic-duration-s"]
    if fmt == "wav":
        assert head.headers["content-length"] == str(len(get.content))
    else:
        assert "content-length" not in head.headers
