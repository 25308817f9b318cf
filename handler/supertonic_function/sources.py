"""Which kind of event arrived, decided by a short ordered list of small adapters.

Each adapter says whether it recognises an event and handles the ones it does; the first that
recognises an event wins. An event nobody recognises gets a clear error, never a ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from . import direct, http_api, s3_trigger
from .envelopes import check_s3
from .errors import MalformedEvent, UnknownEvent, error_result, log_error
from .service import Service
from .telemetry import logger


class EventSource(Protocol):
    name: str

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool: ...

    @staticmethod
    def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> Any: ...


class FunctionUrlSource:
    """A function URL request, payload format 2.0 (API Gateway HTTP API v2 events look the same)."""

    name = "function_url"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        context = event.get("requestContext")
        return event.get("version") == "2.0" and isinstance(context, Mapping) and "http" in context

    @staticmethod
    def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> Any:
        return http_api.handle(service, event, request_id=request_id, context=context, cold_start=cold_start)


class S3TestEventSource:
    """The ``s3:TestEvent`` S3 sends once when a notification is configured: nothing to do."""

    name = "s3_test_event"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return event.get("Event") == "s3:TestEvent"

    @staticmethod
    def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> Any:
        logger.info("s3 test event ignored", extra={"bucket": event.get("Bucket")})
        return {"results": [], "ignored": "s3:TestEvent"}


class S3NotificationSource:
    name = "s3"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        records = event.get("Records")
        return (
            isinstance(records, list)
            and bool(records)
            and all(isinstance(r, Mapping) and r.get("eventSource") == "aws:s3" for r in records)
        )

    @staticmethod
    def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> Any:
        try:
            check_s3(event)
        except MalformedEvent as error:  # S3 sends none: a hand-made event, answered and not retried
            log_error(error, "s3 event")
            return error_result(error, request_id)
        return s3_trigger.handle(service, event, request_id=request_id, context=context)


class DirectInvokeSource:
    """``{"text": ..., ...}`` sent with the Invoke API."""

    name = "direct"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return "text" in event

    @staticmethod
    def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> Any:
        return direct.handle(service, event, request_id=request_id, context=context)


SOURCES: tuple[type[EventSource], ...] = (FunctionUrlSource, S3TestEventSource, S3NotificationSource, DirectInvokeSource)


def source_of(event: object) -> type[EventSource] | None:
    if not isinstance(event, Mapping):
        return None
    return next((source for source in SOURCES if source.recognises(event)), None)


def dispatch(service: Service, event: Any, *, request_id: str, context: Any, cold_start: bool) -> Any:
    source = source_of(event)
    if source is None:
        error = UnknownEvent(event.keys() if isinstance(event, Mapping) else [])
        logger.warning("unknown event", extra={"error": error.to_dict()})
        return error_result(error)
    logger.append_keys(event_source=source.name)
    return source.handle(service, event, request_id=request_id, context=context, cold_start=cold_start)
