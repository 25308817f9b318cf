"""The real function under RIE with the tiny stand-in model: function URL, S3 through moto, replay, OOM."""

from __future__ import annotations

import base64
import io
import json
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import soundfile as sf
from harness_fixtures.support import function_args, run_command

from supertonic_harness.fronts.emulator import FunctionUrlServer, upload_and_deliver
from supertonic_harness.fronts.local import start_local_function
from supertonic_harness.function.limits import leftover_cgroups
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.rie import REPO_ROOT
from supertonic_harness.replay import run
from supertonic_harness.replay.events import collect

EVENTS = REPO_ROOT / "events"
OUTPUT_BUCKET = "supertonic-output-123456789012-us-east-1"


@pytest.fixture(scope="module")
def local(tiny_model_dir):
    # The repository's handler, template (buckets, environment) and the generated tiny model, with
    # the function URL in BUFFERED mode: these tests read whole answers as RIE returns them
    # (tests/test_harness_stream*.py cover the template's RESPONSE_STREAM).
    args = function_args("--model", str(tiny_model_dir), "--profile", "lambda-2048", "--invoke-mode", "BUFFERED")
    with start_local_function(args) as started:
        yield started
    assert leftover_cgroups() == []


def test_http_request_through_the_function_url_returns_decodable_audio(local):
    server = FunctionUrlServer(local, log=lambda line: None).start()
    try:
        request = urllib.request.Request(
            server.url,
            method="POST",
            data=json.dumps({"text": "안녕하세요", "lang": "ko", "steps": 2}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            status, headers, body = response.status, response.headers, response.read()
    finally:
        server.stop()
    assert status == 200
    assert headers["content-type"].startswith("audio/wav")
    assert headers["x-supertonic-model"] == "stand-in"
    audio, rate = sf.read(io.BytesIO(body))
    assert rate == 44_100 and len(audio) > 0


def test_a_long_ogg_answer_is_audio_and_the_same_sandbox_stays_warm(local):
    """About a minute of ogg in one synchronous answer: libsndfile's Vorbis writer, given that much
    in one write, segfaulted the runtime (a 502, then a cold start for the next caller)."""
    event = json.loads((EVENTS / "furl_post_tts.json").read_text())
    long_ogg = dict(event, body=json.dumps({"text": "Hello there. " * 60, "format": "ogg"}))
    before = local.sandbox.invoke(event)
    answer = local.sandbox.invoke(long_ogg)
    after = local.sandbox.invoke(event)
    assert answer.outcome is Outcome.SUCCESS, answer.log_lines[-10:]
    result = answer.result()
    assert result["statusCode"] == 200, result["body"][:300]
    assert result["headers"]["content-type"] == "audio/ogg"
    audio, rate = sf.read(io.BytesIO(base64.b64decode(result["body"])), dtype="float32")
    assert rate == 44_100 and len(audio) / rate > 47  # past the length one write survived
    assert len(audio) / rate == pytest.approx(float(result["headers"]["x-supertonic-duration-s"]), abs=0.1)
    assert not after.cold_start and after.runtime_pids == before.runtime_pids  # no reset


def test_s3_upload_through_moto_produces_the_audio_object_and_manifest(local, tmp_path):
    story = tmp_path / "짧은 이야기.txt"
    story.write_text("A short story, read aloud.", encoding="utf-8")
    event, delivery, written = upload_and_deliver(local, story, local.triggers[0])
    assert delivery.succeeded and not delivery.retries, delivery.final.log_lines[-15:]
    assert event["Records"][0]["s3"]["object"]["key"].startswith("input/")
    assert all(uri.startswith(f"s3://{OUTPUT_BUCKET}/output/") for uri in written)
    manifests = [uri for uri in written if uri.endswith(".json")]
    audio = [uri for uri in written if not uri.endswith(".json")]
    assert len(manifests) == 1 and len(audio) == 1, written
    manifest = json.loads(local.s3.fetch(OUTPUT_BUCKET, manifests[0].split("/", 3)[3]).body)
    assert manifest["status"] == "done"
    stored = local.s3.fetch(OUTPUT_BUCKET, audio[0].split("/", 3)[3])
    assert stored.content_type.startswith("audio/")
    assert sf.info(io.BytesIO(stored.body)).duration > 0


def test_replay_of_sample_events_with_the_real_handler(local, tmp_path):
    names = ["furl_post_tts", "furl_unknown_voice", "s3_put_txt", "direct_invoke"]
    report = run.replay(local, collect([str(EVENTS / f"{name}.json") for name in names]), audio_dir=tmp_path / "audio")
    rows = {r.event: r for r in report.records}
    assert report.passed, [(r.event, r.failures) for r in report.records]
    if local.limits.mode.startswith("cgroup"):
        assert "115800" in local.limits.detail  # Lambda's CPU share at 2048 MB
    assert rows["furl_unknown_voice"].status == 422
    for name in ("furl_post_tts", "s3_put_txt", "direct_invoke"):
        assert rows[name].audio_s > 0 and rows[name].rtf > 0, rows[name]
        assert all(Path(p).is_file() for p in rows[name].audio_files)
    # Audio answers and JSON answers both say which model made them (the S3 result is a summary).
    assert rows["furl_post_tts"].function_model == rows["direct_invoke"].function_model == "stand-in"


def test_a_memory_limit_below_the_function_footprint_is_an_oom_the_report_names(tiny_model_dir, tmp_path, capsys):
    # The interpreter, numpy and onnxruntime alone need more anonymous memory than this.
    report_path = tmp_path / "report.json"
    existing = set(leftover_cgroups())  # the module's running function keeps its own
    status = run_command(
        "replay",
        str(EVENTS / "furl_post_tts.json"),
        "--model",
        str(tiny_model_dir),
        "--profile",
        "custom",
        "--memory-mb",
        "32",
        "--report",
        str(report_path),
    )
    row = json.loads(report_path.read_text())["invocations"][0]
    assert status == 1
    assert row["outcome"] == "oom" and row["status"] == 502
    # The sidecar expected audio, so its checks fail too; the budget line names the OOM.
    assert "over the memory budget: OOM-killed at 32 MB" in row["failures"]
    assert row["error_message"].startswith("killed at the memory limit")
    assert "oom" in capsys.readouterr().out
    assert set(leftover_cgroups()) == existing


def test_a_request_longer_than_the_function_timeout_is_a_504_not_a_lambda_timeout(tiny_model_dir):
    """The hard deadline in the real function, under RIE: the synthesis is stopped before Lambda's
    timeout, the caller gets a 504 that says what to do, and the container stays warm."""
    args = function_args(
        "--model", str(tiny_model_dir), "--profile", "lambda-2048", "--timeout", "4", "--no-s3", "--invoke-mode", "BUFFERED"
    )
    event = json.loads((EVENTS / "furl_post_tts.json").read_text())
    slow = dict(event, body=json.dumps({"text": "A sentence that takes a while to say. " * 75, "steps": 100}))
    existing = set(leftover_cgroups())  # the module's running function keeps its own
    # Without the plan that refuses it before any audio: the deadline is what is tested here.
    with start_local_function(args, environment_overrides={"SUPERTONIC_SYNC_PLAN_RTF": "0"}) as local:
        first = local.sandbox.invoke(event)
        stopped = local.sandbox.invoke(slow)
        after = local.sandbox.invoke(event)
    answers = [json.loads(invocation.body) for invocation in (first, stopped, after)]
    assert all(i.outcome is Outcome.SUCCESS for i in (first, stopped, after)), stopped.log_lines[-10:]
    assert [a["statusCode"] for a in answers] == [200, 504, 200]
    error = json.loads(answers[1]["body"])["error"]
    assert error["code"] == "deadline_exceeded" and "shorter text" in error["message"]
    assert stopped.duration_ms < 4000  # stopped by the function itself, before Lambda's 4 s timeout
    assert not after.cold_start  # no timeout, so no reset: the next caller finds a warm container
    assert set(leftover_cgroups()) == existing


def test_a_job_posted_to_the_function_url_is_rendered_as_s3_would_notify_it(local):
    server = FunctionUrlServer(local, log=lambda line: None).start()

    def call(path, body=None):
        request = urllib.request.Request(
            server.url + path.lstrip("/"),
            method="POST" if body else "GET",
            data=json.dumps(body).encode() if body else None,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    try:
        started = time.perf_counter()
        call("/v1/tts", {"text": "A job, read aloud.", "steps": 2})
        patience_s = 30 + 20 * (time.perf_counter() - started)  # what the same work took here, synchronously
        job = call("/v1/jobs", {"text": "A job, read aloud.", "steps": 2})
        status_path = urllib.parse.urlsplit(job["status_url"]).path
        deadline = time.monotonic() + patience_s
        while (status := call(status_path))["status"] == "queued" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        server.stop()
    assert status["status"] == "done", status
