"""RIE's log, read in one place: each line becomes typed records, one invocation's lines a ``RieReport``.

RIE's log is free text for people, and the only place that says what happened to an invocation
(init, timeout, reset), so every reading of it goes through ``read_line``. Three kinds of line
arrive interleaved, as recorded from aws-sam-cli 1.170.0's binary in tests/harness_fixtures/rie_logs:

* Lambda's own ``START RequestId: ...``, ``END RequestId: ...`` and ``REPORT RequestId: ...``;
* the emulator's workings, tagged ``(rapid)``: ``INIT START(...)``, ``INIT REPORT(durationMs: ...)``,
  ``INVOKE RTDONE(...)``, ``Invoke DONE failed: ...``, ``Reset initiated: ...``, ...;
* the function's own output, which RIE passes through untouched.

Measured behaviour the records rely on: the REPORT line's ``Duration`` includes a lazy init and its
``Init Duration`` is meaningless, the real numbers are ``INIT REPORT`` and ``INVOKE RTDONE``; an
oversized response or a killed runtime ends with ``Invoke DONE failed`` and no REPORT line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RequestStart:
    """``START RequestId``: RIE took the invocation (before a lazy init, or after it when the init fails)."""

    request_id: str


@dataclass(frozen=True)
class InitStart:
    """An init begins: ``phase`` is "init" (on demand) or "invoke" (the retry inside an invoke after a failed one)."""

    phase: str


@dataclass(frozen=True)
class InitReport:
    """The init ended after ``duration_ms``, whether it succeeded or not."""

    duration_ms: float


@dataclass(frozen=True)
class InitFailed:
    """The init ended in an error, as RIE words it ("Runtime exited with error: exit status 1", "errResetReceived")."""

    error: str


@dataclass(frozen=True)
class RuntimeDone:
    """``INVOKE RTDONE``: the runtime answered; ``duration_ms`` is the handler's time as Lambda reports it."""

    status: str
    produced_bytes: int
    duration_ms: float


@dataclass(frozen=True)
class Report:
    """``REPORT``: RIE's last line about an invocation it saw through (also a timeout it enforced)."""

    request_id: str
    duration_ms: float | None
    billed_ms: int | None


@dataclass(frozen=True)
class InvokeFailed:
    """``Invoke DONE failed``: the invocation ended without a REPORT line ("Runtime.ExitError", "Sandbox.Failure")."""

    error_type: str


@dataclass(frozen=True)
class Reset:
    """RIE resets the sandbox, so the next invoke is a cold start ("Timeout", "ReleaseFail")."""

    reason: str


@dataclass(frozen=True)
class RuntimeExited:
    """The runtime process ended ("signal: killed", "exit status 1")."""

    how: str


Record = RequestStart | InitStart | InitReport | InitFailed | RuntimeDone | Report | InvokeFailed | Reset | RuntimeExited

# Each line is one of these at most, tried in this order...
_INIT_START = re.compile(r"INIT START\(type: [\w-]+, phase: (?P<phase>\w+)\)")
_INIT_REPORT = re.compile(r"INIT REPORT\(durationMs: (?P<ms>[\d.]+)\)")
_INIT_FAILED = re.compile(r"Init failed error=(?P<error>.*?)(?: InvokeID=\S*)?$")
_START = re.compile(r"^START RequestId: (?P<id>[\w-]+)")
_RTDONE = re.compile(r"INVOKE RTDONE\(status: (?P<status>\w+), produced bytes: (?P<bytes>\d+), duration: (?P<ms>[\d.]+)ms\)")
_REPORT = re.compile(r"^REPORT RequestId: (?P<id>[\w-]+)\t(?P<fields>.*)$")
_DONE_FAILED = re.compile(r"Invoke DONE failed: (?P<type>[\w.]+)")
# ...and may also say these, which RIE puts inside other messages ("Init failed error=Runtime exited ...").
_RESET = re.compile(r"Reset initiated: (?P<reason>\w+)")
_EXITED = re.compile(r"Runtime exited with error: (?P<how>signal: \w+|exit status \d+)")


def read_line(line: str) -> tuple[Record, ...]:
    """The records one line of RIE's output carries; none for a line the harness has no use for."""
    records: list[Record] = []
    if match := _INIT_START.search(line):
        records.append(InitStart(match["phase"]))
    elif match := _INIT_REPORT.search(line):
        records.append(InitReport(float(match["ms"])))
    elif match := _INIT_FAILED.search(line):
        records.append(InitFailed(match["error"]))
    elif match := _START.search(line):
        records.append(RequestStart(match["id"]))
    elif match := _RTDONE.search(line):
        records.append(RuntimeDone(match["status"], int(match["bytes"]), float(match["ms"])))
    elif match := _REPORT.search(line):
        fields = dict(_split_report_field(f) for f in match["fields"].split("\t") if ":" in f)
        billed = _number(fields.get("Billed Duration"))
        records.append(Report(match["id"], _number(fields.get("Duration")), int(billed) if billed is not None else None))
    elif match := _DONE_FAILED.search(line):
        records.append(InvokeFailed(match["type"]))
    if match := _RESET.search(line):
        records.append(Reset(match["reason"]))
    if match := _EXITED.search(line):
        records.append(RuntimeExited(match["how"]))
    return tuple(records)


def is_emulator_detail(line: str) -> bool:
    """A line about the emulator's own workings (``(rapid)``), not Lambda's START/END/REPORT or the function's output."""
    return "(rapid)" in line


def _split_report_field(text: str) -> tuple[str, str]:
    key, _, value = text.partition(":")
    return key.strip(), value.strip()


def _number(text: str | None) -> float | None:
    if not text:
        return None
    return float(text.split()[0])


@dataclass
class RieReport:
    """What RIE's log says about one invocation."""

    request_id: str | None = None
    cold_start: bool = False
    init_ms: float | None = None
    init_failed: bool = False
    # Handler time as Lambda reports it (RTDONE); on a timeout, RIE's REPORT duration.
    duration_ms: float | None = None
    billed_ms: int | None = None
    failure: str | None = None  # "Runtime.ExitError", "Sandbox.Failure", ... from "Invoke DONE failed"
    reset_reason: str | None = None  # "Timeout", "ReleaseFail"
    runtime_exit: str | None = None  # "signal: killed", "exit status 1"
    lines: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """RIE has said its last word on this invocation (a REPORT line or a failed invoke)."""
        return self.billed_ms is not None or self.failure is not None


def parse_invocation_log(lines: Sequence[str]) -> RieReport:
    """Read the RIE log lines of one invocation, from the request up to its REPORT or failure."""
    report = RieReport(lines=list(lines))
    rtdone_ms = report_ms = None
    for record in (record for line in lines for record in read_line(line)):
        match record:
            case InitStart():
                report.cold_start = True
            case InitReport() if report.init_ms is None:
                # A failed init logs a second, empty INIT REPORT for the retry inside the invoke.
                report.init_ms = record.duration_ms
            case InitFailed():
                report.init_failed = True
            case RequestStart() if report.request_id is None:
                report.request_id = record.request_id
            case RuntimeDone():
                rtdone_ms = record.duration_ms
            case Report():
                report_ms, report.billed_ms = record.duration_ms, record.billed_ms
            case InvokeFailed():
                report.failure = record.error_type
            case Reset():
                report.reset_reason = report.reset_reason or record.reason
            case RuntimeExited():
                report.runtime_exit = report.runtime_exit or record.how
    report.duration_ms = rtdone_ms if rtdone_ms is not None else report_ms
    return report
