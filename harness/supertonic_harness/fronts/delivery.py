"""How S3 hands an event to the function: an asynchronous invoke, at least once.

S3 invokes Lambda asynchronously. When the function fails (an error, a timeout, an OOM), Lambda
invokes it again with the same event, twice more by default (``MaximumRetryAttempts``, after about
one and two minutes), then gives the event to the on-failure destination. Even without errors the
same event may arrive more than once, also at two execution environments at the same moment
(https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html). ``deliver``
does the first, ``deliver_concurrently`` the second; neither waits between attempts, since the
harness's faults are scheduled by request, not by time.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..function.outcome import Outcome
from ..function.sandbox import Invocation, Sandbox

# Lambda's default MaximumRetryAttempts for asynchronous invokes.
ASYNC_RETRIES = 2


@dataclass
class Delivery:
    """Every attempt Lambda made with one event, the last one deciding."""

    attempts: list[Invocation] = field(default_factory=list)

    @property
    def final(self) -> Invocation:
        return self.attempts[-1]

    @property
    def succeeded(self) -> bool:
        return self.final.outcome is Outcome.SUCCESS

    @property
    def retries(self) -> int:
        return len(self.attempts) - 1

    def describe(self) -> str:
        if not self.retries:
            return ""
        failed = ", ".join(f"{a.outcome.value} ({a.error_type})" for a in self.attempts[:-1])
        ending = "succeeded" if self.succeeded else "gave up: the event goes to the on-failure destination"
        return f"retried {self.retries}x after {failed}; {ending}"


def deliver(sandbox: Sandbox, event: Mapping[str, Any], *, retries: int = ASYNC_RETRIES) -> Delivery:
    """Invoke with ``event`` as an asynchronous invoke does: again after each failure, ``retries`` times at most."""
    delivery = Delivery()
    for _ in range(retries + 1):
        delivery.attempts.append(sandbox.invoke(event))
        if delivery.succeeded:
            break
    return delivery


def deliver_concurrently(sandboxes: Sequence[Sandbox], event: Mapping[str, Any], *, retries: int = ASYNC_RETRIES) -> list[Delivery]:
    """The same event delivered to each sandbox at once (each with its own retries), as Lambda may."""
    deliveries = [Delivery() for _ in sandboxes]
    start = threading.Barrier(len(sandboxes))

    def run(index: int) -> None:
        start.wait()
        deliveries[index] = deliver(sandboxes[index], event, retries=retries)

    threads = [threading.Thread(target=run, args=(i,), name=f"delivery-{i}") for i in range(len(sandboxes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return deliveries
