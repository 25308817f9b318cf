"""``supertonic-lambda``: the one command in front of the engine, the function's harness and the benchmark."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from supertonic_engine import cli as engine_cli
from supertonic_engine.errors import InvalidRequest, SupertonicError

# Harness commands, each a module with register(subparsers); imported only when present and needed.
HARNESS_COMMANDS = ("supertonic_harness.emulator", "supertonic_harness.replay", "supertonic_harness.bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="supertonic-lambda",
        description="Supertonic 3 text-to-speech as a serverless function: synthesize, run locally, measure.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    engine_cli.register(sub)
    for name in HARNESS_COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except SupertonicError as exc:
        print(f"supertonic-lambda {args.command}: {exc.message}", file=sys.stderr)
        return 2 if isinstance(exc, InvalidRequest) else 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
