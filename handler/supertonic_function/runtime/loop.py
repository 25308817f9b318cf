"""The runtime's life: load the handler (init), answer SnapStart's restore, then ``/next`` forever.

One invocation: ``GET /invocation/next``, build the context, call the handler, then post what it
returned: a ``StreamedAnswer`` as a streamed response, anything else as JSON (awslambdaric's buffered
response); a handler exception before any response is posted to ``/error``. A streamed answer the
client walked away from is closed and logged only: Lambda does not retry it, and ``/error`` is no
longer allowed once the response started (Lambda guide, "Implementing response streaming in a custom
runtime"). Init and restore failures exit as awslambdaric's bootstrap.py does: 1 after
``/init/error``; under SnapStart, 64 when a before-snapshot hook or ``/restore/next`` fails and 65
(after ``/restore/error``) when an ``after_restore`` hook does.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ..telemetry import logger
from .answer import StreamedAnswer
from .api import Invocation, RuntimeApi, RuntimeApiError
from .context import ClientContext, CognitoIdentity, LambdaContext
from .failures import MARSHAL_ERROR, UNMARSHAL_ERROR, RuntimeFault, error_document
from .hooks import run_after_restore_hooks, run_before_snapshot_hooks
from .streaming import StreamReport, stream_answer

Handler = Callable[[Any, Any], Any]
# awslambdaric's names for these cases (awslambdaric/lambda_runtime_exception.py).
MALFORMED_HANDLER_NAME = "Runtime.MalformedHandlerName"
IMPORT_MODULE_ERROR = "Runtime.ImportModuleError"
HANDLER_NOT_FOUND = "Runtime.HandlerNotFound"
USER_CODE_SYNTAX_ERROR = "Runtime.UserCodeSyntaxError"
SNAP_START = "snap-start"
EXIT_INIT_FAILED, EXIT_RESTORE_NEXT_FAILED, EXIT_RESTORE_HOOK_FAILED = 1, 64, 65


def load_handler(name: str) -> Handler:
    """``module.function`` (``/`` in the module path read as ``.``), imported as awslambdaric imports it."""
    module_name, _, function_name = name.rpartition(".")
    if not module_name or not function_name:
        raise RuntimeFault(MALFORMED_HANDLER_NAME, f"Bad handler '{name}': expected module.function")
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except ImportError as exc:
        raise RuntimeFault(IMPORT_MODULE_ERROR, f"Unable to import module '{module_name}': {exc}") from exc
    except SyntaxError as exc:
        raise RuntimeFault(USER_CODE_SYNTAX_ERROR, f"Syntax error in module '{module_name}': {exc}") from exc
    handler = getattr(module, function_name, None)
    if not callable(handler):
        raise RuntimeFault(HANDLER_NOT_FOUND, f"Handler '{function_name}' missing on module '{module_name}'")
    return handler


def context_for(invocation: Invocation) -> LambdaContext:
    return LambdaContext(
        aws_request_id=invocation.request_id,
        deadline_ms=invocation.deadline_ms,
        invoked_function_arn=invocation.invoked_function_arn,
        identity=CognitoIdentity.from_header(invocation.cognito_identity),
        client_context=ClientContext.from_header(invocation.client_context),
        tenant_id=invocation.tenant_id,
    )


def _log_stream(report: StreamReport) -> None:
    fields = {
        "function_request_id": report.request_id,
        "body_bytes": report.body_bytes,
        "stream_s": round(report.seconds, 3),
        "outcome": report.outcome,
    }
    if report.outcome == "complete":
        logger.info("streamed answer", extra=fields)
    else:
        logger.warning("streamed answer cut short", extra={**fields, "error_type": report.error_type, "error": report.error_message})


def serve_one(api: RuntimeApi, handler: Handler) -> None:
    """Takes the next invocation, runs the handler on it and posts its answer."""
    invocation = api.next_invocation()
    # X-Ray's header for this invocation, where the SDKs look for it (as awslambdaric sets it).
    if invocation.trace_id:
        os.environ["_X_AMZN_TRACE_ID"] = invocation.trace_id
    else:
        os.environ.pop("_X_AMZN_TRACE_ID", None)
    try:
        event = json.loads(invocation.event) if invocation.event else None
    except ValueError as exc:
        api.post_invocation_error(
            invocation.request_id, error_document(RuntimeFault(UNMARSHAL_ERROR, f"Unable to unmarshal input: {exc}"), invocation.request_id)
        )
        return
    try:
        result = handler(event, context_for(invocation))
    except Exception as exc:
        logger.exception("handler failed", extra={"function_request_id": invocation.request_id})
        api.post_invocation_error(invocation.request_id, error_document(exc, invocation.request_id))
        return
    try:
        _post_answer(api, invocation.request_id, result)
    except RuntimeApiError:
        # The Runtime API refused this answer (not a 202): this invocation is over either way, and
        # the next /next still serves the sandbox; only a failing /next ends the process.
        logger.exception("the Runtime API refused the answer", extra={"function_request_id": invocation.request_id})


def _post_answer(api: RuntimeApi, request_id: str, result: object) -> None:
    if isinstance(result, StreamedAnswer):
        try:
            report = stream_answer(api, request_id, result)
        except RuntimeFault as fault:  # refused before the response started, so /error is still allowed
            api.post_invocation_error(request_id, error_document(fault, request_id))
            return
        _log_stream(report)
        return
    try:
        body = json.dumps(result).encode()
    except (TypeError, ValueError) as exc:
        api.post_invocation_error(request_id, error_document(RuntimeFault(MARSHAL_ERROR, f"Unable to marshal response: {exc}"), request_id))
        return
    api.post_response(request_id, body)


def start(api: RuntimeApi, handler_name: str, environ: Mapping[str, str] | None = None) -> Handler | int:
    """Init: the handler, or the exit code of a failed init or SnapStart restore (already reported)."""
    environ = os.environ if environ is None else environ
    try:
        handler = load_handler(handler_name)
    except Exception as exc:
        logger.exception("init failed", extra={"handler": handler_name})
        api.post_init_error(error_document(exc))
        return EXIT_INIT_FAILED
    if environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") != SNAP_START:
        return handler
    try:
        run_before_snapshot_hooks()
        api.restore_next()  # returns once this sandbox runs from the snapshot
    except Exception as exc:
        logger.exception("before-snapshot hook or restore/next failed")
        api.post_init_error(error_document(exc))
        return EXIT_RESTORE_NEXT_FAILED
    try:
        run_after_restore_hooks()
    except Exception as exc:
        logger.exception("after-restore hook failed")
        api.post_restore_error(error_document(exc))
        return EXIT_RESTORE_HOOK_FAILED
    return handler


def main(argv: list[str]) -> int:
    """``python -m supertonic_function.runtime HANDLER``: runs until the sandbox ends, or returns an init failure's exit code."""
    if len(argv) != 1:
        print("usage: python -m supertonic_function.runtime MODULE.FUNCTION", file=sys.stderr)
        return 2
    api = RuntimeApi(os.environ["AWS_LAMBDA_RUNTIME_API"])
    handler = start(api, argv[0])
    if isinstance(handler, int):
        return handler
    while True:
        serve_one(api, handler)
