"""Direct invokes (``aws lambda invoke``, an SDK, a Step Functions task): ``{"text": ..., ...}`` in, JSON out.

The event is the ``POST /v1/tts`` body. The result is the same JSON document an HTTP client gets
with ``Accept: application/json``; an error is ``{"error": {...}, "status": <http status>}``
returned, not raised, so a synchronous caller reads it instead of a runtime stack trace.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .described import describe
from .errors import error_result, log_error
from .invocation import LambdaCall
from .rendering import render
from .request import parse_request
from .responses import direct_success
from .service import Service


def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> dict[str, Any]:
    try:
        request = parse_request(
            event, voices=service.voices, limits=service.config.sync_limits, defaults=service.config.synthesis_defaults()
        )
        request.refuse_chapters()
        request = replace(request, limits=service.config.sync_limits_at(request.options.steps))  # the steps it renders
        prepared = request.prepare(service.engine)
        budget_s = call.synthesis_budget_s()
        if request.answer != "audio":
            return describe(service.engine, prepared, request.answer, budget_s=budget_s).document()
        rendered = render(
            service.engine,
            prepared,
            budget_s=budget_s,
            source="direct",
        )
        return direct_success(service, rendered, request_id=call.request_id)
    except Exception as error:
        log_error(error, "direct invoke")
        return error_result(error, call.request_id)
