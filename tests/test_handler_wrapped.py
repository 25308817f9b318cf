"""S3 notifications that reach the function wrapped (EventBridge, SNS, SQS, SNS in SQS), and events it cannot serve.

The envelopes are AWS's own, from Powertools' fixtures (tests/powertools_events/), with this
project's bucket, key and text put in; each goes through the real ``lambda_handler`` on the tiny
stand-in against moto's S3 server, and the result is read from the output bucket.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, LambdaContext

from supertonic_function.errors import BatchFailed, MalformedEvent, UnknownEvent
from supertonic_function.invocation import LambdaCall
from supertonic_harness.fronts.s3 import s3_put_event

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

POWERTOOLS_EVENTS = Path(__file__).resolve().parent / "powertools_events"
# A key EventBridge spells as it is and S3's own notifications form-encode: a space and a plus.
KEY = "input/wrapped story+1.txt"
TEXT = "A bucket can notify through a queue."


def powertools(name: str) -> dict[str, Any]:
    return json.loads((POWERTOOLS_EVENTS / f"{name}.json").read_text(encoding="utf-8"))


def _stored(s3: Any, key: str = KEY, text: str = TEXT) -> dict[str, Any]:
    """Store the text and return the notification S3 sends for it."""
    reply = s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=text.encode())
    return s3_put_event(INPUT_BUCKET, key, len(text.encode()), reply["ETag"])


def _sqs(*bodies: str) -> dict[str, Any]:
    """A batch shaped as Powertools' sqsEvent.json, one record per body, each with its own id."""
    template = powertools("sqsEvent")["Records"][0]
    records = []
    for index, body in enumerate(bodies):
        record = copy.deepcopy(template)
        record["messageId"] = f"message-{index}"
        record["body"] = body
        records.append(record)
    return {"Records": records}


def _manifests(s3: Any) -> list[dict[str, Any]]:
    listed = s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("Contents", [])
    return [
        json.loads(s3.get_object(Bucket=OUTPUT_BUCKET, Key=o["Key"])["Body"].read()) for o in listed if o["Key"].endswith("manifest.json")
    ]


def _done(s3: Any, key: str = KEY) -> dict[str, Any]:
    (manifest,) = _manifests(s3)
    assert manifest["status"] == "done", manifest
    assert manifest["source"]["key"] == key
    assert s3.head_object(Bucket=OUTPUT_BUCKET, Key=manifest["audio"]["key"])["ContentLength"] > 44
    return manifest


def test_an_eventbridge_object_created_event_is_rendered(app: Any, s3: Any) -> None:
    notification = _stored(s3)["Records"][0]["s3"]["object"]
    event = powertools("s3EventBridgeNotificationObjectCreatedEvent")
    event["detail"]["bucket"]["name"] = INPUT_BUCKET
    event["resources"] = [f"arn:aws:s3:::{INPUT_BUCKET}"]
    # EventBridge's key is not form-encoded: the plus is a plus, the space a space.
    event["detail"]["object"].update(key=KEY, size=notification["size"], etag=notification["eTag"])

    result = app.lambda_handler(event, LambdaContext())

    (outcome,) = result["results"]
    assert outcome["status"] == "done" and outcome["key"] == KEY
    _done(s3)


def test_an_eventbridge_event_of_another_kind_is_not_served_quietly(app: Any, s3: Any) -> None:
    event = powertools("s3EventBridgeNotificationObjectCreatedEvent")
    event["detail-type"] = "Object Restore Completed"  # a deletion is skipped (tests/test_event_sources.py); this is not
    with pytest.raises(UnknownEvent):
        app.lambda_handler(event, LambdaContext())


def test_an_s3_notification_in_an_sqs_message_is_rendered_and_not_reported_failed(app: Any, s3: Any) -> None:
    event = powertools("s3SqsEvent")
    event["Records"][0]["body"] = json.dumps(_stored(s3))

    assert app.lambda_handler(event, LambdaContext()) == {"batchItemFailures": []}
    _done(s3)


def test_only_the_messages_that_cannot_be_served_are_reported_as_batch_item_failures(app: Any, s3: Any) -> None:
    test_event = {"Service": "Amazon S3", "Event": "s3:TestEvent", "Time": "2026-12-03T17:00:00.000Z", "Bucket": INPUT_BUCKET}
    bodies = (
        json.dumps(_stored(s3)),  # served
        json.dumps(test_event),  # sent once when the bucket's notification is set up: nothing to do
        "Test message.",  # not JSON
        json.dumps({"message": "foo1"}),  # JSON nobody serves
    )

    result = app.lambda_handler(_sqs(*bodies), LambdaContext())

    assert result == {"batchItemFailures": [{"itemIdentifier": "message-2"}, {"itemIdentifier": "message-3"}]}
    _done(s3)


