"""The parts of each event's envelope the function reads, checked before anything else happens.

Lambda's own events always carry these parts with these types; a hand-made event (a test, a
direct caller of the Invoke API) may not. Each source's envelope is checked here, once, before a
byte is read, stored or rendered: a missing or mistyped part is a ``MalformedEvent`` that names
its path (``requestContext.http.method``, ``Records[1].s3.object.key``), never a ``KeyError``
from deep inside a handler, whose stack trace the runtime would hand to the caller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote_plus, unquote_plus

from .errors import MalformedEvent

# https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html: keys are UTF-8, at most 1,024 bytes.
S3_KEY_MAX_BYTES = 1024
# A host name with an optional port: the domain name becomes a Location header, so nothing else may pass.
HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?")
# An API Gateway stage name (letters, digits, '-' and '_'), or HTTP API's catch-all stage; it goes into
# links the function builds, so nothing else may pass.
STAGE = re.compile(r"\$default|[A-Za-z0-9_-]{1,128}")
# What S3's ETags and version ids are made of; the revision they name becomes part of a result key.
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]*")
# Bucket names are lower-case letters, digits, dots and hyphens; buckets made before 2018 in us-east-1
# may also hold capitals and underscores, up to 255 characters.
_BUCKET_NAME = re.compile(r"[A-Za-z0-9._-]{1,255}")
_ABSENT = object()


def check_function_url(event: Mapping[str, Any]) -> None:
    """A payload 2.0 event: the method, path, headers, query, body and host the HTTP API reads."""
    context = _mapping(event.get("requestContext", _ABSENT), "requestContext")
    http = _mapping(context.get("http", _ABSENT), "requestContext.http")
    method = http.get("method", _ABSENT)
    if not isinstance(method, str) or not method.strip():
        raise MalformedEvent("requestContext.http.method", "an HTTP method such as 'POST'")
    domain = context.get("domainName")
    if domain is not None and not (isinstance(domain, str) and HOST.fullmatch(domain)):
        raise MalformedEvent("requestContext.domainName", "the function URL's host name")
    stage = context.get("stage")
    if stage is not None and not (isinstance(stage, str) and STAGE.fullmatch(stage)):
        raise MalformedEvent("requestContext.stage", "the API Gateway stage's name, such as '$default' or 'prod'")
    if not isinstance(event.get("rawPath", _ABSENT), str):
        raise MalformedEvent("rawPath", "the request path as a string, such as '/v1/tts'")
    for name in ("headers", "queryStringParameters"):
        _strings(event.get(name), name)
    if event.get("body") is not None and not isinstance(event["body"], str):
        raise MalformedEvent("body", "a string (base64 when isBase64Encoded is true) or absent")
    if not isinstance(event.get("isBase64Encoded", False), bool):
        raise MalformedEvent("isBase64Encoded", "true or false")


def check_proxy_request(event: Mapping[str, Any]) -> None:
    """A REST API (payload 1.0) or load balancer event: the method, path, headers, query and body read.

    Both spell repeated headers and query values either singly (``headers``) or as lists
    (``multiValueHeaders``, a REST API always and a load balancer when its target group says so)."""
    method = event.get("httpMethod", _ABSENT)
    if not isinstance(method, str) or not method.strip():
        raise MalformedEvent("httpMethod", "an HTTP method such as 'POST'")
    if not isinstance(event.get("path", _ABSENT), str):
        raise MalformedEvent("path", "the request path as a string, such as '/v1/tts'")
    for name in ("headers", "queryStringParameters"):
        _strings(event.get(name), name)
    for name in ("multiValueHeaders", "multiValueQueryStringParameters"):
        if event.get(name) is not None:
            for key, values in _mapping(event[name], name).items():
                if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
                    raise MalformedEvent(f"{name}.{key}", "a list of strings")
    if event.get("body") is not None and not isinstance(event["body"], str):
        raise MalformedEvent("body", "a string (base64 when isBase64Encoded is true) or absent")
    if not isinstance(event.get("isBase64Encoded", False), bool):
        raise MalformedEvent("isBase64Encoded", "true or false")


def through_function_url(event: Mapping[str, Any]) -> bool:
    """Whether a payload 2.0 event came from a function URL (``<id>.lambda-url.<region>.on.aws``):
    an API Gateway HTTP API sends the same format but reads every answer whole, so only a function
    URL's answer may stream."""
    context = event.get("requestContext")
    domain = context.get("domainName") if isinstance(context, Mapping) else None
    return isinstance(domain, str) and ".lambda-url." in domain


