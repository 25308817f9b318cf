"""``supertonic-lambda bench --fanout``: long jobs rendered in parts through RIE, measured, then simulated at scale.

    supertonic-lambda bench --fanout --model full --json benchmarks/fanout-lambda-2048.json

Each case is a ``.json`` job dropped in the local input bucket, as a user drops one: the planner
(the S3 trigger) fans it out over the template's parts queue, the local SQS event source mapping
runs the parts on ``concurrency`` sandboxes (each under the profile's limits), and the last part
assembles the file. Measured per run: wall time from upload to the manifest's ``done``, every
part's billed time and its synthesis (from the function's ``part rendered`` log line), so the
overhead per part beyond synthesis, and the assembly's time and the peak RSS of the invocation
that assembled, the bytes it joined and so its join rate. Each run's audio is checked against the
sequential forecast: the manifest's duration is what one invocation would make of the same job.

The parts are encoded by their workers and the assembly joins their bytes, so the join is what a run
on the tiny stand-in measures; a part's time at full size comes from the full stand-in's measured
parts (``FULL_PARTS_REPORT``). Both then feed ``fanout_sim`` for 10k to 1M characters at a
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

from supertonic_engine import Engine, SynthesisOptions
from supertonic_engine.options import DEFAULT_STEPS
from supertonic_function.fanout import ENCODE_MS_PER_AUDIO_S

from ..fronts.emulator import upload_and_deliver
from ..fronts.local import LocalFunction, start_local_function
from ..fronts.sqs import Batch
from ..function.outcome import Outcome
from ..function.rie import REPO_ROOT
from ..function.sandbox import Invocation
from ..function.template import Template, trigger_for
from .fanout_sim import Measured, Simulated, TargetCheck, check_targets, format_simulation, format_targets, simulate_grid
from .texts import long_text

# 100,000 characters (the most one job takes, SUPERTONIC_MAX_TEXT_CHARS) in each format whose
# parts are joined from bytes, at the engine's default steps.
FANOUT_CHARS = 100_000
FANOUT_FORMATS = ("mp3", "opus")
FANOUT_CONCURRENCY = (1, 2)
VOICE = "M1"
SEED = 7
# The full stand-in's parts through RIE under lambda-2048 (the README's fan-out table): what a part
# costs at full size when this run's model is the tiny stand-in, whose parts only feed the join.
FULL_PARTS_REPORT = REPO_ROOT / "benchmarks" / "fanout-lambda-2048.json"


@dataclass(frozen=True)
class FanoutCase:
    chars: int
    steps: int
    format: str = "mp3"

    @property
    def label(self) -> str:
        return f"en-{self.chars}-s{self.steps}-{self.format}"


def parse_cases(spec: str | None) -> list[FanoutCase]:
    """``CHARS[:STEPS[:FORMAT]][,...]``; steps default to the engine's, the format to mp3 (default:
    100,000 characters in mp3 and in opus at the default steps)."""
    if not spec:
        return [FanoutCase(FANOUT_CHARS, DEFAULT_STEPS, fmt) for fmt in FANOUT_FORMATS]
    cases = []
    for item in spec.split(","):
        chars, _, rest = item.partition(":")
        steps, _, fmt = rest.partition(":")
        cases.append(FanoutCase(int(chars), int(steps or DEFAULT_STEPS), fmt or "mp3"))
    return cases


def template_profile() -> str:
    """The Lambda profile at the template's MemorySize (its default): what a deployment runs at."""
    memory_mb = Template.load().function().memory_mb
    if memory_mb is None:
        raise SystemExit("template.yaml: the function has no MemorySize to run the fan-out at; pass --profile")
    return f"lambda-{memory_mb}"


def run_fanout(
    model: str,
    *,
    cases: list[FanoutCase],
    concurrency: tuple[int, ...],
    profile: str | None = None,
    timeout_s: int | None = None,
    parts_report: Path | None = FULL_PARTS_REPORT,
) -> dict[str, Any]:
    """Every case at every concurrency; one local function per concurrency, its first case cold.
    The simulation takes its parts from ``parts_report`` (a report of the full stand-in) unless this
    run's model is the full stand-in, or no such report is given."""
    profile = profile or template_profile()
    runs = []
    engine: Engine | None = None
    for workers in concurrency:
        args = _function_arguments(
            ["--profile", profile, "--model", model, "--concurrency", str(workers)]
            + (["--timeout", str(timeout_s)] if timeout_s is not None else [])
        )
        with start_local_function(args, need_s3=True, on_batch=_progress) as local:
            engine = engine or Engine.load(local.model_dir)
            for case in cases:
                runs.append(run_case(local, case, workers, engine))
                print(_run_line(runs[-1]), flush=True)
    report = {
        "kind": "fanout",
        "profile": profile,
        "model": model,
        "formats": sorted({case.format for case in cases}),
        "runs": runs,
        "note": "stand-in model: the audio is noise, not speech; times are this machine's under the profile's limits; "
        "on the tiny stand-in the parts render fast and the join is what is measured (moto's S3 on loopback)",
    }
    return simulated(report, parts_report)


