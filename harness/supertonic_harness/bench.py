"""``supertonic-lambda bench``: load time, idle and peak RSS, RTF and the hardware floor.

Each side (this engine, and with ``--vs-official`` the official ``supertonic`` package on the same
model directory) runs in its own worker process, so their memory figures do not mix. Requests
alternate A B A B with the same text, voice, steps and noise seed, so drift in the machine's speed
hits both sides alike. Results: a table on the terminal, a JSON file, and optionally a PNG chart.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .texts import SHORT_TEXTS, long_text

SUITES = {
    # name: (languages, lengths, long text?, steps, runs)
    "quick": (("en",), (59,), False, (8,), 1),
    "standard": (("en",), (59, 152, 266), False, (8,), 5),
    "full": (("en", "ko"), (59, 152, 266), True, (2, 5, 8), 5),
}
LONG_CHARS = 3000
SUMMARY_CASE = ("en", 266, 8)  # the request the summary speaks of
VOICE = "M1"


@dataclass
class Case:
    lang: str
    chars: int
    steps: int
    text: str
    runs: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.lang}-{self.chars}-s{self.steps}"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="measure load time, RSS and RTF (optionally against the official package)")
    p.add_argument("--model", default="full", help="tiny, full (stand-ins) or a model directory (default: full)")
    p.add_argument("--vs-official", action="store_true", help="also run the official supertonic package, alternating A B A B")
    p.add_argument("--suite", choices=SUITES, default=None, help="quick, standard (default) or full (default with --vs-official)")
    p.add_argument("--runs", type=int, default=None, help="repetitions per case (default from the suite)")
    p.add_argument("--threads", type=int, default=2, help="intra-op threads for both sides")
    p.add_argument("--json", dest="json_path", default="bench.json", help="where to write the full results")
    p.add_argument("--png", default=None, help="also draw a chart of RTF and peak RSS")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from supertonic_engine.standin import ensure_standin

    model_dir = Path(ensure_standin(args.model)) if args.model in ("tiny", "full") else Path(args.model)
    suite = args.suite or ("full" if args.vs_official else "standard")
    sides = ["ours", "official"] if args.vs_official else ["ours"]
    report = run_bench(model_dir, sides, suite, args.runs, args.threads)
    table = format_table(report)
    print(table)
    Path(args.json_path).write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\nwrote {args.json_path}")
    if args.png:
        draw_chart(report, Path(args.png))
        print(f"wrote {args.png}")
    return 0


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


class Worker:
    def __init__(self, side: str, model_dir: Path, threads: int) -> None:
        self.side = side
        self.process = subprocess.Popen(
            [sys.executable, "-m", "supertonic_harness.bench_worker", "--side", side, "--model", str(model_dir), "--threads", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.ready = self._read()

    def request(self, **payload: object) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(payload) + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.side} benchmark worker exited with {self.process.wait()}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def run_bench(model_dir: Path, sides: list[str], suite: str, runs: int | None, threads: int) -> dict:
    cases = build_cases(suite)
    runs = runs or SUITES[suite][4]
    gemm = measure_gemm_gflops(threads)
    workers = {side: Worker(side, model_dir, threads) for side in sides}
    try:
        total = len(cases) * runs
        done = 0
        for case in cases:
            for run in range(runs):
                for side in sides:  # A B A B: same seed, same text, one after the other
                    result = workers[side].request(text=case.text, lang=case.lang, voice=VOICE, steps=case.steps, seed=run)
                    case.runs.setdefault(side, []).append(result)
                done += 1
                print(f"\r{done}/{total} {case.label}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        for worker in workers.values():
            worker.close()
    flops = FlopModel(model_dir)
    return {
        "machine": machine_facts(),
        "model_dir": str(model_dir),
        "model_kind": "stand-in" if "stand_in" in json.loads((model_dir / "onnx" / "tts.json").read_text()) else "real",
        "threads": threads,
        "suite": suite,
        "runs": runs,
        "gemm_gflops": gemm,
        "load": {side: w.ready for side, w in workers.items()},
        "rows": [summarize(case, side, flops, gemm) for case in cases for side in sides],
        "summary": summary(cases, sides, workers),
    }


def summarize(case: Case, side: str, flops: "FlopModel", gemm_gflops: float) -> dict:
    runs = case.runs[side]
    rtf = [r["synth_s"] / r["audio_s"] for r in runs]
    peak = [r["peak_rss_mb"] for r in runs]
    row = {
        "side": side, "lang": case.lang, "chars": case.chars, "steps": case.steps,
        "audio_s": runs[0]["audio_s"],
        "rtf_median": statistics.median(rtf), "rtf_min": min(rtf), "rtf_max": max(rtf),
        "synth_s_median": statistics.median(r["synth_s"] for r in runs),
        "chars_per_s": case.chars / statistics.median(r["synth_s"] for r in runs),
        "peak_rss_mb_median": statistics.median(peak), "peak_rss_mb_max": max(peak),
    }
    ours = case.runs.get("ours")
    if ours and ours[0]["tokens"]:
        gflop = flops.request_gflop(ours[0]["tokens"], ours[0]["frames"], case.steps)
        row["gflop"] = gflop
        row["gflop_per_audio_s"] = gflop / runs[0]["audio_s"]
        row["floor_rtf"] = row["gflop_per_audio_s"] / gemm_gflops
        row["achieved_gflops"] = gflop / row["synth_s_median"]
    if side != "ours" and ours:
        same_audio = all(a["samples"] == b["samples"] and np.isclose(a["energy"], b["energy"], rtol=1e-4) for a, b in zip(ours, runs))
        row["same_audio_as_ours"] = bool(same_audio)
    return row


def summary(cases: list[Case], sides: list[str], workers: dict[str, Worker]) -> dict:
    lang, chars, steps = SUMMARY_CASE
    case = next((c for c in cases if (c.lang, c.chars, c.steps) == (lang, chars, steps)), cases[-1])
    ours_rtf = statistics.median(r["synth_s"] / r["audio_s"] for r in case.runs["ours"])
    out = {
        "case": case.label,
        "rtf": ours_rtf,
        "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in case.runs["ours"]),
        "idle_rss_mb": workers["ours"].ready["idle_rss_mb"],
        "load_s": workers["ours"].ready["load_s"],
    }
    if "official" in sides:
        official_rtf = statistics.median(r["synth_s"] / r["audio_s"] for r in case.runs["official"])
        out["official_rtf"] = official_rtf
        out["speedup_vs_official"] = official_rtf / ours_rtf
        out["official_peak_rss_mb"] = statistics.median(r["peak_rss_mb"] for r in case.runs["official"])
        out["official_load_s"] = workers["official"].ready["load_s"]
    return out


class FlopModel:
    """FLOPs of each graph as an exact quadratic in (text tokens T, latent frames L), fitted from the graphs.

    Convolutions and projections grow with T or L, attention with T*L and T^2, so six evaluations of the
    graph's own FLOP count per graph determine it; counting from the graph is what makes the floor honest
    for any model directory, the real one included.
    """

    POINTS = ((40, 30), (80, 30), (40, 90), (120, 60), (160, 150), (60, 200))

    def __init__(self, model_dir: Path) -> None:
        import onnx

        from supertonic_engine.standin import graph_flops

        self.coefficients = {}
        design = np.array([self._terms(t, l) for t, l in self.POINTS], dtype=np.float64)
        for name in ("duration_predictor", "text_encoder", "vector_estimator", "vocoder"):
            graph = onnx.load(str(model_dir / "onnx" / f"{name}.onnx"))  # parsed once, counted six times
            values = np.array([graph_flops(graph, t, l) for t, l in self.POINTS], dtype=np.float64)
            self.coefficients[name] = np.linalg.solve(design, values)

    @staticmethod
    def _terms(t: float, l: float) -> list[float]:
        return [1.0, t, l, t * l, t * t, l * l]

    def graph(self, name: str, t: int, l: int) -> float:
        return float(np.dot(self.coefficients[name], self._terms(t, l)))

    def request_gflop(self, tokens: list[int], frames: list[int], steps: int) -> float:
        total = 0.0
        for t, l in zip(tokens, frames):
            total += self.graph("duration_predictor", t, l) + self.graph("text_encoder", t, l)
            total += steps * self.graph("vector_estimator", t, l) + self.graph("vocoder", t, l)
        return total / 1e9


def measure_gemm_gflops(threads: int, seconds: float = 1.5) -> float:
    """fp32 GEMM rate of ONNX Runtime's CPU kernels at the pointwise layers' shape (2L x 512 x 2048)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    m, k, n = 400, 512, 2048
    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((k, n)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], initializer=[weight],
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((m, k)).astype(np.float32)
    for _ in range(3):
        session.run(None, {"x": x})
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        session.run(None, {"x": x})
        count += 1
    return 2 * m * k * n * count / (time.perf_counter() - started) / 1e9


