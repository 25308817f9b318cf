"""SQS for the local function: moto's SQS (on the moto server S3 runs on) and Lambda's SQS event source mapping.

Lambda's mapping does not exist locally, so ``SqsEventSourceMapping`` does its work: pollers
receive batches from the queue (up to the mapping's batch size, within its batching window),
invoke the function through RIE with the event Lambda sends, delete the messages of a successful
batch, and with ``ReportBatchItemFailures`` delete all but the ones the function names in
``{"batchItemFailures": [{"itemIdentifier": id}]}``. A failed batch (an error, a timeout, an OOM)
is not deleted: its messages become visible again after the queue's visibility timeout. moto
itself moves a message to the dead-letter queue once it has been received ``maxReceiveCount``
times (at the next receive, as SQS does), so the redrive policy is the queue's, not the harness's.

One poller per sandbox, at most ``ScalingConfig.MaximumConcurrency`` of them: a batch goes to a
free sandbox, and no more batches run at once than the mapping allows.
https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html
"""

from __future__ import annotations

import base64
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..function.outcome import Outcome
from ..function.sandbox import Invocation, Sandbox
from ..function.template import QueueConfig, SqsTrigger
from .s3 import DUMMY_CREDENTIALS

log = logging.getLogger(__name__)

RECEIVE_MAX = 10  # ReceiveMessage returns at most 10 messages a call
# Pollers long-poll as Lambda's do, but briefly, so that stopping the harness is quick.
POLL_WAIT_S = 1


def sqs_environment(endpoint_url: str) -> dict[str, str]:
    """What the function's environment needs to reach this SQS (boto3 >= 1.28 reads the variable)."""
    return {"AWS_ENDPOINT_URL_SQS": endpoint_url}


