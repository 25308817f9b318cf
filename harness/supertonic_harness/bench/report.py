"""The benchmark's results as a terminal table (also pasted into the README) and a PNG chart."""

from __future__ import annotations

from pathlib import Path

import numpy as np

STANDIN_NOTE = "(stand-in model: random weights, the audio is noise, not speech; compute and memory match the real model)"


def format_table(report: dict) -> str:
    lines = [_heading(report)]
    if "soak" in report:
        lines += _soak_lines(report)
    elif "memory_scaling" in report:
        lines += _scaling_lines(report)
    elif "cost_rows" in report:
        from .cost import format_cost_table

        lines += format_cost_table(report)
    else:
        lines += _bench_lines(report)
    if report["model_kind"] == "stand-in":
        lines.append(STANDIN_NOTE)
    return "\n".join(lines)


def _heading(report: dict) -> str:
    machine = report["machine"]
    text = (
        f"model: {report['model_kind']} ({report['model_dir']}), {report['threads']} threads, "
        f"{machine['cpu']} ({machine['cores']} cores), onnxruntime {machine['onnxruntime']}, "
        f"load average {machine['load_average']:.2f} at start"
    )
    if report.get("limits"):
        text += f"\nlimits: {report['limits']['profile']} via {report['limits']['mode']}"
    if report.get("gemm_gflops") == report.get("gemm_gflops"):  # not NaN
        share = " (scaled to the profile's CPU quota)" if report.get("limits") else ""
        text += f"\nfp32 GEMM rate {report['gemm_gflops']:.1f} GFLOP/s{share} (best of short windows), {report['runs']} runs per case"
    return text


def _bench_lines(report: dict) -> list[str]:
    lines = [""]
    for label, side in report["sides"].items():
        prepared = f", prepared: {len(side['prepared'])}/4 graphs, {side.get('precision', 'fp32')}" if "prepared" in side else ""
        cold_read = f", reads {side['cold_read_mb']:.0f} MB cold" if "cold_read_mb" in side else ""
        settings = f" [{', '.join(f'{k}={v}' for k, v in side['env'].items())}]" if side["env"] else ""
        lines.append(
            f"{label:>16}: cold start {side['cold_start_s']:.2f} s (import {side['import_s']:.2f} s, load {side['load_s']:.2f} s), "
            f"first request {side['first_request_s']:.2f} s, idle RSS {side['idle_rss_mb']:.0f} MB "
            f"(anon {side['idle_rss_anon_mb']:.0f}, file {side['idle_rss_file_mb']:.0f}){prepared}{cold_read}{settings}"
        )
    has_official = any(r["side"] == "official" for r in report["rows"])
    header = (
        f"{'case':<14}{'side':>16}{'audio s':>8}{'RTF med':>9}{'min-max':>14}{'chars/s':>8}{'peak MB':>8}"
        f"{'floor':>7}{'x floor':>8}{'diff':>9}"
    )
    if has_official:
        header += f"{'RTF/off':>8}{'peak/off':>9}"
    lines += ["", header, "-" * len(header)]
    for row in report["rows"]:
        line = (
            f"{row['lang'] + '-' + str(row['chars']) + ' s' + str(row['steps']):<14}{row['side']:>16}{row['audio_s']:>8.1f}"
            f"{row['rtf_median']:>9.3f}{row['rtf_min']:>7.3f}-{row['rtf_max']:<6.3f}{row['chars_per_s']:>8.0f}"
            f"{row['peak_rss_mb_median']:>8.0f}{row.get('floor_rtf', float('nan')):>7.3f}{row.get('x_floor', float('nan')):>8.2f}"
            f"{_diff(row):>9}"
        )
        if "ratio_vs_official" in row:
            ratio = row["ratio_vs_official"]
            line += f"{ratio['rtf']:>8.2f}{ratio['peak_rss_mb']:>9.2f}"
        lines.append(line)
    s = report["summary"]
    lines += [
        "",
        f"summary ({s['case']}): RTF {s['rtf']:.3f} ({s.get('x_floor', float('nan')):.2f}x the floor {s.get('floor_rtf', float('nan')):.3f}), "
        f"{s['chars_per_s']:.0f} chars/s, peak RSS {s['peak_rss_mb']:.0f} MB, idle RSS {s['idle_rss_mb']:.0f} MB, "
        f"cold start {s['cold_start_s']:.2f} s" + (f", reads {s['cold_read_mb']:.0f} MB cold" if "cold_read_mb" in s else ""),
    ]
    if "speedup_vs_official" in s:
        lines.append(
            f"official: RTF {s['official_rtf']:.3f} -> speedup {s['speedup_vs_official']:.2f}x; peak RSS {s['official_peak_rss_mb']:.0f} MB, "
            f"idle RSS {s['official_idle_rss_mb']:.0f} MB, cold start {s['official_cold_start_s']:.2f} s; "
            f"largest sample difference from the official audio {s['max_abs_diff_vs_official']:.1e}"
        )
    for label, v in s.get("variants", {}).items():
        lines.append(
            f"{label}: RTF {v['rtf']:.3f} -> {v['speedup_vs_ours']:.2f}x ours (run by run: median {v['speedup_pairs_median']:.2f}x, "
            f"{min(v['speedup_pairs']):.2f}-{max(v['speedup_pairs']):.2f}); peak RSS {v['peak_rss_mb']:.0f} MB, idle {v['idle_rss_mb']:.0f} MB, "
            f"cold start {v['cold_start_s']:.2f} s ({v['cold_start_vs_ours']:.2f}x), load {v['load_s']:.2f} s, "
            f"reads {v['cold_read_mb']:.0f} MB cold" + (f" ({v['cold_read_vs_ours']:.2f}x)" if v["cold_read_vs_ours"] else "")
        )
    if "ort_profile" in report:
        lines += ["", f"ONNX Runtime profile of {report['ort_profile']['case']} (ms per operator type, top 6 per graph):"]
        for graph, ops in report["ort_profile"]["ms_by_op"].items():
            total = sum(ops.values())
            top = ", ".join(f"{op} {ms:.0f} ({ms / total:.0%})" for op, ms in list(ops.items())[:6])
            lines.append(f"  {graph:<19} {total:>7.0f} ms: {top}")
    lines.append("(diff: largest sample difference from the " + report["reference_side"] + " side's audio, same seed)")
    return lines


