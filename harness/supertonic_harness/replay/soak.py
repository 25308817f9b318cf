"""A soak: the same events replayed warm, round after round, in one sandbox; judged on memory drift and errors.

``replay --repeat N`` runs one. Every round sends the same events in the same order, so the RSS
the runtime keeps after a round is comparable from round to round: a leak makes it grow. The
first round is the warm-up (the cold start, and each code path's first use: encoders loaded on
demand, ONNX Runtime's arenas growing to their working size); the figures are taken after it.
The noise is how far RSS moves between the invocations of the first round after it: a change
that small between the first and the last round says nothing, a leak grows past it round by round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..stats import percentile
from .report import Record

WARM_UP_ROUNDS = 1
DRIFT_TARGET_PCT = 2.0


def soak_summary(records: Sequence[Record]) -> dict[str, Any] | None:
    """RSS after each round past the warm-up (first, last, noise, drift), peak RSS, errors and
    warm durations; None when there is no round past the warm-up to compare."""
    rounds: dict[int, list[Record]] = {}
    for record in records:
        rounds.setdefault(record.repeat, []).append(record)
    measured = [rounds[n] for n in sorted(rounds) if n >= WARM_UP_ROUNDS]
    if not measured:
        return None
    after_round = [round_records[-1].rss_after_mb for round_records in measured]
    warm = [record for round_records in measured for record in round_records]
    durations = sorted(r.duration_ms for r in warm if r.duration_ms is not None)
    first, last = after_round[0], after_round[-1]
    settled = [r.rss_after_mb for r in measured[0]]
    return {
        "rounds": len(rounds),
        "invocations": len(records),
        "warm_up_invocations": len(records) - len(warm),
        "first_rss_mb": first,
        "last_rss_mb": last,
        "peak_rss_mb": max(r.peak_rss_mb for r in warm),
        "rss_noise_mb": round(max(settled) - min(settled), 1),
        "drift_pct": round(100 * (last - first) / first, 3) if first else None,
        "drift_target_pct": DRIFT_TARGET_PCT,
        "errors": sum(not r.passed for r in records),
        "cold_starts_after_warm_up": sum(r.cold_start for r in warm),
        "p50_duration_ms": _percentile(durations, 50),
        "p95_duration_ms": _percentile(durations, 95),
        "rss_after_round_mb": after_round,
    }


def _percentile(values: Sequence[float], percent: float) -> float | None:
    found = percentile(values, percent)
    return None if found is None else round(found, 1)


def soak_lines(summary: dict[str, Any]) -> str:
    s = summary
    drift = "-" if s["drift_pct"] is None else f"{s['drift_pct']:+.2f} %"
    return (
        f"soak: {s['invocations']} invocations in {s['rounds']} rounds, the first {s['warm_up_invocations']} a warm-up\n"
        f"  RSS after a round: first {s['first_rss_mb']:.1f} MB, last {s['last_rss_mb']:.1f} MB "
        f"(noise {s['rss_noise_mb']:.1f} MB) -> drift {drift} (target < {s['drift_target_pct']:g} %); "
        f"peak RSS {s['peak_rss_mb']:.1f} MB\n"
        f"  errors {s['errors']}, cold starts after the warm-up {s['cold_starts_after_warm_up']}; "
        f"warm duration p50 {s['p50_duration_ms']} ms, p95 {s['p95_duration_ms']} ms"
    )
