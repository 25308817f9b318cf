"""Where things live in the buckets, derived from the configuration alone.

    s3://<input bucket>/<input prefix><name>.txt|.json          text dropped by a user or a client
    s3://<input bucket>/<input prefix>jobs/<job id>.json         a job stored by POST /v1/jobs
    s3://<results bucket>/<output prefix>results/<name>.txt/<revision>[-<options>]/audio-<request id>.<ext>
    s3://<results bucket>/<output prefix>results/<name>.txt/<revision>[-<options>]/manifest.json
    s3://<results bucket>/<output prefix>results/<name>.epub/<revision>/chapters/0001/audio-<request id>.<ext>
    s3://<results bucket>/<output prefix>responses/<request id>.<ext>   audio too large to return inline

The result folder is named after what decides the result: the source key, its revision (version
id, else ETag: the bytes) and, when the object's metadata sets options, a digest of them (an
ETag ignores metadata, so the same text uploaded again with another voice is another result). A
re-delivered event finds the manifest its first delivery wrote; a changed object or changed
options get a new folder. The audio is named after the invocation that made it: two deliveries
of one event that render at once never overwrite each other's audio, and the manifest names the
one that won. Results and parked responses are sibling folders, so the retention rule of one
never matches the other, whatever folders the input has. S3 keys end at 1,024 bytes: a name too
long for that is cut and followed by a hash of the whole name, so the folder stays unique and
every delivery derives the same one. Suffixes are matched as written (``.txt``, not ``.TXT``),
exactly as the S3 notification filter matches them. Nothing is ever written under the input
prefix of the input bucket except jobs, which are meant to trigger the function.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from .config import ENV_INPUT_BUCKET, ENV_OUTPUT_BUCKET, TEXT_SUFFIXES, FunctionConfig
from .errors import NotConfigured

JOB_ID = re.compile(r"^[0-9a-f]{32}$")
MANIFEST_NAME = "manifest.json"
# https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html: at most 1,024 bytes of UTF-8.
MAX_KEY_BYTES = 1024
# Room kept after a result folder for the longest name in it: a chapter's audio, "chapters/0001/"
# + "audio-" + a request id (a UUID, 36 characters, in Lambda and the emulator) + "." + an extension.
LEAF_BYTES = 64
DIGEST_CHARS = 16


class KeyKind(Enum):
    INPUT = "input"  # a text object or job to render
    OWN_OUTPUT = "own_output"  # something this function wrote: never render it (no loops)
    OTHER = "other"  # outside the configured input prefix/suffixes


def revision(version_id: str | None, etag: str | None) -> str | None:
    """The identity of an object's exact content, which names its result folder: the version id
    when the bucket keeps versions, else the ETag."""
    return version_id or etag


@dataclass(frozen=True)
class ResultKeys:
    bucket: str
    folder: str

    @property
    def manifest(self) -> str:
        return self.folder + MANIFEST_NAME

    # A job rendered in parts (fanout.py) keeps its plan, parts and assembly claim in its folder too.
    @property
    def plan(self) -> str:
        return self.folder + "plan.json"

    @property
    def chunks(self) -> str:
        """The job's chunks as the model reads them, one after another (the plan holds where each begins)."""
        return self.folder + "chunks.txt"

    @property
    def dispatched(self) -> str:
        return self.folder + "dispatched.json"

    @property
    def claim(self) -> str:
        return self.folder + "assembly.json"

    @property
    def parts_prefix(self) -> str:
        return self.folder + "parts/"

    def part(self, index: int) -> str:
        return f"{self.parts_prefix}{index:06d}.f32"

    def encoded_part(self, index: int) -> str:
        """A part already encoded in the job's format, to be joined by copying its bytes."""
        return f"{self.parts_prefix}{index:06d}.enc"

    def encoded_chapter_part(self, index: int) -> str:
        """The same part encoded at its place in its chapter's file (a book's), joined into that file."""
        return f"{self.parts_prefix}{index:06d}.chapter"

    def part_error(self, index: int) -> str:
        return f"{self.parts_prefix}{index:06d}.error.json"

    def audio(self, extension: str, request_id: str) -> str:
        """The audio of the delivery ``request_id``: its own key, so a concurrent one cannot overwrite it."""
        return _audio_key(self.folder, extension, request_id)

    # A book's chapters each have a folder of their own: their audio and sidecars, numbered from 1.
    def chapter_folder(self, number: int) -> str:
        return f"{self.folder}chapters/{number + 1:04d}/"

    def chapter_audio(self, number: int, extension: str, request_id: str) -> str:
        return _audio_key(self.chapter_folder(number), extension, request_id)


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

    def result_keys(self, source_key: str, revision: str, options: Mapping[str, str] | None = None) -> ResultKeys:
        """The result folder of ``source_key`` at ``revision`` rendered with ``options`` (the
        option fields its metadata sets, as strings; none for a job, whose options are its bytes)."""
        bucket = self.config.results_bucket
        if bucket is None:
            raise NotConfigured(f"rendering text needs a results bucket: set {ENV_OUTPUT_BUCKET} or {ENV_INPUT_BUCKET}")
        identity = revision
        if options:
            identity += "-" + _digest(json.dumps(sorted(options.items()), ensure_ascii=False))
        prefix, relative = self.config.results_prefix, source_key[len(self.config.input_prefix) :]
        room = MAX_KEY_BYTES - LEAF_BYTES - len(f"{prefix}/{identity}/".encode())
        return ResultKeys(bucket, f"{prefix}{_fit(relative, room)}/{identity}/")

    def job_key(self, job_id: str) -> str:
        return f"{self.config.jobs_prefix}{job_id}.json"

    def response_key(self, request_id: str, extension: str) -> str:
        return f"{self.config.responses_prefix}{request_id}.{extension}"


def _audio_key(folder: str, extension: str, request_id: str) -> str:
    key = f"{folder}audio-{request_id}.{extension}"
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:  # a request id far longer than Lambda's
        key = f"{folder}audio-{_digest(request_id)}.{extension}"
    return key


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]


def _fit(name: str, room: int) -> str:
    """``name`` if it takes at most ``room`` bytes, else its start, cut at a character, and a hash
    of all of it: unique per name, the same for every delivery, and still readable."""
    if len(name.encode("utf-8")) <= room:
        return name
    tail = "~" + _digest(name)
    head = name.encode("utf-8")[: max(0, room - len(tail))].decode("utf-8", "ignore")
    return head + tail
