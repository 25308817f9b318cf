"""The playground in a real browser: headless Chromium, driven by Selenium, against the emulator.

The function runs under RIE on the tiny stand-in with the template's buckets in moto, behind the
emulator's function URL, exactly as ``./dev supertonic-lambda emulate`` serves it. Every wait is
on a condition the page shows, with a patience derived from how long this machine took to load
the page and to answer the same request without a browser.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from harness_fixtures.support import function_args
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from supertonic_function.http_api import openapi_document
from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.local import start_local_function

SENTENCE = "A sentence typed into a real browser."
# A function URL's invoke modes (template.yaml's FunctionUrlConfig.InvokeMode).
BUFFERED, RESPONSE_STREAM = "BUFFERED", "RESPONSE_STREAM"
# Many chunks after a small first one: the first is heard while the rest are still being made.
STREAMED_TEXT = " ".join(f"Sentence {n} of a text the function reads in several chunks." for n in range(1, 17))
SMALL_FIRST_CHUNK = {"SUPERTONIC_FIRST_CHUNK_CHARS": "40"}
# Set to a path (docs/playground.png) to keep the screenshot of a successful run.
SCREENSHOT_ENV = "SUPERTONIC_PLAYGROUND_SCREENSHOT"


# Set to 1 where the browser was meant to be installed (.ci/run): then a missing one fails, never skips.
REQUIRE_ENV = "SUPERTONIC_REQUIRE_BROWSER"
# Why ./dev test could not install the browser, when it could not.
SETUP_ENV = "SUPERTONIC_BROWSER_SETUP"


def _browser_paths() -> tuple[str, str]:
    """Debian's Chromium and its driver; else a skip that says how to get them, or a failure where they are required."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        reason = (
            "the playground's browser tests need Debian's Chromium and its WebDriver on PATH: "
            "run ./dev test as root, which installs them, or apt-get install -y chromium chromium-driver"
        )
        if os.environ.get(SETUP_ENV):
            reason += f" ({os.environ[SETUP_ENV]})"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires them", pytrace=False)
        pytest.skip(reason)
    return chromium, driver


# The tiny stand-in renders far faster than the render-time plan (set for the full model) assumes,
# and these pages send up to the synchronous limit's worth of text: no plan, as the page is tested, not the plan.
NO_PLAN = {"SUPERTONIC_SYNC_PLAN_RTF": "0"}


def _serve(args: argparse.Namespace, environment: Mapping[str, str] | None = None) -> Iterator[FunctionUrlServer]:
    with start_local_function(args, environment_overrides=environment) as local:
        served = FunctionUrlServer(local, log=lambda line: None).start()
        try:
            yield served
        finally:
            served.stop()


@pytest.fixture(scope="module")
def server(tiny_model_dir: Path) -> Iterator[FunctionUrlServer]:
    """A function URL in BUFFERED mode: every answer whole."""
    yield from _serve(function_args("--model", str(tiny_model_dir), "--invoke-mode", BUFFERED), NO_PLAN)


@pytest.fixture(scope="module")
def streaming_server(tiny_model_dir: Path) -> Iterator[FunctionUrlServer]:
    """A function URL in RESPONSE_STREAM mode (the template's default), relayed as it is made."""
    yield from _serve(function_args("--model", str(tiny_model_dir), "--invoke-mode", RESPONSE_STREAM), SMALL_FIRST_CHUNK | NO_PLAN)


def patience(observed_s: float, work: float = 1.0) -> float:
    """Seconds to wait for ``work`` times the work that took ``observed_s`` here without a browser:
    twenty times as long, plus 30 s for the browser's own start, which is not measured."""
    return 30.0 + 20.0 * observed_s * work