def method_of(event: Mapping[str, Any]) -> str | None:
    """The HTTP method of a payload 2.0 event, upper case, or None where the envelope has none to read."""
    context = event.get("requestContext")
    http = context.get("http") if isinstance(context, Mapping) else None
    method = http.get("method") if isinstance(http, Mapping) else None
    return method.upper() if isinstance(method, str) else None


def check_s3(event: Mapping[str, Any]) -> None:
    """An S3 notification: every record names a bucket and a key S3 could hold; a bad one refuses them all."""
    for index, record in enumerate(event["Records"]):
        at = f"Records[{index}]"
        s3 = _mapping(record.get("s3", _ABSENT), f"{at}.s3")
        bucket = _mapping(s3.get("bucket", _ABSENT), f"{at}.s3.bucket")
        name = bucket.get("name", _ABSENT)
        if not isinstance(name, str) or not _BUCKET_NAME.fullmatch(name):
            raise MalformedEvent(f"{at}.s3.bucket.name", "the bucket's name: letters, digits, dots, hyphens")
        announced = _mapping(s3.get("object", _ABSENT), f"{at}.s3.object")
        key = announced.get("key", _ABSENT)
        if not isinstance(key, str) or not key or not _is_s3_key(unquote_plus(key)):
            raise MalformedEvent(f"{at}.s3.object.key", f"a URL-encoded key of 1 to {S3_KEY_MAX_BYTES} bytes of UTF-8")
        size = announced.get("size")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise MalformedEvent(f"{at}.s3.object.size", "the object's size in bytes, a whole number")
        for part in ("eTag", "versionId"):
            value = announced.get(part)
            if value is not None and not (isinstance(value, str) and _VISIBLE_ASCII.fullmatch(value)):
                raise MalformedEvent(f"{at}.s3.object.{part}", "S3's string of visible ASCII characters")
        if not isinstance(record.get("eventName", _ABSENT), str):
            raise MalformedEvent(f"{at}.eventName", "a string such as 'ObjectCreated:Put'")


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedEvent(path, "an object")
    return value


def _strings(value: object, path: str) -> None:
    """Absent, null, or an object whose every value is a string (as Lambda joins repeated ones)."""
    if value is None:
        return
    for name, item in _mapping(value, path).items():
        if not isinstance(item, str):
            raise MalformedEvent(f"{path}.{name}", "a string")


def _is_s3_key(key: str) -> bool:
    try:
        return 0 < len(key.encode("utf-8")) <= S3_KEY_MAX_BYTES
    except UnicodeEncodeError:  # a lone surrogate, which JSON can spell and no key can hold
        return False


# --- S3 notifications that arrive wrapped ------------------------------------------------------------
# A bucket can notify through EventBridge, an SNS topic or an SQS queue instead of invoking the
# function itself; each wrapper is opened here, its parts checked as above, so the S3 trigger
# sees the notification S3 would have sent directly.

# EventBridge's ``reason`` for an ``Object Created`` event -> S3's own event name
# (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ev-events.html).
_CREATED_BY = {
    "PutObject": "ObjectCreated:Put",
    "POST Object": "ObjectCreated:Post",
    "CopyObject": "ObjectCreated:Copy",
    "CompleteMultipartUpload": "ObjectCreated:CompleteMultipartUpload",
}
# The EventBridge detail types that stand for an S3 notification (same page): a deletion is carried as S3's
# own ``ObjectRemoved`` event name, so the S3 trigger skips it by the one rule that skips a direct delete.
EVENTBRIDGE_S3_TYPES = ("Object Created", "Object Deleted")
_DELETED_AS = {"Delete Marker Created": "ObjectRemoved:DeleteMarkerCreated"}


