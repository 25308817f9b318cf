"""Where things live in the buckets, derived from the configuration alone.

    s3://<input bucket>/<input prefix><name>.txt|.json          text dropped by a user or a client
    s3://<input bucket>/<input prefix>jobs/<job id>.json         a job stored by POST /v1/jobs
    s3://<results bucket>/<output prefix><name>.txt/<revision>/audio-<request id>.<ext>
    s3://<results bucket>/<output prefix><name>.txt/<revision>/manifest.json
    s3://<results bucket>/<output prefix>responses/<request id>.<ext>   audio too large to return inline

The result folder is named after the source key and its revision (version id, else ETag), so a
re-delivered event finds the manifest its first delivery wrote, and a changed object gets a new
folder. The audio is named after the invocation that made it: two deliveries of one event that
render at once never overwrite each other's audio, and the manifest names the one that won.
Suffixes are matched as written (``.txt``, not ``.TXT``), exactly as the S3 notification filter
matches them. Nothing is ever written under the input prefix of the input bucket except jobs,
which are meant to trigger the function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from .config import ENV_INPUT_BUCKET, ENV_OUTPUT_BUCKET, TEXT_SUFFIXES, FunctionConfig
from .errors import NotConfigured

JOB_ID = re.compile(r"^[0-9a-f]{32}$")
MANIFEST_NAME = "manifest.json"


class KeyKind(Enum):
    INPUT = "input"  # a text object or job to render
    OWN_OUTPUT = "own_output"  # something this function wrote: never render it (no loops)
    OTHER = "other"  # outside the configured input prefix/suffixes


@dataclass(frozen=True)
class ResultKeys:
    bucket: str
    folder: str

    @property
    def manifest(self) -> str:
        return self.folder + MANIFEST_NAME

    def audio(self, extension: str, request_id: str) -> str:
        """The audio of the delivery ``request_id``: its own key, so a concurrent one cannot overwrite it."""
        return f"{self.folder}audio-{request_id}.{extension}"


class Layout:
    def __init__(self, config: FunctionConfig) -> None:
        self.config = config

    def kind(self, bucket: str, key: str) -> KeyKind:
        c = self.config
        if bucket == c.results_bucket and key.startswith(c.output_prefix):
            return KeyKind.OWN_OUTPUT
        if c.input_bucket is not None and bucket != c.input_bucket:
            return KeyKind.OTHER
        if not key.startswith(c.input_prefix) or not key.endswith(TEXT_SUFFIXES):
            return KeyKind.OTHER
        return KeyKind.INPUT

    def result_keys(self, source_key: str, revision: str) -> ResultKeys:
        relative = source_key[len(self.config.input_prefix) :]
        bucket = self.config.results_bucket
        if bucket is None:
            raise NotConfigured(f"rendering text needs a results bucket: set {ENV_OUTPUT_BUCKET} or {ENV_INPUT_BUCKET}")
        return ResultKeys(bucket, f"{self.config.output_prefix}{relative}/{revision}/")

    def job_key(self, job_id: str) -> str:
        return f"{self.config.jobs_prefix}{job_id}.json"

    def response_key(self, request_id: str, extension: str) -> str:
        return f"{self.config.responses_prefix}{request_id}.{extension}"
