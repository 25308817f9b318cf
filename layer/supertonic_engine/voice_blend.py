"""Voice blends: ``"F1:0.7,M2:0.3"`` speaks with the weighted mean of the named voices' style tensors.

A blend is ``NAME:WEIGHT`` items separated by commas, or names only (``"F1,M2"``) for equal
weights. Weights are positive plain decimals, normalized to sum 1 and kept as thousandths: the
canonical name (``BlendSpec.name``, what answers and manifests report) prints those thousandths,
and the mix is made from them, so parsing a canonical name again gives the same name and the
same tensors, bit for bit. That matters because a long job's parts are rendered in other
processes from the options the planner stored. A blend of one voice is that voice itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InvalidVoiceBlend, clipped, quoted

MAX_BLEND_VOICES = 8
ITEM_SEPARATOR = ","
WEIGHT_SEPARATOR = ":"
SCALE = 1000  # weights are kept in thousandths: three decimals in the canonical name
# Plain decimals only: float() also reads "nan", "inf", "1e3" and "1_0".
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def is_blend(voice: str) -> bool:
    """Whether ``voice`` is written as a blend rather than one voice's name."""
    return ITEM_SEPARATOR in voice or WEIGHT_SEPARATOR in voice


@dataclass(frozen=True)
class BlendSpec:
    """The voices of a blend in the order given, each with its share in thousandths (the shares sum to 1000)."""

    shares: tuple[tuple[str, int], ...]

    @property
    def name(self) -> str:
        """``F1:0.7,M2:0.3``; a single voice is its own name."""
        if len(self.shares) == 1:
            return self.shares[0][0]
        return ITEM_SEPARATOR.join(f"{voice}{WEIGHT_SEPARATOR}{_decimal(share)}" for voice, share in self.shares)

    @property
    def voices(self) -> tuple[str, ...]:
        return tuple(voice for voice, _ in self.shares)


def parse_blend(spec: str) -> BlendSpec:
    """The blend ``spec`` describes; ``InvalidVoiceBlend`` says what is wrong with it."""
    items = spec.split(ITEM_SEPARATOR)
    if len(items) > MAX_BLEND_VOICES:
        raise InvalidVoiceBlend(spec, f"{len(items)} voices; a blend mixes at most {MAX_BLEND_VOICES}")
    names: list[str] = []
    weights: list[float | None] = []
    for position, item in enumerate(items, 1):
        name, weight = _split_item(spec, item, position)
        if name in names:
            raise InvalidVoiceBlend(spec, f"voice {quoted(name)} appears twice; give it one weight")
        names.append(name)
        weights.append(weight)
    given = [w for w in weights if w is not None]
    if given and len(given) != len(weights):
        raise InvalidVoiceBlend(spec, "some voices have a weight and some do not; give every voice a weight, or none")
    values = [float(w) for w in given] if given else [1.0] * len(names)
    return BlendSpec(tuple(zip(names, _thousandths(spec, names, values), strict=True)))


def rename_voices(spec: str, rename: Callable[[str], str]) -> str:
    """``spec`` with each voice name replaced by ``rename(name)`` and everything else as written
    (so a malformed blend is still refused by ``parse_blend``, with its own message)."""
    if not is_blend(spec):
        return rename(spec)
    renamed = []
    for item in spec.split(ITEM_SEPARATOR):
        name, separator, weight = item.partition(WEIGHT_SEPARATOR)
        renamed.append(f"{rename(name.strip()) if name.strip() else name}{separator}{weight}")
    return ITEM_SEPARATOR.join(renamed)


def mix(blend: BlendSpec, tensors: Sequence[np.ndarray]) -> np.ndarray:
    """The weighted sum of ``tensors`` (one per voice of ``blend``, in its order), summed in float64."""
    total = np.zeros(tensors[0].shape, np.float64)
    for (_, share), tensor in zip(blend.shares, tensors, strict=True):
        total += (share / SCALE) * tensor.astype(np.float64)
    return total.astype(tensors[0].dtype)


def _split_item(spec: str, item: str, position: int) -> tuple[str, float | None]:
    name, separator, weight_text = (part.strip() for part in item.partition(WEIGHT_SEPARATOR))
    if not name:
        what = "is empty" if not item.strip() else f"{quoted(item.strip())} has no voice name"
        raise InvalidVoiceBlend(spec, f"item {position} {what}")
    if not separator:
        return name, None
    if not _DECIMAL.fullmatch(weight_text):
        raise InvalidVoiceBlend(spec, f"the weight of {quoted(name)}, {quoted(weight_text)}, is not a number; write a decimal such as 0.3")
    weight = float(weight_text)
    if weight <= 0:
        raise InvalidVoiceBlend(spec, f"the weight of {quoted(name)} is {clipped(weight_text)}; weights must be greater than 0")
    if not math.isfinite(weight):  # a decimal of hundreds of digits
        raise InvalidVoiceBlend(spec, f"the weight of {quoted(name)} is too large to be a number; use weights such as 0.7 and 0.3")
    return name, weight


def _thousandths(spec: str, names: Sequence[str], weights: Sequence[float]) -> list[int]:
    """``weights`` normalized to whole thousandths that sum to exactly 1000 (largest remainder first)."""
    largest = max(weights)
    scaled = [w / largest for w in weights]  # so the sum cannot overflow
    exact = [w / sum(scaled) * SCALE for w in scaled]
    shares = [int(x) for x in exact]
    by_remainder = sorted(range(len(exact)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in by_remainder[: SCALE - sum(shares)]:
        shares[i] += 1
    for name, share in zip(names, shares, strict=True):
        if share == 0:
            raise InvalidVoiceBlend(
                spec, f"the weight of {quoted(name)} is under 0.05% of the total, too small to hear; raise it or leave the voice out"
            )
    return shares


def _decimal(share: int) -> str:
    """Thousandths as a short decimal: 700 -> ``0.7``, 333 -> ``0.333``."""
    return f"{share / SCALE:.3f}".rstrip("0").rstrip(".")
