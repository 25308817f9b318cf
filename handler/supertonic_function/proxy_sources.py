"""API Gateway REST API (payload format 1.0) and Application Load Balancer requests, served by the
routes a function URL is (``http_api.py``).

Each adapter, in Mangum's manner, recognises its event by shape, spells the request as payload
format 2.0 (what the HTTP API reads) and puts the answer back in its own response shape. Neither
front reads a stream (only a function URL does), and each takes less than Lambda's 6 MB or waits
less than the function's timeout; what each does about it:

- A REST API waits 29 s for the function by default
  (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html; Regional and private
  REST APIs may raise it by quota request:
  https://aws.amazon.com/about-aws/whats-new/2024/06/amazon-api-gateway-integration-timeout-limit-29-seconds/).
  Synthesis is given no more than that (a cold start's init counted in), and a request is planned
  against it (``FunctionConfig.sync_limits_at``): text whose forecast audio takes longer to render is
  refused before any audio (413 ``text_too_long``, naming ``POST /v1/jobs``), and one the plan let
  through but that runs late is stopped with the function's own 504 ``deadline_exceeded`` rather
  than API Gateway's ``Endpoint request timed out``.
- A load balancer takes at most 1 MB of response JSON
  (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/lambda-functions.html):
  audio that does not fit is parked in the results bucket and answered 303 with its link, as audio
  over Lambda's 6 MB is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote_plus

from . import http_api
from .envelopes import STAGE, check_proxy_request
from .errors import MalformedEvent, log_error
from .http_call import DEFAULT_STAGE, Front
from .invocation import LambdaCall, LambdaContext
from .responses import error_response, without_body
from .runtime import StreamedAnswer
from .service import Service

REST_API_WAIT_S = 29.0  # the default integration timeout (see above)
# "1 MB" read as 10^6 bytes, the smaller reading (see above).
ALB_RESPONSE_LIMIT = 1_000_000
# Kept of it for what the load balancer's shape adds to the answer: statusDescription, header lists.
_ALB_SHAPE_BYTES = 2048

# A REST API's own host name, api-id.execute-api.region.amazonaws.com (see RestApiSource), or
# .amazonaws.com.cn in the China Regions (https://docs.amazonaws.cn/en_us/aws/latest/userguide/endpoints-Beijing.html).
_EXECUTE_API_HOST = re.compile(r"\.execute-api\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$", re.IGNORECASE)
# A path parameter in a REST API resource, {name} or the greedy {name+}.
_PATH_PARAMETER = re.compile(r"\{([^{}+]+)\+?\}")

REST_API = Front("rest_api")
ALB = Front("alb", response_limit=ALB_RESPONSE_LIMIT - _ALB_SHAPE_BYTES)


@dataclass
class _FrontWait:
    """Lambda's context with the time left cut to what the front still waits."""

    context: LambdaContext | None
    ends_at: float  # time.monotonic() when the front stops waiting
    aws_request_id: str

    def get_remaining_time_in_millis(self) -> int:
        front_ms = int((self.ends_at - time.monotonic()) * 1000)
        return front_ms if self.context is None else min(front_ms, self.context.get_remaining_time_in_millis())


def rest_api_call(call: LambdaCall, *, init_s: float) -> LambdaCall:
    """``call`` with no more time than API Gateway waits; ``init_s``: a cold start's init, which API
    Gateway waits through while Lambda does not count it against the timeout. A request is planned
    against the whole wait, what a warm call has: text refused by the plan is the text's fault, and
    a cold start that leaves too little is the moment's, a retryable 504 from the deadline."""
    waited = _FrontWait(call.context, time.monotonic() + REST_API_WAIT_S - init_s, call.request_id)
    return LambdaCall.begin(
        waited, margin_s=call.margin_s, cold_start=call.cold_start, request_id=call.request_id, front_wait_s=REST_API_WAIT_S
    )


class RestApiSource:
    """An API Gateway REST API request (SAM's ``Type: Api``), Lambda proxy integration, payload 1.0;
    an HTTP API's payload 1.0 looks the same and is served the same."""

    name = "rest_api"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        context = event.get("requestContext")
        return "httpMethod" in event and isinstance(context, Mapping) and "elb" not in context and event.get("version") != "2.0"

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        context = event["requestContext"]
        domain = context.get("domainName")
        # The stage is in the public URL only on the API's own host (https://api-id.execute-api.region.amazonaws.com/stage/,
        # https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-call-api.html). A custom domain's
        # mapping names the stage itself (https://docs.aws.amazon.com/apigateway/latest/developerguide/rest-api-mappings.html),
        # and its base path stays in the path the function gets (routers strip it, as Powertools'
        # strip_prefixes does: https://github.com/aws-powertools/powertools-lambda-python/pull/579): it is
        # read off the path here and kept in links as a stage would be.
        path = event.get("path")
        if domain is None or _EXECUTE_API_HOST.search(str(domain)):
            stage = context.get("stage")
            # The path API Gateway hands over has no stage (requestContext.path has): put it where an HTTP
            # API's named stage is, so that routes and the links the function builds read it as they do there.
            if isinstance(stage, str) and stage and stage != DEFAULT_STAGE and isinstance(path, str):
                path = f"/{stage}{path}"
        else:
            stage = base_path(event) or None
        return _serve(service, event, _rest_api_call(service, call), REST_API, path=path, domain=domain, stage=stage, decode_query=False)


