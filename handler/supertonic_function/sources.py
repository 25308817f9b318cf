"""Which kind of event arrived, decided by a short ordered list of small adapters.

Each adapter says whether it recognises an event and handles the ones it does; the first that
recognises an event wins. An S3 notification may arrive wrapped (an EventBridge event, an SNS
record, an SQS message, an SNS envelope in an SQS message): the wrapper is opened and what it
carries is served by the adapters in ``WRAPPED``, every failure raised. An event nobody
recognises fails the invocation with ``UnknownEvent`` (logged with its shape, not its content),
so Lambda retries or dead-letters it instead of a quiet success, never a ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from . import direct, fanout, http_api, s3_trigger
from .envelopes import EVENTBRIDGE_S3_TYPES, check_s3, check_sqs, s3_from_eventbridge, sns_message, sqs_body
from .errors import BatchFailed, MalformedEvent, UnknownEvent, error_result, log_error
from .invocation import LambdaCall
from .proxy_sources import AlbSource, RestApiSource
from .service import Service
from .telemetry import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord


class EventSource(Protocol):
    name: str

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool: ...

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any: ...


class FunctionUrlSource:
    """A function URL request, payload format 2.0 (API Gateway HTTP API v2 events look the same)."""

    name = "function_url"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        context = event.get("requestContext")
        return event.get("version") == "2.0" and isinstance(context, Mapping) and "http" in context

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        return http_api.handle(service, event, call)


class S3TestEventSource:
    """The ``s3:TestEvent`` S3 sends once when a notification is configured: nothing to do."""

    name = "s3_test_event"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return event.get("Event") == "s3:TestEvent"

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        logger.info("s3 test event ignored", extra={"bucket": event.get("Bucket")})
        return {"results": [], "ignored": "s3:TestEvent"}


def _records_from(event: Mapping[str, Any], field: str, value: str) -> bool:
    """Whether ``event`` is a non-empty batch of records whose every ``field`` is ``value``."""
    records = event.get("Records")
    return isinstance(records, list) and bool(records) and all(isinstance(r, Mapping) and r.get(field) == value for r in records)


class S3NotificationSource:
    name = "s3"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return _records_from(event, "eventSource", "aws:s3")

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        try:
            check_s3(event)
        except MalformedEvent as error:  # S3 sends none: a hand-made event, answered and not retried
            log_error(error, "s3 event")
            return error_result(error, call.request_id)
        return s3_trigger.handle(service, event, call)


class WrappedS3NotificationSource:
    """An S3 notification carried by SNS or SQS: a malformed one is raised, so it is retried and
    dead-lettered with its message rather than answered to nobody."""

    name = "s3"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return S3NotificationSource.recognises(event)

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        check_s3(event)
        return s3_trigger.handle(service, event, call)


class EventBridgeS3Source:
    """An ``Object Created`` or ``Object Deleted`` event of a bucket with EventBridge notifications on
    (a rule targets the function); a deletion is skipped as a direct ``ObjectRemoved`` notification is."""

    name = "s3_eventbridge"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return event.get("source") == "aws.s3" and event.get("detail-type") in EVENTBRIDGE_S3_TYPES

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        return s3_trigger.handle(service, s3_from_eventbridge(event), call)


class ScheduledEventSource:
    """An EventBridge schedule's event (a keep-warm rule): it asks for nothing, so nothing is done. The
    invocation itself is the point: it keeps a container with the model loaded."""

    name = "scheduled"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return event.get("source") == "aws.events" and event.get("detail-type") == "Scheduled Event"

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        logger.info("scheduled event ignored", extra={"resources": event.get("resources")})
        return {"results": [], "ignored": "Scheduled Event"}


class SnsSource:
    """An SNS topic's delivery (S3 notifying the topic). SNS invokes asynchronously, one record
    each time: a failure is raised so Lambda retries it."""

    name = "sns"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return _records_from(event, "EventSource", "aws:sns")

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        results = [
            serve_wrapped(
                service,
                sns_message(record, f"Records[{index}]"),
                f"Records[{index}].Sns.Message",
                call,
            )
            for index, record in enumerate(event["Records"])
        ]
        return {"records": results}


class SqsSource:
    """A batch from an SQS event source mapping; each message's body is served on its own.

    The answer is the partial batch response: the ids of the messages that failed, which return
    to the queue (with ``ReportBatchItemFailures`` on the mapping) while the others are deleted.
    When every message failed the invocation fails instead, so that none is deleted even by a
    mapping without that setting.
    https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html

    Powertools' ``BatchProcessor`` runs the batch and keeps the failures; the whole-batch failure
    is raised here as ``BatchFailed``, one of the function's own typed errors, instead of its
    ``BatchProcessingError``.
    """

    name = "sqs"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return _records_from(event, "eventSource", "aws:sqs")

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        records = event["Records"]
        check_sqs(event)  # every record names its message, or none is served
        service.ready()  # an init error fails the whole batch with its own message, not each message with a symptom of it
        index_of = {id(record): index for index, record in enumerate(records)}

        def serve(record: SQSRecord) -> Any:  # BatchProcessor passes it by this name
            raw, message_id = record.raw_event, record.message_id
            at = f"Records[{index_of[id(raw)]}]"
            try:
                # Read before its body: a dead letter is never raised, whatever it holds (fanout.py).
                if raw.get("eventSourceARN") is not None and raw.get("eventSourceARN") == service.config.parts_dlq_arn:
                    result = fanout.serve_dead_letter(service, raw, call)
                elif fanout.is_part_message(body := sqs_body(raw, at)):  # a long job's part (fanout.py)
                    result = fanout.serve_part(service, body, call)
                else:
                    result = serve_wrapped(service, body, f"{at}.body", call)
            except Exception as error:  # this message's failure, not the batch's: the others go on
                log_error(error, "sqs message", message_id=message_id, receive_count=_receive_count(raw))
                raise
            logger.info("sqs message served", extra={"message_id": message_id, "result": result})
            return result

        # Imported here, not at init: Powertools' batch module brings asyncio, 35 ms of a cold
        # start under Lambda's CPU share at 2,048 MB that no other event source uses.
        from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType

        processor = BatchProcessor(EventType.SQS, raise_on_entire_batch_failure=False)
        with processor(records=records, handler=serve):
            processor.process()
        first = processor.exceptions[0][1] if processor.exceptions else None
        if first is not None and len(processor.fail_messages) == len(records):
            raise BatchFailed(len(records), first) from first
        return processor.response()


def _receive_count(record: Mapping[str, Any]) -> Any:
    attributes = record.get("attributes")
    return attributes.get("ApproximateReceiveCount") if isinstance(attributes, Mapping) else None


class DirectInvokeSource:
    """``{"text": ..., ...}`` sent with the Invoke API."""

    name = "direct"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        return "text" in event

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        return direct.handle(service, event, call)


SOURCES: tuple[type[EventSource], ...] = (
    FunctionUrlSource,
    RestApiSource,
    AlbSource,
    ScheduledEventSource,
    S3TestEventSource,
    S3NotificationSource,
    EventBridgeS3Source,
    SnsSource,
    SqsSource,
    DirectInvokeSource,
)
# What an SNS message or an SQS body may carry (EventBridge can target a topic or a queue too);
# another kind of message sent to a queue the function reads gets its adapter here.
WRAPPED: tuple[type[EventSource], ...] = (S3TestEventSource, WrappedS3NotificationSource, EventBridgeS3Source)


def source_of(event: object, sources: tuple[type[EventSource], ...] = SOURCES) -> type[EventSource] | None:
    if not isinstance(event, Mapping):
        return None
    return next((source for source in sources if source.recognises(event)), None)


def unknown_event(event: object, where: str = "event") -> UnknownEvent:
    """The error for an event nobody serves, logged with its shape: keys and the names AWS's
    events identify themselves by, never values, which may be anybody's text."""
    keys = list(event.keys()) if isinstance(event, Mapping) else []
    error = UnknownEvent(keys, where)
    shape: dict[str, Any] = {"type": type(event).__name__, "keys": sorted(map(str, keys))}
    if isinstance(event, Mapping):
        for name in ("source", "detail-type", "Type", "EventSource", "eventSource"):
            if isinstance(event.get(name), str):
                shape[name] = event[name][:100]
    logger.warning("unknown event", extra={"error": error.to_dict(), "received": shape})
    return error


def serve_wrapped(service: Service, event: Any, where: str, call: LambdaCall) -> Any:
    """Serve the event an SNS message or SQS body carries; anything it cannot serve is raised."""
    source = source_of(event, WRAPPED)
    if source is None:
        raise unknown_event(event, where)
    return source.handle(service, event, call)


def dispatch(service: Service, event: Any, call: LambdaCall) -> Any:
    source = source_of(event)
    if source is None:
        raise unknown_event(event)
    logger.append_keys(event_source=source.name)
    return source.handle(service, event, call)
