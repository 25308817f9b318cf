"""Soak: ``replay --repeat N`` through RIE keeps the runtime's memory flat and its errors at zero."""

from __future__ import annotations

import json

from harness_fixtures.support import run_command

from supertonic_harness.function.rie import REPO_ROOT
from supertonic_harness.replay.report import Record
from supertonic_harness.replay.soak import DRIFT_TARGET_PCT, soak_summary

EVENTS = REPO_ROOT / "events"
# Function-URL TTS in four formats and as JSON, refusals, health, an S3 text and a direct invoke.
MIX = [
    "furl_post_tts",
    "furl_post_form",
    "furl_post_text_plain",
    "furl_openai_speech",
    "furl_accept_json",
    "furl_get_health",
    "furl_unknown_voice",
    "furl_bad_json",
    "s3_put_txt",
    "direct_invoke",
]
ROUNDS = 6


def test_a_short_soak_of_mixed_requests_in_one_sandbox_keeps_rss_flat_with_no_error(tiny_model_dir, tmp_path, capsys):
    report_path = tmp_path / "soak.json"
    status = run_command(
        "replay",
        *(str(EVENTS / f"{name}.json") for name in MIX),
        "--model",
        str(tiny_model_dir),
        "--profile",
        "lambda-2048",
        "--repeat",
        str(ROUNDS),
        "--report",
        str(report_path),
    )
    printed = capsys.readouterr().out
    soak = json.loads(report_path.read_text())["soak"]
    assert status == 0, printed
    assert (soak["rounds"], soak["invocations"], soak["warm_up_invocations"]) == (ROUNDS, ROUNDS * len(MIX), len(MIX))
    assert soak["errors"] == 0 and soak["cold_starts_after_warm_up"] == 0
    # A leak grows RSS every round; what moves it within one warm round is noise, and so is the target's share.
    bound_mb = DRIFT_TARGET_PCT / 100 * soak["first_rss_mb"] + 2 * soak["rss_noise_mb"]
    assert soak["last_rss_mb"] - soak["first_rss_mb"] < bound_mb, soak
    assert 0 < soak["p50_duration_ms"] <= soak["p95_duration_ms"]
    assert f"soak: {ROUNDS * len(MIX)} invocations in {ROUNDS} rounds" in printed and "drift" in printed


def _records(rss_by_round: list[list[float]], durations: list[float] | None = None) -> list[Record]:
    records, durations = [], iter(durations or [])
    for round_index, rss in enumerate(rss_by_round):
        for value in rss:
            records.append(
                Record(
                    index=len(records) + 1,
                    event=f"e{len(records) % len(rss)}",
                    repeat=round_index,
                    outcome="success",
                    status=200,
                    cold_start=not records,
                    init_ms=None,
                    duration_ms=next(durations, 100.0),
                    billed_ms=100,
                    wall_ms=101.0,
                    peak_rss_mb=value + 5,
                    rss_after_mb=value,
                    cgroup_peak_mb=None,
                )
            )
    return records


def test_the_soak_summary_measures_drift_after_the_warm_up_and_sees_a_leak():
    # Round 0 is the warm-up (its jump from 100 MB is the arenas growing); then 1 MB more every round.
    leaking = soak_summary(_records([[100, 150], [150, 150.5], [151, 151.5], [152, 152.5], [153, 153.5]]))
    assert (leaking["first_rss_mb"], leaking["last_rss_mb"], leaking["rss_noise_mb"]) == (150.5, 153.5, 0.5)
    assert leaking["drift_pct"] == round(100 * 3 / 150.5, 3) and leaking["peak_rss_mb"] == 158.5
    assert leaking["warm_up_invocations"] == 2 and leaking["errors"] == 0
    flat = soak_summary(_records([[100, 150], [150, 150.5], [150, 150.5]]))
    assert flat["drift_pct"] == 0


def test_the_soak_summary_counts_errors_and_takes_percentiles_of_warm_durations_only():
    records = _records([[100, 100], [100, 100], [100, 100]], durations=[9000, 9000, *range(1, 5)])
    records[3].failures.append("expected status 200, got 502")
    summary = soak_summary(records)
    assert summary["errors"] == 1
    assert (summary["p50_duration_ms"], summary["p95_duration_ms"]) == (2, 4)  # the cold round's 9 s are left out
    assert soak_summary(_records([[100, 100]])) is None  # one round: nothing to compare