def sqs_event(messages: Sequence[Mapping[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    """The event Lambda invokes the function with for ``messages`` (ReceiveMessage's, all attributes)."""
    return {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": dict(message.get("Attributes") or {}),
                "messageAttributes": {name: _message_attribute(value) for name, value in (message.get("MessageAttributes") or {}).items()},
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for message in messages
        ]
    }


def _message_attribute(value: Mapping[str, Any]) -> dict[str, Any]:
    """ReceiveMessage's ``{"StringValue", "BinaryValue", "DataType"}`` as Lambda spells it in the event."""
    attribute: dict[str, Any] = {}
    if "StringValue" in value:
        attribute["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        attribute["binaryValue"] = base64.b64encode(value["BinaryValue"]).decode("ascii")
    attribute["stringListValues"] = list(value.get("StringListValues") or [])
    attribute["binaryListValues"] = [base64.b64encode(v).decode("ascii") for v in value.get("BinaryListValues") or []]
    attribute["dataType"] = value["DataType"]
    return attribute


class LocalSqs:
    """moto's SQS at ``endpoint_url`` (the harness's moto server), queues made from the template's settings."""

    def __init__(self, endpoint_url: str, region: str = "us-east-1") -> None:
        import boto3

        self.endpoint_url = endpoint_url
        self.region = region
        self.client = boto3.client(
            "sqs",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=DUMMY_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=DUMMY_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def create_queues(self, queues: Iterable[QueueConfig]) -> dict[str, str]:
        """Create each queue (dead-letter queues first, as ``Template.queues`` orders them); ARN -> URL."""
        urls = {}
        for queue in queues:
            try:
                url = self.client.create_queue(QueueName=queue.name, Attributes=queue.attributes())["QueueUrl"]
            except self.client.exceptions.QueueNameExists:
                # moto's state lives as long as its process: a queue an earlier local function made
                # (other settings, old messages) is replaced, so each run starts from empty queues.
                self.client.delete_queue(QueueUrl=self.client.get_queue_url(QueueName=queue.name)["QueueUrl"])
                url = self.client.create_queue(QueueName=queue.name, Attributes=queue.attributes())["QueueUrl"]
            urls[queue.arn] = url
        return urls

    def url_of(self, queue_arn: str) -> str:
        return self.client.get_queue_url(QueueName=queue_arn.rsplit(":", 1)[-1])["QueueUrl"]

    def arn_of(self, queue_url: str) -> str:
        return self.client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def counts(self, queue_url: str) -> tuple[int, int]:
        """(visible, in flight) messages of the queue now."""
        attributes = self.client.get_queue_attributes(
            QueueUrl=queue_url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"]), int(attributes["ApproximateNumberOfMessagesNotVisible"])

    def bodies(self, queue_url: str) -> list[str]:
        """Receive every visible message's body (leaving them in flight): to look into a dead-letter queue."""
        found: list[str] = []
        while True:
            messages = self.client.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=RECEIVE_MAX).get("Messages", [])
            if not messages:
                return found
            found += [m["Body"] for m in messages]


@dataclass
class Batch:
    """One invocation of the mapping: which messages, what the function did, what became of them."""

    message_ids: list[str]
    receive_counts: list[int]
    invocation: Invocation
    deleted: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)  # left to become visible again
    problem: str | None = None  # why the whole batch counted as failed although the invocation succeeded
    queue: str = ""

    @property
    def succeeded(self) -> bool:
        return not self.returned

    def describe(self) -> str:
        if self.problem:
            return f"{len(self.message_ids)} message(s), all returned to the queue: {self.problem}"
        if not self.returned:
            return f"{len(self.message_ids)} message(s) deleted"
        return f"{len(self.deleted)} deleted, {len(self.returned)} returned to the queue"


def batches_summary(batches: Sequence[Batch]) -> str:
    """One line for many batches: how many, their messages, what became of them, the billed time."""
    messages = sum(len(b.message_ids) for b in batches)
    deleted = sum(len(b.deleted) for b in batches)
    billed = sum(b.invocation.billed_ms or 0 for b in batches)
    return f"{len(batches)} batch(es) of {messages} message(s): {deleted} deleted, {messages - deleted} returned; billed {billed} ms in all"


class SqsEventSourceMapping:
    """Lambda's SQS event source mapping for one queue, over local sandboxes.

    ``start()`` starts the pollers, ``drain()`` waits until the queue holds nothing (visible or in
    flight) and no batch runs, ``stop()`` ends the pollers after their current batch. Every batch
    is kept in ``batches`` and passed to ``on_batch``.
    """

    def __init__(
        self,
        sqs: LocalSqs,
        trigger: SqsTrigger,
        sandboxes: Sequence[Sandbox],
        *,
        on_batch: Callable[[Batch], None] | None = None,
    ) -> None:
        if not sandboxes:
            raise ValueError("an event source mapping needs at least one sandbox to invoke")
        self.sqs = sqs
        self.trigger = trigger
        self.queue_url = sqs.url_of(trigger.queue_arn)
        limit = trigger.maximum_concurrency or len(sandboxes)
        self.sandboxes = list(sandboxes)[:limit]
        self.on_batch = on_batch
        self.batches: list[Batch] = []
        self._busy = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def queue_name(self) -> str:
        return self.trigger.queue_arn.rsplit(":", 1)[-1]

    def start(self) -> SqsEventSourceMapping:
        if not self.trigger.enabled:
            return self
        for index, sandbox in enumerate(self.sandboxes):
            thread = threading.Thread(target=self._poll, args=(sandbox,), name=f"sqs-{self.queue_name}-{index}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self, timeout_s: float | None = None) -> None:
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads = []

    def idle(self) -> bool:
        """Nothing in the queue, visible or in flight, and no batch being invoked."""
        with self._lock:
            busy = self._busy
        return not busy and self.sqs.counts(self.queue_url) == (0, 0)

    def drain(self, timeout_s: float) -> bool:
        """Wait until ``idle()`` (True), or ``timeout_s`` passed (False). Messages that failed come
        back after the visibility timeout and are retried meanwhile, until the dead-letter queue takes them."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.idle():
                return True
            time.sleep(0.1)
        return self.idle()

    def __enter__(self) -> SqsEventSourceMapping:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        # A poller in the middle of a batch is not waited for past this: closing its sandbox ends
        # the invocation, which fails, and its messages stay in the queue as after any failure.
        self.stop(timeout_s=POLL_WAIT_S + 5)

    # --- one poller ------------------------------------------------------------------------------

    def _poll(self, sandbox: Sandbox) -> None:
        while not self._stopping.is_set():
            try:
                messages = self._receive()
            except Exception as error:  # noqa: BLE001 - moto stopping under the poller ends it, anything else is logged
                if not self._stopping.is_set():
                    log.warning("sqs %s: receive failed: %s", self.queue_name, error)
                    time.sleep(POLL_WAIT_S)
                continue
            if not messages:
                continue
            # Received messages count as in flight in the queue until deleted; from here until the
            # batch is reported, this poller counts as busy, so drain() never sees a gap between the two.
            with self._lock:
                self._busy += 1
            try:
                batch = self._invoke(sandbox, messages)
                if self.on_batch is not None:
                    self.on_batch(batch)
            except Exception:  # noqa: BLE001 - the poller goes on, as Lambda's does; the messages come back
                log.exception("sqs %s: a batch could not be handled", self.queue_name)
            finally:
                with self._lock:
                    self._busy -= 1

    def _receive(self) -> list[dict[str, Any]]:
        """A batch as Lambda's poller gathers it: up to the batch size, within the batching window."""
        messages: list[dict[str, Any]] = []
        window_ends = time.monotonic() + self.trigger.batching_window_s
        while len(messages) < self.trigger.batch_size and not self._stopping.is_set():
            answer = self.sqs.client.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=min(RECEIVE_MAX, self.trigger.batch_size - len(messages)),
                WaitTimeSeconds=0 if messages else POLL_WAIT_S,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            received = answer.get("Messages", [])
            # A window longer than the visibility timeout receives a message twice: keep the newer
            # receipt, the one a delete needs.
            again = {m["MessageId"] for m in received}
            messages = [m for m in messages if m["MessageId"] not in again] + received
            if not messages:
                return []
            if time.monotonic() >= window_ends or (not received and self.trigger.batching_window_s <= 0):
                break
            if not received:
                time.sleep(min(0.1, max(0.0, window_ends - time.monotonic())))
        return messages

    def _invoke(self, sandbox: Sandbox, messages: list[dict[str, Any]]) -> Batch:
        event = sqs_event(messages, self.trigger.queue_arn, self.sqs.region)
        ids = [m["MessageId"] for m in messages]
        counts = [int((m.get("Attributes") or {}).get("ApproximateReceiveCount", 0)) for m in messages]
        invocation = sandbox.invoke(event)
        batch = Batch(ids, counts, invocation, queue=self.queue_name)
        failed, batch.problem = self._failures(invocation, ids)
        keep = set(ids) if failed is None else failed
        handles = [(m["MessageId"], m["ReceiptHandle"]) for m in messages if m["MessageId"] not in keep]
        batch.deleted = [message_id for message_id, _ in handles]
        batch.returned = [message_id for message_id in ids if message_id in keep]
        self.batches.append(batch)
        for start in range(0, len(handles), RECEIVE_MAX):
            chunk = handles[start : start + RECEIVE_MAX]
            self.sqs.client.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": handle} for i, (_, handle) in enumerate(chunk)],
            )
        return batch

    def _failures(self, invocation: Invocation, ids: list[str]) -> tuple[set[str] | None, str | None]:
        """The messages to leave in the queue (None: all of them) and, for a success that still
        fails the batch, why. Lambda reads the partial batch response only with ReportBatchItemFailures;
        a response naming no message of the batch, or naming none at all, fails the whole batch.
        https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html"""
        if invocation.outcome is not Outcome.SUCCESS:
            return None, None
        result = invocation.result()
        if not self.trigger.report_batch_item_failures or not isinstance(result, dict):
            return set(), None
        failures = result.get("batchItemFailures")
        if failures is None:
            return set(), None
        if not isinstance(failures, list):
            return None, "batchItemFailures is not a list"
        failed = set()
        for failure in failures:
            identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
            if not isinstance(identifier, str) or identifier not in ids:
                return None, f"batchItemFailures names {identifier!r}, no message of the batch"
            failed.add(identifier)
        return failed, None