@pytest.fixture(scope="module")
def observed_s(server: FunctionUrlServer) -> float:
    """How long this machine takes to serve the page and speak the test sentence, browser aside."""
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(server.url, headers={"accept": "text/html"}), timeout=120):
        pass
    request = urllib.request.Request(
        server.url + "v1/tts",
        data=json.dumps({"text": SENTENCE, "steps": 2}).encode(),
        headers={"content-type": "application/json", "accept": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        answer.read()
    return time.perf_counter() - started


@pytest.fixture
def patience_s(observed_s: float) -> float:
    return patience(observed_s)


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser saves what the page offers (marks, captions), not the home folder."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads: Path) -> Iterator[Any]:
    chromium, driver_path = _browser_paths()
    options = webdriver.ChromeOptions()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False})
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--mute-audio",
        "--autoplay-policy=no-user-gesture-required",
        "--window-size=820,920",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # to see what the policy blocked
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: Any, server: FunctionUrlServer, patience_s: float) -> Any:
    """The playground freshly loaded, its voices, languages and formats read from the function."""
    return _load(browser, server, patience_s)


def _load(browser: Any, server: FunctionUrlServer, patience_s: float) -> Any:
    browser.get(server.url)
    _wait(
        browser,
        patience_s,
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
        "the page never finished reading GET /v1/voices",
    )
    return browser


def _wait(driver: Any, patience_s: float, condition: Callable[[Any], Any], what: str) -> Any:
    try:
        return WebDriverWait(driver, patience_s, poll_frequency=0.2).until(condition)
    except TimeoutException:
        shown = driver.find_element(By.TAG_NAME, "body").text
        pytest.fail(f"{what} within {patience_s:.0f} s; the page shows:\n{shown}", pytrace=False)


def _type(driver: Any, field: str, text: str) -> None:
    element = driver.find_element(By.ID, field)
    element.clear()
    element.send_keys(text)


def _loaded_audio(driver: Any) -> dict[str, Any] | None:
    """The player's state once it has read the audio's length, else None."""
    state = driver.execute_script(
        "const a = document.getElementById('audio');"
        "return {ready: a.readyState, duration: a.duration, src: a.currentSrc, error: a.error && a.error.message};"
    )
    if state["error"]:
        pytest.fail(f"the browser could not load the audio: {state['error']}", pytrace=False)
    return state if state["ready"] >= 1 and state["duration"] == state["duration"] else None  # NaN until then


def _blocked_by_the_policy(driver: Any) -> list[str]:
    """What the Content-Security-Policy refused since the browser's log was last read."""
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def _text(driver: Any, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def test_typing_a_sentence_and_pressing_play_loads_audio_of_the_reported_duration(page: Any, patience_s: float, tmp_path: Path) -> None:
    assert page.find_element(By.ID, "model-note").is_displayed()  # the stand-in's audio is noise, said up front
    _type(page, "text", SENTENCE)
    _type(page, "steps", "2")
    page.find_element(By.ID, "play").click()
    audio = _wait(page, patience_s, _loaded_audio, "no audio was loaded after Play")
    reported = float(page.find_element(By.ID, "duration").get_attribute("data-seconds"))
    assert reported > 0
    # WAV carries its exact length: the player must agree with the function to the sample.
    assert audio["duration"] == pytest.approx(reported, abs=1e-3)
    assert audio["src"].startswith("blob:")
    assert _text(page, "model") == "stand-in" and int(_text(page, "chunks")) >= 1 and float(_text(page, "rtf")) > 0
    download = page.find_element(By.ID, "download")
    assert download.get_attribute("href") == audio["src"] and download.get_attribute("download") == "supertonic.wav"
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert _blocked_by_the_policy(page) == []
    shot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "playground.png")
    page.save_screenshot(str(shot))
    assert shot.read_bytes().startswith(b"\x89PNG")


def test_an_unknown_voice_is_shown_next_to_the_voice_field(page: Any, patience_s: float) -> None:
    _type(page, "voice", "Z9")
    page.find_element(By.ID, "play").click()
    error = page.find_element(By.ID, "voice-error")
    _wait(page, patience_s, lambda d: error.is_displayed(), "no error was shown by the voice field")
    assert "Z9" in error.text and "F1" in error.text  # the function's own message: what is wrong, what exists
    assert page.find_element(By.ID, "voice").get_attribute("aria-invalid") == "true"
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert not page.find_element(By.ID, "result").is_displayed()


