"""The function behind an API Gateway HTTP API (payload 2.0), on its ``$default`` stage and on a named one.

A named stage ``prod`` begins every path API Gateway hands over (``/prod/v1/tts``), while routes and
``requestContext.stage`` do not carry it; the event is Powertools' own HTTP API fixture
(tests/powertools_events/) with the stage put in the way API Gateway puts it, as Powertools' test for
the same case does (aws-powertools/powertools-lambda-python#621).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from fixtures_s3 import HttpAnswer, LambdaContext

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

POWERTOOLS_EVENTS = Path(__file__).resolve().parent / "powertools_events"
HOST = "id.execute-api.us-east-1.amazonaws.com"  # the fixture's domainName


def http_api_event(method: str, path: str, stage: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """Powertools' apiGatewayProxyV2Event.json as API Gateway sends it for ``method path`` on ``stage``."""
    event = copy.deepcopy(json.loads((POWERTOOLS_EVENTS / "apiGatewayProxyV2Event.json").read_text(encoding="utf-8")))
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["stage"] = stage
    event["body"] = None if body is None else json.dumps(body)
    return event


def _call(app: Any, event: dict[str, Any]) -> HttpAnswer:
    return HttpAnswer.of(app.lambda_handler(event, LambdaContext()))


def test_the_fixture_is_an_http_api_event_on_the_default_stage() -> None:
    event = json.loads((POWERTOOLS_EVENTS / "apiGatewayProxyV2Event.json").read_text(encoding="utf-8"))
    assert event["version"] == "2.0" and event["requestContext"]["stage"] == "$default"
    assert event["requestContext"]["domainName"] == HOST


@pytest.mark.parametrize(("path", "stage"), [("/prod/v1/tts", "prod"), ("/v1/tts", "$default"), ("/my-stage_2/v1/tts/", "my-stage_2")])
def test_speech_is_routed_on_any_stage(app: Any, path: str, stage: str) -> None:
    answer = _call(app, http_api_event("POST", path, stage, {"text": "Through a stage.", "steps": 1}))
    assert (answer.status, answer.content_type) == (200, "audio/wav"), answer.body[:200]


def test_json_routes_are_routed_on_a_named_stage(app: Any) -> None:
    assert _call(app, http_api_event("GET", "/prod/v1/voices", "prod")).json()["default_voice"]
    assert _call(app, http_api_event("GET", "/prod/health", "prod")).status == 200
    head = _call(app, http_api_event("HEAD", "/prod/openapi.json", "prod"))
    assert head.status == 200 and head.body == b"" and int(head.headers["content-length"]) > 0


def test_a_stage_s_name_is_stripped_only_as_the_path_s_first_segment(app: Any) -> None:
    # On $default, /prod is a path of its own; a stage named prod does not strip /production.
    assert _call(app, http_api_event("POST", "/prod/v1/tts", "$default", {"text": "Hi"})).status == 404
    assert _call(app, http_api_event("POST", "/production/v1/tts", "prod", {"text": "Hi"})).status == 404


def test_links_the_function_builds_keep_the_stage(app: Any, s3: Any) -> None:
    accepted = _call(app, http_api_event("POST", "/prod/v1/jobs", "prod", {"text": "A job through a stage.", "steps": 1}))
    job = accepted.json()
    assert accepted.status == 202, job
    assert job["status_url"] == f"https://{HOST}/prod/v1/jobs/{job['job_id']}" == accepted.headers["location"]
    status = _call(app, http_api_event("GET", urlparse(job["status_url"]).path, "prod"))
    assert status.status == 200 and status.json()["status"] == "queued"


@pytest.mark.parametrize("stage", ["pr od", "../x", "", 7, "a/b"])
def test_a_stage_that_is_no_stage_name_is_refused_by_name(app: Any, stage: Any) -> None:
    answer = _call(app, http_api_event("POST", "/v1/tts", stage, {"text": "Hi"}))
    assert answer.status == 400, answer.body[:200]
    error = answer.json()["error"]
    assert error["code"] == "malformed_event" and error["field"] == "requestContext.stage"
