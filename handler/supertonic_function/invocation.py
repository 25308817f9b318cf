"""One invocation of the function, as every event source sees it: who asked, and how much time is left.

Lambda's context object tells the request id and the time left; the runtime knows whether this is
the container's first invocation. Everything a source needs of them travels in one ``LambdaCall``,
made once when the invocation begins, so the budget a fresh invocation has is read at its start
(before the first record of a batch spends any of it) and no module keeps per-invocation state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from supertonic_engine.errors import NoTimeToStart


class LambdaContext(Protocol):
    """The part of Lambda's context object the function uses."""

    aws_request_id: str

    def get_remaining_time_in_millis(self) -> int: ...


@dataclass(frozen=True)
class LambdaCall:
    request_id: str
    context: LambdaContext | None  # None outside Lambda: no deadline
    cold_start: bool
    margin_s: float  # of the time left, kept for what follows synthesis (closing the file, the response)
    fresh_s: float | None  # what ``seconds_left`` said when the invocation began: what a retry of it gets
    # Seconds the front that sent the request waits for the answer from this invocation's start (an API
    # Gateway REST API's, proxy_sources.py); None: it waits as long as the function runs.
    front_wait_s: float | None = None

    @classmethod
    def begin(
        cls,
        context: LambdaContext | None,
        *,
        margin_s: float,
        cold_start: bool = False,
        request_id: str | None = None,
        front_wait_s: float | None = None,
    ) -> LambdaCall:
        """The invocation ``context`` stands for, its fresh budget read now."""
        named = request_id or (context.aws_request_id if context is not None else "local")
        return cls(named, context, cold_start, margin_s, _left(context, margin_s), front_wait_s)

    def seconds_left(self) -> float | None:
        """The time left minus the margin (zero or less when none is); None outside Lambda."""
        return _left(self.context, self.margin_s)

    def synthesis_budget_s(self) -> float | None:
        """Seconds synthesis and encoding may take now: ``seconds_left``, refused with
        ``NoTimeToStart`` when nothing is left beyond the margin."""
        budget_s = self.seconds_left()
        if budget_s is not None and budget_s <= 0:
            # Earlier work in this invocation (another record of the same event) used the time, or
            # the timeout is not longer than the margin. A cold start is no cause: Lambda does not
            # count the init phase against the timeout.
            raise NoTimeToStart(budget_s + self.margin_s, self.margin_s, "finishing and delivering the answer")
        return budget_s


def _left(context: LambdaContext | None, margin_s: float) -> float | None:
    if context is None:
        return None
    return context.get_remaining_time_in_millis() / 1000.0 - margin_s
