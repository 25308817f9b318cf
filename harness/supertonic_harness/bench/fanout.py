"""``supertonic-lambda bench --fanout``: long jobs rendered in parts through RIE, measured, then simulated at scale.

    supertonic-lambda bench --fanout --model full --json benchmarks/fanout-lambda-2048.json

Each case is a ``.json`` job dropped in the local input bucket, as a user drops one: the planner
(the S3 trigger) fans it out over the template's parts queue, the local SQS event source mapping
runs the parts on ``concurrency`` sandboxes (each under the profile's limits), and the last part
assembles the file. Measured per run: wall time from upload to the manifest's ``done``, every
part's billed time and its synthesis (from the function's ``part rendered`` log line), so the
overhead per part beyond synthesis, and the assembly's time and the peak RSS of the invocation
that assembled. The per-part times then feed ``fanout_sim`` for 10k to 1M characters at a
concurrency of 10 to 1,000, cold starts included.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fronts.emulator import upload_and_deliver
from ..fronts.local import LocalFunction, start_local_function
from ..fronts.sqs import Batch
from ..function.outcome import Outcome
from ..function.sandbox import Invocation
from ..function.template import trigger_for
from .fanout_sim import Measured, format_simulation, simulate_grid
from .texts import long_text

# (characters, steps): the two texts; 2 steps keep the 100,000-character run near 20 minutes.
FANOUT_CASES = ((20_000, 8), (100_000, 2))
FANOUT_CONCURRENCY = (1, 2)
FANOUT_PROFILE = "lambda-2048"
VOICE = "M1"
SEED = 7
# The default format; mp3 encodes at ~13 ms per audio second, about 120 s of one assembly for
# 100,000 characters: the join, not the encoder, is what this measures.
FORMAT = "wav"


@dataclass(frozen=True)
class FanoutCase:
    chars: int
    steps: int

    @property
    def label(self) -> str:
        return f"en-{self.chars}-s{self.steps}"


def parse_cases(spec: str | None) -> list[FanoutCase]:
    """``CHARS:STEPS[,CHARS:STEPS]`` (default: the issue's 20,000 at 8 steps and 100,000 at 2)."""
    if not spec:
        return [FanoutCase(chars, steps) for chars, steps in FANOUT_CASES]
    cases = []
    for item in spec.split(","):
        chars, _, steps = item.partition(":")
        cases.append(FanoutCase(int(chars), int(steps or 8)))
    return cases


def run_fanout(
    model: str, *, cases: list[FanoutCase], concurrency: tuple[int, ...], profile: str = FANOUT_PROFILE, timeout_s: int | None = None
) -> dict[str, Any]:
    """Every case at every concurrency; one local function per concurrency, its first case cold."""
    runs = []
    for workers in concurrency:
        args = _function_arguments(
            ["--profile", profile, "--model", model, "--concurrency", str(workers)]
            + (["--timeout", str(timeout_s)] if timeout_s is not None else [])
        )
        with start_local_function(args, need_s3=True, on_batch=_progress) as local:
            for case in cases:
                runs.append(run_case(local, case, workers))
                print(_run_line(runs[-1]), flush=True)
    measured = measured_from(runs)
    return {
        "kind": "fanout",
        "profile": profile,
        "model": model,
        "format": FORMAT,
        "runs": runs,
        "measured": measured.__dict__ if measured else None,
        "simulation": [row.to_json() for row in simulate_grid(measured)] if measured else [],
        "note": "stand-in model: the audio is noise, not speech; times are this machine's under the profile's limits",
    }


def _progress(batch: Batch) -> None:
    if not batch.succeeded:
        print(f"  sqs {batch.queue}: {batch.describe()}; {batch.invocation.outcome.value}", flush=True)


def _function_arguments(argv: list[str]) -> argparse.Namespace:
    """The local function's settings, read by the parser every command that runs it uses."""
    from ..fronts.local import add_function_arguments

    parser = argparse.ArgumentParser(prog="bench --fanout")
    add_function_arguments(parser)
    return parser.parse_args(argv)


def run_case(local: LocalFunction, case: FanoutCase, workers: int) -> dict[str, Any]:
    """Drop one job, wait for its manifest, measure it, then remove its input and outputs."""
    if local.s3 is None or not local.triggers:
        raise RuntimeError("the fan-out benchmark needs the template's S3 trigger and the local S3")
    text = long_text(case.chars, "en")
    job = {"text": text, "voice": VOICE, "steps": case.steps, "seed": SEED, "format": FORMAT}
    name = f"bench-{case.label}-c{workers}-{time.time_ns()}.json"
    counts = [len(mapping.batches) for mapping in local.mappings]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        path.write_text(json.dumps(job))
        trigger = trigger_for(name, local.triggers)
        before = local.s3.keys()
        started = time.monotonic()
        event, delivery, written = upload_and_deliver(local, path, trigger)
        wall_s = time.monotonic() - started
    batches = [batch for mapping, n in zip(local.mappings, counts, strict=True) for batch in mapping.batches[n:]]
    manifest = _manifest(local, before)
    run = summarize_run(case, workers, len(text), wall_s, delivery.final, batches, manifest)
    _remove(local, before)
    return run


def _part_record(invocation: Invocation, entry: dict[str, Any] | None, assembled: bool) -> dict[str, Any]:
    record = {
        "part": entry.get("part") if entry else None,
        "outcome": invocation.outcome.value,
        "cold": invocation.cold_start,
        "init_ms": invocation.init_ms,
        "billed_ms": invocation.billed_ms,
        "duration_ms": invocation.duration_ms,
        "synth_ms": entry.get("synth_ms") if entry else None,
        "assembled": assembled,
    }
    return record if entry else record | {"error": invocation.error_type}


def summarize_run(
    case: FanoutCase, workers: int, chars: int, wall_s: float, planner: Any, batches: list[Batch], manifest: dict[str, Any] | None
) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    assembly: dict[str, Any] | None = None
    for batch in batches:
        invocation = batch.invocation
        logged = _logged(invocation.log_lines)
        # An invocation that rendered no part (it failed, or found its part stored) is a record too.
        rendered: list[dict[str, Any] | None] = [*logged.get("part rendered", [])] or [None]
        parts.extend(_part_record(invocation, entry, "job assembled" in logged) for entry in rendered)
        for entry in logged.get("job assembled", []):
            assembly = {
                "assembly_ms": entry.get("assembly_ms"),
                "peak_rss_mb": round(invocation.peak_rss_mb, 1),
                "cgroup_peak_mb": invocation.cgroup_peak_mb,
                "duration_ms": invocation.duration_ms,
            }
    plain = [p for p in parts if p["synth_ms"] and not p["assembled"] and p["outcome"] == Outcome.SUCCESS.value]
    overheads = [(p["duration_ms"] - p["synth_ms"]) / p["synth_ms"] for p in plain if p["duration_ms"]]
    billed = sum(p["billed_ms"] or 0 for p in parts) + (planner.billed_ms or 0)
    return {
        "case": case.label,
        "chars": chars,
        "steps": case.steps,
        "concurrency": workers,
        "status": (manifest or {}).get("status"),
        "wall_s": round(wall_s, 1),
        "audio_s": (manifest or {}).get("duration_s"),
        "parts_total": (manifest or {}).get("parts_total"),
        "parts_invocations": len(parts),
        "planner": {
            "duration_ms": planner.duration_ms,
            "billed_ms": planner.billed_ms,
            "cold": planner.cold_start,
            "init_ms": planner.init_ms,
            "outcome": planner.outcome.value,
        },
        "billed_ms_total": billed,
        "overhead_per_part": {
            "median": round(statistics.median(overheads), 4) if overheads else None,
            "mean": round(statistics.fmean(overheads), 4) if overheads else None,
            "max": round(max(overheads), 4) if overheads else None,
        },
        "assembly": assembly,
        "parts": parts,
    }


def _logged(lines: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The function's JSON log lines by message."""
    found: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        start = line.find("{")
        if start < 0:
            continue
        try:
            entry = json.loads(line[start:])
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("message"), str):
            found.setdefault(entry["message"], []).append(entry)
    return found


def _manifest(local: LocalFunction, before: set) -> dict[str, Any] | None:
    if local.s3 is None:
        return None
    for bucket, key, _ in local.s3.keys() - before:
        if key.endswith("/manifest.json"):
            return json.loads(local.s3.fetch(bucket, key).body)
    return None


def _remove(local: LocalFunction, before: set) -> None:
    """The run's input and outputs, so the next run (same process, same moto) starts clean."""
    if local.s3 is None:
        return
    for bucket, key, _ in local.s3.keys() - before:
        local.s3.client.delete_object(Bucket=bucket, Key=key)


def measured_from(runs: list[dict[str, Any]]) -> Measured | None:
    """Per-part units for the simulation, from the concurrency-1 runs (no sandbox shares the CPU)."""
    solo = [r for r in runs if r["concurrency"] == 1 and r["status"] == "done"] or [r for r in runs if r["status"] == "done"]
    if not solo:
        return None
    run = max(solo, key=lambda r: r["steps"])  # the default steps: what a user's job costs
    warm = [p["billed_ms"] for p in run["parts"] if p["billed_ms"] and not p["cold"] and not p["assembled"]]
    inits = [p["init_ms"] for r in runs for p in r["parts"] if p.get("cold") and p.get("init_ms")]
    inits += [r["planner"]["init_ms"] for r in runs if r["planner"]["cold"] and r["planner"]["init_ms"]]
    assembly = run["assembly"] or {}
    return Measured(
        chars_per_part=run["chars"] / max(1, run["parts_total"] or 1),
        part_ms=tuple(float(ms) for ms in warm),
        init_ms=float(statistics.median(inits)) if inits else 0.0,
        plan_ms_per_char=float(run["planner"]["billed_ms"] or 0) / run["chars"],
        assembly_ms_per_part=float(assembly.get("assembly_ms") or 0) / max(1, run["parts_total"] or 1),
        memory_mb=2048,
    )


def _run_line(run: dict[str, Any]) -> str:
    over = run["overhead_per_part"]["median"]
    asm = run["assembly"] or {}
    return (
        f"{run['case']} c={run['concurrency']}: {run['status']} in {run['wall_s']:.1f} s wall, "
        f"{run['parts_total']} parts, audio {run['audio_s']} s, billed {run['billed_ms_total'] / 1000:.1f} s, "
        f"overhead/part {over if over is None else f'{over:.1%}'}, assembly {asm.get('assembly_ms')} ms "
        f"at peak RSS {asm.get('peak_rss_mb')} MB"
    )


def format_fanout(report: dict[str, Any]) -> list[str]:
    lines = [
        f"fan-out through RIE, profile {report['profile']}, model {report['model']} ({report['note']})",
        f"{'case':<18} {'conc':>4} {'status':>7} {'parts':>6} {'audio s':>8} {'wall s':>7} {'billed s':>9} "
        f"{'ovh med':>8} {'ovh max':>8} {'asm ms':>7} {'asm RSS':>8}",
    ]
    for r in report["runs"]:
        o, a = r["overhead_per_part"], r["assembly"] or {}
        lines.append(
            f"{r['case']:<18} {r['concurrency']:>4} {str(r['status']):>7} {str(r['parts_total']):>6} "
            f"{r['audio_s'] or 0:>8.1f} {r['wall_s']:>7.1f} {r['billed_ms_total'] / 1000:>9.1f} "
            f"{_pct(o['median']):>8} {_pct(o['max']):>8} {str(a.get('assembly_ms')):>7} "
            f"{str(a.get('peak_rss_mb')):>8}"
        )
    if report["simulation"]:
        from .fanout_sim import Simulated

        lines.append("")
        lines.append("simulated on Lambda from the measured parts (SQS mapping: 5 batches at first, +300 a minute):")
        lines += format_simulation([Simulated(**row) for row in report["simulation"]])
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
