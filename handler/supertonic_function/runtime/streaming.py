"""A ``StreamedAnswer`` onto the wire: prelude, eight NUL bytes, the body piece by piece, and how it ended.

Framing per "Implementing response streaming in a custom runtime" (lambda/latest/dg/runtimes-custom.html)
and AWS's Node client (aws-lambda-nodejs-runtime-interface-client src/HttpResponseStream.js): the
function URL prelude is JSON, then eight NUL bytes, then the raw body. Once the response has started,
``/error`` is no longer allowed: a failure goes in the two error trailers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from .answer import StreamedAnswer
from .api import ERROR_BODY_HEADER, ERROR_TYPE_HEADER, ResponseStream, RuntimeApi, StreamBroken
from .failures import MARSHAL_ERROR, RuntimeFault, stream_error_body, stream_error_type

PRELUDE_END = b"\0" * 8


@dataclass(frozen=True)
class StreamReport:
    """How one streamed answer went: ``outcome`` is ``complete``, ``error`` (trailers sent) or ``disconnected``."""

    request_id: str
    body_bytes: int
    seconds: float
    outcome: str
    error_type: str | None = None
    error_message: str | None = None


def prelude_bytes(answer: StreamedAnswer) -> bytes:
    """The first chunk: the prelude's JSON and the eight NUL bytes that end it; nothing without a prelude."""
    if answer.prelude is None:
        return b""
    # No NUL byte may appear in the prelude: json.dumps escapes every control character (NUL as \u0000).
    return json.dumps(answer.prelude).encode() + PRELUDE_END


def stream_answer(api: RuntimeApi, request_id: str, answer: StreamedAnswer) -> StreamReport:
    """Posts ``answer`` as it is made. A cut connection closes the answer (its work stops) and is reported, not raised.

    A prelude that is not JSON raises ``RuntimeFault`` (``Runtime.MarshalError``) before anything is posted.
    """
    started = time.perf_counter()
    sent = 0
    try:
        first = prelude_bytes(answer)
    except (TypeError, ValueError) as exc:
        answer.close()
        raise RuntimeFault(MARSHAL_ERROR, f"Unable to marshal the streamed answer's prelude: {exc}") from exc
    stream: ResponseStream | None = None
    try:
        stream = api.open_stream(request_id, answer.media_type)
        stream.write(first)
        try:
            for piece in answer.body:
                stream.write(piece)
                sent += len(piece)
        except StreamBroken:
            raise
        except Exception as exc:  # the body's own failure, after the response started: trailers, not /error
            error_type = stream_error_type(exc)
            stream.finish({ERROR_TYPE_HEADER: error_type, ERROR_BODY_HEADER: stream_error_body(exc)})
            return StreamReport(request_id, sent, time.perf_counter() - started, "error", error_type, str(exc))
        stream.finish()
    except StreamBroken as exc:
        answer.close()
        if stream is not None:
            stream.close()
        return StreamReport(request_id, sent, time.perf_counter() - started, "disconnected", error_message=str(exc))
    return StreamReport(request_id, sent, time.perf_counter() - started, "complete")