def s3_from_eventbridge(event: Mapping[str, Any]) -> dict[str, Any]:
    """The S3 notification an EventBridge ``Object Created`` or ``Object Deleted`` event stands for.

    EventBridge spells keys as they are, where S3's notifications form-encode them ("my story.txt"
    is "my+story.txt" there): the key is encoded here so that one decoding rule reads both.
    """
    detail = _mapping(event.get("detail", _ABSENT), "detail")
    bucket = _mapping(detail.get("bucket", _ABSENT), "detail.bucket").get("name", _ABSENT)
    if not isinstance(bucket, str) or not _BUCKET_NAME.fullmatch(bucket):
        raise MalformedEvent("detail.bucket.name", "the bucket's name: letters, digits, dots, hyphens")
    announced = _mapping(detail.get("object", _ABSENT), "detail.object")
    key = announced.get("key", _ABSENT)
    if not isinstance(key, str) or not _is_s3_key(key):
        raise MalformedEvent("detail.object.key", f"a key of 1 to {S3_KEY_MAX_BYTES} bytes of UTF-8")
    s3_object: dict[str, Any] = {"key": quote_plus(key, safe="/")}
    for theirs, ours in (("size", "size"), ("etag", "eTag"), ("version-id", "versionId"), ("sequencer", "sequencer")):
        if theirs in announced:
            s3_object[ours] = announced[theirs]
    reason, deletion = detail.get("reason"), detail.get("deletion-type")
    if event.get("detail-type") == "Object Deleted":
        event_name = _DELETED_AS.get(deletion, "ObjectRemoved:Delete") if isinstance(deletion, str) else "ObjectRemoved:Delete"
    else:
        event_name = _CREATED_BY.get(reason, "ObjectCreated:Put") if isinstance(reason, str) else "ObjectCreated:Put"
    notification = {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": event.get("region"),
                "eventTime": event.get("time"),
                "eventName": event_name,
                "s3": {"s3SchemaVersion": "1.0", "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"}, "object": s3_object},
            }
        ]
    }
    check_s3(notification)  # the size, ETag and version id as S3 would send them
    return notification


def check_sqs(event: Mapping[str, Any]) -> None:
    """Every record of an SQS batch names its message (``messageId``): what a batch item failure names."""
    for index, record in enumerate(event["Records"]):
        message_id = record.get("messageId", _ABSENT)
        if not isinstance(message_id, str) or not message_id:
            raise MalformedEvent(f"Records[{index}].messageId", "the message's id")


def sqs_body(record: Mapping[str, Any], at: str) -> Any:
    """The event an SQS message carries: its JSON body, the ``Message`` of an SNS envelope opened
    (a topic delivering to the queue without raw message delivery)."""
    body = _json(record.get("body", _ABSENT), f"{at}.body")
    if isinstance(body, Mapping) and body.get("Type") == "Notification" and "Message" in body:
        return _json(body["Message"], f"{at}.body.Message")
    return body


def sns_message(record: Mapping[str, Any], at: str) -> Any:
    """The event an SNS record carries: its ``Sns.Message``, JSON."""
    sns = _mapping(record.get("Sns", _ABSENT), f"{at}.Sns")
    return _json(sns.get("Message", _ABSENT), f"{at}.Sns.Message")


def _json(text: object, path: str) -> Any:
    """A JSON document sent as a string; the message says what was expected, never what came."""
    if not isinstance(text, str):
        raise MalformedEvent(path, "a string holding a JSON event")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        raise MalformedEvent(path, "JSON: an S3 notification, an SNS envelope or an EventBridge event") from None
