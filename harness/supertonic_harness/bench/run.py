"""``supertonic-lambda bench``: cold start, idle and peak RSS, RTF, chars/s and the hardware floor.

Each side (this engine; with ``--vs-official`` the official ``supertonic`` package on the same model
directory; with ``--variant`` this engine under other ``SUPERTONIC_*`` settings) runs in its own
worker process, so their memory figures do not mix. Requests alternate A B A B with the same text,
voice, steps and noise seed, so drift in the machine's speed hits every side alike, and the first
run of each case is compared sample by sample across sides. ``--profile`` runs every worker inside
one of the harness's Lambda-like CPU and memory limits.

Other modes: ``--soak N`` (RSS drift over N warm requests), ``--memory-scaling`` (peak RSS of 300 to
30,000 characters, streamed), ``--ort-profile`` (time per operator from ONNX Runtime's profiler) and
``--latency`` (time to the first and the last audio byte through the function URL, buffered vs
streamed: latency.py).
Results: a table on the terminal, a JSON file, and optionally a PNG chart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..replay.report import Progress
from .floor import FlopModel, measure_gemm_gflops
from .latency import add_latency_arguments, run_latency_command
from .report import draw_chart, format_table
from .spawner import Side, Spawner, context
from .texts import SHORT_TEXTS, SUMMARY_CASE, VOICE, long_text

SUITES = {
    # name: (languages, lengths, long text?, steps, runs)
    "quick": (("en",), (59,), False, (8,), 1),
    "summary": (("en",), (266,), False, (8,), 5),  # only the summary's request: for comparing many variants
    "standard": (("en",), (59, 152, 266), False, (8,), 5),
    "full": (("en", "ko"), (59, 152, 266), True, (2, 5, 8), 5),
}
LONG_CHARS = 3000
SCALING_CHARS = (300, 3_000, 30_000)


@dataclass
class Case:
    lang: str
    chars: int
    steps: int
    text: str
    runs: dict[str, list[dict]] = field(default_factory=dict)
    max_abs_diff: dict[str, float] = field(default_factory=dict)  # side -> vs the reference side

    @property
    def label(self) -> str:
        return f"{self.lang}-{self.chars}-s{self.steps}"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="measure cold start, RSS, RTF and chars/s (optionally against the official package)")
    p.add_argument("--model", default="full", help="tiny, full (stand-ins) or a model directory (default: full)")
    p.add_argument("--vs-official", action="store_true", help="also run the official supertonic package, alternating A B A B")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="LABEL:VAR=VALUE[,VAR=VALUE]",
        help="also run this engine with these settings, e.g. stock:SUPERTONIC_PREPARED=0 (repeatable)",
    )
    p.add_argument("--suite", choices=SUITES, default=None, help="quick, summary, standard (default) or full (default with --vs-official)")
    p.add_argument("--runs", type=int, default=None, help="repetitions per case (default from the suite)")
    p.add_argument("--threads", type=int, default=2, help="intra-op threads for every side")
    p.add_argument(
        "--prepare",
        action="store_true",
        help="first write the model's prepared graphs if they are missing or stale, as the image build does",
    )
    p.add_argument("--profile", default=None, help="run the workers under a harness limit profile (2vcpu-2gb, lambda-2048, lambda-<MB>)")
    p.add_argument("--soak", type=int, default=0, metavar="N", help="instead: N warm requests to this engine, RSS after each")
    p.add_argument("--memory-scaling", action="store_true", help="instead: peak RSS of streamed texts of 300 to 30,000 characters")
    p.add_argument(
        "--cost",
        action="store_true",
        help="instead: RTF, latency, cold start and USD per million characters at each Lambda memory size, under its CPU share",
    )
    p.add_argument(
        "--memory-sizes", default=None, metavar="MB,MB,...", help="the sizes --cost runs (default: 1024,1536,1769,2048,3008,3538)"
    )
    p.add_argument(
        "--fanout",
        action="store_true",
        help="instead: long jobs rendered in parts through RIE at --concurrency 1 and 2 (profile: the template's MemorySize), "
        "then simulated on Lambda at concurrency 10 to 1,000",
    )
    p.add_argument(
        "--fanout-cases",
        default=None,
        metavar="CHARS:STEPS[:FORMAT],...",
        help="the --fanout jobs (default: 100000:8:mp3,100000:8:opus; FORMAT defaults to mp3)",
    )
    p.add_argument(
        "--fanout-from",
        default=None,
        metavar="FILE",
        help="instead: simulate the runs a --fanout report stored again, with today's encoding cost",
    )
    p.add_argument(
        "--worker-encodes",
        type=int,
        default=1,
        metavar="N",
        help="with --fanout-from: times each worker encodes its part (2 for a book: its chapter's file too)",
    )
    p.add_argument(
        "--normalize",
        action="store_true",
        help="instead: what normalizing 3,000 characters dense with numbers costs per language, and the engine's import",
    )
    p.add_argument(
        "--encode",
        action="store_true",
        help="instead: what encoding a second of audio costs per format, whole and as a part joined from parts",
    )
    p.add_argument("--concurrency", default="1,2", metavar="N,N", help="sandboxes for --fanout, one run each (default: 1,2)")
    p.add_argument("--steps", type=int, default=2, help="steps for --soak and --memory-scaling (memory does not depend on them)")
    p.add_argument("--ort-profile", action="store_true", help="also report ONNX Runtime's time per operator for the summary case")
    add_latency_arguments(p)
    p.add_argument(
        "--json",
        dest="json_path",
        default=None,
        help="where to write the full results (default: bench.json; --latency: benchmarks/latency.json)",
    )
    p.add_argument("--png", default=None, help="also draw a chart of RTF and peak RSS")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from supertonic_tools.standin import ensure_standin

    if args.latency:
        return run_latency_command(args, Path(args.json_path) if args.json_path else None)
    args.json_path = args.json_path or "bench.json"
    if args.fanout or args.fanout_from:
        return run_fanout_command(args)
    if args.normalize:
        from .normalize_cost import format_normalize_table, run_normalize_cost

        normalize_report = run_normalize_cost()
        print(format_normalize_table(normalize_report))
        Path(args.json_path).write_text(json.dumps(normalize_report, indent=2))
        print(f"\nwrote {args.json_path}")
        return 0
    if args.encode:
        from .encode_cost import format_encode_table, run_encode_cost

        encode_report = run_encode_cost(runs=args.runs or 2)
        print(format_encode_table(encode_report))
        Path(args.json_path).write_text(json.dumps(encode_report, indent=2))
        print(f"\nwrote {args.json_path}")
        return 0
    model_dir = Path(ensure_standin(args.model)) if args.model in ("tiny", "full") else Path(args.model)
    ours = [Side("ours", "ours")] + [parse_variant(v) for v in args.variant]
    if args.prepare:
        from supertonic_tools.prepare import ensure_prepared

        ensure_prepared(model_dir)
        for precision in sorted({side.env.get("SUPERTONIC_PRECISION", "fp32").lower() for side in ours} - {"fp32"}):
            ensure_prepared(model_dir, precision)
    with ExitStack() as stack:
        if args.cost:  # each memory size has its own CPU share, thread count and workers
            from .cost import COST_SIZES_MB, run_cost

            sizes = tuple(int(mb) for mb in args.memory_sizes.split(",")) if args.memory_sizes else COST_SIZES_MB
            report = run_cost(model_dir, ours, args.runs or 3, stack, sizes)
        elif args.soak:
            report = run_soak(Spawner(model_dir, args.threads, args.profile, stack), ours, args.soak, args.steps)
        elif args.memory_scaling:
            report = run_memory_scaling(Spawner(model_dir, args.threads, args.profile, stack), ours, args.steps)
        else:
            sides = ours + ([Side("official", "official")] if args.vs_official else [])
            suite = args.suite or ("full" if args.vs_official else "standard")
            report = run_bench(Spawner(model_dir, args.threads, args.profile, stack), sides, suite, args.runs, ort_profile=args.ort_profile)
    print(format_table(report))
    Path(args.json_path).write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\nwrote {args.json_path}")
    if args.png and "rows" in report:
        draw_chart(report, Path(args.png))
        print(f"wrote {args.png}")
    if args.png and "cost_rows" in report:
        from .cost import draw_cost_chart

        draw_cost_chart(report, Path(args.png))
        print(f"wrote {args.png}")
    return 0


def run_fanout_command(args: argparse.Namespace) -> int:
    from .fanout import format_fanout, parse_cases, run_fanout, simulated

    if args.fanout_from:  # the stored runs simulated again (the encoding's cost changed, or a book's)
        report = simulated(json.loads(Path(args.fanout_from).read_text()), encodes=args.worker_encodes)
    else:
        concurrency = tuple(int(n) for n in args.concurrency.split(","))
        report = run_fanout(args.model, cases=parse_cases(args.fanout_cases), concurrency=concurrency, profile=args.profile)
    print("\n".join(format_fanout(report)))
    Path(args.json_path).write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\nwrote {args.json_path}")
    return 0 if all(run["status"] == "done" for run in report["runs"]) else 1


def parse_variant(spec: str) -> Side:
    """``LABEL:VAR=VALUE[,VAR=VALUE]`` -> a side of this engine with those environment settings.

    ``LABEL:`` alone is this engine once more: an A/A run that shows the machine's noise.
    """
    label, colon, assignments = spec.partition(":")
    env = {}
    for item in filter(None, assignments.split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name.startswith("SUPERTONIC_"):
            raise SystemExit(f"--variant {spec!r}: write LABEL:SUPERTONIC_VAR=VALUE[,SUPERTONIC_VAR=VALUE]")
        env[name] = value
    if not colon or not label or label in ("ours", "official"):
        raise SystemExit(f"--variant {spec!r}: give it a label of its own before the colon")
    return Side(f"ours:{label}", "ours", env)


# --- the side-by-side benchmark --------------------------------------------------------------------------


def build_cases(suite: str) -> list[Case]:
    langs, lengths, with_long, steps_list, _ = SUITES[suite]
    cases = []
    for steps in steps_list:
        for lang in langs:
            for chars in lengths:
                cases.append(Case(lang, chars, steps, SHORT_TEXTS[lang][chars]))
        if with_long:
            text = long_text(LONG_CHARS, "en")
            cases.append(Case("en", len(text), steps, text))
    return cases


def run_bench(spawner: Spawner, sides: list[Side], suite: str, runs: int | None, *, ort_profile: bool = False) -> dict:
    cases = build_cases(suite)
    runs = runs or SUITES[suite][4]
    gemm = measure_gemm_gflops(spawner.threads) * spawner.cpu_share()
    cold_reads = {side.label: spawner.cold_read_bytes(side) for side in sides}
    workers = {side.label: spawner.start(side) for side in sides}
    reference = "official" if "official" in workers else sides[0].label
    with tempfile.TemporaryDirectory(prefix="supertonic-bench-") as scratch:
        progress, done = Progress(len(cases) * runs), 0
        for case in cases:
            for run in range(runs):
                for label, worker in workers.items():  # A B A B: same seed, same text, one after the other
                    save = str(Path(scratch) / f"{label.replace(':', '_')}.npy") if run == 0 else None
                    result = worker.request(text=case.text, lang=case.lang, voice=VOICE, steps=case.steps, seed=run, save_audio=save)
                    case.runs.setdefault(label, []).append(result)
                if run == 0:
                    case.max_abs_diff = compare_audio(Path(scratch), list(workers), reference)
                done += 1
                progress.update(done, case.label)
        progress.close()
    flops = FlopModel(spawner.model_dir)
    report = {
        **context(spawner, runs, gemm),
        "suite": suite,
        "reference_side": reference,
        "sides": {
            label: {"kind": w.side.kind, "env": w.side.env, **w.ready, "cold_read_mb": cold_reads[label] / 2**20}
            for label, w in workers.items()
        },
        "rows": [summarize(case, label, flops, gemm) for case in cases for label in workers],
    }
    report["summary"] = summary(report, cases)
    if ort_profile:
        report["ort_profile"] = measure_ort_profile(spawner, sides[0], cases)
    return report


def compare_audio(scratch: Path, labels: list[str], reference: str) -> dict[str, float]:
    """Max abs difference of each side's waveform from the reference side's (inf if lengths differ)."""
    audio = {label: np.load(scratch / f"{label.replace(':', '_')}.npy") for label in labels}
    ref = audio[reference]
    return {
        label: float(np.max(np.abs(a - ref))) if a.shape == ref.shape else float("inf") for label, a in audio.items() if label != reference
    }


def summarize(case: Case, side: str, flops: FlopModel, gemm_gflops: float) -> dict:
    runs = case.runs[side]
    rtf = [r["synth_s"] / r["audio_s"] for r in runs]
    peak = [r["peak_rss_mb"] for r in runs]
    synth = statistics.median(r["synth_s"] for r in runs)
    row = {
        "side": side,
        "lang": case.lang,
        "chars": case.chars,
        "steps": case.steps,
        "audio_s": runs[0]["audio_s"],
        "rtf_median": statistics.median(rtf),
        "rtf_min": min(rtf),
        "rtf_max": max(rtf),
        "rtf_spread": (max(rtf) - min(rtf)) / statistics.median(rtf),
        "synth_s_median": synth,
        "chars_per_s": case.chars / synth,
        "peak_rss_mb_median": statistics.median(peak),
        "peak_rss_mb_max": max(peak),
    }
    if "cgroup_peak_mb" in runs[0]:
        row["cgroup_peak_mb_max"] = max(r["cgroup_peak_mb"] for r in runs)
    counted = next((r for label, rs in case.runs.items() for r in rs[:1] if r["tokens"]), None)
    if counted is not None:  # the chunk sizes come from this engine's side; the official one reads the same chunks
        gflop = flops.request_gflop(counted["tokens"], counted["frames"], case.steps)
        row["gflop"] = gflop
        row["gflop_per_audio_s"] = gflop / runs[0]["audio_s"]
        row["floor_rtf"] = row["gflop_per_audio_s"] / gemm_gflops
        row["x_floor"] = row["rtf_median"] / row["floor_rtf"]
        row["achieved_gflops"] = gflop / synth
    if side in case.max_abs_diff:
        row["max_abs_diff_vs_reference"] = case.max_abs_diff[side]
    official = case.runs.get("official")
    if official and side != "official":
        off_rtf = statistics.median(r["synth_s"] / r["audio_s"] for r in official)
        off_synth = statistics.median(r["synth_s"] for r in official)
        row["ratio_vs_official"] = {
            "rtf": row["rtf_median"] / off_rtf,
            "chars_per_s": off_synth / synth,
            "peak_rss_mb": row["peak_rss_mb_median"] / statistics.median(r["peak_rss_mb"] for r in official),
        }
    return row


def summary(report: dict, cases: list[Case]) -> dict:
    lang, chars, steps = SUMMARY_CASE
    case = next((c for c in cases if (c.lang, c.chars, c.steps) == (lang, chars, steps)), cases[-1])
    rows = {r["side"]: r for r in report["rows"] if (r["lang"], r["chars"], r["steps"]) == (case.lang, case.chars, case.steps)}
    ours, ready = rows["ours"], report["sides"]["ours"]
    out = {
        "case": case.label,
        "rtf": ours["rtf_median"],
        "chars_per_s": ours["chars_per_s"],
        "peak_rss_mb": ours["peak_rss_mb_median"],
        "idle_rss_mb": ready["idle_rss_mb"],
        "load_s": ready["load_s"],
        "cold_start_s": ready["cold_start_s"],
        "prepared": ready.get("prepared", []),
        "precision": ready.get("precision", "fp32"),
        "cold_read_mb": ready["cold_read_mb"],
    }
    if "floor_rtf" in ours:
        out["floor_rtf"] = ours["floor_rtf"]
        out["x_floor"] = ours["x_floor"]
    if "official" in rows:
        official = rows["official"]
        out["official_rtf"] = official["rtf_median"]
        out["speedup_vs_official"] = official["rtf_median"] / ours["rtf_median"]
        out["official_peak_rss_mb"] = official["peak_rss_mb_median"]
        out["official_idle_rss_mb"] = report["sides"]["official"]["idle_rss_mb"]
        out["official_cold_start_s"] = report["sides"]["official"]["cold_start_s"]
        out["max_abs_diff_vs_official"] = max((r["max_abs_diff_vs_reference"] for r in report["rows"] if r["side"] == "ours"), default=None)
    # Each variant against this engine's defaults, in the same alternation: the ratios the levers are judged by.
    out["variants"] = {
        label: {
            "rtf": row["rtf_median"],
            "speedup_vs_ours": ours["rtf_median"] / row["rtf_median"],
            "peak_rss_mb": row["peak_rss_mb_median"],
            "idle_rss_mb": report["sides"][label]["idle_rss_mb"],
            "load_s": report["sides"][label]["load_s"],
            "cold_start_s": report["sides"][label]["cold_start_s"],
            "cold_start_vs_ours": report["sides"][label]["cold_start_s"] / ready["cold_start_s"],
            "cold_read_mb": report["sides"][label]["cold_read_mb"],
            "cold_read_vs_ours": report["sides"][label]["cold_read_mb"] / ready["cold_read_mb"] if ready["cold_read_mb"] else None,
            "precision": report["sides"][label].get("precision", "fp32"),
            # Run i of each side ran back to back, so their ratio is the least disturbed by a busy machine.
            "speedup_pairs": [a["synth_s"] / b["synth_s"] for a, b in zip(case.runs["ours"], case.runs[label], strict=True)],
        }
        for label, row in rows.items()
        if label.startswith("ours:")
    }
    for variant in out["variants"].values():
        variant["speedup_pairs_median"] = statistics.median(variant["speedup_pairs"])
    return out


def measure_ort_profile(spawner: Spawner, side: Side, cases: list[Case]) -> dict:
    """Per-operator time of the summary case, in a worker of its own (profiling slows the run it records)."""
    lang, chars, steps = SUMMARY_CASE
    case = next((c for c in cases if (c.lang, c.chars, c.steps) == (lang, chars, steps)), cases[-1])
    worker = spawner.start(Side(side.label + ":profiled", "ours", side.env), {"SUPERTONIC_PROFILING": "1"})
    worker.request(text=case.text, lang=case.lang, voice=VOICE, steps=case.steps, seed=0)
    return {"case": case.label, "ms_by_op": worker.request(op="ort_profile")["ort_profile"]}


# --- memory over time and over text length -----------------------------------------------------------------


def run_soak(spawner: Spawner, sides: list[Side], requests: int, steps: int) -> dict:
    """``requests`` warm requests cycling through the short texts; drift = RSS at the end vs. after warm-up."""
    texts = [(lang, text) for lang, by_length in SHORT_TEXTS.items() for text in by_length.values()]
    out = {**context(spawner, 1, float("nan")), "mode": "soak", "steps": steps, "requests": requests, "soak": {}}
    for side in sides:
        worker = spawner.start(side)
        rss, progress = [], Progress(requests)
        for i in range(requests):
            lang, text = texts[i % len(texts)]
            rss.append(worker.request(text=text, lang=lang, voice=VOICE, steps=steps, seed=i)["rss_after_mb"])
            progress.update(i + 1, side.label)
        progress.close()
        window = max(1, requests // 10)
        settled = statistics.median(rss[window : 2 * window] or rss)  # after the first tenth: arenas have grown
        final = statistics.median(rss[-window:])
        out["soak"][side.label] = {
            "idle_rss_mb": worker.ready["idle_rss_mb"],
            "settled_rss_mb": settled,
            "final_rss_mb": final,
            "drift": (final - settled) / settled,
            "max_rss_mb": max(rss),
            "rss_after_each_mb": [round(x, 1) for x in rss],
        }
    return out


def run_memory_scaling(spawner: Spawner, sides: list[Side], steps: int) -> dict:
    """Peak RSS of one streamed request of each length: chunking should make it flat."""
    out = {**context(spawner, 1, float("nan")), "mode": "memory-scaling", "steps": steps, "memory_scaling": {}}
    for side in sides:
        worker = spawner.start(side)
        points = []
        for chars in SCALING_CHARS:
            text = long_text(chars, "en")
            result = worker.request(text=text, lang="en", voice=VOICE, steps=steps, seed=0)
            points.append(
                {
                    "chars": len(text),
                    "audio_s": result["audio_s"],
                    "synth_s": result["synth_s"],
                    "peak_rss_mb": result["peak_rss_mb"],
                    "cgroup_peak_mb": result.get("cgroup_peak_mb"),
                }
            )
            print(f"{side.label}: {len(text)} chars -> peak RSS {result['peak_rss_mb']:.0f} MB", file=sys.stderr)
        out["memory_scaling"][side.label] = {"idle_rss_mb": worker.ready["idle_rss_mb"], "points": points}
    return out


if __name__ == "__main__":
    raise SystemExit("run it as: supertonic-lambda bench")
