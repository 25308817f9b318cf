"""Content negotiation: which of the media types a route offers an ``Accept`` header prefers.

``Accept`` is weighed by its q-values (RFC 9110 §12.4.2, §12.5.1); on a tie the offered type it
names more exactly wins, then the first offered. One that excludes everything offered is a 406.
A request that names no audio format gets the audio type ``Accept`` prefers (``audio/mpeg`` is mp3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from supertonic_engine import audio_format, available_formats

from .errors import NotAcceptable

JSON_TYPE = "application/json"
# Audio is bytes too: OpenAI's SDK asks for speech with ``Accept: application/octet-stream``.
BINARY_TYPE = "application/octet-stream"
# One media range of an Accept header and its weight.
_MEDIA_RANGE = re.compile(r"\s*([\w.+*-]+/[\w.+*-]+)\s*((?:;[^;]*)*)")
_QVALUE = re.compile(r";\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*(?:;|$)", re.IGNORECASE)


def negotiate(accept: str, offered: Sequence[str]) -> str:
    """The offered media type ``accept`` weighs highest; on a tie the one it names more exactly,
    then the first offered (no ``Accept``: the first). ``NotAcceptable`` when it excludes them all."""
    accept = accept.strip()
    if not accept:
        return offered[0]
    ranges = accept_ranges(accept)
    best = max(offered, key=lambda media: acceptance(media, ranges))
    if acceptance(best, ranges)[0] <= 0:
        raise NotAcceptable(accept, offered)
    return best


def prefers_html(accept: str) -> bool:
    """A browser's address bar names ``text/html`` (weighed as ``negotiate`` weighs it: ``q=0.0``
    excludes it too); curl's ``*/*`` does not."""
    q, exactness = acceptance("text/html", accept_ranges(accept))
    return q > 0 and exactness == 2


def audio_format_for(accept: str, default: str) -> str:
    """The format of the audio type ``accept`` prefers, for a request that names no format. On a
    tie the default wins, then JSON (``*/*``, ``audio/*``, OpenAI's ``application/octet-stream``
    keep the default): another format only when ``accept`` names it above them."""
    usable = available_formats()
    if default not in usable:  # the engine's check says so, naming the field
        return default
    by_media: dict[str, str] = {}
    for name in [default, *usable]:  # the first format of a media type keeps it (audio/ogg: Vorbis)
        by_media.setdefault(audio_format(name).content_type.split(";")[0], name)
    default_media, *other_media = by_media
    try:
        return by_media.get(negotiate(accept, [default_media, JSON_TYPE, *other_media]), default)
    except NotAcceptable:  # said after the request's own checks, as for a named format
        return default


def accept_ranges(accept: str) -> list[tuple[str, float]]:
    """``(media range, q)`` for each well-formed range of an Accept header; the rest are ignored."""
    ranges = []
    for part in accept.split(","):
        found = _MEDIA_RANGE.fullmatch(part)
        if found is None:
            continue
        weight = _QVALUE.search(found.group(2))
        ranges.append((found.group(1).lower(), float(weight.group(1)) if weight else 1.0))
    return ranges


def acceptance(media: str, ranges: Sequence[tuple[str, float]]) -> tuple[float, int]:
    """``(q, exactness)`` of ``media`` under the most specific range that matches it (``q`` 0: excluded)."""
    weights = dict(ranges)
    kind = media.split("/")[0]
    best = next(
        ((weights[name], exactness) for exactness, name in ((2, media), (1, f"{kind}/*"), (0, "*/*")) if name in weights), (0.0, -1)
    )
    if kind == "audio" and BINARY_TYPE in weights:
        best = max(best, (weights[BINARY_TYPE], 2))
    return best
