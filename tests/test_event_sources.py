"""The fronts people wire first: an API Gateway REST API (payload 1.0), an Application Load Balancer,
a scheduled EventBridge rule (keep-warm) and S3's ``Object Deleted`` through EventBridge.

Each event is one of events/ (Powertools' and SAM CLI's own fixtures with this project's request put
in, see events/README.md) and goes through the real ``lambda_handler`` on the tiny stand-in against
moto's S3 server; the answer is read in the front's own response shape.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
from fixtures_s3 import HttpAnswer, LambdaContext, audio_info, load_event

from supertonic_function.invocation import LambdaCall
from supertonic_function.proxy_sources import ALB_RESPONSE_LIMIT, REST_API_WAIT_S, rest_api_call
from supertonic_function.responses import size_of
from supertonic_function.runtime import StreamedAnswer

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]


def _rest(method: str, path: str, *, stage: str = "prod", body: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """events/rest_post_tts.json (Powertools' REST API event) for ``method path`` on ``stage``."""
    event = copy.deepcopy(load_event("rest_post_tts"))
    event["httpMethod"] = event["requestContext"]["httpMethod"] = method
    event["path"] = path
    event["pathParameters"] = {"proxy": path.lstrip("/")}  # the resource is /{proxy+}
    event["requestContext"]["path"] = f"/{stage}{path}"
    event["requestContext"]["stage"] = stage
    sent = {"Content-Type": "application/json", **(headers or {})}
    event["headers"] = sent
    event["multiValueHeaders"] = {name: [value] for name, value in sent.items()}
    event["body"] = None if body is None else json.dumps(body)
    return event


def _alb(method: str, path: str, query: dict[str, str] | None = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    event = copy.deepcopy(load_event("alb_get_query"))
    event["httpMethod"] = method
    event["path"] = path
    event["queryStringParameters"] = query or {}
    event["headers"].update(headers or {})
    return event


def _call(app: Any, event: dict[str, Any]) -> HttpAnswer:
    return HttpAnswer.of(app.lambda_handler(event, LambdaContext()))


# --- API Gateway REST API (payload 1.0) ----------------------------------------------------------------


def test_a_rest_api_request_is_served_with_audio_base64_encoded(app: Any) -> None:
    result = app.lambda_handler(load_event("rest_post_tts"), LambdaContext())
    assert result["isBase64Encoded"] is True  # what binaryMediaTypes turns back into bytes
    answer = HttpAnswer.of(result)
    assert (answer.status, answer.content_type) == (200, "audio/wav"), answer.body[:200]
    assert audio_info(answer.body).duration > 0.5


def test_a_rest_api_stage_named_like_a_route_s_first_segment_is_not_taken_off_the_path(app: Any) -> None:
    # REST API's path carries no stage: a stage "v1" must not turn /v1/tts into /tts.
    answer = _call(app, _rest("POST", "/v1/tts", stage="v1", body={"text": "Staged.", "steps": 1}))
    assert (answer.status, answer.content_type) == (200, "audio/wav"), answer.body[:200]


def test_a_rest_api_s_repeated_query_values_and_headers_are_read(app: Any) -> None:
    event = _rest("GET", "/", headers={"Accept": "application/json"})
    event["multiValueQueryStringParameters"] = {"text": ["Hello there."], "steps": ["1"]}
    event["queryStringParameters"] = {"text": "Hello there.", "steps": "1"}
    answer = _call(app, event)
    assert answer.status == 200, answer.body[:200]
    assert answer.json()["characters"] == len("Hello there.") and "Hello" in answer.json()["chunks"][0]["text"]


def test_links_through_a_rest_api_keep_its_stage(app: Any, s3: Any) -> None:
    accepted = _call(app, _rest("POST", "/v1/jobs", body={"text": "A job through a REST API.", "steps": 1}))
    job = accepted.json()
    assert accepted.status == 202, job
    assert job["status_url"] == f"https://id.execute-api.us-east-1.amazonaws.com/prod/v1/jobs/{job['job_id']}"
    status = _call(app, _rest("GET", urlparse(job["status_url"]).path.removeprefix("/prod")))
    assert status.status == 200 and status.json()["status"] == "queued"


@pytest.mark.parametrize("stage", ["prod", "v1"])
def test_links_through_a_rest_api_s_custom_domain_have_no_stage(app: Any, s3: Any, stage: str) -> None:
    # A base path mapping sends https://tts.example.com/v1/jobs to the stage: the public URL has no stage in it.
    event = _rest("POST", "/v1/jobs", stage=stage, body={"text": "A job through a custom domain.", "steps": 1})
    event["requestContext"]["domainName"] = event["headers"]["Host"] = "tts.example.com"
    accepted = _call(app, event)
    job = accepted.json()
    assert accepted.status == 202, job
    assert job["status_url"] == f"https://tts.example.com/v1/jobs/{job['job_id']}"


def test_links_through_a_custom_domain_s_base_path_keep_it_and_its_routes_are_served(app: Any, s3: Any) -> None:
    # A mapping of https://tts.example.com/speech to the API sends /speech/v1/jobs as the path.
    event = _rest("POST", "/v1/jobs", body={"text": "A job under a base path.", "steps": 1})
    event["path"] = "/speech/v1/jobs"
    event["requestContext"]["domainName"] = event["headers"]["Host"] = "tts.example.com"
    accepted = _call(app, event)
    job = accepted.json()
    assert accepted.status == 202, job
    assert job["status_url"] == f"https://tts.example.com/speech/v1/jobs/{job['job_id']}"


@pytest.mark.parametrize("host", ["id.execute-api.us-east-1.amazonaws.com", "id.execute-api.cn-north-1.amazonaws.com.cn"])
def test_links_through_an_api_s_own_host_keep_its_stage_in_every_partition(app: Any, s3: Any, host: str) -> None:
    event = _rest("POST", "/v1/jobs", body={"text": "A job on the API's own host.", "steps": 1})
    event["requestContext"]["domainName"] = event["headers"]["Host"] = host
    job = _call(app, event).json()
    assert job["status_url"] == f"https://{host}/prod/v1/jobs/{job['job_id']}"


# About 14 s of forecast audio at steps 1 on the stand-in: inside what a warm call's 29 s plan at
# 0.42, outside what is left of them after a 25 s cold start.
THREE_SENTENCES = " ".join(f"Sentence {n} of a text read within an API Gateway wait." for n in range(1, 4))


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/tts", {"text": THREE_SENTENCES, "steps": 1}),
        ("/v1/audio/speech", {"model": "tts-1", "input": THREE_SENTENCES, "voice": "alloy"}),
    ],
)
def test_a_cold_start_that_ate_most_of_the_rest_api_s_wait_does_not_refuse_the_text(
    app: Any, configure: Any, monkeypatch: Any, path: str, body: dict[str, Any]
) -> None:
    from supertonic_function.sources import dispatch

    configure(function_timeout_s=120.0, sync_plan_rtf=0.42)
    monkeypatch.setattr(app.service, "init_ms", (REST_API_WAIT_S - 4.0) * 1000.0)  # a slow first load
    call = LambdaCall.begin(LambdaContext(remaining_ms=120_000), margin_s=2.0, cold_start=True)
    answer = HttpAnswer.of(dispatch(app.service, _rest("POST", path, body=body), call))
    # Rendered in the 2 s left, or stopped by them (a 504 the client retries): never refused as too long.
    assert answer.status in (200, 504), answer.body[:300]
    if answer.status == 504:
        assert answer.json()["error"]["code"] == "deadline_exceeded"


