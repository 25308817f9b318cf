"""RIE: finding the binary, running awslambdaric under it (its log: test_harness_rie_log.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_fixtures.support import sample_function

from supertonic_harness.function import rie
from supertonic_harness.function.rie import Rie, RieNotFound, find_rie


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
                # A Protocol's __init__ is typing's own placeholder, not the harness's code.
                functions += [
                    (f"{name}.{attribute}", member)
                    for attribute, member in vars(value).items()
                    if inspect.isfunction(member)
                    and (attribute == "__init__" or not attribute.startswith("_"))
                    and not (attribute == "__init__" and getattr(value, "_is_protocol", False))
                ]
            for qualified, function in functions:
                signature = inspect.signature(function)
                bare = [
                    p.name
                    for p in signature.parameters.values()
                    if p.name not in ("self", "cls")
                    and p.annotation is inspect.Parameter.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
                if bare or signature.return_annotation is inspect.Signature.empty:
                    untyped.append(f"{module_info.name}.{qualified}({', '.join(bare)})")
    assert untyped == []


def test_the_emulator_s_timeout_wins_over_a_template_s_copy_of_it():
    # template.yaml tells the function its Timeout by the name RIE uses; --timeout must still rule.
    spec = rie.FunctionSpec(timeout_s=7, environment={"AWS_LAMBDA_FUNCTION_TIMEOUT": "120", "SUPERTONIC_X": "1"})
    env = spec.env({})
    assert env["AWS_LAMBDA_FUNCTION_TIMEOUT"] == "7" and env["SUPERTONIC_X"] == "1"
