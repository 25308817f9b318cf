"""Lambda entry point: ``supertonic_function.app.lambda_handler``.

Importing this module is Lambda's init phase: the engine and its ONNX sessions are built here,
once per container, and the time it took is logged as ``init_ms``. The first invocation of a
container logs ``cold_start: true`` with that figure; later ones reuse everything. Under SnapStart
the init runs once per published version and each sandbox resumed from its snapshot first runs
``restore.renew``.
"""

from __future__ import annotations

import time

_INIT_STARTED = time.perf_counter()  # before the imports below: numpy, onnxruntime and boto3 are init too

from functools import partial  # noqa: E402
from typing import Any  # noqa: E402

from . import restore  # noqa: E402
from .invocation import LambdaCall  # noqa: E402
from .runtime import after_restore  # noqa: E402
from .service import Service  # noqa: E402
from .sources import dispatch  # noqa: E402
from .telemetry import logger, metrics, quiet_empty_metrics  # noqa: E402

service = Service.start(started_at=_INIT_STARTED)
# Run by whichever runtime client serves this sandbox, once, if it was resumed from a SnapStart snapshot.
after_restore(partial(restore.renew, service))
_first_invocation = True


def lambda_handler(event: Any, context: Any) -> Any:
    with quiet_empty_metrics():
        return _instrumented_handler(event, context)


@metrics.log_metrics(capture_cold_start_metric=True)
@logger.inject_lambda_context(clear_state=True)
def _instrumented_handler(event: Any, context: Any) -> Any:
    """JSON logs carry the request id and cold start; EMF metrics are flushed when this returns."""
    global _first_invocation
    cold_start, _first_invocation = _first_invocation, False
    if cold_start:
        logger.info("cold start", extra={"cold_start": True, "init_ms": round(service.init_ms, 1)})
    return dispatch(service, event, LambdaCall.begin(context, margin_s=service.config.deadline_margin_s, cold_start=cold_start))
