"""``supertonic-lambda``: the one command in front of the engine, the function's harness and the benchmark."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from supertonic_engine.errors import ConfigurationError, InvalidRequest, SupertonicError

from . import engine as engine_commands

# Harness commands, each a module with register(subparsers). They need the [harness] extra; without
# it the engine commands still work and these say what to install.
HARNESS_COMMANDS = {
    "emulate": "supertonic_harness.fronts.emulator",
    "replay": "supertonic_harness.replay.run",
    "bench": "supertonic_harness.bench.run",
    "compare-precision": "supertonic_harness.bench.compare_precision",
    "image": "supertonic_harness.image.commands",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="supertonic-lambda",
        description="Supertonic 3 text-to-speech as a serverless function: synthesize, run locally, measure.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engine_commands.register(sub)
    for command, module in HARNESS_COMMANDS.items():
        try:
            importlib.import_module(module).register(sub)
        except ModuleNotFoundError as missing:
            _register_unavailable(sub, command, missing.name or "a dependency")
    return parser


def _register_unavailable(sub: argparse._SubParsersAction, command: str, missing: str) -> None:
    def explain(_: argparse.Namespace) -> int:
        raise ConfigurationError(f"'{command}' needs {missing}: pip install 'supertonic-lambda[harness]' (./dev installs it)")

    p = sub.add_parser(command, help=f"(needs the [harness] extra: {missing} is missing)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=explain)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except SupertonicError as exc:
        print(f"supertonic-lambda {args.command}: {exc.message}", file=sys.stderr)
        return 2 if isinstance(exc, InvalidRequest) else 1
    except OSError as exc:  # a path the user gave cannot be read or written: say which, no traceback
        where = f" {exc.filename}" if exc.filename else ""
        print(f"supertonic-lambda {args.command}:{where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
