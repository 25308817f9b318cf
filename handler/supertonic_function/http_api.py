"""The function URL's HTTP API: routes, request bodies, content negotiation, CORS.

    POST /  and  POST /v1/tts     {text, voice, lang, steps, speed, format, seed, normalize, on_error}
    GET  /?text=...&voice=...      the same fields as query parameters
    GET  /  (Accept: text/html)    the playground page (playground.py)
    POST /v1/audio/speech          OpenAI's request shape (see openai.py)
    POST /v1/jobs                  store a long text as a job -> 202 {job_id, status_url}
    GET  /v1/jobs/{job_id}         the job's manifest, with an audio link once done
    GET  /v1/voices                voices, aliases, languages, formats
    GET  /health                   model kind, precision, CPU, version, cold start
    GET  /openapi.json             this API as an OpenAPI 3.1 document

HEAD is answered wherever GET is (the same status and headers, no body); ``Accept`` picks JSON or
audio by its q-values, and one that excludes everything a route can answer is a 406. A request
that names no ``format`` (``response_format``) gets the audio type ``Accept`` prefers
(``Accept: audio/mpeg`` is mp3); one that names a format ``Accept`` excludes is a 406.

Routing is a small table rather than Powertools' ``LambdaFunctionUrlResolver``: the resolver
answers a known path with the wrong method as 404 and shapes its own error bodies, while this API
must say 405 with an ``Allow`` header and keep every error body in ``errors.py``. The event itself
is read through Powertools' ``LambdaFunctionUrlEvent`` data class.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent

from supertonic_engine import CAPTION_TYPES, DEFAULT_VOICE, MARKS_CONTENT_TYPE, Prepared, audio_format, available_formats
from supertonic_engine.errors import SupertonicError

from . import jobs
from .described import describe
from .envelopes import check_function_url, method_of
from .errors import (
    InvalidJson,
    MalformedEvent,
    MethodNotAllowed,
    NotAcceptable,
    RouteNotFound,
    UnsupportedMediaType,
    log_error,
)
from .openai import parse_openai_request
from .playground import page_response
from .rendering import render, synthesis_budget_s
from .request import TtsRequest, parse_json, parse_request
from .responses import empty_response, error_response, http_success, json_response, text_response, without_body
from .service import Service
from .voices import describe_voices

# CORS, as the function answers it where nothing in front of it does (the local emulator). A
# deployed function URL answers CORS itself from template.yaml's Cors block, which lists these
# same values (tests/test_template.py holds the two together).
CORS_ALLOW_METHODS = ("GET", "POST")
# What a browser may send: JSON bodies, and the SigV4 headers an AWS_IAM function URL needs.
CORS_ALLOW_HEADERS = (
    "content-type",
    "accept",
    "authorization",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
)
# Custom headers a browser page may read from a cross-origin response.
CORS_EXPOSE_HEADERS = (
    "x-supertonic-duration-s",
    "x-supertonic-sample-rate",
    "x-supertonic-rtf",
    "x-supertonic-synth-ms",
    "x-supertonic-chunks",
    "x-supertonic-model",
    "x-supertonic-precision",
    "x-supertonic-voice",
    "x-supertonic-error",
    "location",
)
CORS_MAX_AGE_S = 3600
OPENAPI_FILE = "openapi.json"
DEFAULT_STAGE = "$default"  # API Gateway HTTP API's catch-all stage, served at the root (function URLs say it too)
OPENAI_PATH = "/v1/audio/speech"  # its errors carry OpenAI's error shape too
JSON_TYPES = ("application/json", "")  # no content-type at all is read as JSON too
FORM_TYPE = "application/x-www-form-urlencoded"
JSON_TYPE = "application/json"
# Audio is bytes too: OpenAI's SDK asks for speech with ``Accept: application/octet-stream``.
BINARY_TYPE = "application/octet-stream"
# One media range of an Accept header and its weight (RFC 9110 §12.4.2, §12.5.1).
_MEDIA_RANGE = re.compile(r"\s*([\w.+*-]+/[\w.+*-]+)\s*((?:;[^;]*)*)")
_QVALUE = re.compile(r";\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*(?:;|$)", re.IGNORECASE)


@dataclass(frozen=True)
class HttpCall:
    """One function URL request with the few views the endpoints need."""

    event: LambdaFunctionUrlEvent
    request_id: str
    context: Any
    cold_start: bool

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
        """The offered media type ``Accept`` weighs highest; on a tie the one it names more exactly,
        then the first offered (no ``Accept``: the first). ``NotAcceptable`` when it excludes them all."""
        accept = self.header("accept").strip()
        if not accept:
            return offered[0]
        ranges = accept_ranges(accept)
        best = max(offered, key=lambda media: acceptance(media, ranges))
        if acceptance(best, ranges)[0] <= 0:
            raise NotAcceptable(accept, offered)
        return best

    @property
    def wants_html(self) -> bool:
        """A browser's address bar names ``text/html`` (weighed as ``negotiate`` weighs it: ``q=0.0``
        excludes it too); curl's ``*/*`` does not."""
        q, exactness = acceptance("text/html", accept_ranges(self.header("accept")))
        return q > 0 and exactness == 2

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