def _diff(row: dict) -> str:
    value = row.get("max_abs_diff_vs_reference")
    return "-" if value is None else f"{value:.1e}"


def _soak_lines(report: dict) -> list[str]:
    lines = ["", f"soak: {report['requests']} warm requests at {report['steps']} steps, cycling through the short texts"]
    for label, s in report["soak"].items():
        lines.append(
            f"{label:>16}: idle {s['idle_rss_mb']:.0f} MB, after the first tenth {s['settled_rss_mb']:.0f} MB, "
            f"last tenth {s['final_rss_mb']:.0f} MB -> drift {s['drift']:+.2%}; highest {s['max_rss_mb']:.0f} MB"
        )
    return lines


def _scaling_lines(report: dict) -> list[str]:
    lines = ["", f"peak RSS of one streamed request at {report['steps']} steps, by text length"]
    for label, s in report["memory_scaling"].items():
        points = ", ".join(f"{p['chars']} chars ({p['audio_s']:.0f} s audio) {p['peak_rss_mb']:.0f} MB" for p in s["points"])
        lines.append(f"{label:>16}: idle {s['idle_rss_mb']:.0f} MB; {points}")
    return lines


def draw_chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    sides = list(report["sides"])
    labels = sorted({(r["lang"], r["chars"], r["steps"]) for r in rows}, key=lambda k: (k[2], k[0], k[1]))
    x = np.arange(len(labels))
    width = 0.8 / len(sides)
    fig, (ax_rtf, ax_mem) = plt.subplots(2, 1, figsize=(max(8, len(labels) * 0.8), 7), sharex=True)
    for i, side in enumerate(sides):
        lookup = {(r["lang"], r["chars"], r["steps"]): r for r in rows if r["side"] == side}
        medians = np.array([lookup[k]["rtf_median"] for k in labels])
        spread = np.array([[m - lookup[k]["rtf_min"], lookup[k]["rtf_max"] - m] for k, m in zip(labels, medians, strict=True)]).T
        ax_rtf.bar(x + i * width, medians, width, yerr=spread, capsize=2, label=side)
        ax_mem.bar(x + i * width, [lookup[k]["peak_rss_mb_median"] for k in labels], width, label=side)
    floor = [next((r["floor_rtf"] for r in rows if (r["lang"], r["chars"], r["steps"]) == k and "floor_rtf" in r), np.nan) for k in labels]
    ax_rtf.plot(x + 0.4 - width / 2, floor, "k_", markersize=18, label="hardware floor")
    ax_rtf.set_ylabel("RTF (lower is faster)")
    ax_mem.set_ylabel("peak RSS per request (MB)")
    ax_mem.set_xticks(x + 0.4 - width / 2, [f"{lang}-{chars}\n{steps} steps" for lang, chars, steps in labels], fontsize=7)
    ax_rtf.legend(fontsize=8)
    fig.suptitle(f"supertonic-lambda bench: {report['model_kind']} model, {report['threads']} threads")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
