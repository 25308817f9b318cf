"""Wall time and cost of a long job on Lambda, simulated from per-part times measured locally.

The local run has two sandboxes; Lambda has up to ``MaximumConcurrency`` of them, added as the SQS
event source mapping scales (it starts with five concurrent batches and adds up to 300 a minute,
AWS's "Configuring scaling behavior for SQS event source mappings"). The simulation replays the
measured parts in order over that many workers: each new worker pays a cold start before its first
part, the planner runs before any part, and the assembly follows the last part on its worker.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .prices import POLLY_USD_PER_M_CHARS, USD_PER_GB_S, USD_PER_REQUEST

SQS_START_CONCURRENCY = 5
SQS_ADDED_PER_MINUTE = 300
SIM_CHARS = (10_000, 100_000, 1_000_000)
SIM_CONCURRENCY = (10, 100, 1_000)


@dataclass(frozen=True)
class Measured:
    """What one local fan-out run measured, per unit, to scale to other lengths."""

    chars_per_part: float
    part_ms: tuple[float, ...]  # billed time of each part's invocation, warm, in order
    init_ms: float  # a cold start's init phase (billed for container images)
    plan_ms_per_char: float  # the planner's invocation, per character of the text
    assembly_ms_per_part: float  # the assembly after the last part, per part stitched
    memory_mb: int


@dataclass(frozen=True)
class Simulated:
    chars: int
    concurrency: int
    parts: int
    wall_s: float
    billed_gb_s: float
    usd: float
    usd_per_m_chars: float
    cold_starts: int

    def to_json(self) -> dict:
        return asdict(self)


def workers_at(seconds: float, concurrency: int) -> int:
    """How many concurrent batches the mapping runs ``seconds`` after messages appear."""
    return min(concurrency, SQS_START_CONCURRENCY + int(SQS_ADDED_PER_MINUTE * seconds / 60.0))


def simulate(measured: Measured, chars: int, concurrency: int) -> Simulated:
    """One job of ``chars`` characters at ``MaximumConcurrency`` ``concurrency``."""
    if not measured.part_ms:
        raise ValueError("no measured parts to simulate from")
    parts = max(1, math.ceil(chars / measured.chars_per_part))
    plan_s = measured.plan_ms_per_char * chars / 1000.0
    init_s = measured.init_ms / 1000.0
    # Free times of the workers running so far; workers join as the mapping scales up.
    free: list[float] = []
    started = 0
    billed_ms = measured.plan_ms_per_char * chars + measured.init_ms  # the planner's own invocation, cold
    cold = 1
    last_end = plan_s
    for index in range(parts):
        part_s = measured.part_ms[index % len(measured.part_ms)] / 1000.0
        earliest_free = free[0] if free else math.inf
        # A new worker when the mapping may run one more before an existing one frees up.
        if started < concurrency:
            join_s = plan_s + _time_to_reach(started + 1, concurrency)
            if join_s < earliest_free:
                started += 1
                cold += 1
                billed_ms += measured.init_ms
                end = join_s + init_s + part_s
                heapq.heappush(free, end)
                billed_ms += part_s * 1000.0
                last_end = max(last_end, end)
                continue
        begin = heapq.heappop(free)
        end = begin + part_s
        heapq.heappush(free, end)
        billed_ms += part_s * 1000.0
        last_end = max(last_end, end)
    assembly_ms = measured.assembly_ms_per_part * parts
    billed_ms += assembly_ms
    gb_s = billed_ms / 1000.0 * measured.memory_mb / 1024.0
    usd = gb_s * USD_PER_GB_S + (parts + 1) * USD_PER_REQUEST
    return Simulated(
        chars=chars,
        concurrency=concurrency,
        parts=parts,
        wall_s=round(last_end + assembly_ms / 1000.0, 1),
        billed_gb_s=round(gb_s, 1),
        usd=round(usd, 4),
        usd_per_m_chars=round(usd * 1_000_000 / chars, 3),
        cold_starts=cold,
    )


def _time_to_reach(workers: int, concurrency: int) -> float:
    """Seconds after the first message until the mapping may run ``workers`` batches at once."""
    workers = min(workers, concurrency)
    if workers <= SQS_START_CONCURRENCY:
        return 0.0
    return (workers - SQS_START_CONCURRENCY) * 60.0 / SQS_ADDED_PER_MINUTE


def simulate_grid(measured: Measured, chars: Sequence[int] = SIM_CHARS, concurrency: Sequence[int] = SIM_CONCURRENCY) -> list[Simulated]:
    return [simulate(measured, n, c) for n in chars for c in concurrency]


def format_simulation(rows: Sequence[Simulated]) -> list[str]:
    polly = ", ".join(f"{name} ${usd:g}" for name, usd in POLLY_USD_PER_M_CHARS.items() if name in ("standard", "neural"))
    lines = [f"{'chars':>10} {'concurrency':>11} {'parts':>6} {'cold':>5} {'wall s':>8} {'GB-s':>9} {'USD':>8} {'USD/M chars':>11}"]
    for r in rows:
        lines.append(
            f"{r.chars:>10,} {r.concurrency:>11,} {r.parts:>6,} {r.cold_starts:>5,} {r.wall_s:>8,.1f} "
            f"{r.billed_gb_s:>9,.1f} {r.usd:>8.4f} {r.usd_per_m_chars:>11.3f}"
        )
    lines.append(f"Amazon Polly per million characters: {polly}")
    return lines