def machine_facts() -> dict:
    import onnxruntime as ort

    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
        "onnxruntime": ort.__version__, "numpy": np.__version__, "date": time.strftime("%Y-%m-%d"),
    }


def format_table(report: dict) -> str:
    has_official = any(r["side"] == "official" for r in report["rows"])
    lines = [
        f"model: {report['model_kind']} ({report['model_dir']}), {report['threads']} threads, {report['runs']} runs, "
        f"{report['machine']['cpu']}; fp32 GEMM {report['gemm_gflops']:.1f} GFLOP/s",
    ]
    for side, facts in report["load"].items():
        lines.append(f"{side:>8}: load {facts['load_s']:.2f} s (import {facts['import_s']:.2f} s), idle RSS {facts['idle_rss_mb']:.0f} MB")
    header = f"{'case':<14}{'side':>9}{'audio s':>9}{'RTF med':>9}{'min-max':>13}{'chars/s':>9}{'peak MB':>9}{'floor RTF':>10}"
    if has_official:
        header += f"{'ours/off':>9}"
    lines += ["", header, "-" * len(header)]
    by_case: dict[tuple, dict] = {}
    for row in report["rows"]:
        by_case.setdefault((row["lang"], row["chars"], row["steps"]), {})[row["side"]] = row
    for (lang, chars, steps), sides in by_case.items():
        for side, row in sides.items():
            line = (
                f"{lang + '-' + str(chars) + ' s' + str(steps):<14}{side:>9}{row['audio_s']:>9.2f}{row['rtf_median']:>9.3f}"
                f"{row['rtf_min']:>6.3f}-{row['rtf_max']:<6.3f}{row['chars_per_s']:>9.0f}{row['peak_rss_mb_median']:>9.0f}"
                f"{row.get('floor_rtf', float('nan')):>10.3f}"
            )
            if has_official and side == "ours" and "official" in sides:
                line += f"{row['rtf_median'] / sides['official']['rtf_median']:>9.2f}"
            lines.append(line)
    s = report["summary"]
    lines.append("")
    lines.append(
        f"summary ({s['case']}): RTF {s['rtf']:.3f}, peak RSS {s['peak_rss_mb']:.0f} MB, idle RSS {s['idle_rss_mb']:.0f} MB, load {s['load_s']:.2f} s"
        + (f"; official RTF {s['official_rtf']:.3f} -> speedup {s['speedup_vs_official']:.2f}x" if "speedup_vs_official" in s else "")
    )
    if report["model_kind"] == "stand-in":
        lines.append("(stand-in model: random weights, the audio is noise, not speech; compute and memory match the real model)")
    return "\n".join(lines)


