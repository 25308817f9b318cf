"""Small Lambda handlers the harness tests run under RIE: each one exercises one outcome.

They are imported by ``python -m awslambdaric sample_functions.<name>`` with this directory as the
task root, exactly as the real handler is.
"""

from __future__ import annotations

import base64
import io
import json
import os
import time

# numpy and soundfile are imported where they are used: a light init keeps cold starts short,
# so tests can use timeouts of a second or two without the init eating them.
SAMPLE_RATE = 16_000
# A slow init on demand, to see whether it is counted against the first invoke's timeout.
time.sleep(float(os.environ.get("SAMPLE_INIT_SECONDS", "0")))


def echo(event, context):
    """Returns the event and what the runtime saw of its environment."""
    return {
        "event": event,
        "pid": os.getpid(),
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "function_name": context.function_name,
        "environment": {k: v for k, v in os.environ.items() if k.startswith(("SAMPLE_", "AWS_ENDPOINT"))},
    }


def remaining(event, context):
    """How much of its timeout the invocation had left when the handler started."""
    return {"remaining_ms": context.get_remaining_time_in_millis(), "pid": os.getpid()}


def fail(event, context):
    raise ValueError("the sample function failed on purpose")


def sleep(event, context):
    time.sleep(float(event.get("seconds", 30)))
    return {"slept": event.get("seconds", 30), "pid": os.getpid()}


def allocate(event, context):
    """Allocates and touches ``mb`` MiB, so the pages really count against the memory limit."""
    import numpy as np

    block = np.ones(int(event["mb"]) * 1024 * 1024, dtype=np.uint8)
    return {"allocated_mb": int(block.size / 1024 / 1024), "pid": os.getpid()}


def oversized(event, context):
    """A response past Lambda's 6 MB synchronous payload limit."""
    return "x" * int(event.get("bytes", 7_000_000))


def _tone_wav(seconds: float) -> bytes:
    import numpy as np
    import soundfile as sf

    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    buffer = io.BytesIO()
    sf.write(buffer, (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), SAMPLE_RATE, format="WAV")
    return buffer.getvalue()


def url_tone(event, context):
    """A function-URL handler: POST {"seconds": s} answers a WAV tone, /crash raises, anything else 400."""
    if event["rawPath"] == "/crash":
        raise RuntimeError("crashed on request")
    if event["rawPath"] == "/surrogate":  # a body no HTTP response can carry: UTF-8 cannot encode it
        return {"statusCode": 200, "headers": {"content-type": "text/plain"}, "body": "\udfff"}
    if event["rawPath"] == "/length":  # a HEAD answer: the length of what GET would send, no body
        return {"statusCode": 200, "headers": {"content-type": "audio/wav", "content-length": "1234"}, "body": ""}
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    try:
        seconds = float(json.loads(body)["seconds"])
    except (ValueError, KeyError, TypeError):
        return {
            "statusCode": 400,
            "headers": {"content-type": "application/json"},
            "body": json.dumps({"error": 'send {"seconds": <number>}', "got": event}),
        }
    return {
        "statusCode": 200,
        "headers": {"content-type": "audio/wav", "x-sample-path": event["rawPath"]},
        "cookies": ["sample=1"],
        "isBase64Encoded": True,
        "body": base64.b64encode(_tone_wav(seconds)).decode(),
    }


def s3_tone(event, context):
    """An S3-triggered handler: each uploaded text becomes a tone (one second per word) and a manifest."""
    from urllib.parse import unquote_plus

    import boto3

    s3 = boto3.client("s3")
    out_bucket = os.environ["SAMPLE_OUTPUT_BUCKET"]
    written = []
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = unquote_plus(record["s3"]["object"]["key"])
        text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
        stem = key.rsplit(".", 1)[0]
        audio_key = f"audio/{stem}.wav"
        s3.put_object(Bucket=out_bucket, Key=audio_key, Body=_tone_wav(len(text.split())), ContentType="audio/wav")
        s3.put_object(
            Bucket=out_bucket,
            Key=f"audio/{stem}.json",
            ContentType="application/json",
            Body=json.dumps({"source": f"s3://{bucket}/{key}", "audio": audio_key}),
        )
        written.append(audio_key)
    return {"written": written}


