"""The function as Lambda runs it: RIE and its runtime (``python -m awslambdaric``) inside limits, measured per invoke.

with open_limits(resolve_profile("lambda-2048")) as limits, Sandbox(FunctionSpec(), limits) as box:
    invocation = box.invoke({"text": "Hello."})
    invocation.outcome, invocation.duration_ms, invocation.peak_rss_mb
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .limits import Limits
from .measure import MB, read_bytes
from .outcome import Classification, Outcome, classify
from .rie import FunctionSpec, Rie
from .runtime_proxy import StreamRelay


@dataclass
class Measurements:
    """The numbers of one invocation: Lambda's (cold start, durations) and the harness's (memory).
    Declared once here, carried by both the sandbox's ``Invocation`` and the report's ``Record``."""

    cold_start: bool
    init_ms: float | None
    duration_ms: float | None
    billed_ms: int | None
    wall_ms: float
    peak_rss_mb: float
    rss_after_mb: float  # the runtime's RSS once the invocation is over (drift over a soak)
    cgroup_peak_mb: float | None
    # Cold starts only: what the function's processes read from storage so far (``/proc/<pid>/io``),
    # the model's pages above all, which a new Lambda container fetches from the image.
    init_read_mb: float | None = field(default=None, kw_only=True)

    def measurements(self) -> dict[str, Any]:
        """Just these numbers, to build another ``Measurements`` from."""
        return {f.name: getattr(self, f.name) for f in fields(Measurements)}


@dataclass
class Invocation(Measurements):
    """One invocation: Lambda's view of it (outcome, durations) and the harness's measurements."""

    outcome: Outcome
    status: int  # RIE's HTTP status, kept for the record; ``outcome`` is what counts
    body: bytes  # the function's JSON result, or RIE's error text
    error_type: str | None
    error_message: str | None
    request_id: str | None
    runtime_pids: list[int] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)

    def result(self) -> Any:
        """The handler's return value (parsed JSON), None when it did not return one."""
        if self.outcome is not Outcome.SUCCESS:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Sandbox:
    """RIE serving ``function`` inside ``limits``; one invocation at a time, each one measured.

    The memory size Lambda would report to the function (``AWS_LAMBDA_FUNCTION_MEMORY_SIZE``) is
    the profile's, so the function sizes itself as it would on Lambda.
    """

    def __init__(
        self,
        function: FunctionSpec,
        limits: Limits,
        *,
        rie_port: int | None = None,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        self.function = replace(function, memory_mb=limits.profile.memory_mb)
        self.limits = limits
        self.rie = Rie(self.function, port=rie_port, spawn=limits.spawn, echo=echo)
        self.sampler = limits.sampler(self.rie.pid)

    @property
    def invoke_url(self) -> str:
        return self.rie.url

    def invoke(self, event: Mapping[str, Any] | bytes, *, relay: StreamRelay | None = None) -> Invocation:
        """One invocation, measured; a response the function streams also goes to ``relay`` as it
        is written (``body`` then holds what RIE was sent of it: its first 6 MiB)."""
        payload = event if isinstance(event, bytes) else json.dumps(event).encode()
        ooms_before = 0

        def start_window() -> None:  # called under RIE's invoke lock: one window at a time
            nonlocal ooms_before
            ooms_before = self.limits.oom_kills()
            self.sampler.begin()
            self.limits.reset_peak()

        raw = self.rie.invoke(payload, before_send=start_window, relay=relay)
        window = self.sampler.end()
        cgroup_peak = self.limits.peak_bytes()
        oom_killed = window.killed_over_limit or self.limits.oom_kills() > ooms_before
        verdict: Classification = classify(raw, oom_killed=oom_killed)
        log = raw.log
        pids = self.rie.runtime_pids()
        billed = log.billed_ms
        if billed is None:  # no REPORT line (oversized response, killed runtime): bill the wall time
            billed = math.ceil(raw.wall_ms)
        return Invocation(
            outcome=verdict.outcome,
            status=raw.status,
            body=raw.body,
            error_type=verdict.error_type,
            error_message=verdict.error_message,
            request_id=log.request_id,
            cold_start=log.cold_start,
            init_ms=log.init_ms,
            duration_ms=log.duration_ms,
            billed_ms=billed,
            wall_ms=round(raw.wall_ms, 1),
            peak_rss_mb=round(window.peak_rss_mb, 1),
            rss_after_mb=round(window.end_rss_mb, 1),
            cgroup_peak_mb=None if cgroup_peak is None else round(cgroup_peak / MB, 1),
            runtime_pids=pids,
            log_lines=log.lines,
            init_read_mb=round(sum(map(read_bytes, pids)) / MB, 1) if log.cold_start else None,
        )

    def close(self) -> None:
        self.sampler.stop()
        self.rie.stop()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
