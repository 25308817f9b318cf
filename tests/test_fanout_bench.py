"""``bench --fanout`` as a user runs it: a long job through RIE, measured part by part, then simulated."""

import json

from supertonic_cli import main as cli
from supertonic_harness.bench.fanout import FanoutCase, parse_cases


def test_bench_fanout_measures_every_part_the_join_and_simulates_lambda(tmp_path, tiny_model_dir, capsys):
    path = tmp_path / "fanout.json"
    argv = ["bench", "--fanout", "--model", str(tiny_model_dir), "--fanout-cases", "5000:1:opus", "--concurrency", "2", "--json", str(path)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    report = json.loads(path.read_text())
    (run,) = report["runs"]
    assert run["status"] == "done" and run["concurrency"] == 2 and run["format"] == "opus"
    # At the template's MemorySize unless told otherwise.
    assert report["profile"] == "lambda-1769"
    rendered = sorted(p["part"] for p in run["parts"] if p["part"] is not None)
    assert rendered == list(range(run["parts_total"])) and run["parts_total"] > 1  # each part once
    assert all(p["synth_ms"] > 0 and p["duration_ms"] >= p["synth_ms"] for p in run["parts"])
    # The joined file lasts what one invocation would have made of the job.
    assert run["matches_sequential"] and round(run["sequential_s"], 4) == run["audio_s"]
    assembly = run["assembly"]
    assert assembly["assembly_ms"] > 0 and assembly["peak_rss_mb"] > 0
    assert assembly["bytes"] > 0 and assembly["join_bytes_per_s"] == round(assembly["bytes"] / (assembly["assembly_ms"] / 1000.0))
    assert assembly["ms_per_part"] == round(assembly["assembly_ms"] / run["parts_total"], 3)
    assert assembly["bytes_per_audio_s"] == round(assembly["bytes"] / run["audio_s"], 1)
    assert run["overhead_per_part"]["median"] is not None
    assert run["audio_s"] > 0 and run["billed_ms_total"] >= sum(p["billed_ms"] for p in run["parts"])
    # The tiny stand-in's parts feed only the join: a part's time at full size is the full stand-in's.
    (measured,) = report["measured"]
    assert measured["format"] == "opus" and measured["join_bytes_per_s"] == assembly["join_bytes_per_s"]
    assert "fanout-lambda-2048.json" in report["parts_from"] and measured["memory_mb"] == 2048
    assert min(measured["part_ms"]) > 1000  # the full stand-in's 8-step parts, not the tiny's
    assert {(row["format"], row["chars"], row["concurrency"]) for row in report["simulation"]} == {
        ("opus", n, c) for n in (10_000, 100_000, 1_000_000) for c in (10, 100, 1_000)
    }
    assert {t["target"].split(":")[0] for t in report["targets"]} >= {"1,000,000 chars at concurrency 1,000, opus"}
    assert "stand-in" in report["note"] and "Amazon Polly" in out and "sequential forecast" in out


def test_cases_name_their_format_and_the_old_spelling_still_works():
    assert parse_cases(None) == [FanoutCase(100_000, 8, "mp3"), FanoutCase(100_000, 8, "opus")]
    assert parse_cases("20000:8,100000:2:opus,3000") == [
        FanoutCase(20_000, 8, "mp3"),
        FanoutCase(100_000, 2, "opus"),
        FanoutCase(3000, 8, "mp3"),
    ]


def test_stored_runs_are_simulated_again_and_a_book_costs_its_second_encoding(tmp_path, capsys):
    from supertonic_harness.function.rie import REPO_ROOT

    stored = REPO_ROOT / "benchmarks" / "fanout-joined.json"
    plain, book = tmp_path / "plain.json", tmp_path / "book.json"
    assert cli.main(["bench", "--fanout-from", str(stored), "--json", str(plain)]) == 0
    assert cli.main(["bench", "--fanout-from", str(stored), "--worker-encodes", "2", "--json", str(book)]) == 0
    plain_report, book_report = json.loads(plain.read_text()), json.loads(book.read_text())
    assert plain_report["runs"] == book_report["runs"] == json.loads(stored.read_text())["runs"]  # the runs as stored
    for once, twice in zip(plain_report["measured"], book_report["measured"], strict=True):
        assert twice["encode_ms_per_audio_s"] == 2 * once["encode_ms_per_audio_s"] > 0
        assert twice["bytes_per_audio_s"] == 2 * once["bytes_per_audio_s"]  # the assembly joins the chapters' files too
    for once, twice in zip(plain_report["simulation"], book_report["simulation"], strict=True):
        assert twice["usd"] > once["usd"] and twice["wall_s"] >= once["wall_s"]
    assert "encoded 2 time(s)" in capsys.readouterr().out


def test_the_encoding_cost_is_measured_for_every_format_whole_and_in_parts(tmp_path, capsys):
    from supertonic_engine import JOINABLE_FORMATS, available_formats

    path = tmp_path / "encode.json"
    from supertonic_harness.bench.encode_cost import format_encode_table, run_encode_cost

    report = run_encode_cost(seconds=2.0, runs=1)
    rows = {row["format"]: row for row in report["encode_rows"]}
    assert set(rows) == set(available_formats())
    assert all(row["whole_median"] > 0 for row in rows.values())
    assert {fmt for fmt, row in rows.items() if row["part_median"] is not None} == set(JOINABLE_FORMATS) & set(rows)
    path.write_text(format_encode_table(report))
    assert "not joined" in path.read_text()  # ogg: encoded whole