def by_action(event, context):
    """One handler for a whole replay: ``{"action": "tone" | "sleep" | "allocate" | "fail" | "oversized" | "respond", ...}``;
    ``respond`` returns the event's ``response`` as it is."""
    action = event["action"]
    if action == "respond":
        return event["response"]
    if action == "tone":
        return {
            "statusCode": 200,
            "headers": {"content-type": "audio/wav"},
            "isBase64Encoded": True,
            "body": base64.b64encode(_tone_wav(float(event["seconds"]))).decode(),
        }
    return {"sleep": sleep, "allocate": allocate, "fail": fail, "oversized": oversized}[action](event, context)


def sqs_partial(event, context):
    """An SQS batch handler that fails the messages whose body is "fail", as a partial batch response."""
    failed = [{"itemIdentifier": r["messageId"]} for r in event["Records"] if r["body"] == "fail"]
    return {"batchItemFailures": failed}


def sqs_slow_first(event, context):
    """Runs past its timeout on a message's first receive, succeeds on the next: a timed-out part."""
    if any(r["attributes"]["ApproximateReceiveCount"] == "1" for r in event["Records"]):
        time.sleep(60)
    return {"batchItemFailures": []}


def sqs_busy(event, context):
    """Sleeps the seconds in each body; says when it ran, to see how many ran at once."""
    started = time.time()
    time.sleep(sum(float(r["body"]) for r in event["Records"]))
    return {"started": started, "ended": time.time(), "pid": os.getpid()}


def sqs_wrong_id(event, context):
    """A partial batch response naming a message that is not in the batch."""
    return {"batchItemFailures": [{"itemIdentifier": "not-a-message-of-this-batch"}]}


def sqs_fan_out(event, context):
    """Sends ``{"fan_out": n}`` messages (3 for an S3 upload) to the queue the template names
    (``SAMPLE_QUEUE_URL``); an SQS batch of them is done at once: a job's planner and part workers
    in miniature."""
    records = event.get("Records") or [{}]
    if records[0].get("eventSource") == "aws:sqs":
        return {"batchItemFailures": []}
    import boto3

    queue = boto3.client("sqs", region_name=os.environ.get("AWS_REGION", "us-east-1"))
    parts = 3 if records[0].get("eventSource") == "aws:s3" else int(event["fan_out"])
    for part in range(parts):
        queue.send_message(QueueUrl=os.environ["SAMPLE_QUEUE_URL"], MessageBody=json.dumps({"part": part}))
    return {"sent": parts}


def url_stream(event, context):
    """A function-URL handler that streams: ``{"pieces": n}`` answers n pieces of 1,000 bytes, piece i all
    byte i (the first is NUL bytes: the body after the prelude is raw, not text)."""
    from supertonic_function.runtime import StreamedAnswer

    pieces = int(json.loads(event.get("body") or "{}").get("pieces", 3))
    prelude = {
        "statusCode": 200,
        "headers": {"content-type": "application/octet-stream", "x-sample-path": event["rawPath"]},
        "cookies": ["sample=1"],
    }
    return StreamedAnswer(prelude, (bytes([i % 256]) * 1000 for i in range(pieces)))


def stream_pieces(event, context):
    """A function-URL handler whose answer is streamed: piece 1, then piece 2 only once the file the
    event names exists, so a test can prove its client saw piece 1 before piece 2 was made."""
    from pathlib import Path

    from supertonic_function.runtime import StreamedAnswer

    signal = Path(json.loads(event.get("body") or "{}")["signal"])

    def body():
        yield b"piece 1;"
        while not signal.exists():
            time.sleep(0.01)
        yield b"piece 2."

    return StreamedAnswer(
        {"statusCode": 201, "headers": {"content-type": "text/plain", "x-sample": "streamed"}, "cookies": ["a=1"]}, body()
    )
