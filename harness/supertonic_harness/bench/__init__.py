"""``bench`` and ``compare-precision``: the engine against the official package, cost per size, precision."""
