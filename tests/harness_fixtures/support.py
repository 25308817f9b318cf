"""Helpers shared by the harness tests: the fixture functions' spec, the RIE check, CLI arguments."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from supertonic_harness.fronts.local import add_function_arguments
from supertonic_harness.function.rie import FunctionSpec, RieNotFound, find_rie

FIXTURES = Path(__file__).resolve().parent
TEMPLATE = FIXTURES / "template.yaml"


def template_data(path: Path) -> dict[str, Any]:
    """A template as data, as cfn-lint reads it: short tags in their long form (``!Ref X`` -> ``{"Ref": "X"}``)."""
    from cfnlint.decode import decode_str

    data, problems = decode_str(path.read_text(encoding="utf-8"))
    assert data is not None and not problems, problems
    return data


def write_template(data: dict[str, Any], path: Path) -> Path:
    """``data`` written as JSON, which is YAML and a template CloudFormation and the harness both read."""
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def require_rie() -> Path:
    """The RIE binary, or a failed test that says how to get it: these tests must not skip."""
    try:
        return find_rie()
    except RieNotFound as error:
        pytest.fail(str(error), pytrace=False)


def sample_function(name: str, *, timeout_s: int = 5, **environment: str) -> FunctionSpec:
    """A spec for ``sample_functions.<name>`` run from this directory as the task root."""
    require_rie()
    return FunctionSpec(
        handler=f"sample_functions.{name}",
        task_root=FIXTURES,
        extra_paths=(),
        timeout_s=timeout_s,
        environment=environment,
    )


def function_args(*argv: str) -> argparse.Namespace:
    """The namespace ``add_function_arguments`` gives for ``argv``, as the commands receive it."""
    require_rie()
    parser = argparse.ArgumentParser()
    add_function_arguments(parser)
    return parser.parse_args(list(argv))


# The harness commands the tests run, each by its module (as the console script registers them).
_COMMAND_MODULES = {"emulate": "supertonic_harness.fronts.emulator", "replay": "supertonic_harness.replay.run"}


def run_command(command: str, *argv: str) -> int:
    """Run ``supertonic-lambda <command> ARGV`` through its module's ``register``; returns the exit status."""
    import importlib

    require_rie()
    parser = argparse.ArgumentParser()
    importlib.import_module(_COMMAND_MODULES[command]).register(parser.add_subparsers())
    args = parser.parse_args([command, *argv])
    return args.func(args)
