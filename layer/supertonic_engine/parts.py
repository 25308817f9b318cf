"""One chunk of a text as a part that renders alone, anywhere: its options, language, pause and noise.

The noise is one random stream across a text's chunks (as the official package draws it), so a
part carries the stream's state at its first draw, as JSON; ``skip_normals`` advances a stream
past a chunk's draws without keeping them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .options import SynthesisOptions


@dataclass(frozen=True)
class Part:
    """One chunk of a text, renderable alone by ``Engine.render_part``: what a worker needs, as JSON."""

    index: int
    text: str  # the chunk as the model reads it (normalized already)
    options: SynthesisOptions  # the whole text's, seed included
    noise: dict[str, Any]  # the random stream's state at this chunk's first draw
    speech_s: float  # the duration predictor's forecast for this chunk
    lang: str  # the chunk's language (SSML may switch it from ``options.lang``)
    pause_s: float  # the silence before it in the whole audio
    noise_offset: int = 0  # normals the text's stream drew before this chunk's first

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "options": asdict(self.options),
            "noise": self.noise,
            "speech_s": self.speech_s,
            "lang": self.lang,
            "pause_s": self.pause_s,
            "noise_offset": self.noise_offset,
        }

    @classmethod
    def from_checkpoint(
        cls,
        index: int,
        text: str,
        options: SynthesisOptions,
        checkpoint: Mapping[str, Any],
        drawn_since: int,
        *,
        speech_s: float,
        lang: str,
        pause_s: float,
        noise_offset: int,
    ) -> Part:
        """The part whose noise begins ``drawn_since`` normals after a stored state of the text's
        stream (``checkpoint``): a plan need not hold every part's state, only one every so often."""
        return cls(index, text, options, noise_advanced(checkpoint, drawn_since), speech_s, lang, pause_s, noise_offset)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Part:
        options = SynthesisOptions(**data["options"])
        index = int(data["index"])
        # Parts sent before languages and pauses were per chunk: the text's language, the usual silence.
        pause_s = float(data.get("pause_s", options.pause_before(index)))
        return cls(
            index,
            str(data["text"]),
            options,
            dict(data["noise"]),
            float(data["speech_s"]),
            str(data.get("lang", options.lang)),
            pause_s,
            int(data.get("noise_offset", 0)),
        )


# Skipped draws are made in blocks of this many normals: memory stays small however long the text.
_SKIP_BLOCK = 1 << 20


def skip_normals(rng: np.random.RandomState, count: int) -> None:
    """Advance ``rng`` exactly as ``rng.randn(count)`` would (the legacy Gaussian keeps its spare
    value across calls, so blocks draw the same stream as one call)."""
    while count > 0:
        step = min(count, _SKIP_BLOCK)
        rng.randn(step)
        count -= step


def noise_state(rng: np.random.RandomState) -> dict[str, Any]:
    """``rng``'s state as JSON: the Mersenne Twister's 624 words (base64), position and spare Gaussian."""
    name, keys, pos, has_gauss, cached = rng.get_state(legacy=True)
    return {
        "keys": base64.b64encode(np.asarray(keys, dtype="<u4").tobytes()).decode("ascii"),
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached_gaussian": float(cached),
    }


def noise_advanced(state: Mapping[str, Any], count: int) -> dict[str, Any]:
    """The stream's state ``count`` normals after ``state``: a part's noise from a checkpoint of
    the stream, so a plan need not hold every part's 3 KB state."""
    rng = np.random.RandomState()
    rng.set_state(noise_state_from(state))
    skip_normals(rng, count)
    return noise_state(rng)


def noise_state_from(state: Mapping[str, Any]) -> tuple[str, np.ndarray, int, int, float]:
    """The state ``noise_state`` wrote, as ``RandomState.set_state`` takes it."""
    keys = np.frombuffer(base64.b64decode(state["keys"]), dtype="<u4").astype(np.uint32)
    if keys.size != 624:
        raise ValueError("a noise state holds 624 words")
    return ("MT19937", keys, int(state["pos"]), int(state["has_gauss"]), float(state["cached_gaussian"]))
