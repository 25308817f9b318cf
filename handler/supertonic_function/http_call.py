"""One function URL request (payload format 2.0) and the few views of it the endpoints read.

The event is read through Powertools' ``LambdaFunctionUrlEvent`` data class; an API Gateway HTTP
API's named stage is taken off the path, so routes and links work behind one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import parse_qsl

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent

from supertonic_engine.errors import SupertonicError

from .errors import InvalidJson, MalformedEvent, UnsupportedMediaType
from .invocation import LambdaCall
from .negotiation import negotiate, prefers_html
from .request import parse_json
from .responses import SYNC_RESPONSE_LIMIT

DEFAULT_STAGE = "$default"  # API Gateway HTTP API's catch-all stage, served at the root (function URLs say it too)
JSON_TYPES = ("application/json", "")  # no content-type at all is read as JSON too
FORM_TYPE = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Front:
    """What the front a request came through takes of an answer: the bytes of the result's JSON,
    and whether it can read a stream (only a function URL can)."""

    name: str
    response_limit: int = SYNC_RESPONSE_LIMIT
    may_stream: bool = False


FUNCTION_URL = Front("function_url", may_stream=True)


@dataclass(frozen=True)
class HttpCall:
    """One function URL request with the few views the endpoints need."""

    event: LambdaFunctionUrlEvent
    invocation: LambdaCall
    streams: bool = False  # its answer may stream (a function URL in RESPONSE_STREAM mode)
    response_limit: int = SYNC_RESPONSE_LIMIT  # bytes of the result's JSON the front takes (Front.response_limit)

    @property
    def method(self) -> str:
        return self.event.request_context.http.method.upper()

    @property
    def path(self) -> str:
        """The path routed on: without the stage prefix, with no trailing slash."""
        path = (self.event.raw_path or "/")[len(self.stage_prefix) :]
        return path.rstrip("/") or "/"

    @property
    def stage_prefix(self) -> str:
        """``/prod`` when an API Gateway HTTP API's named stage ``prod`` begins the path, as it does
        for every request on that stage (https://github.com/aws-powertools/powertools-lambda-python/issues/621);
        a function URL and the ``$default`` stage have none."""
        stage = self.event["requestContext"].get("stage")
        if not stage or stage == DEFAULT_STAGE:
            return ""
        prefix = f"/{stage}"
        path = self.event.raw_path or "/"
        return prefix if path == prefix or path.startswith(prefix + "/") else ""

    @property
    def query(self) -> dict[str, str]:
        return self.event.query_string_parameters

    def header(self, name: str) -> str:
        return self.event.headers.get(name) or ""

    @property
    def media_type(self) -> str:
        return self.header("content-type").split(";")[0].strip().lower()

    @cached_property
    def body_text(self) -> str:
        try:
            return self.event.decoded_body or ""
        except (UnicodeDecodeError, ValueError):
            raise InvalidJson("the body is not UTF-8 text; send JSON encoded as UTF-8") from None

    def url(self, path: str) -> str:
        """An absolute URL on the host (and stage) the request came to, such as a job's status URL."""
        domain = self.event["requestContext"].get("domainName")
        if not domain:
            raise MalformedEvent("requestContext.domainName", "the function URL's host name, to build links on")
        return f"https://{domain}{self.stage_prefix}{path}"

    def json_body(self) -> object:
        """The body as JSON; ``curl -d '{...}'`` labels JSON as a form by default, so that is JSON too."""
        is_json = self.media_type in JSON_TYPES or self.media_type.endswith("+json")
        if not is_json and not (self.media_type == FORM_TYPE and self._looks_like_json()):
            raise UnsupportedMediaType(self.header("content-type"))
        if not self.body_text.strip():
            raise InvalidJson('the body is empty; send a JSON object such as {"text": "Hello."}')
        return parse_json(self.body_text, "the body")

    def sent_fields(self) -> tuple[object, bool]:
        """The request's fields as sent, and whether they are strings (query, form, text/plain).

        GET (and HEAD) reads the query string. A text/plain body is the text itself, with the options in the
        query; form fields (an HTML form, ``curl --data-urlencode``) are strings like a query;
        anything else is JSON.
        """
        if self.method in ("GET", "HEAD"):
            return self.query, True
        if self.media_type == "text/plain":
            return {**self.query, "text": self.body_text}, True
        if self.media_type == FORM_TYPE and not self._looks_like_json():
            return dict(parse_qsl(self.body_text, keep_blank_values=True)), True
        return self.json_body(), False

    def _looks_like_json(self) -> bool:
        return self.body_text.lstrip().startswith(("{", "["))

    def negotiate(self, offered: Sequence[str]) -> str:
        """The offered media type this request's ``Accept`` prefers (``negotiation.negotiate``)."""
        return negotiate(self.header("accept"), offered)

    @property
    def wants_html(self) -> bool:
        return prefers_html(self.header("accept"))

    @property
    def error_as_audio(self) -> bool:
        """Whether the caller asked for spoken errors (a button, a speaker): ``on_error=audio`` in the
        query string or among the fields sent, read as the request reads them, and honoured even
        when those fields are unusable (then the query string still counts)."""
        try:
            fields, _ = self.sent_fields()
        except SupertonicError:  # an unusable body: the query string still counts
            fields = {}
        sent = fields.get("on_error") if isinstance(fields, Mapping) else None
        return "audio" in (self.query.get("on_error"), sent)
