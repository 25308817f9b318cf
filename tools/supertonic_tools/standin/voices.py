"""voice_styles/{M1..M5,F1..F5}.json: seeded style vectors in the official voice file format."""

from __future__ import annotations

from typing import Any

import numpy as np

from supertonic_engine.standin_marker import NOTE

from .dims import STYLE_DP_SHAPE, STYLE_TOKENS, STYLE_TTL_DIM

VOICE_NAMES = tuple(f"{gender}{i}" for gender in "MF" for i in range(1, 6))
_GENDERS = {"M": "male", "F": "female"}
STYLE_STD = 0.1  # small values, as in the real files; with full float32 digits a file is ~0.28 MB


def voice_style(name: str, rng: np.random.Generator) -> dict[str, Any]:
    """One voice file's content: float32 values written with all their digits, like the real files."""
    style_ttl = rng.standard_normal((1, STYLE_TOKENS, STYLE_TTL_DIM), dtype=np.float32) * np.float32(STYLE_STD)
    style_dp = rng.standard_normal((1, *STYLE_DP_SHAPE), dtype=np.float32) * np.float32(STYLE_STD)
    return {
        "style_ttl": {"data": style_ttl.tolist(), "dims": list(style_ttl.shape), "type": "float32"},
        "style_dp": {"data": style_dp.tolist(), "dims": list(style_dp.shape), "type": "float32"},
        "metadata": {"name": name, "gender": _GENDERS[name[0]], "source": "stand-in", "note": NOTE},
    }
