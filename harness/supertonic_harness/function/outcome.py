"""What happened to an invocation, as Lambda would call it, not as RIE's status code says.

RIE answers a handler error and a timeout with HTTP 200 and an error body, a killed runtime with
502 ``Runtime.ExitError``, and an oversized response with 502 ``Function.ResponseSizeTooLarge``
(then resets the sandbox, so the next invoke is a cold start). Lambda tells these apart; so does
``classify``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from .rie import RawInvocation

TIMEOUT_PREFIX = b"Task timed out after"
TOO_LARGE_TYPE = "Function.ResponseSizeTooLarge"
# awslambdaric's error document; RIE has no X-Amz-Function-Error header to mark it, so a body with
# these keys is taken for a function error.
_ERROR_KEYS = {"errorMessage", "errorType"}


class Outcome(StrEnum):
    SUCCESS = "success"
    FUNCTION_ERROR = "function_error"
    TIMEOUT = "timeout"
    OOM = "oom"
    TOO_LARGE = "too_large"


@dataclass(frozen=True)
class Classification:
    outcome: Outcome
    error_type: str | None = None
    error_message: str | None = None


def error_document(body: bytes) -> dict | None:
    """The ``{"errorType", "errorMessage", ...}`` document in a body, None if it is anything else."""
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(parsed, dict) and _ERROR_KEYS <= parsed.keys():
        return parsed
    return None


def classify(raw: RawInvocation, *, oom_killed: bool) -> Classification:
    """Success, function error, timeout, OOM or too large, from the answer, the log and the limits."""
    error = error_document(raw.body)
    error_type = error.get("errorType") if error else None
    error_message = error.get("errorMessage") if error else None
    if oom_killed:
        # The runtime died of SIGKILL from the OOM killer (or the fallback sampler): RIE only says
        # "Runtime exited with error: signal: killed"; the limits know why.
        said = f" (RIE: {error_message})" if error_message else ""
        return Classification(Outcome.OOM, "Runtime.OutOfMemory", f"killed at the memory limit{said}")
    if error_type == TOO_LARGE_TYPE:
        return Classification(Outcome.TOO_LARGE, error_type, error_message)
    if raw.timed_out or raw.log.reset_reason == "Timeout" or raw.body.startswith(TIMEOUT_PREFIX):
        return Classification(Outcome.TIMEOUT, "Sandbox.Timedout", raw.body.decode("utf-8", "replace").strip())
    if raw.status != 200:
        return Classification(Outcome.FUNCTION_ERROR, error_type or f"HTTP {raw.status}", error_message)
    if error is not None:
        return Classification(Outcome.FUNCTION_ERROR, error_type, error_message)
    return Classification(Outcome.SUCCESS)
