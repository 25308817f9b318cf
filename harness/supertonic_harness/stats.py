"""Summary statistics the harness reports: one definition of a percentile for every table."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], percent: float) -> float | None:
    """Nearest-rank percentile (the smallest value with at least ``percent`` % of the values at or
    below it); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * percent // 100))  # ceil without floating-point error for whole percents
    return ordered[int(rank) - 1]
