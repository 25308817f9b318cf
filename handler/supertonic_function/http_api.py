"""The HTTP API: the routes and the endpoints that answer them, for a function URL or an HTTP API
(payload 2.0) and, spelled as payload 2.0 by ``proxy_sources.py``, a REST API or a load balancer.

    POST /  and  POST /v1/tts     {text, voice, lang, steps, speed, format, seed, normalize, on_error}
    GET  /?text=...&voice=...      the same fields as query parameters
    GET  /  (Accept: text/html)    the playground page (playground.py)
    POST /v1/audio/speech          OpenAI's request shape (see openai.py)
    POST /v1/jobs                  store a long text as a job -> 202 {job_id, status_url}
    GET  /v1/jobs/{job_id}         the job's manifest, with an audio link once done
    GET  /v1/voices                voices, aliases, languages, formats
    GET  /health                   model kind, precision, CPU, version, cold start
    GET  /openapi.json             this API as an OpenAPI 3.1 document

HEAD is answered wherever GET is (the same status and headers, no body). ``Accept`` picks JSON or
audio (``negotiation.py``); the request's views are ``http_call.py``'s, CORS is ``cors.py``'s.

Routing is a small table rather than Powertools' ``LambdaFunctionUrlResolver``: the resolver
answers a known path with the wrong method as 404 and shapes its own error bodies, while this API
must say 405 with an ``Allow`` header and keep every error body in ``errors.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache, partial
from importlib import resources
from typing import Any

from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent

from supertonic_engine import CAPTION_TYPES, DEFAULT_VOICE, MARKS_CONTENT_TYPE, Limits, Prepared, available_formats, file_bytes
from supertonic_engine.errors import InvalidParameter, SupertonicError

from . import jobs, streamed
from .cors import cors_headers
from .described import describe
from .envelopes import check_function_url, method_of, through_function_url
from .errors import (
    MalformedEvent,
    MethodNotAllowed,
    ResponseTooLarge,
    RouteNotFound,
    log_error,
)
from .http_call import FUNCTION_URL, Front, HttpCall
from .invocation import LambdaCall
from .negotiation import JSON_TYPE, audio_format_for
from .openai import parse_openai_request
from .playground import page_response
from .rendering import render
from .request import TtsRequest, parse_request
from .responses import (
    binary_response,
    empty_response,
    error_response,
    head_answer,
    head_of_audio,
    http_success,
    json_response,
    text_response,
    without_body,
)
from .runtime import StreamedAnswer
from .service import Service
from .voices import describe_voices

OPENAPI_FILE = "openapi.json"
OPENAI_PATH = "/v1/audio/speech"  # its errors carry OpenAI's error shape too

# A whole response, or (a function URL in RESPONSE_STREAM mode) one made as it is sent.
Answer = dict[str, Any] | StreamedAnswer
Endpoint = Callable[[Service, HttpCall, dict[str, str]], Answer]


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
    report = service.init_report(call.invocation.request_id) | {"cold_start": call.invocation.cold_start, "status": "ok"}
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


def home(service: Service, call: HttpCall, params: dict[str, str]) -> Answer:
    """A browser opening the URL gets the playground; ``?text=`` (or any other client) gets audio."""
    if call.wants_html and "text" not in call.query:
        return page_response(service)
    return speak(service, call, params)


def speak(service: Service, call: HttpCall, _: dict[str, str]) -> Answer:
    fields, from_strings = call.sent_fields()
    config = service.config
    request = parse_request(
        fields, voices=service.voices, limits=config.sync_limits, from_strings=from_strings, defaults=config.synthesis_defaults()
    )
    request.refuse_chapters()
    return _speak(service, call, replace(request, limits=_sync_limits(service, call)(request.options.steps)))


def speak_openai(service: Service, call: HttpCall, _: dict[str, str]) -> Answer:
    request = parse_openai_request(
        call.json_body(), voices=service.voices, limits=_sync_limits(service, call), defaults=service.config.synthesis_defaults()
    )
    return _speak(service, call, request)


def _sync_limits(service: Service, call: HttpCall) -> Callable[[int], Limits]:
    """The deployment's bounds for this request at so many steps, planned against the time its front waits."""
    return partial(service.config.sync_limits_at, front_wait_s=call.invocation.front_wait_s)


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


def _speak(service: Service, call: HttpCall, request: TtsRequest) -> Answer:
    if not request.format_sent:
        request = replace(request, format=audio_format_for(call.header("accept"), request.format))
    prepared = request.prepare(service.engine)
    if request.stream_format == "sse":
        return _events(service, call, prepared)
    if request.answer != "audio":
        return _describe(service, call, prepared, request.answer)
    # Before synthesis: a request nobody can accept the answer to costs nothing.
    as_json = call.negotiate([prepared.format.content_type.split(";")[0], JSON_TYPE]) == JSON_TYPE
    if call.method == "HEAD":
        return _head(service, call, prepared, as_json=as_json)
    if call.streams and not as_json:
        planned = _plan(service, call, prepared, events=False)
        if _fits_a_stream(planned):  # else parked in S3 below, as a buffered answer is
            return streamed.answer(service.engine, planned, streamed.StreamSettings.of(service.config))
    rendered = render(
        service.engine,
        prepared,
        budget_s=call.invocation.synthesis_budget_s(),
        source="http",
    )
    return http_success(service, rendered, request_id=call.invocation.request_id, as_json=as_json, limit=call.response_limit)


