"""Wall time and cost of a long job on Lambda, simulated from per-part times measured locally.

The local run has two sandboxes; Lambda has up to ``MaximumConcurrency`` of them, added as the SQS
event source mapping scales (it starts with five concurrent batches and adds up to 300 a minute,
AWS's "Configuring scaling behavior for SQS event source mappings"). The simulation replays the
measured parts in order over that many workers: each new worker pays a cold start before its first
part, the planner runs before any part, and the assembly follows the last part on its worker.

The assembly joins the parts' bytes (S3 copies them, nothing is encoded), so its time is the file's
size over the join rate measured locally: the file's bytes come from the job's audio (its seconds per
character) times the format's bytes per audio second, both measured.
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
# What a long job should do: a million characters inside five minutes at MaximumConcurrency 1,000,
# at most a dollar per million characters, an assembly within 600 MB, and 100,000 characters of
# any format assembled inside ten seconds.
TARGET_1M_WALL_S = 300.0
TARGET_1M_CONCURRENCY = 1_000
TARGET_USD_PER_M_CHARS = 1.0
TARGET_ASSEMBLY_RSS_MB = 600.0
TARGET_100K_ASSEMBLY_S = 10.0


@dataclass(frozen=True)
class Measured:
    """What local fan-out runs measured, per unit, to scale to other lengths."""

    chars_per_part: float
    part_ms: tuple[float, ...]  # billed time of each part's invocation, warm, in order
    init_ms: float  # a cold start's init phase (billed for container images)
    plan_ms_per_char: float  # the planner's invocation, per character of the text (its cold start's init apart: ``init_ms``)
    audio_s_per_char: float  # seconds of audio the parts' model makes per character
    memory_mb: int
    format: str  # the file the assembly joins
    bytes_per_audio_s: float  # the file's size per second of its audio, in ``format``
    join_bytes_per_s: float  # the assembly's bytes joined per second of its wall time
    # What each worker spends encoding its part in ``format``, per second of its audio (parts
    # measured before workers encoded their own did not include it).
    encode_ms_per_audio_s: float = 0.0

    @property
    def encode_ms_per_part(self) -> float:
        return self.chars_per_part * self.audio_s_per_char * self.encode_ms_per_audio_s

    def assembly_s(self, chars: int) -> float:
        """The assembly of a job of ``chars`` characters: its file's bytes at the measured join rate."""
        if self.join_bytes_per_s <= 0:
            raise ValueError("no join rate measured: the assembly's time cannot be simulated")
        return chars * self.audio_s_per_char * self.bytes_per_audio_s / self.join_bytes_per_s


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
    format: str = "wav"
    plan_s: float = 0.0  # the planner before any part
    parts_s: float = 0.0  # from the first part's message to the last part's end
    assembly_s: float = 0.0

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
        part_s = (measured.part_ms[index % len(measured.part_ms)] + measured.encode_ms_per_part) / 1000.0
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
    assembly_s = measured.assembly_s(chars)
    billed_ms += assembly_s * 1000.0
    gb_s = billed_ms / 1000.0 * measured.memory_mb / 1024.0
    usd = gb_s * USD_PER_GB_S + (parts + 1) * USD_PER_REQUEST
    return Simulated(
        chars=chars,
        concurrency=concurrency,
        parts=parts,
        wall_s=round(last_end + assembly_s, 1),
        billed_gb_s=round(gb_s, 1),
        usd=round(usd, 4),
        usd_per_m_chars=round(usd * 1_000_000 / chars, 3),
        cold_starts=cold,
        format=measured.format,
        plan_s=round(plan_s, 1),
        parts_s=round(last_end - plan_s, 1),
        assembly_s=round(assembly_s, 2),
    )


def _time_to_reach(workers: int, concurrency: int) -> float:
    """Seconds after the first message until the mapping may run ``workers`` batches at once."""
    workers = min(workers, concurrency)
    if workers <= SQS_START_CONCURRENCY:
        return 0.0
    return (workers - SQS_START_CONCURRENCY) * 60.0 / SQS_ADDED_PER_MINUTE


def simulate_grid(measured: Measured, chars: Sequence[int] = SIM_CHARS, concurrency: Sequence[int] = SIM_CONCURRENCY) -> list[Simulated]:
    return [simulate(measured, n, c) for n in chars for c in concurrency]