def test_a_rest_api_request_has_at_most_the_time_api_gateway_waits(app: Any) -> None:
    invocation = LambdaCall.begin(LambdaContext(remaining_ms=120_000), margin_s=1.0)
    capped = rest_api_call(invocation, init_s=0.0)
    left = capped.seconds_left()
    assert left is not None and REST_API_WAIT_S - 1.0 - 0.5 < left <= REST_API_WAIT_S - 1.0
    # A cold start's init counts against API Gateway's wait, not against Lambda's timeout.
    cold = rest_api_call(invocation, init_s=10.0).seconds_left()
    assert cold is not None and cold <= REST_API_WAIT_S - 11.0


# About 50 s of forecast audio at steps 1 on the stand-in: past what 29 s of waiting renders at a
# plan of 1 s per second of audio, inside what a 120 s timeout does.
PAST_THE_REST_API_WAIT = " ".join(f"Sentence {n} of a text too long to be read within an API Gateway wait." for n in range(1, 12))


def test_a_rest_api_request_past_what_its_wait_renders_is_refused_before_any_audio(
    app: Any, configure: Any, counted_chunks: list[int]
) -> None:
    configure(function_timeout_s=120.0, sync_plan_rtf=1.0)
    body = {"text": PAST_THE_REST_API_WAIT, "steps": 1, "format": "mp3"}
    refused = HttpAnswer.of(app.lambda_handler(_rest("POST", "/v1/tts", body=body), LambdaContext(remaining_ms=120_000)))
    assert refused.status == 413, refused.content_type
    error = refused.json()["error"]
    assert (error["code"], error["field"]) == ("text_too_long", "text"), error
    assert "the limit is 27 s" in error["message"] and "POST /v1/jobs" in error["message"]
    assert counted_chunks == []
    # The same text through a function URL has the whole timeout.
    event = load_event("furl_post_tts")
    event["body"] = json.dumps(body)
    accepted = HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=120_000)))
    assert (accepted.status, accepted.content_type) == (200, "audio/mpeg"), accepted.body[:300]
    assert audio_info(accepted.body).duration > REST_API_WAIT_S


