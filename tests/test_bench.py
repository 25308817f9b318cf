"""The benchmark on the tiny stand-in: the JSON it writes has every figure the README table needs.

Timings on a shared machine mean nothing in a test, so nothing here asserts on them.
"""

from __future__ import annotations

import json

import pytest

from supertonic_cli import main as cli
from supertonic_harness.bench import run
from supertonic_harness.bench.floor import FlopModel


@pytest.fixture(scope="module")
def quick_report(tiny_model_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    argv = [
        "bench",
        "--model",
        str(tiny_model_dir),
        "--vs-official",
        "--suite",
        "quick",
        "--runs",
        "1",
        "--variant",
        "stock:SUPERTONIC_PREPARED=0",
        "--json",
        str(out / "bench.json"),
        "--png",
        str(out / "bench.png"),
    ]
    assert cli.main(argv) == 0
    return json.loads((out / "bench.json").read_text()), out


def test_summary_has_the_speedup_and_the_peak_of_the_reference_request(quick_report):
    report, _ = quick_report
    summary = report["summary"]
    rows = {row["side"]: row for row in report["rows"]}  # the quick suite has one case: the summary's
    ours, official, sides = rows["ours"], rows["official"], report["sides"]
    figures = {
        "rtf": ours["rtf_median"],
        "chars_per_s": ours["chars_per_s"],
        "peak_rss_mb": ours["peak_rss_mb_median"],
        "floor_rtf": ours["floor_rtf"],
        "idle_rss_mb": sides["ours"]["idle_rss_mb"],
        "cold_start_s": sides["ours"]["cold_start_s"],
        "official_rtf": official["rtf_median"],
        "official_cold_start_s": sides["official"]["cold_start_s"],
    }
    assert {key: summary[key] for key in figures} == figures
    assert summary["speedup_vs_official"] == pytest.approx(summary["official_rtf"] / summary["rtf"])
    assert summary["max_abs_diff_vs_official"] < 1e-4  # same graphs, same noise: the same audio


def test_every_side_and_case_has_a_row_with_ratios_to_the_official_side(quick_report):
    report, _ = quick_report
    assert list(report["sides"]) == ["ours", "ours:stock", "official"]
    assert report["sides"]["ours:stock"]["env"] == {"SUPERTONIC_PREPARED": "0"}
    for side in report["sides"].values():
        assert {"cold_start_s", "import_s", "load_s", "first_request_s", "idle_rss_mb", "idle_rss_anon_mb"} <= set(side)
    rows = {row["side"]: row for row in report["rows"]}
    assert set(rows) == set(report["sides"])
    for label in ("ours", "ours:stock"):
        assert set(rows[label]["ratio_vs_official"]) == {"rtf", "chars_per_s", "peak_rss_mb"}
        assert rows[label]["max_abs_diff_vs_reference"] < 1e-4
    assert "ratio_vs_official" not in rows["official"]
    for row in rows.values():
        assert row["rtf_min"] <= row["rtf_median"] <= row["rtf_max"]
        assert row["gflop"] > 0 and row["floor_rtf"] > 0 and row["audio_s"] > 0


def test_the_chart_and_the_table_are_written(quick_report):
    report, out = quick_report
    assert (out / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run.format_table(report)
    assert "speedup" in table and "en-59 s8" in table and "stand-in" in table


def test_soak_reports_drift_per_side(tiny_model_dir, tmp_path):
    path = tmp_path / "soak.json"
    assert cli.main(["bench", "--model", str(tiny_model_dir), "--soak", "4", "--steps", "1", "--json", str(path)]) == 0
    soak = json.loads(path.read_text())["soak"]["ours"]
    each = soak["rss_after_each_mb"]
    assert len(each) == 4
    # Settled after the first tenth of the requests (here the first), final at the last: drift is the growth between.
    assert soak["settled_rss_mb"] == pytest.approx(each[1], abs=0.05) and soak["final_rss_mb"] == pytest.approx(each[-1], abs=0.05)
    assert soak["drift"] == pytest.approx((soak["final_rss_mb"] - soak["settled_rss_mb"]) / soak["settled_rss_mb"])


@pytest.mark.parametrize("spec", ["nolabel", "ours:SUPERTONIC_X=1", "x:PATH=/bin", "x:SUPERTONIC_X"])
def test_variants_must_name_a_label_and_supertonic_settings(spec):
    with pytest.raises(SystemExit):
        run.parse_variant(spec)


def test_flop_model_grows_with_text_and_audio(tiny_model_dir):
    flops = FlopModel(tiny_model_dir)
    base = flops.request_gflop([60], [40], steps=8)
    assert flops.request_gflop([60], [80], steps=8) > base
    assert flops.request_gflop([120], [40], steps=8) > base
    assert flops.request_gflop([60, 60], [40, 40], steps=8) == pytest.approx(2 * base)
    assert flops.request_gflop([60], [40], steps=2) < base


def test_summary_compares_each_variant_with_this_engine_and_counts_cold_reads(quick_report):
    report, _ = quick_report
    variant = report["summary"]["variants"]["ours:stock"]
    assert variant["speedup_vs_ours"] == pytest.approx(report["summary"]["rtf"] / variant["rtf"])
    assert len(variant["speedup_pairs"]) == report["runs"] and variant["speedup_pairs_median"] > 0
    for side in report["sides"].values():
        assert side["cold_read_mb"] >= 0 and "init_read_bytes" in side
    assert report["machine"]["int8_isa"] in ("amx", "vnni", "avx2", "none")


def test_cost_prices_each_memory_size_and_recommends_one(tiny_model_dir, tmp_path):
    import os

    from supertonic_harness.bench.cost import POLLY_USD_PER_M_CHARS, USD_PER_GB_S, request_usd

    too_big = 1769 * (len(os.sched_getaffinity(0)) + 1)  # more CPU share than this machine has
    path, png = tmp_path / "cost.json", tmp_path / "cost.png"
    argv = [
        "bench",
        "--model",
        str(tiny_model_dir),
        "--cost",
        "--runs",
        "1",
        "--memory-sizes",
        f"1024,2048,{too_big}",
        "--json",
        str(path),
        "--png",
        str(png),
    ]
    assert cli.main(argv) == 0
    report = json.loads(path.read_text())
    rows = {r["memory_mb"]: r for r in report["cost_rows"]}
    assert set(rows) == {1024, 2048, too_big}
    assert rows[too_big]["measured"] is False and "cores" in rows[too_big]["why"]
    # A size is measured where this machine has its CPU share (2048 MB is 1.16 vCPU: not on one core).
    cores = len(os.sched_getaffinity(0))
    measurable = [mb for mb in (1024, 2048) if mb / 1769 <= cores]
    for mb in {1024, 2048} - set(measurable):
        assert rows[mb]["measured"] is False and "cores" in rows[mb]["why"]
    threads = {1024: 1, 2048: 1}  # what the function picks under that share: a thread per whole vCPU
    assert {mb: rows[mb]["threads"] for mb in measurable} == {mb: threads[mb] for mb in measurable}
    for mb in measurable:
        r = rows[mb]
        assert r["usd_per_m_chars"] == pytest.approx(request_usd(mb, r["synth_s"]) / r["chars"] * 1e6)
        assert r["usd_per_audio_hour"] == pytest.approx(request_usd(mb, r["synth_s"]) / r["audio_s"] * 3600)
        assert r["latency_300_s"] > 0 and r["cold_start_s"] > 0
        # The template's longest synchronous text, projected at this RTF, against its timeout.
        assert r["longest_sync_s"] == pytest.approx(r["rtf"] * report["sync_limits"]["max_text_chars"] / r["chars_per_audio_s"])
        assert r["fits_timeout"] == (r["longest_sync_s"] <= report["sync_limits"]["synthesis_budget_s"])
    assert request_usd(1024, 1.0) == pytest.approx(USD_PER_GB_S + 0.2e-6)
    assert report["prices"]["polly_usd_per_m_chars"] == POLLY_USD_PER_M_CHARS
    assert report["sync_limits"] == {"max_text_chars": 3000, "synthesis_budget_s": 178.0}  # template.yaml
    assert report["recommended"]["ours"]["memory_mb"] in measurable
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run.format_table(report)
    assert "$/1M chars" in table and "not measured" in table and "recommended for ours" in table and "Polly" in table
