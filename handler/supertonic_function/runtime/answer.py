"""What a handler returns to have its answer streamed: a prelude and the body as it is made."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

HTTP_INTEGRATION_RESPONSE = "application/vnd.awslambda.http-integration-response"
OCTET_STREAM = "application/octet-stream"


@dataclass
class StreamedAnswer:
    """A response the runtime loop posts in streaming mode, piece by piece as ``body`` yields them.

    ``prelude``: for a function URL, ``{"statusCode", "headers", "cookies"}``, sent first as the
    ``application/vnd.awslambda.http-integration-response`` JSON, then eight NUL bytes, then the
    raw body (no base64). None: the body alone (``application/octet-stream``).
    ``body``: raw bytes; an exception it raises after the first byte ends the stream with the
    error trailers (``Lambda-Runtime-Function-Error-Type``/``-Body``). When the loop cannot write
    (the client went away), it closes ``body`` (``GeneratorExit`` inside a generator), so the
    work behind it stops at once.
    """

    prelude: Mapping[str, Any] | None
    body: Iterator[bytes]
    content_type: str = field(default=HTTP_INTEGRATION_RESPONSE)

    @property
    def media_type(self) -> str:
        """The response's Content-Type: ``content_type``, except that a body without a prelude is not
        the integration response format, so it goes as plain bytes unless a type was chosen."""
        if self.prelude is None and self.content_type == HTTP_INTEGRATION_RESPONSE:
            return OCTET_STREAM
        return self.content_type

    def close(self) -> None:
        close = getattr(self.body, "close", None)
        if close is not None:
            close()