@dataclass(frozen=True)
class TargetCheck:
    target: str
    value: str
    holds: bool
    why: str  # what dominates when it does not hold

    def to_json(self) -> dict:
        return asdict(self)


def check_targets(rows: Sequence[Simulated], assembly_rss_mb: Sequence[float], assembly_s_100k: dict[str, float]) -> list[TargetCheck]:
    """The long-job targets against simulated ``rows`` (every format), the assemblies' measured peak
    RSS, and each format's measured assembly of 100,000 characters."""
    checks = []
    for row in (r for r in rows if r.chars == 1_000_000 and r.concurrency == TARGET_1M_CONCURRENCY):
        holds = row.wall_s <= TARGET_1M_WALL_S
        checks.append(
            TargetCheck(
                f"1,000,000 chars at concurrency {TARGET_1M_CONCURRENCY:,}, {row.format}: wall <= {TARGET_1M_WALL_S:.0f} s",
                f"{row.wall_s:,.1f} s",
                holds,
                "" if holds else _dominant_wall_term(row),
            )
        )
    for row in (r for r in rows if r.chars == 1_000_000):
        holds = row.usd_per_m_chars <= TARGET_USD_PER_M_CHARS
        checks.append(
            TargetCheck(
                f"1,000,000 chars at concurrency {row.concurrency:,}, {row.format}: <= ${TARGET_USD_PER_M_CHARS:g} per million chars",
                f"${row.usd_per_m_chars:.3f}",
                holds,
                "" if holds else "the parts' billed synthesis (GB-s of the part workers) is nearly all of it",
            )
        )
    if assembly_rss_mb:
        peak = max(assembly_rss_mb)
        checks.append(
            TargetCheck(
                f"assembly peak RSS <= {TARGET_ASSEMBLY_RSS_MB:.0f} MB",
                f"{peak:.1f} MB",
                peak <= TARGET_ASSEMBLY_RSS_MB,
                "" if peak <= TARGET_ASSEMBLY_RSS_MB else "the process's loaded model, not the join",
            )
        )
    for fmt, seconds in sorted(assembly_s_100k.items()):
        holds = seconds <= TARGET_100K_ASSEMBLY_S
        checks.append(
            TargetCheck(
                f"100,000 chars, {fmt}: assembly <= {TARGET_100K_ASSEMBLY_S:.0f} s", f"{seconds:.2f} s", holds, "" if holds else "the join"
            )
        )
    return checks


def _dominant_wall_term(row: Simulated) -> str:
    """Which of the wall time's terms is the largest: the planner, the parts (the mapping's scale-up
    and the parts' render), or the assembly."""
    terms = {"the planner": row.plan_s, "the parts (SQS scale-up and rendering)": row.parts_s, "the assembly": row.assembly_s}
    name = max(terms, key=lambda k: terms[k])
    reach = _time_to_reach(row.concurrency, row.concurrency)
    return (
        f"{name}: {terms[name]:,.1f} s of {row.wall_s:,.1f} s; the mapping alone needs {reach:.0f} s to reach "
        f"{row.concurrency:,} workers ({SQS_ADDED_PER_MINUTE} a minute after {SQS_START_CONCURRENCY})"
    )


def format_simulation(rows: Sequence[Simulated]) -> list[str]:
    polly = ", ".join(f"{name} ${usd:g}" for name, usd in POLLY_USD_PER_M_CHARS.items() if name in ("standard", "neural"))
    lines = [
        f"{'format':>6} {'chars':>10} {'concurrency':>11} {'parts':>6} {'cold':>5} {'wall s':>8} {'asm s':>7} "
        f"{'GB-s':>9} {'USD':>8} {'USD/M chars':>11}"
    ]
    for r in rows:
        lines.append(
            f"{r.format:>6} {r.chars:>10,} {r.concurrency:>11,} {r.parts:>6,} {r.cold_starts:>5,} {r.wall_s:>8,.1f} "
            f"{r.assembly_s:>7,.2f} {r.billed_gb_s:>9,.1f} {r.usd:>8.4f} {r.usd_per_m_chars:>11.3f}"
        )
    lines.append(f"Amazon Polly per million characters: {polly}")
    return lines


def format_targets(checks: Sequence[TargetCheck]) -> list[str]:
    return [f"{'holds' if c.holds else 'MISSED':>6}  {c.target}: {c.value}" + (f" ({c.why})" if c.why else "") for c in checks]