def draw_chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    sides = sorted({r["side"] for r in rows}, key=lambda s: s != "ours")
    labels = sorted({(r["lang"], r["chars"], r["steps"]) for r in rows}, key=lambda k: (k[2], k[0], k[1]))
    x = np.arange(len(labels))
    width = 0.8 / len(sides)
    fig, (ax_rtf, ax_mem) = plt.subplots(2, 1, figsize=(max(8, len(labels) * 0.7), 7), sharex=True)
    for i, side in enumerate(sides):
        lookup = {(r["lang"], r["chars"], r["steps"]): r for r in rows if r["side"] == side}
        ax_rtf.bar(x + i * width, [lookup[k]["rtf_median"] for k in labels], width, label=side)
        ax_mem.bar(x + i * width, [lookup[k]["peak_rss_mb_median"] for k in labels], width, label=side)
    floor = [next((r.get("floor_rtf") for r in rows if (r["lang"], r["chars"], r["steps"]) == k and "floor_rtf" in r), np.nan) for k in labels]
    ax_rtf.plot(x + 0.4 - width / 2, floor, "k_", markersize=18, label="hardware floor")
    ax_rtf.set_ylabel("RTF (lower is faster)")
    ax_mem.set_ylabel("peak RSS per request (MB)")
    ax_mem.set_xticks(x + 0.4 - width / 2, [f"{l}-{c}\n{s} steps" for l, c, s in labels], fontsize=7)
    ax_rtf.legend()
    fig.suptitle(f"supertonic-lambda bench: {report['model_kind']} model, {report['threads']} threads")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit("run it as: supertonic-lambda bench")
