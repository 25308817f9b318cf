"""S3 for the local function: moto's server on loopback, the template's buckets, uploads as S3 events.

The function reaches it the way it reaches S3 on Lambda, through boto3, pointed at the local
endpoint by ``AWS_ENDPOINT_URL_S3`` (read by boto3 >= 1.28) with dummy credentials.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

from ..function.rie import LOOPBACK

DUMMY_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",  # moto's dummy key, not a secret  # nosec B105
    # RIE passes an empty token on when none is set; botocore would then sign with it.
    "AWS_SESSION_TOKEN": "testing",  # moto's dummy token  # nosec B105
}


def s3_put_event(bucket: str, key: str, size: int, etag: str, *, region: str = "us-east-1") -> dict[str, Any]:
    """The notification S3 sends for one ``ObjectCreated:Put`` (key URL-encoded as S3 does: ' ' -> '+')."""
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": region,
                "eventTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                "eventName": "ObjectCreated:Put",
                "userIdentity": {"principalId": "AWS:LOCAL"},
                "requestParameters": {"sourceIPAddress": LOOPBACK},
                "responseElements": {"x-amz-request-id": "LOCAL", "x-amz-id-2": "LOCAL"},
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "configurationId": "local",
                    "bucket": {
                        "name": bucket,
                        "ownerIdentity": {"principalId": "LOCAL"},
                        "arn": f"arn:aws:s3:::{bucket}",
                    },
                    "object": {
                        "key": quote_plus(key, safe="/"),
                        "size": size,
                        "eTag": etag.strip('"'),
                        "sequencer": f"{time.time_ns():X}",
                    },
                },
            }
        ]
    }


@dataclass(frozen=True)
class StoredObject:
    bucket: str
    key: str
    content_type: str
    body: bytes


class LocalS3:
    """moto's S3 server on a free loopback port, in this process (not inside the function's limits)."""

    def __init__(self, region: str = "us-east-1") -> None:
        from moto.server import ThreadedMotoServer

        # werkzeug logs every request line to stderr; the harness prints its own summary instead.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.region = region
        self._server = ThreadedMotoServer(ip_address=LOOPBACK, port=0, verbose=False)
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        self.client = self._make_client()

    def _make_client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=DUMMY_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=DUMMY_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def function_environment(self, via: str | None = None) -> dict[str, str]:
        """What the function's environment needs to use this S3 instead of AWS's (``via`` a proxy in front of it)."""
        return {"AWS_ENDPOINT_URL_S3": via or self.endpoint_url, **DUMMY_CREDENTIALS}

    def create_buckets(self, names: Iterable[str]) -> None:
        existing = {b["Name"] for b in self.client.list_buckets().get("Buckets", [])}
        for name in names:
            if name in existing:
                continue
            if self.region == "us-east-1":
                self.client.create_bucket(Bucket=name)
            else:
                self.client.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": self.region})

    def put(self, bucket: str, key: str, body: bytes, content_type: str = "text/plain; charset=utf-8") -> dict[str, Any]:
        """Store an object and return the S3 event its upload produces."""
        answer = self.client.put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type)
        return s3_put_event(bucket, key, len(body), answer["ETag"], region=self.region)

    def upload_file(self, path: Path, bucket: str, key: str | None = None) -> dict[str, Any]:
        """Upload a local text file (key defaults to its name) and return the matching S3 event."""
        return self.put(bucket, key or Path(path).name, Path(path).read_bytes())

    def keys(self, buckets: Iterable[str] | None = None) -> set[tuple[str, str, str]]:
        """(bucket, key, etag) of every object now stored (in ``buckets``, default all): compare two
        calls to see what was written."""
        if buckets is None:
            buckets = [b["Name"] for b in self.client.list_buckets().get("Buckets", [])]
        found: set[tuple[str, str, str]] = set()
        for bucket in buckets:
            paginator = self.client.get_paginator("list_objects_v2")
            for page in paginator.paginate(Bucket=bucket):
                found.update((bucket, o["Key"], o["ETag"]) for o in page.get("Contents", []))
        return found

    def fetch(self, bucket: str, key: str) -> StoredObject:
        answer = self.client.get_object(Bucket=bucket, Key=key)
        return StoredObject(bucket, key, answer.get("ContentType", ""), answer["Body"].read())

    def written_since(self, before: set[tuple[str, str, str]]) -> list[StoredObject]:
        """Objects created or replaced since ``before = self.keys()``, sorted by bucket and key."""
        return [self.fetch(bucket, key) for bucket, key, _ in sorted(self.keys() - before)]

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> LocalS3:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
