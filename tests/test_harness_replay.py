"""replay: event files in, a checked table, JSON report, chart and audio out; the exit status says if all held."""

from __future__ import annotations

import json

import pytest
from harness_fixtures.support import FIXTURES, run_command

from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.function.limits import PROFILES, open_limits
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.sandbox import Invocation, Measurements
from supertonic_harness.replay import run
from supertonic_harness.replay.events import EventError, Expectation, ReplayEvent, collect, expand
from supertonic_harness.replay.report import Record

EVENTS = FIXTURES / "events"


def sample_replay_args(*extra: str) -> list[str]:
    return ["--handler", "sample_functions.by_action", "--task-root", str(FIXTURES), "--template", "none", *extra]


def test_events_expand_from_directories_and_globs_without_sidecars():
    names = [p.name for p in expand([str(EVENTS)])]
    assert names == ["01_tone.json", "02_fail.json", "03_sleep.json", "04_tone_after_timeout.json", "05_oversized.json"]
    assert [p.name for p in expand([str(EVENTS / "0[45]*.json"), str(EVENTS / "05_oversized.json")])] == names[3:]
    with pytest.raises(EventError, match="no such event"):
        expand([str(EVENTS / "missing.json")])


def test_expectations_come_from_sidecars_and_the_expect_key_and_never_reach_the_function():
    events = {e.name: e for e in collect([str(EVENTS)])}
    assert events["03_sleep"].expect == Expectation(outcome=Outcome.TIMEOUT)
    assert events["01_tone"].expect == Expectation(status=200, content_type="audio/wav", max_rtf=5)
    assert events["04_tone_after_timeout"].expect == Expectation()  # default: must succeed
    assert all("_expect" not in e.payload for e in events.values())


def test_bad_expectations_and_seeds_are_refused(tmp_path):
    (tmp_path / "a.json").write_text('{"_expect": {"statuss": 200}}')
    with pytest.raises(EventError, match="unknown expectation"):
        collect([str(tmp_path / "a.json")])
    (tmp_path / "b.json").write_text('{"_expect": {"outcome": "exploded"}}')
    with pytest.raises(EventError, match="not one of"):
        collect([str(tmp_path / "b.json")])
    (tmp_path / "c.json").write_text('{"_s3_object": {"text": "hi"}}')
    with pytest.raises(EventError, match="needs an S3 event"):
        collect([str(tmp_path / "c.json")])


def test_s3_seeds_come_from_text_or_a_file_beside_the_event(tmp_path):
    (record,) = s3_put_event("in", "input/a b.txt", 0, "")["Records"]
    (tmp_path / "story.txt").write_text("파일", encoding="utf-8")
    (tmp_path / "text.json").write_text(json.dumps({"Records": [record], "_s3_object": {"text": "안녕"}}))
    (tmp_path / "file.json").write_text(json.dumps({"Records": [record], "_s3_object": {"file": "story.txt"}}))
    seeds = {e.name: e.seed for e in collect([str(tmp_path / "*.json")])}
    assert (seeds["text"].bucket, seeds["text"].key, seeds["text"].body) == ("in", "input/a b.txt", "안녕".encode())
    assert seeds["file"].body == "파일".encode()


def _record(**overrides) -> Record:
    values = dict(
        index=1,
        event="e",
        repeat=0,
        outcome="success",
        status=200,
        cold_start=False,
        init_ms=None,
        duration_ms=500.0,
        billed_ms=500,
        wall_ms=510.0,
        peak_rss_mb=300.0,
        rss_after_mb=290.0,
        cgroup_peak_mb=400.0,
        audio_s=2.0,
        rtf=0.25,
        content_type="audio/wav",
    )
    values.update(overrides)
    return Record(**values)


def test_a_record_carries_every_measurement_of_its_invocation():
    # One field list for both: the sandbox's Invocation and the report's Record.
    assert issubclass(Invocation, Measurements) and issubclass(Record, Measurements)
    numbers = Measurements(
        cold_start=True, init_ms=1.5, duration_ms=2.5, billed_ms=3, wall_ms=4.5, peak_rss_mb=5.5, rss_after_mb=5.0, cgroup_peak_mb=6.5
    )
    invocation = Invocation(
        **numbers.measurements(), outcome=Outcome.SUCCESS, status=200, body=b"{}", error_type=None, error_message=None, request_id="r"
    )
    event = ReplayEvent(name="e", path=EVENTS / "01_tone.json", payload={}, expect=Expectation())
    assert run._record(invocation, event, 1, 0).measurements() == numbers.measurements()


@pytest.mark.parametrize(
    ("record", "expect", "max_rtf", "broken"),
    [
        (_record(), Expectation(status=200, content_type="audio/wav", max_rtf=0.5), None, []),
        (_record(status=400), Expectation(status=200), None, ["expected status 200, got 400"]),
        (_record(outcome="timeout", status=502), Expectation(), None, ["expected outcome success, got timeout"]),
        (_record(rtf=0.9), Expectation(), 0.5, ["RTF 0.900 is over the budget of 0.5"]),
        (_record(rtf=0.9), Expectation(max_rtf=1.0), 0.5, []),  # the event's own limit wins
        (_record(rtf=None, audio_s=None), Expectation(), 0.5, ["RTF budget 0.5 set, but the invocation produced no audio to measure"]),
        (
            _record(content_type="application/json"),
            Expectation(content_type="audio/"),
            None,
            ["expected content type audio/, got application/json"],
        ),
        # Expected or not, an OOM kill breaks the memory budget.
        (_record(outcome="oom", status=502), Expectation(outcome=Outcome.OOM), None, ["over the memory budget: OOM-killed at 2048 MB"]),
        (_record(peak_rss_mb=2100.0), Expectation(), None, ["over the memory budget: peak RSS 2100 MB > 2048 MB"]),
    ],
)
def test_checks(record, expect, max_rtf, broken):
    assert run.check(record, expect, memory_mb=2048, max_rtf=max_rtf) == broken