def _head(service: Service, call: HttpCall, prepared: Prepared, *, as_json: bool) -> dict[str, Any]:
    """HEAD of the audio: the GET's status and headers from the duration predictor's forecast (its
    audio-length check included), with nothing synthesized or stored. The length is the file's
    only where the forecast is exact (no trimmed silence) and the format's size follows from it."""
    engine = service.engine
    planned = _plan(service, call, prepared, events=False)
    headers = streamed.answer_headers(engine, planned) | ({"content-type": JSON_TYPE} if as_json else {})
    exact = None if prepared.options.trim_silence else file_bytes(prepared.format, planned.frames, engine.sample_rate)
    streams = call.streams and not as_json and _fits_a_stream(planned)
    return head_of_audio(
        service,
        headers,
        audio_bytes=exact,
        streamed=streams,
        characters=len(prepared.text),
        fmt=prepared.format.name,
        limit=call.response_limit,
    )


def _fits_a_stream(planned: streamed.Plan) -> bool:
    return planned.max_bytes <= streamed.STREAM_CAP_BYTES


def _events(service: Service, call: HttpCall, prepared: Prepared) -> Answer:
    """Server-sent events: streamed through a RESPONSE_STREAM function URL, else whole (6 MB at most,
    refused on the forecast before any synthesis)."""
    if prepared.extras.captions:
        raise InvalidParameter("captions are a file of their own: ask for them with stream_format 'audio'", field="stream_format")
    whole = not call.streams
    planned = _plan(service, call, prepared, events=True)
    # A whole answer is the events' bytes again as base64 in the runtime's JSON.
    size, limit = (planned.max_bytes * 4 // 3, call.response_limit) if whole else (planned.max_bytes, streamed.STREAM_CAP_BYTES)
    if size > limit:
        raise ResponseTooLarge(size, limit, len(prepared.text), "sse")
    if call.method == "HEAD":  # the events' length is known only once they are made
        return head_answer(200, streamed.answer_headers(service.engine, planned))
    events = streamed.answer(service.engine, planned, streamed.StreamSettings.of(service.config))
    if not whole:
        return events
    return binary_response(200, streamed.joined(events), dict(events.prelude["headers"]) if events.prelude else {})


def _plan(service: Service, call: HttpCall, prepared: Prepared, *, events: bool) -> streamed.Plan:
    return streamed.plan(service.engine, prepared, budget_s=call.invocation.synthesis_budget_s(), events=events)


def _describe(service: Service, call: HttpCall, prepared: Prepared, answer: str) -> dict[str, Any]:
    """Speech marks or captions of the audio this request would get, instead of the audio."""
    content_type = MARKS_CONTENT_TYPE if answer == "marks" else CAPTION_TYPES[prepared.extras.captions[0]]
    chosen = call.negotiate([content_type.split(";")[0], JSON_TYPE])
    described = describe(service.engine, prepared, answer, budget_s=call.invocation.synthesis_budget_s())
    if chosen == JSON_TYPE:
        return json_response(200, described.document(), described.headers())
    return text_response(200, described.body, described.content_type, described.headers())


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


def handle(service: Service, event: dict[str, Any], invocation: LambdaCall, front: Front = FUNCTION_URL) -> Answer:
    """Answer one HTTP request in payload format 2.0 (``front`` says what the front it came through takes);
    never raises, never leaks a stack trace. In RESPONSE_STREAM mode every answer to a function URL is a
    ``StreamedAnswer``: the URL reads the prelude of each, streamed audio or not."""
    answer = _answer(service, event, invocation, front)
    if _streams(service, event, front) and not isinstance(answer, StreamedAnswer):
        return streamed.as_streamed(answer)
    return answer


def _streams(service: Service, event: dict[str, Any], front: Front) -> bool:
    return front.may_stream and service.config.streams and through_function_url(event)


def _answer(service: Service, event: dict[str, Any], invocation: LambdaCall, front: Front) -> Answer:
    try:
        check_function_url(event)
    except MalformedEvent as error:  # not an HttpCall: its views would read the broken parts
        log_error(error, "request")
        return _as_sent(method_of(event), error_response(error, request_id=invocation.request_id))
    call = HttpCall(LambdaFunctionUrlEvent(event), invocation, streams=_streams(service, event, front), response_limit=front.response_limit)
    extra_headers = cors_headers(service.config.cors_allow_origins, call.header("origin"), call.method)
    try:
        response = _route(service, call)
    except Exception as error:  # typed or a bug: log_error says how loudly, error_response what the client may see
        log_error(error, "request", path=call.path, method=call.method)
        response = error_response(error, request_id=invocation.request_id, as_audio=call.error_as_audio, openai=call.path == OPENAI_PATH)
        if isinstance(error, MethodNotAllowed):
            extra_headers["allow"] = ", ".join(error.allowed)
    if isinstance(response, StreamedAnswer):
        if response.prelude is not None:  # streamed.py's answers always carry it
            response.prelude["headers"].update(extra_headers)
        return response
    response["headers"].update(extra_headers)
    return _as_sent(call.method, response)


def _as_sent(method: str | None, response: dict[str, Any]) -> dict[str, Any]:
    return without_body(response) if method == "HEAD" else response


def served() -> list[tuple[str, str]]:
    """Every ``(method, path template)`` answered; the OpenAPI document lists exactly these."""
    return [(method, route.template) for route in ROUTES for method in route.methods]


def _route(service: Service, call: HttpCall) -> Answer:
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
