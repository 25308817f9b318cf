"""Errors as the Runtime API receives them, shaped as awslambdaric shapes them.

``/error`` and ``/init/error`` bodies carry errorMessage, errorType, requestId and stackTrace
(awslambdaric bootstrap.py ``make_error``); a streamed response that fails after it started carries
its error in trailers instead, typed ``Category.Reason`` (Lambda guide, "Implementing response
streaming in a custom runtime", lambda/latest/dg/runtimes-custom.html).
"""

from __future__ import annotations

import base64
import json
import re
import traceback
from typing import Any

# awslambdaric's names for a result or an event that is not JSON (awslambdaric/lambda_runtime_exception.py).
UNMARSHAL_ERROR = "Runtime.UnmarshalError"
MARSHAL_ERROR = "Runtime.MarshalError"


class RuntimeFault(Exception):
    """A failure the runtime itself names (a handler it cannot load, an event it cannot read), typed as awslambdaric types it."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def error_type_of(exc: BaseException) -> str:
    """An ``error_type`` string the exception carries, else its class name (what awslambdaric reports)."""
    declared = getattr(exc, "error_type", None)
    return declared if isinstance(declared, str) and declared else type(exc).__name__


def error_document(exc: BaseException, request_id: str = "") -> dict[str, Any]:
    return {
        "errorMessage": str(exc),
        "errorType": error_type_of(exc),
        "requestId": request_id,
        "stackTrace": traceback.format_list(traceback.extract_tb(exc.__traceback__)),
    }


def stream_error_type(exc: BaseException) -> str:
    """The trailer's error type: ``Category.Reason``; a bare class name becomes ``Function.<name>``.

    Only visible ASCII: the value is an HTTP header field, so no CR or LF may reach it.
    """
    kind = error_type_of(exc)
    if "." not in kind:
        kind = f"Function.{kind}"
    return re.sub(r"[^\x21-\x7e]", "_", kind)


def stream_error_body(exc: BaseException) -> str:
    """The trailer's error body: base64 of the JSON error (base64 keeps it a single header line)."""
    document = {"errorMessage": str(exc), "errorType": stream_error_type(exc)}
    return base64.b64encode(json.dumps(document).encode()).decode("ascii")
