"""Outcomes as Lambda names them, whatever status RIE answers with; and the cold starts they cause."""

from __future__ import annotations

import pytest
from harness_fixtures.support import sample_function

from supertonic_harness.function.limits import open_limits, resolve_profile
from supertonic_harness.function.outcome import Outcome, classify
from supertonic_harness.function.rie import RawInvocation
from supertonic_harness.function.rie_log import RieReport
from supertonic_harness.function.sandbox import Sandbox


def _raw(status, body, **log):
    return RawInvocation(status, body, 1.0, RieReport(**log))


@pytest.mark.parametrize(
    ("raw", "oom_killed", "expected"),
    [
        (_raw(200, b'{"statusCode": 200}'), False, Outcome.SUCCESS),
        # A handler's return value that merely mentions errors is still a success.
        (_raw(200, b'{"errorType": "only one key"}'), False, Outcome.SUCCESS),
        (_raw(200, b'{"errorMessage": "boom", "errorType": "ValueError", "stackTrace": []}'), False, Outcome.FUNCTION_ERROR),
        (_raw(200, b"Task timed out after 3.00 seconds", reset_reason="Timeout"), False, Outcome.TIMEOUT),
        (_raw(502, b'{"errorType":"Function.ResponseSizeTooLarge","errorMessage":"too big"}'), False, Outcome.TOO_LARGE),
        (_raw(502, b'{"errorType":"Runtime.ExitError","errorMessage":"signal: killed"}', runtime_exit="signal: killed"), True, Outcome.OOM),
        # Killed, but not by the memory limit: a crash, not an OOM.
        (
            _raw(502, b'{"errorType":"Runtime.ExitError","errorMessage":"signal: killed"}', runtime_exit="signal: killed"),
            False,
            Outcome.FUNCTION_ERROR,
        ),
        (_raw(502, b'{"errorType":"Runtime.ImportModuleError","errorMessage":"no module"}'), False, Outcome.FUNCTION_ERROR),
    ],
    ids=["success", "success-lookalike", "handler-error", "timeout", "too-large", "oom", "crash", "init-error"],
)
def test_classification(raw, oom_killed, expected):
    assert classify(raw, oom_killed=oom_killed).outcome is expected


@pytest.fixture(scope="module")
def limits():
    with open_limits(resolve_profile("2vcpu-2gb")) as opened:
        yield opened


def test_timeout_then_a_fresh_cold_start(limits):
    with Sandbox(sample_function("sleep", timeout_s=2), limits) as box:
        warm_up = box.invoke({"seconds": 0})
        timed_out = box.invoke({"seconds": 5})
        after = box.invoke({"seconds": 0})
    assert warm_up.outcome is Outcome.SUCCESS
    assert timed_out.outcome is Outcome.TIMEOUT
    assert timed_out.status == 200  # RIE's answer; Lambda's verdict is the outcome
    assert timed_out.duration_ms == pytest.approx(2000, abs=5)
    assert after.outcome is Outcome.SUCCESS and after.cold_start and after.init_ms > 0
    assert after.result()["pid"] != warm_up.result()["pid"]


def test_the_init_is_not_counted_against_the_first_invokes_timeout(limits):
    # As on Lambda: an on-demand init runs before the invoke, whose timeout starts at the hand-over.
    # RIE alone would hand this first invoke 3 s minus the init.
    init_s, timeout_s = 2.5, 3
    with Sandbox(sample_function("remaining", timeout_s=timeout_s, SAMPLE_INIT_SECONDS=str(init_s)), limits) as box:
        first = box.invoke({})
        second = box.invoke({})
    assert first.outcome is second.outcome is Outcome.SUCCESS
    assert first.cold_start and first.init_ms >= init_s * 1000
    # What the handler saw left is its timeout less the time it took to reach the handler.
    assert first.result()["remaining_ms"] > timeout_s * 1000 - (first.wall_ms - first.init_ms)
    assert second.result()["remaining_ms"] > timeout_s * 1000 - second.wall_ms


def test_a_slow_init_still_times_out_the_invoke_that_runs_too_long(limits):
    init_s, timeout_s = 1.5, 2
    with Sandbox(sample_function("sleep", timeout_s=timeout_s, SAMPLE_INIT_SECONDS=str(init_s)), limits) as box:
        timed_out = box.invoke({"seconds": 30})
    assert timed_out.outcome is Outcome.TIMEOUT
    assert timed_out.body == b"Task timed out after 2.00 seconds"
    # Killed at the timeout after the hand-over: the wall time is the init plus the timeout, no more
    # than the process spawn and the kill's round trip on top.
    assert timed_out.wall_ms >= (init_s + timeout_s) * 1000
    assert timed_out.wall_ms < timed_out.init_ms + timeout_s * 1000 + 10_000


def test_oversized_response_is_too_large_and_resets_the_sandbox(limits):
    with Sandbox(sample_function("oversized"), limits) as box:
        first = box.invoke({"bytes": 7_000_000})
        fits = box.invoke({"bytes": 6_000_000})
    assert first.outcome is Outcome.TOO_LARGE and first.status == 502
    assert first.error_type == "Function.ResponseSizeTooLarge"
    assert fits.outcome is Outcome.SUCCESS and fits.cold_start
    assert first.billed_ms >= 1  # no REPORT line: billed from the wall time


def test_handler_error_is_a_function_error_on_a_warm_runtime(limits):
    with Sandbox(sample_function("fail"), limits) as box:
        first = box.invoke({})
        second = box.invoke({})
    assert first.outcome is second.outcome is Outcome.FUNCTION_ERROR
    assert first.status == 200
    assert first.error_type == "ValueError" and "on purpose" in first.error_message
    assert first.cold_start and not second.cold_start
    assert first.result() is None
