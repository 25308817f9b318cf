"""The function-URL front: HTTP request -> payload 2.0 event -> handler -> HTTP response."""

from __future__ import annotations

import base64
import io
import json
import urllib.error
import urllib.request

import pytest
import soundfile as sf
from harness_fixtures.support import FIXTURES, function_args

from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.furl import MAX_CHUNK_LINE, UnreadableBody, http_to_event, is_text, read_body, result_to_http
from supertonic_harness.fronts.local import start_local_function


def test_request_becomes_a_payload_2_event():
    event = http_to_event(
        "post",
        "/v1/tts?voice=F1&voice=M1&empty=",
        [("Content-Type", "application/json"), ("X-Trace", "a"), ("x-trace", "b"), ("Cookie", "a=1; b=2")],
        '{"text": "안녕하세요"}'.encode(),
        now=1_700_000_000.5,
    )
    assert event["version"] == "2.0" and event["routeKey"] == "$default"
    assert event["rawPath"] == "/v1/tts"
    assert event["rawQueryString"] == "voice=F1&voice=M1&empty="
    assert event["queryStringParameters"] == {"voice": "F1,M1", "empty": ""}
    assert event["headers"] == {"content-type": "application/json", "x-trace": "a,b"}
    assert event["cookies"] == ["a=1", "b=2"]
    assert event["isBase64Encoded"] is False
    assert json.loads(event["body"]) == {"text": "안녕하세요"}
    context = event["requestContext"]
    assert context["http"]["method"] == "POST" and context["http"]["path"] == "/v1/tts"
    assert context["domainName"].endswith(".lambda-url.us-east-1.on.aws")
    assert context["timeEpoch"] == 1_700_000_000_500


def test_non_text_bodies_arrive_base64_encoded():
    raw = b"\x00\xffRIFF"
    event = http_to_event("POST", "/", [("content-type", "application/octet-stream")], raw)
    assert event["isBase64Encoded"] is True and base64.b64decode(event["body"]) == raw
    bare = http_to_event("GET", "/", [], b"")
    assert "body" not in bare and "queryStringParameters" not in bare and "cookies" not in bare


@pytest.mark.parametrize(
    ("content_type", "text"),
    [
        ("application/json; charset=utf-8", True),
        ("text/plain", True),
        ("application/ld+json", True),
        ("application/x-www-form-urlencoded", False),
        ("audio/wav", False),
        (None, False),
    ],
)
def test_which_bodies_are_text(content_type, text):
    assert is_text(content_type) is text


def test_handler_response_becomes_http():
    response = result_to_http(
        {
            "statusCode": 201,
            "headers": {"Content-Type": "audio/wav"},
            "cookies": ["s=1"],
            "isBase64Encoded": True,
            "body": base64.b64encode(b"RIFF").decode(),
        }
    )
    assert response.status == 201 and response.body == b"RIFF"
    assert response.header("content-type") == "audio/wav"
    assert ("set-cookie", "s=1") in response.headers
    # Without statusCode, Lambda answers 200 with the JSON value as the body.
    plain = result_to_http({"ok": True})
    assert (plain.status, plain.header("content-type"), json.loads(plain.body)) == (200, "application/json", {"ok": True})


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        ({"statusCode": 200, "body": "\udfff"}, "UTF-8"),
        ({"statusCode": 200, "isBase64Encoded": True, "body": "not base64!"}, "base64"),
        ({"statusCode": "two hundred", "body": ""}, "statusCode"),
        ({"statusCode": 42, "body": ""}, "statusCode"),
        ({"statusCode": 200, "headers": ["content-type"], "body": ""}, "headers"),
        ({"statusCode": 200, "headers": {"location": "/a\r\nset-cookie: x=1"}, "body": ""}, "location"),
        ({"statusCode": 200, "headers": {"x-name": "\u4e00"}, "body": ""}, "x-name"),
        ({"statusCode": 200, "headers": {"bad name": "1"}, "body": ""}, "bad name"),
        ({"statusCode": 200, "cookies": "a=1", "body": ""}, "cookies"),
    ],
)
def test_an_answer_no_http_response_can_carry_is_a_502_that_says_why(result, problem):
    response = result_to_http(result)
    assert response.status == 502 and json.loads(response.body) == {"Message": "Internal Server Error"}
    assert problem in response.problem


@pytest.fixture(scope="module")
def url_server():
    args = function_args("--handler", "sample_functions.url_tone", "--task-root", str(FIXTURES), "--template", "none", "--timeout", "5")
    with start_local_function(args) as local:
        server = FunctionUrlServer(local, log=lambda line: None).start()
        try:
            yield server
        finally:
            server.stop()