Endpoint = Callable[[Service, HttpCall, dict[str, str]], dict[str, Any]]


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


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    endpoint: Endpoint
    audio: bool = False  # answers audio or JSON as Accept says (the endpoint negotiates); else JSON only

    @property
    def methods(self) -> tuple[str, ...]:
        """HEAD wherever GET (RFC 9110 §9.3.2: the same answer without the body)."""
        return (self.method, "HEAD") if self.method == "GET" else (self.method,)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", self.template) + "$")

    def match(self, path: str) -> dict[str, str] | None:
        found = self.pattern.match(path)
        return found.groupdict() if found else None


# --- endpoints ----------------------------------------------------------------------------------------


def health(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    report = service.init_report(call.request_id) | {"cold_start": call.cold_start, "status": "ok"}
    try:
        engine = service.engine
    except SupertonicError:
        return json_response(503, report | {"status": "unavailable"})
    report.update(sample_rate=engine.sample_rate, voices=len(engine.voices), formats=available_formats())
    return json_response(200, report)


def list_voices(service: Service, _call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    engine = service.engine
    return json_response(
        200,
        {
            "voices": describe_voices(engine.voices),
            "default_voice": DEFAULT_VOICE,
            "languages": list(engine.languages),
            "formats": available_formats(),
            "model": engine.model_kind,
        },
    )


def home(service: Service, call: HttpCall, params: dict[str, str]) -> dict[str, Any]:
    """A browser opening the URL gets the playground; ``?text=`` (or any other client) gets audio."""
    if call.wants_html and "text" not in call.query:
        return page_response(service)
    return speak(service, call, params)


def speak(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    fields, from_strings = call.sent_fields()
    request = parse_request(fields, voices=service.voices, limits=service.config.sync_limits, from_strings=from_strings)
    return _speak(service, call, request)


def speak_openai(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    request = parse_openai_request(call.json_body(), voices=service.voices, limits=service.config.sync_limits)
    return _speak(service, call, request)


def submit_job(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    status_base = call.url("/v1/jobs/")  # before the job is stored: a stored job is always answered
    job = jobs.submit(service, call.json_body())
    status_url = status_base + job.job_id
    return json_response(202, job.accepted() | {"status_url": status_url}, {"location": status_url})


def job_status(service: Service, _call: HttpCall, params: dict[str, str]) -> dict[str, Any]:
    return json_response(200, jobs.status(service, params["job_id"]))


def openapi(_service: Service, _call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    return json_response(200, openapi_document())


@lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    """This API as OpenAPI 3.1, kept beside the code (tests/test_openapi.py holds the two together)."""
    return json.loads(resources.files(__package__).joinpath(OPENAPI_FILE).read_text(encoding="utf-8"))


def _speak(service: Service, call: HttpCall, request: TtsRequest) -> dict[str, Any]:
    if not request.format_sent:
        request = replace(request, format=_accepted_format(call, request.format))
    prepared = request.prepare(service.engine)
    if request.answer != "audio":
        return _describe(service, call, prepared, request.answer)
    # Before synthesis: a request nobody can accept the answer to costs nothing.
    answer = call.negotiate([prepared.format.content_type.split(";")[0], JSON_TYPE])
    rendered = render(
        service.engine,
        prepared,
        budget_s=synthesis_budget_s(call.context, service.config.deadline_margin_s),
        source="http",
    )
    return http_success(service, rendered, request_id=call.request_id, as_json=answer == JSON_TYPE)


def _describe(service: Service, call: HttpCall, prepared: Prepared, answer: str) -> dict[str, Any]:
    """Speech marks or captions of the audio this request would get, instead of the audio."""
    content_type = MARKS_CONTENT_TYPE if answer == "marks" else CAPTION_TYPES[prepared.extras.captions[0]]
    chosen = call.negotiate([content_type.split(";")[0], JSON_TYPE])
    described = describe(service.engine, prepared, answer, budget_s=synthesis_budget_s(call.context, service.config.deadline_margin_s))
    if chosen == JSON_TYPE:
        return json_response(200, described.document(), described.headers())
    return text_response(200, described.body, described.content_type, described.headers())


def _accepted_format(call: HttpCall, default: str) -> str:
    """The format of the audio type ``Accept`` prefers, for a request that names no format. On a
    tie the default wins, then JSON (``*/*``, ``audio/*``, OpenAI's ``application/octet-stream``
    keep the default): another format only when ``Accept`` names it above them."""
    usable = available_formats()
    if default not in usable:  # the engine's check says so, naming the field
        return default
    by_media: dict[str, str] = {}
    for name in [default, *usable]:  # the first format of a media type keeps it (audio/ogg: Vorbis)
        by_media.setdefault(audio_format(name).content_type.split(";")[0], name)
    default_media, *other_media = by_media
    try:
        return by_media.get(call.negotiate([default_media, JSON_TYPE, *other_media]), default)
    except NotAcceptable:  # said after the request's own checks, as for a named format
        return default


ROUTES = (
    Route("GET", "/health", health),
    Route("GET", "/v1/voices", list_voices),
    Route("GET", "/", home, audio=True),
    Route("POST", "/", speak, audio=True),
    Route("POST", "/v1/tts", speak, audio=True),
    Route("POST", OPENAI_PATH, speak_openai, audio=True),
    Route("POST", "/v1/jobs", submit_job),
    Route("GET", "/v1/jobs/{job_id}", job_status),
    Route("GET", "/openapi.json", openapi),
)


# --- dispatch -----------------------------------------------------------------------------------------


def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> dict[str, Any]:
    """Answer one function URL request; never raises, never leaks a stack trace."""
    try:
        check_function_url(event)
    except MalformedEvent as error:  # not an HttpCall: its views would read the broken parts
        log_error(error, "request")
        return _as_sent(method_of(event), error_response(error, request_id=request_id))
    call = HttpCall(LambdaFunctionUrlEvent(event), request_id, context, cold_start)
    extra_headers = _cors_headers(service, call)
    try:
        response = _route(service, call)
    except Exception as error:  # typed or a bug: log_error says how loudly, error_response what the client may see
        log_error(error, "request", path=call.path, method=call.method)
        response = error_response(error, request_id=request_id, as_audio=call.error_as_audio, openai=call.path == OPENAI_PATH)
        if isinstance(error, MethodNotAllowed):
            extra_headers["allow"] = ", ".join(error.allowed)
    response["headers"].update(extra_headers)
    return _as_sent(call.method, response)


def _as_sent(method: str | None, response: dict[str, Any]) -> dict[str, Any]:
    return without_body(response) if method == "HEAD" else response


def served() -> list[tuple[str, str]]:
    """Every ``(method, path template)`` answered; the OpenAPI document lists exactly these."""
    return [(method, route.template) for route in ROUTES for method in route.methods]


def _route(service: Service, call: HttpCall) -> dict[str, Any]:
    allowed: list[str] = []
    for route in ROUTES:
        params = route.match(call.path)
        if params is None:
            continue
        if call.method in route.methods:
            if not route.audio:
                call.negotiate([JSON_TYPE])
            return route.endpoint(service, call, params)
        allowed += route.methods
    if not allowed:
        raise RouteNotFound(call.path, (f"{r.method} {r.template}" for r in ROUTES))
    if call.method == "OPTIONS":  # a CORS preflight; the headers are added by handle()
        return empty_response(204, {"allow": ", ".join(sorted({*allowed, "OPTIONS"}))})
    raise MethodNotAllowed(call.method, call.path, allowed)


def _cors_headers(service: Service, call: HttpCall) -> dict[str, str]:
    allowed = service.config.cors_allow_origins
    origin = call.header("origin").rstrip("/")
    if not allowed or not origin or ("*" not in allowed and origin not in allowed):
        return {}
    headers = {
        "access-control-allow-origin": "*" if "*" in allowed else origin,
        "access-control-expose-headers": ", ".join(CORS_EXPOSE_HEADERS),
        "vary": "origin",
    }
    if call.method == "OPTIONS":
        headers |= {
            "access-control-allow-methods": ", ".join(CORS_ALLOW_METHODS),
            "access-control-allow-headers": ", ".join(CORS_ALLOW_HEADERS),
            "access-control-max-age": str(CORS_MAX_AGE_S),
        }
    return headers
