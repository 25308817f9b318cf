"""Fixtures for the function's tests: S3 over real HTTP (moto's server), the app, Lambda contexts.

A test module registers these fixtures with ``pytest_plugins = ["fixtures_s3"]`` (so the session
fixtures exist once, not once per importing module) and imports the helpers it needs. The module
holds no assertions, so pytest need not rewrite it: PYTEST_DONT_REWRITE (test modules import it
before pytest registers it as a plugin, which would otherwise warn).

- ``moto_endpoint``: moto's S3 server on 127.0.0.1 and a free port for the session, stopped at
  the end; ``AWS_ENDPOINT_URL_S3`` and dummy credentials point every boto3 client at it.
- ``s3``: a clean moto state with the template's two buckets, as a boto3 client.
- ``app``: ``supertonic_function.app`` imported once (its init phase) on the tiny stand-in model,
  configured with those buckets.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import importlib
import io
import json
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3
import pytest

from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.replay.events import ReplayEvent, collect, load

REPO = Path(__file__).resolve().parents[1]
EVENTS_DIR = REPO / "events"
REGION = "us-east-1"
# The names template.yaml gives the buckets in account 123456789012, us-east-1 (the events use them).
INPUT_BUCKET = "supertonic-input-123456789012-us-east-1"
OUTPUT_BUCKET = "supertonic-output-123456789012-us-east-1"
FUNCTION_ENV = {
    "SUPERTONIC_INPUT_BUCKET": INPUT_BUCKET,
    "SUPERTONIC_INPUT_PREFIX": "input/",
    "SUPERTONIC_OUTPUT_BUCKET": OUTPUT_BUCKET,
    "SUPERTONIC_OUTPUT_PREFIX": "output/",
}


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    # moto's own server in a thread of this process: real HTTP on 127.0.0.1, no child process
    # left running beside tests that inspect their own process tree, stopped cleanly at the end.
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("AWS_ENDPOINT_URL_S3", url)
            env.setenv("AWS_ACCESS_KEY_ID", "testing")
            env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
            env.delenv("AWS_SESSION_TOKEN", raising=False)
            env.delenv("AWS_PROFILE", raising=False)
            env.setenv("AWS_DEFAULT_REGION", REGION)
            env.setenv("AWS_REGION", REGION)
            yield url
    finally:
        server.stop()


@pytest.fixture
def s3(moto_endpoint: str) -> Any:
    """A boto3 S3 client on a freshly reset moto with the input and output buckets."""
    urllib.request.urlopen(urllib.request.Request(f"{moto_endpoint}/moto-api/reset", method="POST")).close()
    client = boto3.client("s3", region_name=REGION)
    for bucket in (INPUT_BUCKET, OUTPUT_BUCKET):
        client.create_bucket(Bucket=bucket)
    return client


@pytest.fixture(scope="session")
def app(moto_endpoint: str, tiny_model_dir: Path) -> Any:
    """The handler module after its init phase, on the tiny stand-in, with the template's buckets."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SUPERTONIC_MODEL_DIR", str(tiny_model_dir))
        for name, value in FUNCTION_ENV.items():
            env.setenv(name, value)
        module = importlib.import_module("supertonic_function.app")
    return module


