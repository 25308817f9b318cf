"""A hard deadline for synthesis that really stops the computation.

Wrapping a blocking ``session.run`` in ``asyncio.wait_for`` only stops *waiting*: the executor
thread keeps burning CPU until the graph finishes, and on Lambda the next request pays for it.
Here a watchdog timer sets ``RunOptions.terminate`` when the deadline passes; ONNX Runtime checks
that flag between nodes and aborts the run, and the engine also checks the clock between steps and
chunks. The caller gets ``DeadlineExceeded`` within one graph node's time after the deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import onnxruntime as ort

from .errors import DeadlineExceeded, InvalidParameter, NoTimeToStart


class Deadline:
    """Owns one ``RunOptions`` for a synthesis call and the timer that terminates it.

    Use as a context manager; ``timeout_s=None`` means no deadline (the runs are never terminated).
    ``hold_back_s`` (read at every check) is time the caller needs after synthesis for what it has
    made so far, such as uploading it: the deadline comes that much earlier. The timer stays at
    ``timeout_s``; the checks between steps and chunks see the hold-back grow.
    """

    def __init__(
        self,
        timeout_s: float | None,
        clock: Callable[[], float] = time.monotonic,
        hold_back_s: Callable[[], float] | None = None,
    ) -> None:
        if timeout_s is not None and not timeout_s > 0:
            raise InvalidParameter(f"timeout must be a positive number of seconds, got {timeout_s!r}", field="timeout_s")
        self.timeout_s = timeout_s
        self.run_options = ort.RunOptions()
        self._clock = clock
        self._hold_back_s = hold_back_s
        self._started = clock()
        self._timer: threading.Timer | None = None
        self.chunks_done = 0
        self.chunks_total = 0

    @classmethod
    def of(cls, deadline: float | Deadline | None) -> Deadline:
        """``deadline`` itself when it is one (its time keeps running), else a new one of that many seconds."""
        return deadline if isinstance(deadline, Deadline) else cls(deadline)

    def __enter__(self) -> Deadline:
        self._arm()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.timeout_s is not None:
            self._timer = threading.Timer(max(0.0, self.timeout_s - self.elapsed_s), self._terminate)
            self._timer.daemon = True
            self._timer.start()

    def keep_back(self, seconds: float, needed_for: str) -> None:
        """Bring the deadline ``seconds`` closer, for work the caller does after synthesis once
        its size is known (delivering the audio); ``NoTimeToStart`` if that leaves no time."""
        if self.timeout_s is None or seconds <= 0:
            return
        left_s = self.timeout_s - self.elapsed_s
        if left_s <= seconds:
            raise NoTimeToStart(left_s, seconds, needed_for)
        self.timeout_s -= seconds
        if self._timer is not None:  # re-armed for the nearer deadline
            self._arm()

    def _terminate(self) -> None:
        self.run_options.terminate = True

    @property
    def elapsed_s(self) -> float:
        return self._clock() - self._started

    @property
    def held_back_s(self) -> float:
        return self._hold_back_s() if self._hold_back_s is not None else 0.0

    @property
    def expired(self) -> bool:
        if self.run_options.terminate:
            return True
        return self.timeout_s is not None and self.elapsed_s + self.held_back_s >= self.timeout_s

    def check(self) -> None:
        """Raise ``DeadlineExceeded`` if the deadline has passed; called between steps and chunks."""
        if self.expired:
            self.run_options.terminate = True
            raise self.exceeded()

    def exceeded(self) -> DeadlineExceeded:
        return DeadlineExceeded(self.timeout_s or 0.0, self.elapsed_s, self.chunks_done, self.chunks_total, self.held_back_s)

    def run(self, session: ort.InferenceSession, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """``session.run`` under this deadline: a terminated run becomes ``DeadlineExceeded``."""
        self.check()
        try:
            return session.run(None, feeds, self.run_options)
        except Exception:
            # ORT reports termination as a generic Fail ("Exiting due to terminate flag being set");
            # the flag, not the message text, tells it apart from a real error.
            if self.run_options.terminate:
                raise self.exceeded() from None
            raise
