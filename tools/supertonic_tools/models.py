"""A model directory for local use: the one given, else the tiny stand-in (the runtime has no fallback)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

from supertonic_engine import config
from supertonic_engine.assets import resolve_model_dir
from supertonic_engine.standin_marker import NOTE

logger = logging.getLogger(__name__)


def locate_model(model_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``model_dir``, else ``SUPERTONIC_MODEL_DIR``, else the tiny stand-in (generated once, with a warning)."""
    root = resolve_model_dir(model_dir, env)
    if root is None:
        from .standin import ensure_standin

        root = ensure_standin("tiny")
        logger.warning("no model directory given (--model or %s): using the stand-in model at %s (%s)", config.ENV_MODEL_DIR, root, NOTE)
    return root
