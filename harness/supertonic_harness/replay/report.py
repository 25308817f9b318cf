"""The replay's output: a terminal table (with a progress bar), a JSON report, a PNG chart.

Memory is reported twice and judged once: ``peak_rss_mb`` (the runtime's resident memory, what
the budget is judged on) and ``cgroup_peak_mb`` (the cgroup's usage). The cgroup counts page
cache read inside it, such as the model file, which the kernel reclaims before it OOM-kills; it
does not count pages first read by another cgroup, such as shared libraries this machine had
cached already, so it can also read below RSS. A fresh Lambda sandbox has neither discount.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..function.sandbox import Measurements

BUDGET_JUDGED_ON = "peak_rss_mb"


@dataclass
class Record(Measurements):
    """One invocation of one event, as the report shows it: its measurements and what was checked."""

    index: int
    event: str
    repeat: int
    outcome: str
    status: int | None  # what a function URL would answer
    audio_s: float | None = None
    rtf: float | None = None
    content_type: str | None = None
    # When a function URL's client got the first and the last body byte, from the invoke (replay.run).
    first_byte_ms: float | None = None
    last_byte_ms: float | None = None
    audio_files: list[str] = field(default_factory=list)
    function_model: str | None = None  # the model the function says it used ("real", "stand-in")
    error_type: str | None = None
    error_message: str | None = None
    log_tail: list[str] = field(default_factory=list)  # RIE's and the function's last lines, on failure
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class Report:
    profile: dict[str, Any]
    limits: dict[str, Any]
    budget: dict[str, Any]
    model: dict[str, Any]
    function: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    soak: dict[str, Any] | None = None  # with --repeat: drift and durations over the rounds (soak.py)

    @property
    def passed(self) -> bool:
        return all(record.passed for record in self.records)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "profile": self.profile,
            "limits": self.limits,
            "budget": self.budget,
            "model": self.model,
            "function": self.function,
            "summary": summary(self.records),
            **({"soak": self.soak} if self.soak else {}),
            "invocations": [asdict(record) for record in self.records],
        }

    def write_json(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def summary(records: list[Record]) -> dict[str, Any]:
    warm = [r.rtf for r in records if r.rtf is not None and not r.cold_start]
    cold = [r.init_ms for r in records if r.init_ms is not None]
    outcomes: dict[str, int] = {}
    for record in records:
        outcomes[record.outcome] = outcomes.get(record.outcome, 0) + 1
    return {
        "invocations": len(records),
        "failed_checks": sum(not r.passed for r in records),
        "outcomes": outcomes,
        "cold_starts": sum(r.cold_start for r in records),
        "max_init_ms": max(cold) if cold else None,
        "max_warm_rtf": max(warm) if warm else None,
        "max_peak_rss_mb": max((r.peak_rss_mb for r in records), default=None),
        "max_cgroup_peak_mb": max((r.cgroup_peak_mb for r in records if r.cgroup_peak_mb is not None), default=None),
        "max_init_read_mb": max((r.init_read_mb for r in records if r.init_read_mb is not None), default=None),
        "max_warm_first_byte_ms": max((r.first_byte_ms for r in records if r.first_byte_ms is not None and not r.cold_start), default=None),
    }


# --- terminal -----------------------------------------------------------------------------------

_COLUMNS = (
    ("#", 3, lambda r: str(r.index)),
    ("event", 28, lambda r: r.event if r.repeat == 0 else f"{r.event}#{r.repeat + 1}"),
    ("outcome", 14, lambda r: r.outcome),
    ("status", 6, lambda r: _fmt(r.status)),
    ("cold", 4, lambda r: "yes" if r.cold_start else "-"),
    ("init ms", 8, lambda r: _fmt(r.init_ms, "{:.0f}")),
    ("dur ms", 8, lambda r: _fmt(r.duration_ms, "{:.0f}")),
    ("billed", 7, lambda r: _fmt(r.billed_ms)),
    ("1st B ms", 8, lambda r: _fmt(r.first_byte_ms, "{:.0f}")),
    ("last ms", 8, lambda r: _fmt(r.last_byte_ms, "{:.0f}")),
    ("audio s", 7, lambda r: _fmt(r.audio_s, "{:.2f}")),
    ("RTF", 6, lambda r: _fmt(r.rtf, "{:.3f}")),
    ("RSS MB", 7, lambda r: _fmt(r.peak_rss_mb, "{:.0f}")),
    ("cg MB", 7, lambda r: _fmt(r.cgroup_peak_mb, "{:.0f}")),
    ("read MB", 7, lambda r: _fmt(r.init_read_mb, "{:.0f}")),
    ("check", 5, lambda r: "ok" if r.passed else "FAIL"),
)


def _fmt(value: Any, pattern: str = "{}") -> str:
    return "-" if value is None else pattern.format(value)


def _cell(text: str, width: int, first: bool) -> str:
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.ljust(width) if first else text.rjust(width)


def table(records: list[Record]) -> str:
    """The table, one line per invocation, then each failed check spelled out."""

    def line(cells: list[str]) -> str:
        return "  ".join(_cell(c, w, i == 1) for i, (c, (_, w, _)) in enumerate(zip(cells, _COLUMNS, strict=True)))

    lines = [line([name for name, _, _ in _COLUMNS])]
    lines += [line([render(r) for _, _, render in _COLUMNS]) for r in records]
    for record in records:
        for failure in record.failures:
            lines.append(f"  #{record.index} {record.event}: {failure}")
        if record.error_type and not record.passed:
            lines.append(f"  #{record.index} {record.event}: {record.error_type}: {record.error_message}")
    return "\n".join(lines)


def header(report: Report) -> str:
    limits = report.limits
    skipped = "".join(f"\n  (not {reason})" for reason in limits.get("skipped", []))
    reported = sorted({r.function_model for r in report.records if r.function_model})
    said = f" (the function says: {', '.join(reported)})" if reported else ""
    return (
        f"profile {report.profile['name']}: {report.profile['cpus']:g} vCPU, {report.profile['memory_mb']} MB; "
        f"limits {limits['mode']}: {limits['detail']}{skipped}\n"
        f"model {report.model['kind']}{' at ' + report.model['dir'] if report.model.get('dir') else ''}{said}; "
        f"budget judged on {BUDGET_JUDGED_ON} <= {report.budget['memory_mb']} MB"
        + (f", RTF <= {report.budget['max_rtf']:g}" if report.budget.get("max_rtf") else "")
        + "".join(f"\nnote: {note}" for note in report.function.get("notes", []))
    )


class Progress:
    """A one-line progress bar on a terminal; silent when the stream is not one (CI logs, pipes)."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 28) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.width = width
        self.enabled = self.stream.isatty()

    def update(self, done: int, label: str) -> None:
        if not self.enabled:
            return
        filled = round(self.width * done / max(1, self.total))
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {label[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (self.width + 50) + "\r")
            self.stream.flush()


# --- chart ------------------------------------------------------------------------------------

_OUTCOME_COLOURS = {
    "success": "#3b7dd8",
    "function_error": "#d8a03b",
    "timeout": "#8a5cc2",
    "oom": "#d8453b",
    "too_large": "#7a7a7a",
}


def write_chart(report: Report, path: Path) -> None:
    """RTF and peak RSS per invocation against the budget lines; cold starts hatched."""
    import matplotlib

    matplotlib.use("Agg")  # no display: render straight to the file
    import matplotlib.pyplot as plt

    records = report.records
    labels = [f"{r.index} {r.event}" for r in records]
    colours = [_OUTCOME_COLOURS.get(r.outcome, "#333333") for r in records]
    hatches = ["//" if r.cold_start else "" for r in records]
    positions = range(len(records))
    figure, (rtf_axis, memory_axis) = plt.subplots(2, 1, sharex=True, figsize=(max(6.0, 0.55 * len(records) + 2), 6.5))
    figure.suptitle(
        f"{report.profile['name']} ({report.profile['cpus']:g} vCPU, {report.profile['memory_mb']} MB), "
        f"{report.limits['mode']}, model {report.model['kind']}"
    )
    rtf_bars = rtf_axis.bar(positions, [r.rtf or 0 for r in records], color=colours)
    rss_bars = memory_axis.bar(positions, [r.peak_rss_mb for r in records], color=colours, label="peak RSS")
    for bars in (rtf_bars, rss_bars):
        for bar, hatch in zip(bars, hatches, strict=True):
            bar.set_hatch(hatch)
    rtf_axis.axhline(1.0, color="#555555", linestyle=":", label="real time (RTF 1)")
    if report.budget.get("max_rtf"):
        rtf_axis.axhline(report.budget["max_rtf"], color="#d8453b", linestyle="--", label="RTF budget")
    rtf_axis.set_ylabel("RTF (synthesis s / audio s)")
    seen = dict.fromkeys(r.outcome for r in records)
    for outcome in seen:  # legend entries for the outcomes present, plus what the hatching means
        rtf_axis.bar([0], [0], color=_OUTCOME_COLOURS.get(outcome, "#333333"), label=outcome)
    if any(hatches):
        rtf_axis.bar([0], [0], color="white", edgecolor="#333333", hatch="//", label="cold start")
    rtf_axis.legend(loc="upper right", fontsize="small")
    cgroup = [(i, r.cgroup_peak_mb) for i, r in enumerate(records) if r.cgroup_peak_mb is not None]
    if cgroup:
        memory_axis.scatter(*zip(*cgroup, strict=True), marker="_", s=300, color="#222222", label="cgroup peak (incl. page cache)")
    memory_axis.axhline(report.budget["memory_mb"], color="#d8453b", linestyle="--", label="memory budget")
    memory_axis.set_ylabel("MB")
    memory_axis.legend(loc="upper right", fontsize="small")
    memory_axis.set_xticks(list(positions), labels, rotation=45, ha="right", fontsize="small")
    for tick, record in zip(memory_axis.get_xticklabels(), records, strict=True):
        if not record.passed:
            tick.set_color("#d8453b")  # a broken expectation or budget
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