def test_text_over_the_synchronous_limit_is_offered_as_a_job_and_polled_until_done(
    page: Any, patience_s: float, observed_s: float, downloads: Path
) -> None:
    limit = int(page.find_element(By.TAG_NAME, "body").get_attribute("data-sync-max-chars"))
    long_text = ("This sentence is part of a text too long to speak in one request. " * (limit // 60 + 1))[: limit + 40]
    # Thousands of keystrokes prove nothing the first test does not: set the value, then type one more.
    page.execute_script("document.getElementById('text').value = arguments[0];", long_text)
    page.find_element(By.ID, "text").send_keys(".")
    _type(page, "steps", "2")
    job = page.find_element(By.ID, "job")
    assert job.is_displayed() and "too long" in _text(page, "count")
    page.find_element(By.ID, "play").click()  # the function refuses it and says why, by the text field
    error = page.find_element(By.ID, "text-error")
    _wait(page, patience_s, lambda d: error.is_displayed(), "no error was shown by the text field")
    assert "POST /v1/jobs" in error.text
    job.click()
    # The job renders the whole text: allow for its length over the one sentence measured.
    _wait(
        page, patience(observed_s, len(long_text) / len(SENTENCE)), lambda d: "done" in _text(d, "status"), "the job was not reported done"
    )
    audio = _wait(page, patience_s, _loaded_audio, "the job's audio was not loaded")
    reported = float(page.find_element(By.ID, "duration").get_attribute("data-seconds"))
    assert audio["duration"] == pytest.approx(reported, abs=1e-3)
    assert "/v1/jobs/" not in audio["src"] and audio["src"].startswith("http://127.0.0.1:")  # moto's presigned link
    assert int(_text(page, "chunks")) > 1
    # The link is S3's, another origin, where a browser ignores the download attribute: the link
    # itself says to save the file, and under which name.
    page.find_element(By.ID, "download").click()
    _wait(
        page, patience_s, lambda d: list(downloads.glob("audio-*.wav")), f"Download saved no audio-*.wav; it saved {os.listdir(downloads)}"
    )


def _timing(driver: Any) -> dict[str, Any]:
    """What the page measured of the last Play, in milliseconds from the press (None: not yet)."""
    return driver.execute_script(
        "const first = document.getElementById('first-audio').dataset, total = document.getElementById('total').dataset;"
        "const ms = (v) => v === undefined ? null : Number(v);"
        "return {received: ms(first.receivedMs), heard: ms(first.ms), done: ms(total.ms), pieces: ms(total.pieces),"
        " played: document.getElementById('delivery').textContent};"
    )


def _play_and_wait_until_heard(driver: Any, patience_s: float, format_name: str, text: str = SENTENCE, steps: int = 2) -> dict[str, Any]:
    driver.execute_script("document.getElementById('text').value = arguments[0];", text)
    _type(driver, "steps", str(steps))
    Select(driver.find_element(By.ID, "format")).select_by_value(format_name)
    driver.find_element(By.ID, "play").click()
    _wait(driver, patience_s, lambda d: _timing(d)["done"] is not None, f"the {format_name} answer never ended")
    return _wait(driver, patience_s, lambda d: (t := _timing(d))["heard"] is not None and t, f"the {format_name} audio was never heard")


def _sample_rate(server: FunctionUrlServer) -> int:
    with urllib.request.urlopen(server.url + "health", timeout=60) as answer:
        return int(json.load(answer)["sample_rate"])


def test_mp3_goes_through_media_source_and_is_heard_after_its_first_bytes(page: Any, patience_s: float, server: FunctionUrlServer) -> None:
    timing = _play_and_wait_until_heard(page, patience_s, "mp3")
    assert "MediaSource" in timing["played"]
    assert timing["pieces"] >= 1 and 0 <= timing["received"] <= timing["heard"] and timing["received"] <= timing["done"]
    audio = _wait(page, patience_s, _loaded_audio, "the player never read the streamed mp3's length")
    # The seconds shown are the player's own count of what arrived.
    shown = float(page.find_element(By.ID, "duration").get_attribute("data-seconds"))
    assert audio["duration"] == pytest.approx(shown, abs=1e-3) and shown > 0
    # The function's own length is shorter by the encoder's delay and the last frame's padding, a
    # frame of 1152 samples at most each.
    reported = float(page.find_element(By.ID, "duration").get_attribute("data-reported"))
    assert reported <= shown <= reported + 2 * 1152 / _sample_rate(server)
    assert page.find_element(By.ID, "download").get_attribute("download") == "supertonic.mp3"
    assert _text(page, "model") == "stand-in" and page.find_element(By.ID, "model-note").is_displayed()
    assert "s" in _text(page, "first-audio") and "piece" in _text(page, "total")
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert _blocked_by_the_policy(page) == []  # a MediaSource is played from a blob: URL


def test_pcm_is_scheduled_through_web_audio_and_kept_as_wav_to_hear_again(page: Any, patience_s: float) -> None:
    timing = _play_and_wait_until_heard(page, patience_s, "pcm")
    assert "Web Audio" in timing["played"] and timing["received"] <= timing["heard"]
    audio = _wait(page, patience_s, _loaded_audio, "the received pcm was not offered to the player as wav")
    # Every sample received is in the WAV, so its length is the function's to the millisecond it reports.
    reported = float(page.find_element(By.ID, "duration").get_attribute("data-reported"))
    assert audio["duration"] == pytest.approx(reported, abs=1e-3) and reported > 0
    assert page.find_element(By.ID, "download").get_attribute("download") == "supertonic.pcm"
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert _blocked_by_the_policy(page) == []


def test_pcm_too_large_to_answer_inline_is_asked_for_again_as_json_and_linked(page: Any, observed_s: float) -> None:
    """A buffered answer over 6 MB is a 303 to S3, which the page may not fetch: it asks for the JSON
    answer, whose 200 carries the link."""
    limit = int(page.find_element(By.TAG_NAME, "body").get_attribute("data-sync-max-chars"))
    text = ("This sentence is part of a text read into more raw audio than one answer holds. " * (limit // 60 + 1))[:limit]
    patience_s = patience(observed_s, 2 * len(text) / len(SENTENCE))  # synthesized twice
    page.execute_script("document.getElementById('text').value = arguments[0];", text)
    _type(page, "steps", "2")
    Select(page.find_element(By.ID, "format")).select_by_value("pcm")
    page.find_element(By.ID, "play").click()
    download = page.find_element(By.ID, "download")
    _wait(page, patience_s, lambda d: "synthesized" in _text(d, "status"), "the JSON answer never came")
    assert download.get_attribute("href").startswith("http://127.0.0.1:")  # moto's presigned link, not a blob
    assert _text(page, "delivery") == "once the whole file arrived" and _timing(page)["done"] is not None
    # No player reads raw PCM, and the page may not fetch the link to add a header: it says so
    # instead of showing a player at 0:00.
    assert "Download" in _text(page, "player-note") and page.find_element(By.ID, "audio").get_attribute("src") in (None, "")
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert _blocked_by_the_policy(page) == []  # the 303 was never followed


@pytest.mark.parametrize("format_name", ["mp3", "pcm"])
def test_a_streamed_answer_is_heard_before_it_ends(
    browser: Any, streaming_server: FunctionUrlServer, observed_s: float, format_name: str
) -> None:
    """RESPONSE_STREAM: the first chunk's audio plays while the function still makes the others."""
    patience_s = patience(observed_s, 4 * len(STREAMED_TEXT) / len(SENTENCE))  # 8 steps where the measure took 2
    page = _load(browser, streaming_server, patience_s)
    timing = _play_and_wait_until_heard(page, patience_s, format_name, STREAMED_TEXT, steps=8)
    assert timing["received"] <= timing["heard"] < timing["done"]
    assert timing["pieces"] > 1  # the chunks' audio arrived as it was made, not as one body
    assert int(_text(page, "chunks")) > 2 and "not known" in _text(page, "rtf")  # streamed headers: no RTF yet
    audio = _wait(page, patience_s, _loaded_audio, "the streamed audio was not kept for the player")
    assert audio["duration"] == pytest.approx(float(page.find_element(By.ID, "duration").get_attribute("data-seconds")), abs=1e-3)
    assert not page.find_element(By.ID, "general-error").is_displayed()


def test_wav_from_a_streaming_function_plays_once_whole_with_its_exact_length(
    browser: Any, streaming_server: FunctionUrlServer, patience_s: float
) -> None:
    """The formats no browser plays from pieces ask for JSON, as against a buffered function."""
    page = _load(browser, streaming_server, patience_s)
    timing = _play_and_wait_until_heard(page, patience_s, "wav")
    assert timing["played"] == "once the whole file arrived" and timing["done"] <= timing["heard"]
    audio = _wait(page, patience_s, _loaded_audio, "no audio was loaded after Play")
    assert audio["duration"] == pytest.approx(float(page.find_element(By.ID, "duration").get_attribute("data-reported")), abs=1e-3)
    assert float(_text(page, "rtf")) > 0 and not page.find_element(By.ID, "general-error").is_displayed()


@pytest.mark.parametrize(("required", "outcome"), [("", pytest.skip.Exception), ("1", pytest.fail.Exception)])
def test_a_missing_browser_says_how_to_get_it_and_fails_only_where_required(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, required: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without chromium or chromedriver
    monkeypatch.setenv(REQUIRE_ENV, required)
    monkeypatch.setenv(SETUP_ENV, "./dev test installs them only when run as root")
    with pytest.raises(
        outcome, match=r"run \./dev test as root.*apt-get install -y chromium chromium-driver \(\./dev test installs them only"
    ):
        _browser_paths()


STAGE = "/prod"


class _StageProxy(ThreadingHTTPServer):
    """An API Gateway named stage in front of the function URL, as the browser sees it: the API is
    under /prod/ (passed on without the prefix) and any path outside the stage is a 404."""

    daemon_threads = True

    def __init__(self, target: str) -> None:
        self.target = target
        super().__init__(("127.0.0.1", 0), _StageHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{STAGE}/"


class _StageHandler(BaseHTTPRequestHandler):
    server: _StageProxy
    protocol_version = "HTTP/1.1"

    def _forward(self) -> None:
        if self.path != STAGE and not self.path.startswith(STAGE + "/"):
            return self._send(404, {"content-type": "application/json"}, b'{"message":"Not Found"}')
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        request = urllib.request.Request(
            self.server.target + self.path[len(STAGE) :].lstrip("/"),
            data=body or None,
            method=self.command,
            headers={name: value for name, value in self.headers.items() if name.lower() in ("accept", "content-type")},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return self._send(answer.status, dict(answer.headers.items()), answer.read())
        except urllib.error.HTTPError as refused:
            return self._send(refused.code, dict(refused.headers.items()), refused.read())

    def _send(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = _forward

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def stage(server: FunctionUrlServer) -> Iterator[_StageProxy]:
    proxy = _StageProxy(server.url)
    thread = threading.Thread(target=proxy.serve_forever, name="stage", daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()


@pytest.mark.parametrize("slash", ["/", ""])
def test_the_page_served_under_a_stage_calls_the_api_under_the_same_stage(
    browser: Any, stage: _StageProxy, patience_s: float, slash: str
) -> None:
    """The stage's URL opens the page with or without its last slash; either way the API is under it."""
    browser.get(stage.url.rstrip("/") + slash)
    _wait(
        browser,
        patience_s,
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
        f"the page at {STAGE}/ never read its voices and the API's ranges from under {STAGE}/",
    )
    _type(browser, "text", SENTENCE)
    _type(browser, "steps", "2")
    browser.find_element(By.ID, "play").click()
    audio = _wait(browser, patience_s, _loaded_audio, f"no audio was loaded after Play under {STAGE}/")
    assert audio["duration"] > 0 and not browser.find_element(By.ID, "general-error").is_displayed()


def test_the_speed_field_is_bounded_by_the_range_the_api_documents(page: Any) -> None:
    """The bounds come from GET /openapi.json, the document the function serves: one copy of the numbers."""
    documented = openapi_document()["components"]["schemas"]["TtsRequest"]["properties"]
    speed = page.find_element(By.ID, "speed")
    assert float(speed.get_attribute("min")) == documented["speed"]["minimum"]
    assert float(speed.get_attribute("max")) == documented["speed"]["maximum"]
    steps = page.find_element(By.ID, "steps")
    assert (int(steps.get_attribute("min")), int(steps.get_attribute("max"))) == (
        documented["steps"]["minimum"],
        documented["steps"]["maximum"],
    )
    _type(page, "speed", "0.5")  # said as it is typed, before any request
    error = page.find_element(By.ID, "speed-error")
    assert error.is_displayed() and speed.get_attribute("aria-invalid") == "true"
    low, high = (f"{documented['speed'][bound]:g}" for bound in ("minimum", "maximum"))
    assert f"from {low} to {high}" in error.text
    page.find_element(By.ID, "play").click()  # refused on the page: nothing is sent, nothing played
    assert error.is_displayed() and not page.find_element(By.ID, "result").is_displayed()
    assert _text(page, "status") == ""
    _type(page, "speed", "1.2")
    assert not error.is_displayed() and speed.get_attribute("aria-invalid") is None


@pytest.mark.parametrize(
    ("track", "file_name"), [("marks", "supertonic.marks.jsonl"), ("srt", "supertonic.srt"), ("vtt", "supertonic.vtt")]
)
def test_marks_and_captions_are_saved_as_files(page: Any, patience_s: float, downloads: Path, track: str, file_name: str) -> None:
    _type(page, "text", "Mary had a little lamb. Its fleece was white as snow.")
    _type(page, "steps", "2")
    Select(page.find_element(By.ID, "track")).select_by_value(track)
    page.find_element(By.ID, "track-get").click()
    link = page.find_element(By.ID, "track-download")
    _wait(page, patience_s, lambda d: link.get_attribute("download") == file_name, f"no {file_name} was offered")
    assert link.get_attribute("href").startswith("blob:") and link.is_displayed()
    saved_file = downloads / file_name  # saved under the name the page gave it
    _wait(page, patience_s, lambda d: saved_file.exists(), f"the browser did not save {file_name}; it saved {os.listdir(downloads)}")
    saved = saved_file.read_text("utf-8")
    if track == "marks":  # Polly's JSON lines: one mark a line
        marks = [json.loads(line) for line in saved.splitlines()]
        assert {mark["type"] for mark in marks} == {"sentence", "word"}
        assert [m["value"] for m in marks if m["type"] == "sentence"] == ["Mary had a little lamb.", "Its fleece was white as snow."]
    elif track == "srt":
        assert re.match(r"1\r?\n00:00:00,\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\r?\n\S", saved), saved
    else:
        assert re.match(r"WEBVTT\r?\n\r?\n00:00:00\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\r?\n\S", saved), saved
    assert not page.find_element(By.ID, "general-error").is_displayed()
    assert _blocked_by_the_policy(page) == []


def test_pcm_answered_whole_is_played_behind_a_wav_header(page: Any, patience_s: float) -> None:
    """Where the page cannot stream pcm through Web Audio it asks for JSON, whose base64 is raw PCM:
    the player gets it as WAV, the download stays raw."""
    page.execute_script("delete window.AudioContext;")  # a browser without Web Audio
    _type(page, "text", SENTENCE)
    _type(page, "steps", "2")
    Select(page.find_element(By.ID, "format")).select_by_value("pcm")
    page.find_element(By.ID, "play").click()
    audio = _wait(page, patience_s, _loaded_audio, "the pcm answer was not loaded into the player")
    reported = float(page.find_element(By.ID, "duration").get_attribute("data-reported"))
    assert audio["duration"] == pytest.approx(reported, abs=1e-3) and reported > 0
    assert _text(page, "delivery") == "once the whole file arrived"
    assert page.find_element(By.ID, "download").get_attribute("download") == "supertonic.pcm"
    assert not page.find_element(By.ID, "general-error").is_displayed()
