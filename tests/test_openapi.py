"""The OpenAPI document of the HTTP API: valid OpenAPI 3.1, exactly the routes the handler serves,
served at /openapi.json, and true of what the function answers through its function URL.

The last part is schemathesis: requests generated from the document (valid and invalid ones) go
through the emulator's function-URL front to the real handler under RIE, on the tiny stand-in with
the template's buckets in moto, and every answer is checked: no server error, and a body that
matches the response schema the document gives for its status.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import schemathesis
from fixtures_s3 import LambdaContext, load_event
from harness_fixtures.support import function_args
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from supertonic_function import __version__
from supertonic_function.http_api import openapi_document, served
from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.local import start_local_function

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]

DOCUMENT = openapi_document()
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Requests per operation: enough to reach every field's edges, few enough for about a minute.
MAX_EXAMPLES = 40
COVERAGE = os.environ.get("SUPERTONIC_SCHEMATHESIS_COVERAGE") == "1"
# The two 5xx a client may meet from a healthy function: 503 is the model or a setting missing
# (the function answers so instead of crashing at init), 504 a synthesis past its deadline (a text
# at many steps near the timeout). Any other 5xx is a bug.
EXPECTED_STATUSES = ["2xx", "3xx", "4xx", "503", "504"]


def test_the_document_is_valid_openapi_3_1() -> None:
    assert DOCUMENT["openapi"].startswith("3.1")
    validate(DOCUMENT)
    assert DOCUMENT["info"]["version"] == __version__


def test_the_document_lists_exactly_the_routes_the_handler_serves() -> None:
    documented = {(method.upper(), path) for path, item in DOCUMENT["paths"].items() for method in item if method in HTTP_METHODS}
    assert documented == set(served())


def test_every_operation_documents_the_error_shape_for_its_refusals() -> None:
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post"):
                refusals = [code for code in operation["responses"] if code.startswith("4")]
                assert refusals, f"{method.upper()} {path} documents no 4xx"


def test_the_document_is_served(app: Any) -> None:
    event = load_event("furl_get_health")
    event["rawPath"] = event["requestContext"]["http"]["path"] = "/openapi.json"
    result = app.lambda_handler(event, LambdaContext())
    assert result["statusCode"] == 200 and result["headers"]["content-type"] == "application/json"
    assert json.loads(result["body"]) == DOCUMENT


# --- schemathesis against the function URL -----------------------------------------------------------

schema = schemathesis.openapi.from_dict(
    DOCUMENT,
    config=schemathesis.Config.from_dict(
        {
            "generation": {"max-examples": MAX_EXAMPLES, "mode": "all", "deterministic": True, "database": "none"},
            # The coverage phase tries every boundary of every field, and every method on every path:
            # over a thousand requests, minutes on two shared cores. Left to a run by hand.
            "phases": {"coverage": {"enabled": COVERAGE}, "stateful": {"enabled": False}},
            "checks": {"not_a_server_error": {"expected-statuses": EXPECTED_STATUSES}},
        }
    ),
)


@pytest.fixture(scope="module")
def function_url(tiny_model_dir) -> Any:
    """The real handler behind the emulator's function URL; texts up to 40 characters keep each
    synthesis short at any of the 100 steps a request may ask for."""
    args = function_args("--model", str(tiny_model_dir), "--timeout", "30")
    requests: list[str] = []
    with start_local_function(args, environment_overrides={"SUPERTONIC_SYNC_MAX_TEXT_CHARS": "40"}) as local:
        server = FunctionUrlServer(local, log=requests.append).start()
        try:
            yield server.url.rstrip("/")
        finally:
            server.stop()
    # The requests really went through the front (one log line each): a wiring mistake cannot pass silently.
    assert requests, "schemathesis sent no request to the function URL"


@schema.parametrize()
def test_the_function_answers_as_documented(case: Any, function_url: str) -> None:
    case.call_and_validate(base_url=function_url, checks=[not_a_server_error, response_schema_conformance], timeout=60)


@pytest.mark.parametrize("accept", ["text/html", "application/json", "audio/*"])
def test_get_root_answers_a_type_the_document_lists(app: Any, accept: str) -> None:
    event = load_event("furl_get_query")
    event["headers"]["accept"] = accept
    if accept == "text/html":  # a browser opening the URL: no text, the playground
        event["rawQueryString"], event["queryStringParameters"] = "", {}
    result = app.lambda_handler(event, LambdaContext())
    response = DOCUMENT["paths"]["/"]["get"]["responses"][str(result["statusCode"])]
    if "$ref" in response:  # "#/components/responses/<name>"
        response = DOCUMENT["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    documented = response["content"]
    assert result["headers"]["content-type"].split(";")[0] in documented