def _request(url, method="GET", headers=None, body=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def _post(url, body, content_type):
    return _request(url, "POST", {"Content-Type": content_type}, body)


def test_http_request_through_the_function_url_returns_decodable_audio(url_server):
    status, headers, body = _post(url_server.url + "speak?x=1", b'{"seconds": 0.5}', "application/json")
    assert status == 200, body
    assert headers["content-type"] == "audio/wav"
    assert headers["x-sample-path"] == "/speak"
    assert headers["Set-Cookie"] == "sample=1"
    audio, rate = sf.read(io.BytesIO(body))
    assert rate == 16_000 and len(audio) == 8_000


def test_curl_style_form_post_reaches_the_handler_base64_encoded(url_server):
    # curl -d sends application/x-www-form-urlencoded: the handler must decode base64.
    status, _, body = _post(url_server.url, b'{"seconds": 0.25}', "application/x-www-form-urlencoded")
    assert status == 200
    assert sf.info(io.BytesIO(body)).duration == pytest.approx(0.25)


def test_handler_answers_pass_through_and_failures_become_502(url_server):
    status, _, body = _post(url_server.url, b"not json", "text/plain")
    assert status == 400 and "seconds" in json.loads(body)["error"]
    status, _, body = _post(url_server.url + "crash", b"{}", "application/json")
    assert status == 502 and json.loads(body) == {"Message": "Internal Server Error"}


def test_an_answer_utf_8_cannot_encode_is_a_502_not_a_dropped_connection(url_server):
    status, _, body = _post(url_server.url + "surrogate", b"{}", "application/json")
    assert status == 502 and json.loads(body) == {"Message": "Internal Server Error"}


def test_head_keeps_the_length_the_function_gives(url_server):
    status, headers, body = _request(url_server.url + "length", "HEAD")
    assert (status, headers["content-length"], body) == (200, "1234", b"")


def test_a_request_with_an_unreadable_length_is_a_400(url_server):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", url_server.server_address[1], timeout=30)
    try:
        connection.putrequest("POST", "/")
        connection.putheader("content-length", "lots")
        connection.endheaders()
        response = connection.getresponse()
        assert response.status == 400 and response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("raw", "body"),
    [
        (b'7\r\n{"secon\r\na;name=value\r\nds": 0.25}\r\n0\r\n\r\nNEXT', b'{"seconds": 0.25}'),
        (b"0\r\nx-checksum: 1\r\n\r\nNEXT", b""),  # no data, one trailer field
        (b"A\r\n0123456789\r\n0\r\n\r\nNEXT", b"0123456789"),
    ],
)
def test_a_chunked_body_is_read_to_its_end_and_no_further(raw, body):
    stream = io.BytesIO(raw)
    assert read_body(stream, "chunked", "999") == body  # chunked wins over a content-length
    assert stream.read() == b"NEXT"


@pytest.mark.parametrize(
    ("raw", "coding", "length"),
    [
        (b"zz\r\n", "chunked", None),  # a size that is not hexadecimal
        (b"5\r\nab", "chunked", None),  # the connection ends inside a chunk
        (b"2\r\nabcd\r\n0\r\n\r\n", "chunked", None),  # data longer than its size
        (b"3\r\nabc\r\n0\r\n", "chunked", None),  # no empty line after the last chunk
        (b"x" * (MAX_CHUNK_LINE + 10), "chunked", None),  # a size line without end
        (b"", "gzip, chunked", None),  # a coding the front does not undo
        (b"", None, "lots"),
        (b"abc", None, "10"),  # the connection ends before content-length bytes
    ],
)
def test_a_body_that_cannot_be_delimited_is_unreadable(raw, coding, length):
    with pytest.raises(UnreadableBody):
        read_body(io.BytesIO(raw), coding, length)


def test_a_chunked_request_reaches_the_function_and_the_connection_serves_the_next(url_server):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", url_server.server_address[1], timeout=30)
    try:
        # An iterable body without a length is sent with Transfer-Encoding: chunked, one chunk per piece.
        pieces = iter([b'{"seco', b'nds": ', b"0.25}"])
        connection.request("POST", "/speak", body=pieces, headers={"content-type": "application/json"}, encode_chunked=True)
        first = connection.getresponse()
        audio = first.read()
        assert first.status == 200, audio[:300]
        assert sf.info(io.BytesIO(audio)).duration == pytest.approx(0.25)
        kept = connection.sock
        connection.request("POST", "/speak", body=b'{"seconds": 0.5}', headers={"content-type": "application/json"})
        second = connection.getresponse()
        assert second.status == 200 and sf.info(io.BytesIO(second.read())).duration == pytest.approx(0.5)
        assert connection.sock is kept and kept is not None  # the same connection, not a new one
    finally:
        connection.close()


def test_a_malformed_chunk_is_a_400_and_the_connection_is_closed(url_server):
    import socket

    with socket.create_connection(("127.0.0.1", url_server.server_address[1]), timeout=30) as raw:
        raw.sendall(b"POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nnot-hex\r\n")
        reply = b""
        while chunk := raw.recv(65536):  # the front closes: recv returns b"" instead of waiting
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 400 ") and b'{"Message":"Bad Request"}' in reply


def test_every_method_reaches_the_function(url_server):
    for method in ("TRACE", "QUERY", "PROPFIND"):
        status, _, body = _request(url_server.url, method)
        assert status == 400 and "seconds" in json.loads(body)["error"], method  # the function's answer, not a 501
