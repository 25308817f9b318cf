"""A Lambda function URL in front of the emulator: HTTP request -> payload 2.0 event -> HTTP response.

The event has the shape Lambda sends for function URLs (``version`` "2.0", lowercase header names,
cookies split out, duplicate query parameters comma-joined, a base64 body unless the content type
is text). The handler's answer becomes HTTP the way Lambda does it: ``statusCode``/``headers``/
``cookies``/``body`` (base64-decoded when ``isBase64Encoded``); any other JSON value is a 200
``application/json`` body; a failed invocation is a 502, and so is an answer no HTTP response can
carry (a status out of range, a header with a line break, a body UTF-8 cannot encode), with the
reason in ``HttpResponse.problem`` for the emulator's log and replay's report.

The emulator's front (``FunctionUrlServer``) reads request bodies with ``read_body`` on the standard
library's ``http.server`` rather than with werkzeug's server (``werkzeug.serving``, 3.1): that server
sends ``Connection: close`` on every response, so a keep-alive connection never serves a second
request; its ``DechunkedInput`` fails with ``OSError`` on a chunk extension (``a;name=value``) and
on a trailer field instead of reading past them; and it reads ``gzip, chunked`` as plain chunked.
Streaming needs no werkzeug either: under ``HTTP/1.1`` the handler can write each piece of an answer
to ``wfile`` as a chunk as it arrives.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl

# The chunk reader is the Runtime API proxy's; its line limit is re-exported for the front's tests.
from ..function.runtime_proxy import MAX_CHUNK_LINE as MAX_CHUNK_LINE
from ..function.runtime_proxy import BadChunking, ByteStream, read_chunks

URL_ID = "supertoniclocal"
INTEGRATION_RESPONSE_TYPE = "application/vnd.awslambda.http-integration-response"
PRELUDE_END = b"\0" * 8
ACCOUNT_ID = "123456789012"
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript")
# RFC 9110 §5.1 field names (tokens) and §5.5 values: visible Latin-1 text, spaces and tabs, no line breaks.
_FIELD_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


def is_text(content_type: str | None) -> bool:
    """Whether a function URL passes a body of this type as text rather than base64."""
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml"))


class UnreadableBody(ValueError):
    """A request whose body cannot be delimited: the connection cannot be read past it."""


def read_body(stream: ByteStream, transfer_encoding: str | None, content_length: str | None) -> bytes:
    """The request body as RFC 9112 §6.3 delimits it: the chunked transfer coding (``curl -T -``,
    a streaming client; it wins over a ``content-length``), else ``content-length`` bytes, else
    none. Read exactly to its end, so a keep-alive connection's next request starts where it should."""
    if transfer_encoding is not None:
        codings = [coding.strip().lower() for coding in transfer_encoding.split(",") if coding.strip()]
        if codings != ["chunked"]:
            raise UnreadableBody(f"transfer-encoding {transfer_encoding!r}: only chunked is read")
        return _read_chunked(stream)
    length = content_length or "0"
    if not (length.isascii() and length.isdigit()):
        raise UnreadableBody(f"content-length {length!r} is not a number of bytes")
    body = stream.read(int(length)) if int(length) else b""
    if len(body) != int(length):
        raise UnreadableBody(f"the connection ended {int(length) - len(body)} bytes before the body did")
    return body


def _read_chunked(stream: ByteStream) -> bytes:
    """Chunks up to the zero-size one, then the trailer fields, which a function URL does not pass on."""
    try:
        return b"".join(read_chunks(stream))
    except BadChunking as error:
        raise UnreadableBody(str(error)) from None