@pytest.fixture
def counted_chunks(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The index of every chunk the app's engine synthesizes, in order, as it happens (whole answer or stream)."""
    engine = app.service.engine
    made: list[int] = []
    original = engine.stream

    def stream(*args: Any, **kwargs: Any) -> Any:
        for chunk in original(*args, **kwargs):
            made.append(chunk.timing.index)
            yield chunk

    monkeypatch.setattr(engine, "stream", stream)
    return made


@pytest.fixture
def configure(app: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """Swap the app's configuration for one test, keeping its loaded engine: ``configure(**FunctionConfig fields)``."""
    from supertonic_function.config import FunctionConfig
    from supertonic_function.service import Service

    def apply(**overrides: Any) -> Service:
        base = {"input_bucket": INPUT_BUCKET, "output_bucket": OUTPUT_BUCKET, "warm_up": False}
        service = Service(FunctionConfig(**{**base, **overrides}), app.service.engine_or_error)
        monkeypatch.setattr(app, "service", service)
        return service

    return apply


@pytest.fixture
def json_logs(app: Any) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """A function returning the function's JSON log lines written so far in the test, parsed."""
    from supertonic_function.telemetry import logger

    handler = logger.registered_handler
    stream = io.StringIO()
    previous = handler.setStream(stream)  # type: ignore[attr-defined]
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    finally:
        handler.setStream(previous)  # type: ignore[attr-defined]


@dataclass
class LambdaContext:
    """The attributes of awslambdaric's context object that the function and Powertools read."""

    remaining_ms: int = 60_000
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_name: str = "supertonic-tts"
    function_version: str = "$LATEST"
    memory_limit_in_mb: str = "2048"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:supertonic-tts"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


# --- events ------------------------------------------------------------------------------------------


# A job long enough to be rendered in parts under the ``queues`` fixture's threshold.
LONG_JOB = {
    "text": " ".join(f"Sentence number {n} of a long text is read here." for n in range(1, 31)),
    "voice": "M1",
    "steps": 1,
    "seed": 5,
    "format": "wav",
}


@pytest.fixture
def queues(moto_endpoint: str, s3: Any, app: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The parts queue and its dead-letter queue on moto, and the function configured to fan out
    (a job of 200 characters or more is rendered in parts)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_SQS", moto_endpoint)
    sqs = boto3.client("sqs", region_name=REGION)
    dlq = sqs.create_queue(QueueName="parts-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    parts = sqs.create_queue(QueueName="parts")["QueueUrl"]
    parts_arn = sqs.get_queue_attributes(QueueUrl=parts, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    service = app.service
    config = dataclasses.replace(
        service.config, parts_queue_url=parts, parts_dlq_arn=dlq_arn, fanout_min_chars=200, function_timeout_s=60.0
    )
    monkeypatch.setattr(service, "config", config)
    service.__dict__.pop("queue_client", None)
    service.__dict__.pop("layout", None)
    return {"parts": parts, "parts_arn": parts_arn, "dlq": dlq, "dlq_arn": dlq_arn}


def drop_job(app: Any, s3: Any, job: dict[str, Any] = LONG_JOB, key: str = "input/long.json") -> dict[str, Any]:
    """Store ``job`` under ``key`` in the input bucket and deliver its S3 event to the function."""
    body = json.dumps(job).encode()
    reply = s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=body)
    event = s3_put_event(INPUT_BUCKET, key, len(body), reply["ETag"])
    return app.lambda_handler(event, LambdaContext())


def receive_all(queue_url: str) -> list[dict[str, Any]]:
    """Every message on the queue now, deleted from it: the test delivers them as it likes."""
    sqs = boto3.client("sqs", region_name=REGION)
    messages: list[dict[str, Any]] = []
    while True:
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], VisibilityTimeout=0).get(
            "Messages", []
        )
        if not got:
            return messages
        for message in got:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        messages.extend(got)


def sample_events() -> list[ReplayEvent]:
    """Every event in ``events/`` with its expectations, read as the harness's replay reads them."""
    return collect([str(EVENTS_DIR)])


def load_event(name_or_path: str | Path, s3_client: Any | None = None) -> dict[str, Any]:
    """An event from ``events/`` as the function gets it (see ``seeded``)."""
    path = Path(name_or_path) if isinstance(name_or_path, Path) else EVENTS_DIR / f"{name_or_path}.json"
    return seeded(load(path), s3_client)


def seeded(event: ReplayEvent, s3_client: Any | None = None) -> dict[str, Any]:
    """The event's payload; with ``s3_client``, the object it names is stored first and the record's size and eTag made real."""
    payload = copy.deepcopy(event.payload)
    if event.seed is not None and s3_client is not None:
        reply = s3_client.put_object(Bucket=event.seed.bucket, Key=event.seed.key, Body=event.seed.body)
        payload["Records"][0]["s3"]["object"].update(size=len(event.seed.body), eTag=reply["ETag"].strip('"'))
    return payload


@dataclass(frozen=True)
class HttpAnswer:
    """A handler result read the way a function URL turns it into HTTP."""

    status: int
    headers: dict[str, str]
    body: bytes

    @classmethod
    def of(cls, result: Any) -> HttpAnswer:
        if isinstance(result, dict) and "statusCode" in result:
            raw = result.get("body") or ""
            body = base64.b64decode(raw) if result.get("isBase64Encoded") else raw.encode("utf-8")
            return cls(result["statusCode"], {k.lower(): v for k, v in result.get("headers", {}).items()}, body)
        # Anything else is a 200 JSON document (what a function URL does with a plain result).
        return cls(200, {"content-type": "application/json"}, json.dumps(result).encode("utf-8"))

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        return json.loads(self.body)


def audio_info(data: bytes) -> Any:
    """Sample rate, frames and duration read from the encoded bytes themselves."""
    import soundfile

    return soundfile.info(io.BytesIO(data))


def fetch(url: str) -> bytes:
    """GET a (presigned) URL over real HTTP."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def disposition_of(url: str) -> str | None:
    """The Content-Disposition a GET of a (presigned) URL is answered with over real HTTP, None without one."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.headers.get("content-disposition")


def asked_disposition(url: str) -> list[str]:
    """The ``response-content-disposition`` a presigned URL asks S3 for, as signed into its query."""
    return parse_qs(urlparse(url).query).get("response-content-disposition", [])
