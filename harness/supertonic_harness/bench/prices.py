"""What Lambda and Amazon Polly charge: the prices the cost benchmark and the fan-out simulation price their runs at."""

from __future__ import annotations

import math

# Lambda x86 in us-east-1 (aws.amazon.com/lambda/pricing, 2026-12).
USD_PER_GB_S = 0.0000166667
USD_PER_REQUEST = 0.20 / 1_000_000
# Amazon Polly per million characters (aws.amazon.com/polly/pricing, 2026-12).
POLLY_USD_PER_M_CHARS = {"standard": 4.0, "neural": 16.0, "generative": 30.0}


def request_usd(memory_mb: int, seconds: float) -> float:
    """What one invocation costs: memory x billed duration (1 ms granularity) plus the request fee."""
    billed_s = math.ceil(seconds * 1000) / 1000
    return memory_mb / 1024 * billed_s * USD_PER_GB_S + USD_PER_REQUEST
