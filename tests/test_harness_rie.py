"""RIE: finding the binary, reading its log, running awslambdaric under it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_fixtures.support import sample_function
from supertonic_harness.function import rie
from supertonic_harness.function.rie import Rie, RieNotFound, find_rie, parse_invocation_log

# Lines as aws-lambda-rie (aws-sam-cli 1.170.0) prints them; timestamps shortened.
COLD_SUCCESS = """\
START RequestId: 85edd826-4a49 Version: $LATEST
02 Dec 2026 18:11:58,943 [INFO] (rapid) INIT START(type: on-demand, phase: init)
02 Dec 2026 18:11:59,031 [INFO] (rapid) INIT RTDONE(status: success)
02 Dec 2026 18:11:59,031 [INFO] (rapid) INIT REPORT(durationMs: 88.597000)
02 Dec 2026 18:11:59,031 [INFO] (rapid) INVOKE START(requestId: 85edd826-4a49)
02 Dec 2026 18:11:59,032 [INFO] (rapid) INVOKE RTDONE(status: success, produced bytes: 0, duration: 1.048000ms)
END RequestId: 85edd826-4a49
REPORT RequestId: 85edd826-4a49\tInit Duration: 0.29 ms\tDuration: 89.97 ms\tBilled Duration: 90 ms\tMemory Size: 3008 MB\tMax Memory Used: 3008 MB\t
"""
TIMEOUT = """\
START RequestId: a513cb6c Version: $LATEST
02 Dec 2026 18:12:03,915 [INFO] (rapid) INVOKE START(requestId: a513cb6c)
02 Dec 2026 18:12:06,842 [ERROR] (rapid) Invoke failed error=errResetReceived InvokeID=a513cb6c
02 Dec 2026 18:12:06,842 [WARNING] (rapid) Reset initiated: Timeout
02 Dec 2026 18:12:06,842 [INFO] (rapid) Sending SIGKILL to runtime-1(4718).
END RequestId: a513cb6c
REPORT RequestId: a513cb6c\tInit Duration: 0.03 ms\tDuration: 3000.00 ms\tBilled Duration: 3000 ms\tMemory Size: 3008 MB\tMax Memory Used: 3008 MB\t
"""
KILLED = """\
START RequestId: f6835f11 Version: $LATEST
02 Dec 2026 18:12:14,074 [INFO] (rapid) INVOKE START(requestId: f6835f11)
02 Dec 2026 18:12:14,284 [WARNING] (rapid) Process runtime-1 exited: signal: killed
02 Dec 2026 18:12:14,284 [ERROR] (rapid) Invoke failed error=Runtime exited with error: signal: killed InvokeID=f6835f11
02 Dec 2026 18:12:14,284 [ERROR] (rapid) Invoke DONE failed: Runtime.ExitError
02 Dec 2026 18:12:14,284 [WARNING] (rapid) Reset initiated: ReleaseFail
"""
INIT_FAILED = """\
START RequestId: 644d3996 Version: $LATEST
02 Dec 2026 18:13:05,343 [INFO] (rapid) INIT START(type: on-demand, phase: init)
02 Dec 2026 18:13:05,487 [INFO] (rapid) INIT RTDONE(status: error)
02 Dec 2026 18:13:05,487 [INFO] (rapid) INIT REPORT(durationMs: 144.448000)
02 Dec 2026 18:13:05,487 [ERROR] (rapid) Init failed error=Runtime exited with error: exit status 1 InvokeID=
02 Dec 2026 18:13:05,487 [INFO] (rapid) INIT START(type: on-demand, phase: invoke)
02 Dec 2026 18:13:05,487 [INFO] (rapid) INIT REPORT(durationMs: 0.027000)
02 Dec 2026 18:13:05,487 [ERROR] (rapid) Invoke failed InvokeID=644d3996 error=Runtime exited with error: exit status 1
02 Dec 2026 18:13:05,487 [ERROR] (rapid) Invoke DONE failed: Sandbox.Failure
"""


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        # A lazy init: Lambda's numbers are INIT REPORT and RTDONE, not REPORT's inflated Duration.
        (COLD_SUCCESS, dict(request_id="85edd826-4a49", cold_start=True, init_ms=88.597, duration_ms=1.048,
                            billed_ms=90, failure=None, reset_reason=None, runtime_exit=None)),
        (TIMEOUT, dict(request_id="a513cb6c", cold_start=False, init_ms=None, duration_ms=3000.0,
                       billed_ms=3000, failure=None, reset_reason="Timeout", runtime_exit=None)),
        (KILLED, dict(request_id="f6835f11", cold_start=False, init_ms=None, duration_ms=None,
                      billed_ms=None, failure="Runtime.ExitError", reset_reason="ReleaseFail",
                      runtime_exit="signal: killed")),
        (INIT_FAILED, dict(request_id="644d3996", cold_start=True, init_ms=144.448, init_failed=True,
                           failure="Sandbox.Failure", runtime_exit="exit status 1")),
    ],
    ids=["cold-success", "timeout", "killed", "init-failed"],
)
def test_invocation_log_is_read_as_lambda_reports_it(log, expected):
    report = parse_invocation_log(log.splitlines())
    assert {key: getattr(report, key) for key in expected} == expected
    assert report.complete


def test_a_log_cut_before_report_is_not_complete():
    assert not parse_invocation_log(COLD_SUCCESS.splitlines()[:5]).complete


def test_missing_binary_fails_with_the_way_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(rie, "REPO_ROOT", tmp_path)
    with pytest.raises(RieNotFound, match=r"\./dev") as raised:
        find_rie({"SUPERTONIC_RIE": str(tmp_path / "nowhere")})
    assert "SUPERTONIC_RIE" in str(raised.value)


def test_binary_from_the_environment_wins(tmp_path):
    binary = tmp_path / "aws-lambda-rie"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert find_rie({"SUPERTONIC_RIE": str(binary)}) == binary


def test_awslambdaric_runs_under_rie_with_lambda_environment_and_stays_warm():
    function = sample_function("echo", SAMPLE_FLAVOUR="plain")
    with Rie(function) as emulator:
        # Both addresses on loopback: without the flags RIE would listen on 0.0.0.0:8080.
        argv = Path(f"/proc/{emulator.pid}/cmdline").read_bytes().split(b"\0")
        assert f"127.0.0.1:{emulator.port}".encode() in argv
        assert f"127.0.0.1:{emulator.runtime_api_port}".encode() in argv

        first = emulator.invoke(json.dumps({"n": 1}).encode())
        second = emulator.invoke(json.dumps({"n": 2}).encode())

    assert first.status == second.status == 200
    one, two = json.loads(first.body), json.loads(second.body)
    assert one["event"] == {"n": 1} and two["event"] == {"n": 2}
    assert one["memory_limit_in_mb"] == str(function.memory_mb)
    assert one["function_name"] == function.name
    assert one["environment"]["SAMPLE_FLAVOUR"] == "plain"
    assert first.log.cold_start and first.log.init_ms > 0
    assert not second.log.cold_start and one["pid"] == two["pid"]


def test_every_public_function_of_the_function_harness_is_typed():
    """The modules that run the function (emulator, limits, replay, ...); the benchmark is its own."""
    import importlib
    import inspect
    import pkgutil

    import supertonic_harness

    untyped = []
    for module_info in pkgutil.walk_packages(supertonic_harness.__path__, "supertonic_harness."):
        if module_info.name.startswith("supertonic_harness.bench"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            functions = [(name, value)] if inspect.isfunction(value) else []
            if inspect.isclass(value):
                functions += [(f"{name}.{attribute}", member) for attribute, member in vars(value).items()
                              if inspect.isfunction(member) and (attribute == "__init__" or not attribute.startswith("_"))]
            for qualified, function in functions:
                signature = inspect.signature(function)
                bare = [p.name for p in signature.parameters.values()
                        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
                        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
                if bare or signature.return_annotation is inspect.Signature.empty:
                    untyped.append(f"{module_info.name}.{qualified}({', '.join(bare)})")
    assert untyped == []


def test_the_emulator_s_timeout_wins_over_a_template_s_copy_of_it():
    # template.yaml tells the function its Timeout by the name RIE uses; --timeout must still rule.
    spec = rie.FunctionSpec(timeout_s=7, environment={"AWS_LAMBDA_FUNCTION_TIMEOUT": "120", "SUPERTONIC_X": "1"})
    env = spec.env({})
    assert env["AWS_LAMBDA_FUNCTION_TIMEOUT"] == "7" and env["SUPERTONIC_X"] == "1"
