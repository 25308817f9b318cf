"""``bench --fanout`` as a user runs it: a long job through RIE, measured part by part, then simulated."""

import json

from supertonic_cli import main as cli


def test_bench_fanout_measures_every_part_the_assembly_and_simulates_lambda(tmp_path, tiny_model_dir, capsys):
    path = tmp_path / "fanout.json"
    argv = ["bench", "--fanout", "--model", str(tiny_model_dir), "--fanout-cases", "5000:1", "--concurrency", "2", "--json", str(path)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    report = json.loads(path.read_text())
    (run,) = report["runs"]
    assert run["status"] == "done" and run["concurrency"] == 2
    rendered = sorted(p["part"] for p in run["parts"] if p["part"] is not None)
    assert rendered == list(range(run["parts_total"])) and run["parts_total"] > 1  # each part once
    assert all(p["synth_ms"] > 0 and p["duration_ms"] >= p["synth_ms"] for p in run["parts"])
    assert run["assembly"]["assembly_ms"] > 0 and run["assembly"]["peak_rss_mb"] > 0
    assert run["overhead_per_part"]["median"] is not None
    assert run["audio_s"] > 0 and run["billed_ms_total"] >= sum(p["billed_ms"] for p in run["parts"])
    assert {(row["chars"], row["concurrency"]) for row in report["simulation"]} == {
        (n, c) for n in (10_000, 100_000, 1_000_000) for c in (10, 100, 1_000)
    }
    assert "stand-in" in report["note"] and "Amazon Polly" in out
