"""The function URL's HTTP API: routes, request bodies, content negotiation, CORS.

    POST /  and  POST /v1/tts     {text, voice, lang, steps, speed, format, seed, normalize, on_error}
    GET  /?text=...&voice=...      the same fields as query parameters
    GET  /  (Accept: text/html)    the playground page (playground.py)
    POST /v1/audio/speech          OpenAI's request shape (see openai.py)
    POST /v1/jobs                  store a long text as a job -> 202 {job_id, status_url}
    GET  /v1/jobs/{job_id}         the job's manifest, with an audio link once done
    GET  /v1/voices                voices, aliases, languages, formats
    GET  /health                   model kind, precision, CPU, version, cold start

Routing is a small table rather than Powertools' ``LambdaFunctionUrlResolver``: the resolver
answers a known path with the wrong method as 404 and shapes its own error bodies, while this API
must say 405 with an ``Allow`` header and keep every error body in ``errors.py``. The event itself
is read through Powertools' ``LambdaFunctionUrlEvent`` data class.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent
from supertonic_engine.audio import available_formats
from supertonic_engine.errors import SupertonicError
from supertonic_engine.synthesis import DEFAULT_VOICE

from . import jobs
from .errors import InvalidJson, MethodNotAllowed, RouteNotFound, UnsupportedMediaType, log_error
from .openai import parse_openai_request
from .playground import page_response
from .rendering import render, synthesis_budget_s
from .request import TtsRequest, parse_json, parse_request
from .responses import empty_response, error_response, http_success, json_response
from .service import Service
from .voices import describe_voices

# CORS, as the function answers it where nothing in front of it does (the local emulator). A
# deployed function URL answers CORS itself from template.yaml's Cors block, which lists these
# same values (tests/test_template.py holds the two together).
CORS_ALLOW_METHODS = ("GET", "POST")
# What a browser may send: JSON bodies, and the SigV4 headers an AWS_IAM function URL needs.
CORS_ALLOW_HEADERS = (
    "content-type", "accept", "authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256",
)
# Custom headers a browser page may read from a cross-origin response.
CORS_EXPOSE_HEADERS = (
    "x-supertonic-duration-s", "x-supertonic-sample-rate", "x-supertonic-rtf", "x-supertonic-synth-ms",
    "x-supertonic-chunks", "x-supertonic-model", "x-supertonic-precision", "x-supertonic-error", "location",
)
CORS_MAX_AGE_S = 3600
JSON_TYPES = ("application/json", "")  # no content-type at all is read as JSON too
FORM_TYPE = "application/x-www-form-urlencoded"


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
        path = self.event.raw_path or "/"
        return path.rstrip("/") or "/"

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

        GET reads the query string. A text/plain body is the text itself, with the options in the
        query; form fields (an HTML form, ``curl --data-urlencode``) are strings like a query;
        anything else is JSON.
        """
        if self.method == "GET":
            return self.query, True
        if self.media_type == "text/plain":
            return {**self.query, "text": self.body_text}, True
        if self.media_type == FORM_TYPE and not self._looks_like_json():
            return dict(parse_qsl(self.body_text, keep_blank_values=True)), True
        return self.json_body(), False

    def _looks_like_json(self) -> bool:
        return self.body_text.lstrip().startswith(("{", "["))

    @property
    def wants_json(self) -> bool:
        """``Accept: application/json`` asks for the audio base64-encoded inside a JSON document."""
        for media_range in self.header("accept").split(","):
            media = media_range.split(";")[0].strip().lower()
            if media == "application/json":
                return True
            if media.startswith("audio/"):
                return False
        return False

    @property
    def wants_html(self) -> bool:
        """A browser's address bar asks for ``text/html``; curl's ``*/*`` does not."""
        for media_range in self.header("accept").split(","):
            media, *params = (part.strip().lower() for part in media_range.split(";"))
            if media == "text/html":
                return "q=0" not in params
        return False

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


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    endpoint: Endpoint

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
    request = parse_request(
        fields, voices=service.voices, limits=service.config.sync_limits, from_strings=from_strings
    )
    return _speak(service, call, request)


def speak_openai(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    request = parse_openai_request(
        call.json_body(), voices=service.voices, limits=service.config.sync_limits
    )
    return _speak(service, call, request)


def submit_job(service: Service, call: HttpCall, _: dict[str, str]) -> dict[str, Any]:
    job = jobs.submit(service, call.json_body())
    status_url = f"https://{call.event.request_context.domain_name}/v1/jobs/{job.job_id}"
    return json_response(202, job.accepted() | {"status_url": status_url}, {"location": status_url})


def job_status(service: Service, _call: HttpCall, params: dict[str, str]) -> dict[str, Any]:
    return json_response(200, jobs.status(service, params["job_id"]))


def _speak(service: Service, call: HttpCall, request: TtsRequest) -> dict[str, Any]:
    rendered = render(
        service.engine,
        request,
        budget_s=synthesis_budget_s(call.context, service.config.deadline_margin_s),
        source="http",
    )
    return http_success(service, rendered, request_id=call.request_id, as_json=call.wants_json)


ROUTES = (
    Route("GET", "/health", health),
    Route("GET", "/v1/voices", list_voices),
    Route("GET", "/", home),
    Route("POST", "/", speak),
    Route("POST", "/v1/tts", speak),
    Route("POST", "/v1/audio/speech", speak_openai),
    Route("POST", "/v1/jobs", submit_job),
    Route("GET", "/v1/jobs/{job_id}", job_status),
)


# --- dispatch -----------------------------------------------------------------------------------------


def handle(service: Service, event: dict[str, Any], *, request_id: str, context: Any, cold_start: bool) -> dict[str, Any]:
    """Answer one function URL request; never raises, never leaks a stack trace."""
    call = HttpCall(LambdaFunctionUrlEvent(event), request_id, context, cold_start)
    extra_headers = _cors_headers(service, call)
    try:
        response = _route(service, call)
    except Exception as error:  # typed or a bug: log_error says how loudly, error_response what the client may see
        log_error(error, "request", path=call.path, method=call.method)
        response = error_response(error, request_id=request_id, as_audio=call.error_as_audio)
        if isinstance(error, MethodNotAllowed):
            extra_headers["allow"] = ", ".join(error.allowed)
    response["headers"].update(extra_headers)
    return response


def _route(service: Service, call: HttpCall) -> dict[str, Any]:
    allowed = []
    for route in ROUTES:
        params = route.match(call.path)
        if params is None:
            continue
        if route.method == call.method:
            return route.endpoint(service, call, params)
        allowed.append(route.method)
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