def simulated(report: dict[str, Any], parts_report: Path | None = FULL_PARTS_REPORT, *, encodes: int = 1) -> dict[str, Any]:
    """``report`` (its runs) with the simulation at scale made from them: again, for a report
    stored before the encoding cost changed (``bench --fanout-from``). ``encodes``: times each
    worker encodes its part and the assembly joins the audio (2 for a book: the chapters' files too)."""
    runs, profile = report["runs"], report["profile"]
    parts_source, parts_runs, parts_profile = "this run", runs, profile
    if report["model"] != "full" and parts_report is not None:
        reference = json.loads(Path(parts_report).read_text())
        parts_runs, parts_profile = reference["runs"], reference["profile"]
        parts_source = f"{Path(parts_report).name} (model {reference['model']}, profile {parts_profile})"
    measured = measured_from(parts_runs, runs, _memory_mb(parts_profile), encodes=encodes)
    rows = [row for m in measured for row in simulate_grid(m)]
    targets = check_targets(
        rows,
        [r["assembly"]["peak_rss_mb"] for r in runs if r["assembly"]],
        _slowest_assembly_s([r for r in runs if r["chars"] >= 0.99 * FANOUT_CHARS]),
    )
    return {
        **report,
        "parts_from": parts_source,
        "worker_encodes": encodes,
        "measured": [m.__dict__ for m in measured],
        "simulation": [row.to_json() for row in rows],
        "targets": [t.to_json() for t in targets],
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


def _slowest_assembly_s(runs: list[dict[str, Any]]) -> dict[str, float]:
    """Each format's slowest assembly in ``runs``, in seconds."""
    slowest: dict[str, float] = {}
    for run in runs:
        if run["assembly"] and run["assembly"]["assembly_ms"]:
            slowest[run["format"]] = max(slowest.get(run["format"], 0.0), run["assembly"]["assembly_ms"] / 1000.0)
    return slowest


def run_case(local: LocalFunction, case: FanoutCase, workers: int, engine: Engine) -> dict[str, Any]:
    """Drop one job, wait for its manifest, measure it, then remove its input and outputs."""
    if local.s3 is None or not local.triggers:
        raise RuntimeError("the fan-out benchmark needs the template's S3 trigger and the local S3")
    text = long_text(case.chars, "en")
    job = {"text": text, "voice": VOICE, "steps": case.steps, "seed": SEED, "format": case.format}
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
    run["sequential_s"] = sequential_s(engine, text, case)
    run["matches_sequential"] = run["audio_s"] is not None and round(run["sequential_s"], 4) == run["audio_s"]
    _remove(local, before)
    return run


def sequential_s(engine: Engine, text: str, case: FanoutCase) -> float:
    """The seconds of audio one invocation makes of the case's job, from the duration predictor:
    what the file joined from its parts must last."""
    prepared = engine.prepare(text, SynthesisOptions(voice=VOICE, steps=case.steps, seed=SEED), format=case.format)
    return engine.forecast_frames(prepared) / engine.sample_rate


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
            } | join_rate(entry.get("assembly_ms"), manifest)
    plain = [p for p in parts if p["synth_ms"] and not p["assembled"] and p["outcome"] == Outcome.SUCCESS.value]
    overheads = [(p["duration_ms"] - p["synth_ms"]) / p["synth_ms"] for p in plain if p["duration_ms"]]
    billed = sum(p["billed_ms"] or 0 for p in parts) + (planner.billed_ms or 0)
    return {
        "case": case.label,
        "chars": chars,
        "steps": case.steps,
        "format": case.format,
        "workers_encode": True,  # each part's time includes its encoding (the part codecs)
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


def join_rate(assembly_ms: float | None, manifest: dict[str, Any] | None) -> dict[str, Any]:
    """What the assembly joined and how fast: the file's bytes, per second of the assembly and per
    part, and the format's bytes per second of audio (what the simulation scales the file by)."""
    manifest = manifest or {}
    size = (manifest.get("audio") or {}).get("bytes")
    parts, audio_s = manifest.get("parts_total"), manifest.get("duration_s")
    if not size or not assembly_ms or not parts or not audio_s:
        return {"bytes": size, "join_bytes_per_s": None, "ms_per_part": None, "bytes_per_audio_s": None}
    return {
        "bytes": size,
        "join_bytes_per_s": round(size / (assembly_ms / 1000.0)),
        "ms_per_part": round(assembly_ms / parts, 3),
        "bytes_per_audio_s": round(size / audio_s, 1),
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


def measured_from(parts_runs: list[dict[str, Any]], join_runs: list[dict[str, Any]], memory_mb: int, *, encodes: int = 1) -> list[Measured]:
    """Per-unit figures for the simulation, one per format joined, billed at ``memory_mb``: the parts from ``parts_runs``
    (their concurrency-1 runs, where no sandbox shares the CPU, at their most steps: what a user's
    job costs), the join from ``join_runs``."""
    solo = [r for r in parts_runs if r["concurrency"] == 1 and r["status"] == "done"] or [r for r in parts_runs if r["status"] == "done"]
    if not solo:
        return []
    run = max(solo, key=lambda r: r["steps"])
    warm = [p["billed_ms"] for p in run["parts"] if p["billed_ms"] and not p["cold"] and not p["assembled"]]
    inits = [p["init_ms"] for r in parts_runs for p in r["parts"] if p.get("cold") and p.get("init_ms")]
    inits += [r["planner"]["init_ms"] for r in parts_runs if r["planner"]["cold"] and r["planner"]["init_ms"]]
    measured = []
    for fmt in dict.fromkeys(r["format"] for r in join_runs):
        joined = [r["assembly"] for r in join_runs if r["format"] == fmt and r["status"] == "done" and (r["assembly"] or {}).get("bytes")]
        if not joined:
            continue
        measured.append(
            Measured(
                chars_per_part=run["chars"] / max(1, run["parts_total"] or 1),
                part_ms=tuple(float(ms) for ms in warm),
                init_ms=float(statistics.median(inits)) if inits else 0.0,
                # The invocation's own time: its cold start's init is counted apart, as every worker's is.
                plan_ms_per_char=float(run["planner"]["duration_ms"] or 0) / run["chars"],
                audio_s_per_char=float(run["audio_s"]) / run["chars"],
                memory_mb=memory_mb,
                format=fmt,
                # The slowest join seen: the rate a deployment can count on.
                # A book's assembly joins its audio twice: the whole book's file, and the chapters' files.
                bytes_per_audio_s=encodes * statistics.fmean(a["bytes_per_audio_s"] for a in joined),
                join_bytes_per_s=float(min(a["join_bytes_per_s"] for a in joined)),
                # Parts measured with the workers' encoder already in them need none added.
                encode_ms_per_audio_s=(encodes - (1 if run.get("workers_encode") else 0)) * ENCODE_MS_PER_AUDIO_S.get(fmt, 0.0),
            )
        )
    return measured


def _memory_mb(profile: str) -> int:
    """The memory of a ``lambda-<MB>`` profile: what its parts are billed at."""
    return int(profile.removeprefix("lambda-"))


def _run_line(run: dict[str, Any]) -> str:
    over = run["overhead_per_part"]["median"]
    asm = run["assembly"] or {}
    return (
        f"{run['case']} c={run['concurrency']}: {run['status']} in {run['wall_s']:.1f} s wall, "
        f"{run['parts_total']} parts, audio {run['audio_s']} s (sequential forecast {run['sequential_s']:.4f} s: "
        f"{'equal' if run['matches_sequential'] else 'DIFFERENT'}), billed {run['billed_ms_total'] / 1000:.1f} s, "
        f"overhead/part {over if over is None else f'{over:.1%}'}, assembly {asm.get('assembly_ms')} ms joining "
        f"{asm.get('bytes')} bytes at peak RSS {asm.get('peak_rss_mb')} MB"
    )


def format_fanout(report: dict[str, Any]) -> list[str]:
    lines = [
        f"fan-out through RIE, profile {report['profile']}, model {report['model']} ({report['note']})",
        f"{'case':<22} {'conc':>4} {'status':>7} {'parts':>6} {'audio s':>8} {'= seq':>5} {'wall s':>7} {'billed s':>9} "
        f"{'asm ms':>7} {'MB joined':>9} {'MB/s':>7} {'ms/part':>7} {'B/audio s':>9} {'asm RSS':>8}",
    ]
    for r in report["runs"]:
        a = r["assembly"] or {}
        rate = a.get("join_bytes_per_s")
        lines.append(
            f"{r['case']:<22} {r['concurrency']:>4} {str(r['status']):>7} {str(r['parts_total']):>6} "
            f"{r['audio_s'] or 0:>8.1f} {'yes' if r['matches_sequential'] else 'NO':>5} {r['wall_s']:>7.1f} "
            f"{r['billed_ms_total'] / 1000:>9.1f} {str(a.get('assembly_ms')):>7} {(a.get('bytes') or 0) / 1e6:>9.2f} "
            f"{'-' if rate is None else f'{rate / 1e6:.1f}':>7} {str(a.get('ms_per_part')):>7} "
            f"{str(a.get('bytes_per_audio_s')):>9} {str(a.get('peak_rss_mb')):>8}"
        )
    if report["simulation"]:
        lines.append("")
        lines.append(
            f"simulated on Lambda: parts from {report['parts_from']}, the assembly at the slowest join rate above "
            f"(SQS mapping: 5 batches at first, +300 a minute), each part encoded {report.get('worker_encodes', 1)} time(s):"
        )
        lines += format_simulation([Simulated(**row) for row in report["simulation"]])
    if report.get("targets"):
        lines.append("")
        lines += format_targets([TargetCheck(**t) for t in report["targets"]])
    return lines