def http_to_event(
    method: str,
    target: str,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    *,
    source_ip: str = "127.0.0.1",
    region: str = "us-east-1",
    now: float | None = None,
) -> dict[str, Any]:
    """The payload 2.0 event Lambda builds from one HTTP request (``target`` = path?query)."""
    now = time.time() if now is None else now
    path, _, query = target.partition("?")
    merged: dict[str, str] = {}
    cookies: list[str] = []
    for name, value in headers:
        name = name.lower()
        if name == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
            continue
        merged[name] = f"{merged[name]},{value}" if name in merged else value
    params: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        params[key] = f"{params[key]},{value}" if key in params else value
    body_text: str | None = None
    if is_text(merged.get("content-type")):
        try:
            body_text = body.decode("utf-8")
        except UnicodeDecodeError:
            pass
    encoded = body_text is None
    if encoded:
        body_text = base64.b64encode(body).decode("ascii")
    domain = f"{URL_ID}.lambda-url.{region}.on.aws"
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path or "/",
        "rawQueryString": query,
        "headers": merged,
        "requestContext": {
            "accountId": "anonymous",
            "apiId": URL_ID,
            "domainName": domain,
            "domainPrefix": URL_ID,
            "http": {
                "method": method.upper(),
                "path": path or "/",
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": merged.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": encoded,
    }
    if cookies:
        event["cookies"] = cookies
    if params:
        event["queryStringParameters"] = params
    if body:
        event["body"] = body_text
    return event


@dataclass
class HttpResponse:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    problem: str | None = None  # why the function's answer became a 502, when it did

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


INTERNAL_ERROR = HttpResponse(502, [("content-type", "application/json")], b'{"Message":"Internal Server Error"}')


class _Unsendable(ValueError):
    """A part of the function's answer that no HTTP response can carry."""


def result_to_http(result: Any) -> HttpResponse:
    """The HTTP response a function URL makes of a handler's return value; never raises."""
    if not (isinstance(result, dict) and "statusCode" in result):
        return HttpResponse(200, [("content-type", "application/json")], json.dumps(result).encode())
    try:
        return _response(result)
    except _Unsendable as error:
        return replace(INTERNAL_ERROR, problem=str(error))


def _response(result: Mapping[str, Any]) -> HttpResponse:
    status = result["statusCode"]
    if isinstance(status, str) and status.isascii() and status.isdigit():
        status = int(status)
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        raise _Unsendable(f"statusCode {status!r} is not an HTTP status (100-599)")
    headers = result.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise _Unsendable("headers must be an object of names and values")
    cookies = result.get("cookies") or []
    if not isinstance(cookies, list):
        raise _Unsendable("cookies must be a list of strings")
    fields = [(str(k), str(v)) for k, v in headers.items()] + [("set-cookie", str(c)) for c in cookies]
    for name, value in fields:
        if not _FIELD_NAME.fullmatch(name) or not _FIELD_VALUE.fullmatch(value):
            raise _Unsendable(f"header {name!r}: {value!r} is not a valid HTTP field (a token, then Latin-1 text on one line)")
    body = result.get("body") or ""
    if not isinstance(body, str):
        body = json.dumps(body)
    if result.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(body, validate=True)
        except binascii.Error:
            raise _Unsendable("the body is marked isBase64Encoded but is not base64") from None
    else:
        try:
            raw = body.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _Unsendable(f"the body holds {body[error.start]!r}, which UTF-8 cannot encode (a lone surrogate)") from None
    return HttpResponse(status, fields, raw)


class StreamedHead:
    """The status and headers of a streamed answer, found as its pieces arrive.

    ``feed`` returns the body bytes in each piece (none while the prelude is still incomplete);
    ``response`` is None until the head is known, then an ``HttpResponse`` without a body (a 502
    with its ``problem`` when the prelude is no answer an HTTP response can carry).
    """

    def __init__(self, content_type: str | None) -> None:
        framed = (content_type or "").split(";", 1)[0].strip().lower() == INTEGRATION_RESPONSE_TYPE
        self.response: HttpResponse | None = None if framed else HttpResponse(200, [("content-type", "application/octet-stream")])
        self._prelude = b""

    def feed(self, data: bytes) -> bytes:
        if self.response is not None:
            return data
        self._prelude += data
        end = self._prelude.find(PRELUDE_END)
        if end < 0:
            return b""
        self.response = _prelude_response(self._prelude[:end])
        rest = self._prelude[end + len(PRELUDE_END) :]
        self._prelude = b""
        return rest


def _prelude_response(prelude: bytes) -> HttpResponse:
    try:
        fields = json.loads(prelude)
    except (ValueError, UnicodeDecodeError):
        return replace(INTERNAL_ERROR, problem="the streamed prelude is not JSON")
    if not isinstance(fields, dict):
        return replace(INTERNAL_ERROR, problem="the streamed prelude is not a JSON object")
    if "statusCode" not in fields:
        return replace(INTERNAL_ERROR, problem="the streamed prelude has no statusCode")
    # The body follows the prelude raw: only the status, headers and cookies are read from it.
    return result_to_http({key: fields[key] for key in ("statusCode", "headers", "cookies") if key in fields})


def streamed_to_http(content_type: str | None, data: bytes) -> HttpResponse:
    """The HTTP response a function URL makes of a whole streamed answer (``data``: every piece)."""
    head = StreamedHead(content_type)
    body = head.feed(data)
    if head.response is None:
        return replace(INTERNAL_ERROR, problem="the streamed answer ended before its prelude did (8 NUL bytes)")
    return head.response if head.response.problem else replace(head.response, body=body)
