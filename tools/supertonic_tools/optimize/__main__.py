"""``python -m supertonic_tools.optimize MODEL_DIR [--out DIR]``: the image build step."""

from __future__ import annotations

import argparse
import logging

from supertonic_engine.config import PRECISIONS
from supertonic_engine.cpu import INT8_TARGETS

from .. import optimize
from ..prepare import prepare_command


def main(argv: list[str] | None = None) -> int:
    """``python -m supertonic_tools.optimize MODEL_DIR [--out DIR]``: the image build step (no CLI needed)."""
    parser = argparse.ArgumentParser(prog="python -m supertonic_tools.optimize", description=optimize.__doc__.splitlines()[0])
    parser.add_argument("model", help="model directory in the official layout")
    parser.add_argument("--out", default=None, help="where to write the prepared graphs (default: MODEL/prepared)")
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="fp32",
        help="int8: also quantize the encoder's and estimator's MatMuls (into MODEL/prepared-int8)",
    )
    parser.add_argument(
        "--isa", choices=("auto", *INT8_TARGETS), default="auto", help="int8 settings for this CPU (auto) or for a VNNI or AVX2 one"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    return prepare_command(args)


if __name__ == "__main__":
    raise SystemExit(main())
