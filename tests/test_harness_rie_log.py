"""RIE's log adapter, on logs recorded from the RIE binary the harness runs (harness_fixtures/rie_logs)."""

from __future__ import annotations

import pytest
from harness_fixtures.support import FIXTURES

from supertonic_harness.function.rie_log import (
    InitFailed,
    InitReport,
    InitStart,
    InvokeFailed,
    Report,
    RequestStart,
    Reset,
    RuntimeDone,
    RuntimeExited,
    is_emulator_detail,
    parse_invocation_log,
    read_line,
)

LOGS = FIXTURES / "rie_logs"


def recorded(case: str) -> list[str]:
    """One invocation's lines as ``Rie.invoke`` collected them; a function's multi-line message keeps its CRs."""
    return (LOGS / f"{case}.log").read_bytes().decode().split("\n")[:-1]


def records(case: str) -> list:
    return [record for line in recorded(case) for record in read_line(line)]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # A lazy init: Lambda's numbers are INIT REPORT and RTDONE, not REPORT's inflated Duration.
        (
            "cold-success",
            dict(
                request_id="69ad6e25-7252-44cd-8811-f5ea481c2ee2",
                cold_start=True,
                init_ms=144.909,
                init_failed=False,
                duration_ms=46.389,
                billed_ms=192,
                failure=None,
                reset_reason=None,
                runtime_exit=None,
            ),
        ),
        (
            "warm-success",
            dict(
                request_id="1a538a18-e4fe-4dd9-b5fa-7540c6353907",
                cold_start=False,
                init_ms=None,
                duration_ms=93.772,
                billed_ms=95,
                failure=None,
                reset_reason=None,
            ),
        ),
        # A handler's exception is in the answer's body; to RIE the runtime answered as usual.
        (
            "handler-error",
            dict(
                request_id="3ab4193d-68b0-489a-a9a3-cf709be2566b",
                cold_start=True,
                init_ms=305.831,
                duration_ms=45.78,
                billed_ms=353,
                failure=None,
                reset_reason=None,
                runtime_exit=None,
            ),
        ),
        # The harness's timeout kills the runtime: RIE sees a killed runtime, as it does for an OOM kill.
        (
            "timeout",
            dict(
                request_id="ee47a3ce-c64e-4479-abfe-a1e4427a0d74",
                cold_start=True,
                init_ms=110.738,
                duration_ms=None,
                billed_ms=None,
                failure="Runtime.ExitError",
                reset_reason="ReleaseFail",
                runtime_exit="signal: killed",
            ),
        ),
        # RIE's own timeout, reached by an init past the allowance: a REPORT billed at RIE's deadline.
        (
            "init-timeout",
            dict(
                request_id="51a12c33-89cc-4a07-aea5-40ed7a24766b",
                cold_start=True,
                init_ms=11010.306,
                init_failed=True,
                duration_ms=11000.0,
                billed_ms=11000,
                failure=None,
                reset_reason="Timeout",
                runtime_exit=None,
            ),
        ),
        # The first INIT REPORT counts; the retry's empty one inside the invoke does not.
        (
            "init-error",
            dict(
                request_id="84113e46-a702-4192-ae75-513623d20f6b",
                cold_start=True,
                init_ms=205.338,
                init_failed=True,
                duration_ms=None,
                billed_ms=None,
                failure="Sandbox.Failure",
                reset_reason="ReleaseFail",
                runtime_exit="exit status 1",
            ),
        ),
    ],
)
def test_a_recorded_invocation_is_read_as_lambda_reports_it(case, expected):
    report = parse_invocation_log(recorded(case))
    assert {key: getattr(report, key) for key in expected} == expected
    assert report.complete and report.lines == recorded(case)


def test_each_line_becomes_the_records_it_carries():
    assert records("cold-success") == [
        RequestStart("69ad6e25-7252-44cd-8811-f5ea481c2ee2"),
        InitStart("init"),
        InitReport(144.909),
        RuntimeDone("success", 0, 46.389),
        Report("69ad6e25-7252-44cd-8811-f5ea481c2ee2", 191.61, 192),
    ]
    assert records("init-error") == [
        InitStart("init"),
        RequestStart("84113e46-a702-4192-ae75-513623d20f6b"),
        InitReport(205.338),
        # One line, two records: the init failed, and this is how the runtime ended.
        InitFailed("Runtime exited with error: exit status 1"),
        RuntimeExited("exit status 1"),
        InitStart("invoke"),
        InitReport(0.06),
        RuntimeExited("exit status 1"),
        InvokeFailed("Sandbox.Failure"),
        Reset("ReleaseFail"),
    ]
    assert records("init-timeout")[3:5] == [InitFailed("errResetReceived"), Reset("Timeout")]


def test_the_function_s_own_lines_carry_no_records():
    lines = recorded("handler-error")
    own = [line for line in lines if line.startswith("[ERROR] ValueError")]
    assert len(own) == 1 and "\r" in own[0]  # awslambdaric's one-line traceback
    assert read_line(own[0]) == () and not is_emulator_detail(own[0])


def test_emulate_hides_only_the_emulator_s_workings():
    shown = [line for line in recorded("handler-error") if not is_emulator_detail(line)]
    assert [line.split(" ", 1)[0] for line in shown] == ["START", "[ERROR]", "END", "REPORT"]


def test_a_log_cut_before_report_is_not_complete():
    lines = recorded("cold-success")
    assert lines[-1].startswith("REPORT") and not parse_invocation_log(lines[:-1]).complete