def test_an_openai_request_through_a_rest_api_is_planned_against_its_wait(app: Any, configure: Any, counted_chunks: list[int]) -> None:
    configure(function_timeout_s=120.0, sync_plan_rtf=1.0)
    body = {"model": "tts-1", "input": PAST_THE_REST_API_WAIT, "voice": "alloy"}
    refused = HttpAnswer.of(app.lambda_handler(_rest("POST", "/v1/audio/speech", body=body), LambdaContext(remaining_ms=120_000)))
    assert refused.status == 400, refused.content_type  # OpenAI's status for a request it refuses
    error = refused.json()["error"]
    assert (error["param"], error["code"]) == ("input", "text_too_long") and "the limit is 27 s" in error["message"]
    assert counted_chunks == []


@pytest.mark.parametrize(
    ("part", "value", "field"), [("httpMethod", 7, "httpMethod"), ("path", None, "path"), ("headers", {"a": 1}, "headers.a")]
)
def test_a_malformed_rest_api_event_is_a_400_naming_its_part(app: Any, part: str, value: Any, field: str) -> None:
    event = _rest("POST", "/v1/tts", body={"text": "Hi"})
    event[part] = value
    answer = _call(app, event)
    assert answer.status == 400, answer.body[:200]
    assert answer.json()["error"]["field"] == field


# --- Application Load Balancer -------------------------------------------------------------------------


def test_an_alb_request_is_served_with_a_status_description(app: Any) -> None:
    result = app.lambda_handler(load_event("alb_get_query"), LambdaContext())
    assert result["statusDescription"] == "200 OK"
    answer = HttpAnswer.of(result)
    assert (answer.status, answer.content_type) == (200, "audio/flac"), answer.body[:200]
    assert audio_info(answer.body).duration > 0.5


def test_an_alb_query_is_decoded_as_the_load_balancer_leaves_it_encoded(app: Any) -> None:
    query = {"text": "Caf%C3%A9+au+lait.", "steps": "1"}
    answer = _call(app, _alb("GET", "/", query, {"accept": "application/json"}))
    assert answer.status == 200, answer.body[:200]
    assert answer.json()["characters"] == len("Café au lait.") and "Café" in answer.json()["chunks"][0]["text"]


def test_an_alb_answer_over_its_1_mb_cap_is_a_303_to_the_audio(app: Any, s3: Any) -> None:
    query = {"text": "A sentence long enough to fill more than a megabyte of audio. " * 3, "steps": "1", "format": "wav"}
    result = app.lambda_handler(_alb("GET", "/", query, {"accept": "*/*"}), LambdaContext())
    assert size_of(result) <= ALB_RESPONSE_LIMIT
    assert (result["statusCode"], result["statusDescription"]) == (303, "303 See Other"), result["body"][:200]
    audio = httpx.get(result["headers"]["location"]).raise_for_status().content  # the link, followed as curl -L does
    assert audio_info(audio).duration > 5
    assert len(base64.b64encode(audio)) > ALB_RESPONSE_LIMIT


def test_an_alb_with_multi_value_headers_is_answered_in_multi_value_headers(app: Any) -> None:
    event = _alb("GET", "/health", headers={"accept": "application/json"})
    event["multiValueHeaders"] = {name: [value] for name, value in event.pop("headers").items()}
    event["multiValueQueryStringParameters"] = {}
    del event["queryStringParameters"]
    result = app.lambda_handler(event, LambdaContext())
    assert "headers" not in result and result["multiValueHeaders"]["content-type"] == ["application/json"]
    assert (result["statusCode"], result["statusDescription"]) == (200, "200 OK")


def test_an_alb_request_never_streams_whatever_its_host_says(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    event = _alb("GET", "/", {"text": "Hi.", "steps": "1"}, {"host": "abc.lambda-url.us-east-1.on.aws"})
    result = app.lambda_handler(event, LambdaContext())
    assert not isinstance(result, StreamedAnswer) and result["statusCode"] == 200


# --- events that ask for nothing ------------------------------------------------------------------------


def test_a_scheduled_keep_warm_event_is_a_quiet_no_op(app: Any, json_logs: Any) -> None:
    result = app.lambda_handler(load_event("eventbridge_scheduled"), LambdaContext())
    assert result == {"results": [], "ignored": "Scheduled Event"}
    assert not [line for line in json_logs() if line.get("level") in ("WARNING", "ERROR")]


def test_an_object_deleted_through_eventbridge_is_skipped_as_a_direct_delete_is(app: Any, s3: Any) -> None:
    result = app.lambda_handler(load_event("s3_eventbridge_deleted"), LambdaContext())
    (outcome,) = result["results"]
    assert (outcome["status"], outcome["reason"], outcome["key"]) == ("skipped", "not_a_creation", "input/story.txt")
