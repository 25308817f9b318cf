"""``bench --cost``: what a million characters and an hour of audio cost at each Lambda memory size.

Lambda grants CPU time in proportion to memory (one vCPU at 1,769 MB), so each size is run under
that share as a CPU quota (the harness's ``lambda-<MB>`` profile) with the thread count the engine
picks there, and its price is memory x billed time. Per size: RTF of the summary request, latency
of a 300-character request, cold start, and USD per million characters and per audio hour (x86,
us-east-1), beside Amazon Polly's prices. A size whose share is more CPUs than this machine has
cannot be measured here and is marked so.
"""

from __future__ import annotations

import math
import os
import statistics
from contextlib import ExitStack
from pathlib import Path

from ..function.limits import lambda_cpus
from ..function.template import Template
from .prices import POLLY_USD_PER_M_CHARS, USD_PER_GB_S, USD_PER_REQUEST, request_usd
from .spawner import Spawner, context
from .texts import SHORT_TEXTS, SUMMARY_CASE, VOICE, long_text

COST_SIZES_MB = (1024, 1536, 1769, 2048, 3008, 3538)
LATENCY_CHARS = 300
# The recommendation: among the sizes where the template's longest synchronous request finishes
# inside its Timeout, the fastest whose cost per character is within this much of the cheapest.
COST_SLACK = 1.10


def lambda_threads(memory_mb: int) -> int:
    """Intra-op threads the function picks at this size (one per whole 1,769 MB, as many as there are cores)."""
    from supertonic_function.config import FunctionConfig

    return FunctionConfig(function_memory_mb=memory_mb).memory_threads() or 1