def _rest_api_call(service: Service, call: LambdaCall) -> LambdaCall:
    init_s = service.init_ms / 1000.0 if call.cold_start else 0.0
    return rest_api_call(call, init_s=init_s)


def base_path(event: Mapping[str, Any]) -> str:
    """The base path a custom domain's API mapping puts before the API's own path (``tts`` of
    ``/tts/v1/jobs``), from the resource the request matched and its path parameters; "" for none or
    for one that cannot be a link's stage (a stage's characters only: a deeper base path is not served)."""
    resource, path, parameters = event.get("resource"), event.get("path"), event.get("pathParameters") or {}
    if not (isinstance(resource, str) and isinstance(path, str) and isinstance(parameters, Mapping)):
        return ""
    matched = _PATH_PARAMETER.sub(lambda found: str(parameters.get(found.group(1), found.group(0))), resource)
    if matched == "/":
        base = path.rstrip("/")
    elif path.endswith(matched):
        base = path[: len(path) - len(matched)]
    else:
        return ""
    base = base.strip("/")
    return base if STAGE.fullmatch(base) and base != DEFAULT_STAGE else ""


class AlbSource:
    """An Application Load Balancer request to a Lambda target group."""

    name = "alb"

    @staticmethod
    def recognises(event: Mapping[str, Any]) -> bool:
        context = event.get("requestContext")
        return isinstance(context, Mapping) and isinstance(context.get("elb"), Mapping)

    @staticmethod
    def handle(service: Service, event: dict[str, Any], call: LambdaCall) -> Any:
        host = _headers(event).get("host")
        answer = _serve(service, event, call, ALB, path=event.get("path"), domain=host, stage=None, decode_query=True)
        # A target group with multi-value headers on sends them as lists and reads the answer's as lists.
        headers = answer.pop("headers", {})
        if "multiValueHeaders" in event:
            answer["multiValueHeaders"] = {name: [value] for name, value in headers.items()}
        else:
            answer["headers"] = headers
        status = answer["statusCode"]
        answer["statusDescription"] = f"{status} {HTTPStatus(status).phrase}"
        return answer


def _serve(
    service: Service,
    event: dict[str, Any],
    call: LambdaCall,
    front: Front,
    *,
    path: object,
    domain: object,
    stage: object,
    decode_query: bool,
) -> dict[str, Any]:
    try:
        check_proxy_request(event)
    except MalformedEvent as error:
        log_error(error, "request")
        method = event.get("httpMethod")
        response = error_response(error, request_id=call.request_id)
        return without_body(response) if isinstance(method, str) and method.upper() == "HEAD" else response
    request = {
        "version": "2.0",
        "rawPath": path,
        "headers": _headers(event),
        "queryStringParameters": _query(event, decode_query),
        "body": event.get("body"),
        "isBase64Encoded": event.get("isBase64Encoded", False),
        "requestContext": {"http": {"method": event["httpMethod"], "path": path}, "domainName": domain, "stage": stage},
    }
    answer = http_api.handle(service, request, call, front)
    if isinstance(answer, StreamedAnswer):  # a front that may not stream is never answered with one
        raise RuntimeError(f"a stream was made for {front.name}, which reads answers whole")
    return answer


def _headers(event: Mapping[str, Any]) -> dict[str, str]:
    """Header names in lower case, as payload 2.0 spells them; repeated values joined by commas."""
    listed = event.get("multiValueHeaders")
    if isinstance(listed, Mapping) and listed:
        return {str(name).lower(): ",".join(map(str, values)) for name, values in listed.items() if isinstance(values, list)}
    single = event.get("headers")
    return {str(name).lower(): value for name, value in single.items()} if isinstance(single, Mapping) else {}


def _query(event: Mapping[str, Any], decode: bool) -> dict[str, str]:
    """Query values, repeated ones joined by commas as payload 2.0 joins them. A load balancer passes
    them as the client encoded them (the page above): ``decode`` reads them as a form does."""
    listed = event.get("multiValueQueryStringParameters")
    if isinstance(listed, Mapping) and listed:
        query = {str(name): ",".join(map(str, values)) for name, values in listed.items() if isinstance(values, list)}
    else:
        single = event.get("queryStringParameters")
        query = {str(name): value for name, value in single.items()} if isinstance(single, Mapping) else {}
    if not decode:
        return query
    return {unquote_plus(name): unquote_plus(value) for name, value in query.items() if isinstance(value, str)}