def test_replay_classifies_every_outcome_and_writes_report_chart_and_audio(tmp_path, capsys):
    report_path = tmp_path / "out" / "report.json"
    status = run_command("replay", str(EVENTS), *sample_replay_args("--timeout", "3", "--report", str(report_path)))
    printed = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    rows = report["invocations"]
    assert status == 0, printed
    assert report["passed"] is True
    assert [r["outcome"] for r in rows] == ["success", "function_error", "timeout", "success", "too_large"]
    assert [r["cold_start"] for r in rows] == [True, False, False, True, False]
    # Bytes read from storage are counted for cold starts only (what a new container fetches).
    assert [r["init_read_mb"] is not None for r in rows] == [True, False, False, True, False]
    assert all(r["init_read_mb"] >= 0 for r in rows if r["cold_start"])
    assert rows[0]["audio_s"] == pytest.approx(1.5) and 0 < rows[0]["rtf"] < 5
    assert rows[2]["log_tail"] and not rows[0]["log_tail"]
    assert report["budget"]["judged_on"] == "peak_rss_mb"
    with open_limits(PROFILES["2vcpu-2gb"]) as here:  # the default profile: the limits this machine gives it
        assert (report["limits"]["mode"], report["limits"]["skipped"]) == (here.mode, here.skipped)
    assert (tmp_path / "out" / "report.png").read_bytes().startswith(b"\x89PNG")
    saved = sorted(p.name for p in (tmp_path / "out" / "report-audio").iterdir())
    assert saved == ["001-01_tone.wav", "004-04_tone_after_timeout.wav"]
    for heading in ("cold", "RTF", "RSS MB", "init ms", "read MB"):
        assert heading in printed
    assert "03_sleep" in printed and "timeout" in printed


def test_oom_under_a_small_profile_and_broken_expectations_fail_the_run(tmp_path, capsys):
    (tmp_path / "fits.json").write_text('{"action": "allocate", "mb": 16}')
    (tmp_path / "grows.json").write_text('{"action": "allocate", "mb": 400, "_expect": {"outcome": "oom"}}')
    (tmp_path / "wrong.json").write_text('{"action": "tone", "seconds": 0.2, "_expect": {"status": 201}}')
    report_path = tmp_path / "report.json"
    status = run_command(
        "replay",
        str(tmp_path / "*.json"),
        *sample_replay_args("--profile", "custom", "--cpus", "1", "--memory-mb", "200", "--report", str(report_path)),
    )
    printed = capsys.readouterr().out
    rows = {r["event"]: r for r in json.loads(report_path.read_text())["invocations"]}
    assert status == 1
    assert rows["grows"]["outcome"] == "oom" and rows["grows"]["status"] == 502
    assert rows["grows"]["failures"] == ["over the memory budget: OOM-killed at 200 MB"]
    assert rows["fits"]["failures"] == []
    assert rows["wrong"]["failures"] == ["expected status 201, got 200"]
    assert "OOM-killed at 200 MB" in printed and "FAIL" in printed


def test_an_answer_no_http_response_can_carry_fails_its_row_not_the_run(tmp_path, capsys):
    (tmp_path / "a_bad.json").write_text(json.dumps({"action": "respond", "response": {"statusCode": 200, "body": "\udfff"}}))
    (tmp_path / "b_good.json").write_text('{"action": "tone", "seconds": 0.2}')
    report_path = tmp_path / "report.json"
    status = run_command("replay", str(tmp_path / "*.json"), *sample_replay_args("--report", str(report_path)))
    rows = {r["event"]: r for r in json.loads(report_path.read_text())["invocations"]}
    assert status == 1, capsys.readouterr()
    assert rows["a_bad"]["status"] == 502
    assert [f for f in rows["a_bad"]["failures"] if "UTF-8" in f]
    assert rows["b_good"]["failures"] == [] and rows["b_good"]["audio_s"] == pytest.approx(0.2)


def test_a_seed_utf_8_cannot_encode_is_refused_by_name(tmp_path):
    (record,) = s3_put_event("in", "input/a.txt", 0, "")["Records"]
    (tmp_path / "lone.json").write_text(json.dumps({"Records": [record], "_s3_object": {"text": "a\udfffb"}}))
    with pytest.raises(EventError, match="lone.json.*UTF-8"):
        collect([str(tmp_path / "lone.json")])


def test_run_that_cannot_start_exits_2_with_the_reason(tmp_path, capsys):
    assert run_command("replay", str(tmp_path / "none.json"), *sample_replay_args()) == 2
    assert "no such event file" in capsys.readouterr().err


def test_s3_events_are_seeded_and_their_audio_objects_measured(tmp_path):
    from harness_fixtures.support import TEMPLATE

    event = s3_put_event("sample-in-123456789012-us-east-1", "input/two words.txt", 1, "stale")
    event["_s3_object"] = {"text": "two words"}
    (tmp_path / "upload.json").write_text(json.dumps(event))
    report_path = tmp_path / "report.json"
    status = run_command(
        "replay",
        str(tmp_path / "upload.json"),
        "--handler",
        "sample_functions.s3_tone",
        "--task-root",
        str(FIXTURES),
        "--template",
        str(TEMPLATE),
        "--report",
        str(report_path),
    )
    row = json.loads(report_path.read_text())["invocations"][0]
    assert status == 0, row
    assert row["audio_s"] == pytest.approx(2.0)
    assert [p.rsplit("/", 1)[-1] for p in row["audio_files"]] == ["001-upload.wav"]
