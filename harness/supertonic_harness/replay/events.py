"""Replay events: files or globs, each with what it is expected to do.

An event file is the JSON Lambda would deliver. Two optional keys starting with ``_`` are the
harness's own and are removed before the event is sent, so the function never sees them:

* ``_expect``: expectations, e.g. ``{"status": 200, "content_type": "audio/wav", "max_rtf": 0.5}``
  or ``{"outcome": "timeout"}``; a sidecar ``<name>.expect.json`` beside the event holds the same
  (the key wins where both say something). Without any, the invocation must succeed.
* ``_s3_object``: for an S3 event, what the uploaded object contains, ``{"text": "..."}`` or
  ``{"file": "relative/path.txt"}``; the harness stores it under the record's bucket and key first.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..function.outcome import Outcome

EXPECT_SUFFIX = ".expect.json"
HARNESS_KEYS = ("_expect", "_s3_object")


class EventError(ValueError):
    """An event file cannot be replayed as written; the message names the file and the fix."""


@dataclass(frozen=True)
class Expectation:
    outcome: Outcome = Outcome.SUCCESS
    status: int | None = None  # the HTTP status a function URL would answer
    content_type: str | None = None  # a prefix: "audio/wav" matches "audio/wav; rate=44100"
    max_rtf: float | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str) -> Expectation:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise EventError(f"{source}: unknown expectation(s) {sorted(unknown)}; use {sorted(known)}")
        values = dict(data)
        if "outcome" in values:
            try:
                values["outcome"] = Outcome(values["outcome"])
            except ValueError:
                choices = ", ".join(o.value for o in Outcome)
                raise EventError(f"{source}: outcome {values['outcome']!r} is not one of {choices}") from None
        return cls(**values)


@dataclass(frozen=True)
class S3Seed:
    """The object an S3 event refers to, to be stored before the event is sent."""

    bucket: str
    key: str
    body: bytes


@dataclass(frozen=True)
class ReplayEvent:
    name: str
    path: Path
    payload: dict[str, Any]
    expect: Expectation
    seed: S3Seed | None = None


def expand(patterns: Sequence[str]) -> list[Path]:
    """Event files named by files, directories (their ``*.json``) or globs, in order, each once."""
    found: list[Path] = []
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            matches = sorted(path.glob("*.json"))
        elif any(ch in pattern for ch in "*?["):
            matches = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
        elif path.is_file():
            matches = [path]
        else:
            raise EventError(f"{pattern}: no such event file, directory or glob match")
        found.extend(m for m in matches if not m.name.endswith(EXPECT_SUFFIX) and m not in found)
    if not found:
        raise EventError(f"no event files in {', '.join(patterns)}")
    return found


def load(path: Path) -> ReplayEvent:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise EventError(f"{path}: not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise EventError(f"{path}: an event must be a JSON object")
    expectations: dict[str, Any] = {}
    sidecar = path.with_name(path.name[: -len(path.suffix)] + EXPECT_SUFFIX)
    if sidecar.is_file():
        try:
            expectations.update(json.loads(sidecar.read_text(encoding="utf-8")))
        except ValueError as error:
            raise EventError(f"{sidecar}: not a JSON object ({error})") from None
    expectations.update(payload.pop("_expect", None) or {})
    seed_spec = payload.pop("_s3_object", None)
    return ReplayEvent(
        name=path.stem,
        path=path,
        payload=payload,
        expect=Expectation.from_dict(expectations, str(path)),
        seed=_seed(seed_spec, payload, path) if seed_spec is not None else None,
    )


def collect(patterns: Sequence[str]) -> list[ReplayEvent]:
    return [load(path) for path in expand(patterns)]


def _seed(spec: dict[str, Any], payload: dict[str, Any], path: Path) -> S3Seed:
    from urllib.parse import unquote_plus

    try:
        s3 = payload["Records"][0]["s3"]
        bucket, key = s3["bucket"]["name"], unquote_plus(s3["object"]["key"])
    except (KeyError, IndexError, TypeError):
        raise EventError(f"{path}: _s3_object needs an S3 event (Records[0].s3.bucket/object)") from None
    if "text" in spec:
        try:
            body = str(spec["text"]).encode("utf-8")
        except UnicodeEncodeError as error:
            raise EventError(
                f'{path}: _s3_object "text" holds {error.object[error.start]!r}, which UTF-8 cannot encode; '
                'bytes that are not UTF-8 go in a "file"'
            ) from None
    elif "file" in spec:
        body = (path.parent / spec["file"]).read_bytes()
    else:
        raise EventError(f'{path}: _s3_object needs "text" or "file"')
    return S3Seed(bucket, key, body)
