"""``supertonic-lambda prepare-model`` and ``ensure_prepared``: the image build step, also for local model directories."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from supertonic_engine import config
from supertonic_engine.prepared import has_prepared, prepared_dir, quantization

logger = logging.getLogger(__name__)


def ensure_prepared(model_dir: Path, precision: str = "fp32") -> bool:
    """Write the prepared graphs the image would ship, unless matching ones are there; True if written."""
    if has_prepared(model_dir, precision):
        return False
    from .optimize import prepare_model  # needs the onnx package

    logger.warning("preparing the %s graphs of %s (as the image build does; once)", precision, model_dir)
    prepare_model(model_dir, precision=precision)
    return True


def register(subparsers: argparse._SubParsersAction) -> None:
    """``supertonic-lambda prepare-model``: the image build step, also for local model directories."""
    from supertonic_engine.cpu import INT8_TARGETS

    p = subparsers.add_parser("prepare-model", help="write prepared graphs (MatMul rewrite, optimized, pre-packed) for a model")
    p.add_argument("--model", default=None, help="model directory (default: $SUPERTONIC_MODEL_DIR)")
    p.add_argument("--out", default=None, help=f"where to write them (default: ${config.ENV_PREPARED_DIR}, else MODEL/prepared)")
    p.add_argument(
        "--precision",
        choices=config.PRECISIONS,
        default="fp32",
        help="int8 (opt-in): quantize the text encoder's and vector estimator's MatMuls, into MODEL/prepared-int8",
    )
    p.add_argument(
        "--isa",
        choices=("auto", *INT8_TARGETS),
        default="auto",
        help="int8 settings for this CPU (auto), or for a VNNI or an AVX2-only CPU (7-bit weights) such as the one the image runs on",
    )
    p.set_defaults(func=prepare_command)


def prepare_command(args: argparse.Namespace) -> int:
    from supertonic_engine.assets import resolve_model_dir
    from supertonic_engine.errors import ConfigurationError, ModelMissing

    try:
        from .optimize import prepare_model  # needs the onnx package
    except ModuleNotFoundError as missing:
        raise ConfigurationError(
            f"prepare-model needs {missing.name}: pip install 'supertonic-lambda[prepare]' (./dev installs it)"
        ) from None

    model_dir = resolve_model_dir(args.model)
    if model_dir is None:
        raise ModelMissing(f"prepare-model needs --model DIR or {config.ENV_MODEL_DIR}")
    precision = getattr(args, "precision", "fp32")
    for graph in prepare_model(model_dir, args.out, precision=precision, isa=getattr(args, "isa", "auto")):
        print(graph.describe())
    if precision != "fp32":
        settings = quantization(Path(args.out) if args.out else prepared_dir(model_dir, precision=precision))
        print(
            f"int8 settings for {settings.get('isa')}: per-channel {settings.get('per_channel')}, reduce_range {settings.get('reduce_range')}, "
            f"weights {settings.get('weight_type')}, inputs {settings.get('activation_type')}; select them with {config.ENV_PRECISION}=int8"
        )
    return 0