def test_a_batch_whose_every_message_fails_fails_the_invocation(app: Any, s3: Any, json_logs: Any) -> None:
    private = "the private text of somebody's message"
    with pytest.raises(BatchFailed) as raised:
        app.lambda_handler(_sqs(private, json.dumps({"note": private})), LambdaContext())
    assert "2 records" in raised.value.message
    logged = json.dumps(json_logs())
    assert "unknown event" in logged and private not in logged
    assert _manifests(s3) == []


def test_an_s3_notification_published_to_sns_is_rendered(app: Any, s3: Any) -> None:
    event = powertools("snsEvent")
    event["Records"][0]["Sns"]["Message"] = json.dumps(_stored(s3))

    result = app.lambda_handler(event, LambdaContext())

    assert result["records"][0]["results"][0]["status"] == "done"
    _done(s3)


@pytest.mark.parametrize(
    ("message", "error"),
    [("Hello from SNS!", MalformedEvent), (json.dumps({"greeting": "hello"}), UnknownEvent)],
    ids=["not-json", "unknown-json"],
)
def test_an_sns_message_that_is_no_s3_notification_fails_the_invocation(app: Any, message: str, error: type) -> None:
    event = powertools("snsEvent")
    event["Records"][0]["Sns"]["Message"] = message
    with pytest.raises(error):
        app.lambda_handler(event, LambdaContext())


def test_an_s3_notification_through_sns_then_sqs_is_rendered(app: Any, s3: Any) -> None:
    event = powertools("snsSqsEvent")
    envelope = json.loads(event["Records"][0]["body"])
    envelope["Message"] = json.dumps(_stored(s3))
    event["Records"][0]["body"] = json.dumps(envelope)

    assert app.lambda_handler(event, LambdaContext()) == {"batchItemFailures": []}
    _done(s3)


def test_a_malformed_s3_notification_in_a_queue_is_a_failure_not_an_answer(app: Any, s3: Any) -> None:
    notification = _stored(s3)
    del notification["Records"][0]["s3"]["object"]["key"]
    good = json.dumps(_stored(s3, "input/other.txt"))

    result = app.lambda_handler(_sqs(json.dumps(notification), good), LambdaContext())

    assert result == {"batchItemFailures": [{"itemIdentifier": "message-0"}]}
    _done(s3, "input/other.txt")


def test_an_unknown_event_fails_the_invocation_and_logs_its_shape_not_its_content(app: Any, json_logs: Any) -> None:
    event = {"detail-type": "EC2 Instance State-change Notification", "source": "aws.ec2", "detail": {"note": "a private note"}}
    with pytest.raises(UnknownEvent) as raised:
        app.lambda_handler(event, LambdaContext())
    assert raised.value.code == "unknown_event"
    (line,) = [line for line in json_logs() if line.get("message") == "unknown event"]
    assert line["received"] == {
        "type": "dict",
        "keys": ["detail", "detail-type", "source"],
        "source": "aws.ec2",
        "detail-type": "EC2 Instance State-change Notification",
    }
    assert "a private note" not in json.dumps(json_logs())


def test_a_message_the_earlier_ones_of_its_batch_left_too_little_time_is_retried_not_failed(app: Any, s3: Any) -> None:
    import time

    from test_handler_s3 import Timed

    from supertonic_function.config import FunctionConfig
    from supertonic_function.service import Service
    from supertonic_function.sources import dispatch

    service = Service(
        FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET, warm_up=False, deadline_margin_s=0.0),
        app.service.engine_or_error,
    )
    body = json.dumps({"text": "A story that takes a while to tell. " * 8, "steps": 15})
    probes = []
    for n in range(2):  # the second warm, as the batch's messages are
        started = time.monotonic()
        dispatch(
            service,
            _sqs(json.dumps(_stored(s3, f"input/probe-{n}.json", body))),
            LambdaCall.begin(LambdaContext(), margin_s=service.config.deadline_margin_s, request_id=f"probe-{n}"),
        )
        probes.append(time.monotonic() - started)
    needs_s = min(probes)  # what one message takes

    batch = _sqs(*[json.dumps(_stored(s3, f"input/part-{n}.json", body)) for n in range(4)])
    context = Timed(timeout_s=2.5 * needs_s)  # time for about two and a half of the four
    result = dispatch(service, batch, LambdaCall.begin(context, margin_s=service.config.deadline_margin_s))

    # The last message had a fresh invocation's fair share of time only as the batch began: it is
    # returned to the queue for a new invocation, not failed for a text too long.
    assert [m["error"]["code"] for m in _manifests(s3) if m["status"] == "failed"] == []
    assert result["batchItemFailures"], "every message had time after all: the test proves nothing"
    assert [m["status"] for m in _manifests(s3)] == ["done"] * (2 + 4 - len(result["batchItemFailures"]))
