"""The handler at its edges: hand-made events, text UTF-8 cannot carry, HEAD, Accept, numbers in strings."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fixtures_s3 import INPUT_BUCKET, OUTPUT_BUCKET, HttpAnswer, LambdaContext, load_event

from supertonic_engine.audio import available_formats
from supertonic_harness.fronts.furl import http_to_event

# S3 server, app and context fixtures, registered once for the whole session.
pytest_plugins = ["fixtures_s3"]


def _invoke(app: Any, event: Any) -> Any:
    """The handler's result, which must survive the runtime's JSON encoding as UTF-8."""
    result = app.lambda_handler(event, LambdaContext())
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    return result


def _http(app: Any, event: Any) -> HttpAnswer:
    return HttpAnswer.of(_invoke(app, event))


def _event(name: str, **changes: Any) -> dict[str, Any]:
    event = copy.deepcopy(load_event(name))
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = event
        for part in parents:
            node = node[part]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value
    return event


_DELETE = object()


# --- hand-made events: a typed 400, never an exception -------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"requestContext__http__method": _DELETE}, "requestContext.http.method"),
        ({"requestContext__http__method": 5}, "requestContext.http.method"),
        ({"requestContext__http": "POST"}, "requestContext.http"),
        ({"rawPath": _DELETE}, "rawPath"),
        ({"rawPath": 5}, "rawPath"),
        ({"headers": ["content-type", "application/json"]}, "headers"),
        ({"headers__content-type": 5}, "headers.content-type"),
        ({"queryStringParameters": "text=hi"}, "queryStringParameters"),
        ({"queryStringParameters": {"text": 5}}, "queryStringParameters.text"),
        ({"body": 5}, "body"),
        ({"body": {"text": "Hello."}}, "body"),
        ({"isBase64Encoded": "yes"}, "isBase64Encoded"),
        ({"requestContext__domainName": 5}, "requestContext.domainName"),
    ],
)
def test_a_malformed_function_url_event_is_a_400_naming_the_part(app: Any, changes: dict[str, Any], field: str) -> None:
    answer = _http(app, _event("furl_post_tts", **changes))
    assert answer.status == 400, answer.body[:300]
    error = answer.json()["error"]
    assert error["code"] == "malformed_event" and error["field"] == field


def test_a_malformed_head_request_is_answered_without_a_body(app: Any) -> None:
    result = _invoke(app, _event("furl_get_health", requestContext__http__method="HEAD", rawPath=5))
    assert result["statusCode"] == 400 and result["body"] == "" and int(result["headers"]["content-length"]) > 0


def test_a_bare_payload_2_event_is_answered(app: Any) -> None:
    answer = _http(app, {"version": "2.0", "requestContext": {"http": {}}})
    assert answer.status == 400 and answer.json()["error"]["field"] == "requestContext.http.method"


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"eventSource": "aws:s3"}, "Records[0].s3"),
        ({"eventSource": "aws:s3", "eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": INPUT_BUCKET}}}, "Records[0].s3.object"),
        (
            {"eventSource": "aws:s3", "eventName": "ObjectCreated:Put", "s3": {"bucket": {}, "object": {"key": "input/a.txt"}}},
            "Records[0].s3.bucket.name",
        ),
        (
            {"eventSource": "aws:s3", "eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": 5}}},
            "Records[0].s3.object.key",
        ),
        (
            {"eventSource": "aws:s3", "eventName": 5, "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/a.txt"}}},
            "Records[0].eventName",
        ),
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/a.txt", "size": "12"}},
            },
            "Records[0].s3.object.size",
        ),
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/a.txt", "eTag": 7}},
            },
            "Records[0].s3.object.eTag",
        ),
        # ETags and version ids are visible ASCII: the revision becomes part of the result's key.
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/a.txt", "eTag": "\udfffab"}},
            },
            "Records[0].s3.object.eTag",
        ),
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/a.txt", "versionId": "v 1"}},
            },
            "Records[0].s3.object.versionId",
        ),
        # S3 keys are at most 1,024 bytes of UTF-8: a longer one names no object S3 could hold.
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/" + "a" * 1100 + ".txt"}},
            },
            "Records[0].s3.object.key",
        ),
        (
            {
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {"bucket": {"name": INPUT_BUCKET}, "object": {"key": "input/\udc80.txt"}},
            },
            "Records[0].s3.object.key",
        ),
    ],
)
def test_a_malformed_s3_event_is_refused_before_any_record_runs(app: Any, s3: Any, record: dict[str, Any], field: str) -> None:
    good = load_event("s3_put_txt", s3)["Records"][0]
    result = _invoke(app, {"Records": [good, record]})
    assert result["status"] == 400 and result["error"]["code"] == "malformed_event"
    assert result["error"]["field"] == field.replace("[0]", "[1]")
    # Nothing was rendered: the well-formed record before it waits for a well-formed event.
    assert s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("KeyCount") == 0


def test_a_job_without_a_domain_name_is_refused_before_it_is_stored(app: Any, s3: Any) -> None:
    answer = _http(app, _event("furl_post_job", requestContext__domainName=_DELETE))
    assert answer.status == 400 and answer.json()["error"]["field"] == "requestContext.domainName"
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 0


def test_a_domain_name_that_is_not_a_host_is_refused(app: Any, s3: Any) -> None:
    # It becomes the Location header: a line break there would split the response.
    answer = _http(app, _event("furl_post_job", requestContext__domainName="evil.example\r\nset-cookie: a=1"))
    assert answer.status == 400 and answer.json()["error"]["field"] == "requestContext.domainName"
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 0


@pytest.mark.parametrize("path", ["/v1/tts", "/v1/audio/speech"])
def test_a_number_past_float_range_is_a_400(app: Any, path: str) -> None:
    event = _event("furl_post_tts", rawPath=path, requestContext__http__path=path)
    text = "input" if path == "/v1/audio/speech" else "text"
    event["body"] = f'{{"{text}": "Hi.", "speed": 1{"0" * 400}}}'  # JSON has no limit; float() has
    answer = _http(app, event)
    assert answer.status == 400 and answer.json()["error"]["field"] == "speed"


# --- text and names UTF-8 cannot carry -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/tts", "/v1/jobs", "/v1/audio/speech"])
def test_a_lone_surrogate_in_the_text_is_a_422_on_every_route(app: Any, s3: Any, path: str) -> None:
    field = "input" if path == "/v1/audio/speech" else "text"
    event = _event("furl_post_tts", rawPath=path, requestContext__http__path=path)
    event["body"] = json.dumps({field: "Hello \ud800 there."})  # JSON's own escape: valid JSON, not valid text
    answer = _http(app, event)
    assert answer.status == 422, answer.body[:300]
    error = answer.json()["error"]
    assert error["code"] == "unsupported_characters" and error["field"] == field and "U+D800" in error["message"]
    assert s3.list_objects_v2(Bucket=INPUT_BUCKET).get("KeyCount") == 0


@pytest.mark.parametrize("source", ["furl_post_tts", "direct_invoke"])
def test_an_unknown_field_named_by_a_lone_surrogate_is_answered_in_utf_8(app: Any, source: str) -> None:
    event = load_event(source)
    if source == "direct_invoke":
        event["\udfff"] = 1
        error = _invoke(app, event)["error"]
    else:
        event["body"] = json.dumps({"text": "Hello.", "\udfff": 1})
        answer = _http(app, event)
        answer.body.decode("utf-8")
        error = answer.json()["error"]
    assert error["code"] == "invalid_parameter" and error["field"] == "\\udfff"


def test_a_log_line_naming_a_lone_surrogate_still_reaches_stdout(app: Any) -> None:
    import io

    from supertonic_function.telemetry import logger

    # Lambda's stdout encodes UTF-8 strictly: a line that cannot be encoded is lost to a "Logging error".
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    previous = logger.registered_handler.setStream(stdout)  # type: ignore[attr-defined]
    try:
        _http(app, _event("furl_get_voices", rawPath="/\udfff", requestContext__http__path="/\udfff"))
    finally:
        logger.registered_handler.setStream(previous)  # type: ignore[attr-defined]
    lines = [json.loads(line) for line in stdout.buffer.getvalue().decode("utf-8").splitlines()]  # type: ignore[attr-defined]
    refused = next(line for line in lines if line.get("message") == "request refused")
    assert refused["path"] == "/\udfff" and refused["error"]["code"] == "not_found"  # JSON's escape read back


# --- HEAD, Accept, numbers in query strings ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["furl_get_health", "furl_get_voices", "furl_get_query"])
def test_head_answers_like_get_without_the_body(app: Any, name: str) -> None:
    get_event = load_event(name)
    if get_event["rawQueryString"]:  # the same audio twice, to the byte
        target = f"{get_event['rawPath']}?{get_event['rawQueryString']}&seed=7"
        get_event = http_to_event("GET", target, get_event["headers"].items(), b"")
    head_event = copy.deepcopy(get_event)
    head_event["requestContext"]["http"]["method"] = "HEAD"
    get, head = _invoke(app, get_event), _invoke(app, head_event)
    assert head["statusCode"] == get["statusCode"] == 200
    assert head["body"] == ""
    length = len(HttpAnswer.of(get).body)
    if name == "furl_get_query":  # FLAC, whose length is known only once encoded: not said (tests/test_head.py)
        assert "content-length" not in head["headers"]
    else:
        assert head["headers"].pop("content-length") == str(length)
    volatile = ("x-supertonic-rtf", "x-supertonic-synth-ms")  # timings differ between two runs
    assert {k: v for k, v in head["headers"].items() if k not in volatile} == {k: v for k, v in get["headers"].items() if k not in volatile}


def test_head_is_allowed_wherever_get_is(app: Any) -> None:
    answer = _http(app, _event("furl_get_voices", requestContext__http__method="DELETE"))
    assert answer.status == 405 and answer.headers["allow"] == "GET, HEAD"
    wrong = _http(app, _event("furl_post_tts", requestContext__http__method="HEAD"))
    assert wrong.status == 405 and wrong.body == b"" and wrong.headers["allow"] == "POST"


@pytest.mark.parametrize(
    ("accept", "status", "content_type"),
    [
        ("application/json;q=0, audio/*", 200, "audio/wav"),
        ("audio/*;q=0, application/json", 200, "application/json"),
        ("audio/wav;q=0, */*;q=0.1", 200, "application/json"),
        ("application/json, audio/*;q=0.5", 200, "application/json"),
        ("audio/*, application/json;q=0.5", 200, "audio/wav"),
        ("*/*", 200, "audio/wav"),
        ("", 200, "audio/wav"),
        ("application/octet-stream", 200, "audio/wav"),  # what OpenAI's SDK sends for speech
        ("audio/*;q=0, application/json;q=0", 406, "application/json"),
        ("text/html", 406, "application/json"),
        ("*/*;q=0", 406, "application/json"),
    ],
)
def test_accept_q_values_choose_and_exclude(app: Any, accept: str, status: int, content_type: str) -> None:
    answer = _http(app, _event("furl_post_tts", headers__accept=accept))
    assert (answer.status, answer.content_type.split(";")[0]) == (status, content_type), answer.body[:200]
    if status == 406:
        error = answer.json()["error"]
        assert error["code"] == "not_acceptable" and error["field"] == "accept"


# A body without a format: the audio type Accept prefers picks it (the default on a tie).
@pytest.mark.parametrize(
    ("path", "body", "accept", "content_type"),
    [
        ("/v1/tts", {"text": "Hi", "steps": 1}, "audio/mpeg", "audio/mpeg"),
        ("/v1/tts", {"text": "Hi", "steps": 1}, "audio/flac;q=0.5, audio/pcm", "audio/pcm"),
        ("/v1/tts", {"text": "Hi", "steps": 1}, "audio/ogg", "audio/ogg"),
        ("/v1/tts", {"text": "Hi", "steps": 1}, "audio/*, application/json;q=0.1", "audio/wav"),
        ("/v1/audio/speech", {"input": "Hi", "voice": "alloy"}, "audio/wav", "audio/wav"),
        ("/v1/audio/speech", {"input": "Hi", "voice": "alloy"}, "application/octet-stream", "audio/mpeg"),
        ("/v1/audio/speech", {"input": "Hi", "voice": "alloy"}, "audio/*", "audio/mpeg"),
    ],
)
def test_accept_picks_the_format_a_request_does_not_name(app: Any, path: str, body: dict[str, Any], accept: str, content_type: str) -> None:
    if content_type == "audio/mpeg" and "mp3" not in available_formats():
        pytest.skip("this libsndfile has no MP3 encoder")
    event = _event("furl_post_tts", rawPath=path, body=json.dumps(body), headers__accept=accept)
    answer = _http(app, event)
    assert (answer.status, answer.content_type.split(";")[0]) == (200, content_type), answer.body[:200]


@pytest.mark.parametrize(
    ("path", "body", "accept"),
    [
        ("/v1/tts", {"text": "Hi", "steps": 1, "format": "wav"}, "audio/mpeg"),
        ("/v1/tts", {"text": "Hi", "steps": 1}, "text/html"),
        ("/v1/audio/speech", {"input": "Hi", "voice": "alloy", "response_format": "pcm"}, "audio/wav, application/json;q=0"),
    ],
)
def test_a_named_format_accept_excludes_is_a_406(app: Any, path: str, body: dict[str, Any], accept: str) -> None:
    event = _event("furl_post_tts", rawPath=path, body=json.dumps(body), headers__accept=accept)
    answer = _http(app, event)
    assert answer.status == 406, answer.body[:200]
    error = answer.json()["error"]
    assert error["code"] == "not_acceptable" and error["field"] == "accept"


def test_json_only_routes_honour_accept(app: Any) -> None:
    assert _http(app, _event("furl_get_voices", headers__accept="application/*")).status == 200
    refused = _http(app, _event("furl_get_voices", headers__accept="audio/wav, application/json;q=0"))
    assert refused.status == 406 and refused.json()["error"]["field"] == "accept"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("steps", "1_0"),
        ("steps", "\u0661"),
        ("steps", "\uff12"),
        ("seed", "1_000"),
        ("seed", "\u0967"),
        ("speed", "1_0.5"),
        ("speed", "\u0661.\u0660"),
        ("speed", "nan"),
        ("speed", "inf"),
        ("speed", "1e0"),
    ],
)
def test_numbers_in_a_query_string_are_plain_ascii_decimals(app: Any, field: str, value: str) -> None:
    fields = {"text": "Hi", "steps": "1", field: value}
    answer = _http(app, http_to_event("GET", "/?" + "&".join(f"{k}={v}" for k, v in fields.items()), [], b""))
    assert answer.status == 400, answer.body[:200]
    error = answer.json()["error"]
    assert error["code"] == "invalid_parameter" and error["field"] == field


@pytest.mark.parametrize("query", ["text=Hi&steps=2&speed=1.25&seed=3", "text=Hi&steps=%2B2&speed=.9&seed=0", "text=Hi&steps= 2 &speed=1."])
def test_plain_decimals_are_read(app: Any, query: str) -> None:
    assert _http(app, http_to_event("GET", f"/?{query}", [], b"")).status == 200


@pytest.mark.parametrize(
    ("accept", "page"),
    [("text/html", True), ("text/html;q=0.0, */*", False), ("TEXT/HTML; Q=0.5", True), ("text/*", False), ("*/*", False)],
)
def test_the_playground_is_for_an_accept_that_names_html(app: Any, accept: str, page: bool) -> None:
    answer = _http(app, http_to_event("GET", "/", [("accept", accept)], b""))
    assert answer.content_type.startswith("text/html") is page, (answer.status, answer.content_type)