def run_cost(model_dir: Path, sides: list, runs: int, stack: ExitStack, sizes: tuple[int, ...] = COST_SIZES_MB) -> dict:
    lang, chars, steps = SUMMARY_CASE
    sync_chars, budget_s = sync_limits()
    summary_text = SHORT_TEXTS[lang][chars]
    latency_text = long_text(LATENCY_CHARS, "en")
    cores = len(os.sched_getaffinity(0))
    rows = []
    spawner = None
    for memory_mb in sizes:
        share = lambda_cpus(memory_mb)
        if share > cores:
            rows += [
                {
                    "memory_mb": memory_mb,
                    "side": side.label,
                    "vcpu_share": share,
                    "measured": False,
                    "why": f"its {share:g} vCPU share is more than this machine's {cores} cores",
                }
                for side in sides
            ]
            continue
        spawner = Spawner(model_dir, lambda_threads(memory_mb), f"lambda-{memory_mb}", stack)
        workers = {side.label: spawner.start(side, {"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory_mb)}) for side in sides}
        timed: dict[str, list[dict]] = {label: [] for label in workers}
        latency: dict[str, list[float]] = {label: [] for label in workers}
        for run in range(runs):
            for label, worker in workers.items():  # A B A B within each size
                timed[label].append(worker.request(text=summary_text, lang=lang, voice=VOICE, steps=steps, seed=run))
                latency[label].append(worker.request(text=latency_text, lang="en", voice=VOICE, steps=steps, seed=run)["synth_s"])
        for label, worker in workers.items():
            synth = statistics.median(r["synth_s"] for r in timed[label])
            audio_s = timed[label][0]["audio_s"]
            per_request = request_usd(memory_mb, synth)
            rows.append(
                {
                    "memory_mb": memory_mb,
                    "side": label,
                    "vcpu_share": share,
                    "threads": spawner.threads,
                    "measured": True,
                    "rtf": synth / audio_s,
                    "synth_s": synth,
                    "audio_s": audio_s,
                    "chars": chars,
                    "latency_300_s": statistics.median(latency[label]),
                    "cold_start_s": worker.ready["cold_start_s"],
                    "peak_rss_mb": max(r["peak_rss_mb"] for r in timed[label]),
                    "usd_per_m_chars": per_request / chars * 1e6,
                    "usd_per_audio_hour": per_request / audio_s * 3600,
                    "usd_per_cold_start": request_usd(memory_mb, worker.ready["cold_start_s"]) - USD_PER_REQUEST,
                    "chars_per_audio_s": chars / audio_s,
                    # The template's longest synchronous text at this RTF, against its synthesis budget.
                    "longest_sync_s": synth / audio_s * sync_chars / (chars / audio_s),
                }
            )
            rows[-1]["fits_timeout"] = rows[-1]["longest_sync_s"] <= budget_s
            worker.close()
    measured = [r for r in rows if r["measured"]]
    chars_per_audio_s = statistics.median(r["chars_per_audio_s"] for r in measured) if measured else math.nan
    report = {
        **(context(spawner, runs, math.nan) if spawner else {}),
        "mode": "cost",
        "case": f"{lang}-{chars}-s{steps}",
        "latency_chars": len(latency_text),
        "prices": {"usd_per_gb_s": USD_PER_GB_S, "usd_per_request": USD_PER_REQUEST, "polly_usd_per_m_chars": POLLY_USD_PER_M_CHARS},
        "polly_usd_per_audio_hour": {k: v / 1e6 * chars_per_audio_s * 3600 for k, v in POLLY_USD_PER_M_CHARS.items()},
        "sync_limits": {"max_text_chars": sync_chars, "synthesis_budget_s": budget_s},
        "cost_rows": rows,
        "recommended": {label: recommend([r for r in measured if r["side"] == label]) for label in dict.fromkeys(r["side"] for r in rows)},
    }
    return report


def sync_limits() -> tuple[int, float]:
    """The template's longest synchronous text and the synthesis time it gets (Timeout minus the margin)."""
    function = Template.load().function()
    chars = int(function.environment.get("SUPERTONIC_SYNC_MAX_TEXT_CHARS") or 3000)
    margin = float(function.environment.get("SUPERTONIC_DEADLINE_MARGIN_S") or 2.0)
    if function.timeout_s is None:
        raise SystemExit("template.yaml: the function has no Timeout to plan the synchronous limit against")
    return chars, float(function.timeout_s) - margin


def recommend(rows: list[dict]) -> dict | None:
    """The fastest size (300-character latency) whose USD per million characters is within ``COST_SLACK`` of the
    cheapest, among those where the longest synchronous request fits the timeout; None when none does."""
    rows = [r for r in rows if r["fits_timeout"]]
    if not rows:
        return None
    cheapest = min(r["usd_per_m_chars"] for r in rows)
    fit = [r for r in rows if r["usd_per_m_chars"] <= cheapest * COST_SLACK]
    best = min(fit, key=lambda r: (r["latency_300_s"], r["memory_mb"]))
    return {
        "memory_mb": best["memory_mb"],
        "rule": f"fastest 300-character request within {COST_SLACK - 1:.0%} of the lowest cost per character, "
        "among the sizes whose longest synchronous request fits the timeout",
    }


def format_cost_table(report: dict) -> list[str]:
    polly = report["prices"]["polly_usd_per_m_chars"]
    polly_hour = report["polly_usd_per_audio_hour"]
    lines = [
        "",
        f"cost per Lambda memory size (x86, ${report['prices']['usd_per_gb_s']:.10f} per GB-s, ${report['prices']['usd_per_request'] * 1e6:.2f} per million requests); "
        f"RTF of {report['case']}, latency of a {report['latency_chars']}-character request, {report.get('runs', '?')} runs each, A B A B per size",
        f"{'MB':>6}{'side':>12}{'vCPU':>7}{'thr':>4}{'RTF':>7}{'300ch s':>8}{'cold s':>7}{'peak MB':>8}{'$/1M chars':>11}{'$/audio h':>10}"
        f"{'longest s':>10}",
    ]
    for r in report["cost_rows"]:
        if not r["measured"]:
            lines.append(f"{r['memory_mb']:>6}{r['side']:>12}{r['vcpu_share']:>7.3f}   not measured: {r['why']}")
            continue
        lines.append(
            f"{r['memory_mb']:>6}{r['side']:>12}{r['vcpu_share']:>7.3f}{r['threads']:>4}{r['rtf']:>7.3f}{r['latency_300_s']:>8.2f}"
            f"{r['cold_start_s']:>7.2f}{r['peak_rss_mb']:>8.0f}{r['usd_per_m_chars']:>11.3f}{r['usd_per_audio_hour']:>10.3f}"
            f"{r['longest_sync_s']:>9.0f}{'' if r['fits_timeout'] else '!'}"
        )
    lines.append(
        "Amazon Polly: "
        + ", ".join(f"{k} ${v:.0f}/1M chars (${polly_hour[k]:.2f}/audio h)" for k, v in polly.items())
        + " (audio hours at this text's characters per audio second)"
    )
    limits = report["sync_limits"]
    lines.append(
        f"longest s: the template's longest synchronous text ({limits['max_text_chars']} characters) at that RTF; "
        f"! marks sizes where it would not finish in {limits['synthesis_budget_s']:.0f} s (Timeout minus the deadline margin)"
    )
    for side, pick in report["recommended"].items():
        lines.append(
            f"recommended for {side}: {pick['memory_mb']} MB ({pick['rule']})"
            if pick
            else f"recommended for {side}: none (no size fits the timeout)"
        )
    lines.append("(synthesis only: encoding, S3 and cold starts are extra; a cold start costs its init time at the same rate)")
    return lines


def draw_cost_chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for side in dict.fromkeys(r["side"] for r in report["cost_rows"]):
        rows = [r for r in report["cost_rows"] if r["side"] == side and r["measured"]]
        ax.plot([r["latency_300_s"] for r in rows], [r["usd_per_m_chars"] for r in rows], "o", label=f"Lambda, {side}")
        for r in rows:
            ax.annotate(
                f"{r['memory_mb']} MB", (r["latency_300_s"], r["usd_per_m_chars"]), textcoords="offset points", xytext=(4, 4), fontsize=7
            )
    for (name, price), style in zip(report["prices"]["polly_usd_per_m_chars"].items(), (":", "--", "-."), strict=True):
        ax.axhline(price, color="grey", linestyle=style, label=f"Polly {name} ${price:.0f}")
    ax.set_yscale("log")
    ax.set_xlabel(f"latency of a {report['latency_chars']}-character request (s, lower is faster)")
    ax.set_ylabel("USD per million characters (log)")
    ax.legend(fontsize=8)
    ax.set_title("supertonic-lambda: cost against speed per memory size")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
