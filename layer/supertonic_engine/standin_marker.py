"""How a stand-in model says what it is (importable without onnx: the engine uses it at load)."""

from __future__ import annotations

from collections.abc import Mapping

# tts.json key present only in directories written by the stand-in generator.
STANDIN_KEY = "stand_in"
# Bumped whenever the generated files change, so caches keyed by it regenerate.
GENERATOR_VERSION = "1"
NOTE = "random weights: output is noise, not speech"


def is_standin(tts_config: Mapping[str, object]) -> bool:
    """True when a parsed ``tts.json`` comes from the stand-in generator."""
    return isinstance(tts_config.get(STANDIN_KEY), Mapping)
