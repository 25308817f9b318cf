"""Real clients against the real function under RIE, through the local function URL: OpenAI's
Python SDK on ``POST /v1/audio/speech``, and curl-shaped HEAD requests on the GET routes.

What is checked is what such a client relies on: OpenAI's ``pcm`` is 24 kHz 16-bit mono (the SDK's
``LocalAudioPlayer`` plays it at 24,000 Hz, so any other rate plays at the wrong speed), an error
arrives as the SDK's exception with OpenAI's ``type`` and ``param``, and HEAD answers as GET does
without the body.
"""

from __future__ import annotations

import http.client
import io

import openai
import pytest
import soundfile as sf
from harness_fixtures.support import function_args

from supertonic_engine.audio import available_formats
from supertonic_harness.fronts.emulator import FunctionUrlServer
from supertonic_harness.fronts.local import start_local_function

PCM_RATE = 24_000
PCM_TYPE = "audio/pcm;rate=24000;channels=1;encoding=signed-int;bits=16;endianness=little"


@pytest.fixture(scope="module")
def front(tiny_model_dir):
    """The repository's handler under RIE on the tiny model, behind the local function URL."""
    args = function_args("--model", str(tiny_model_dir), "--timeout", "30")
    requests: list[str] = []
    with start_local_function(args) as local:
        server = FunctionUrlServer(local, log=requests.append).start()
        try:
            yield server
        finally:
            server.stop()
    assert requests, "no request went through the function URL"


@pytest.fixture(scope="module")
def client(front):
    return openai.OpenAI(base_url=front.url + "v1", api_key="x", max_retries=0, timeout=60)


def _seconds_of_pcm(data: bytes) -> float:
    assert len(data) % 2 == 0, "16-bit samples come in pairs of bytes"
    return len(data) / 2 / PCM_RATE


def test_the_sdk_gets_24_khz_pcm_as_long_as_the_duration_header_says(client):
    speech = client.audio.speech.create(model="tts-1", voice="alloy", input="Hello.", response_format="pcm")
    headers = speech.response.headers
    assert headers["content-type"] == PCM_TYPE and headers["x-supertonic-sample-rate"] == str(PCM_RATE)
    assert _seconds_of_pcm(speech.content) == pytest.approx(float(headers["x-supertonic-duration-s"]), abs=0.002)


def test_the_sdk_streams_pcm_as_long_as_the_duration_header_says(client):
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="nova", input="Streamed to the caller.", response_format="pcm"
    ) as response:
        assert response.status_code == 200
        data = b"".join(response.iter_bytes(4096))
        duration_s = float(response.headers["x-supertonic-duration-s"])
    assert duration_s > 0.5
    assert _seconds_of_pcm(data) == pytest.approx(duration_s, abs=0.002)


def test_the_sdk_s_default_format_is_mp3_and_a_wav_decodes_at_the_model_s_rate(client):
    # The SDK sends no response_format unless told: OpenAI's default, mp3, is what comes back.
    if "mp3" in available_formats():
        default = client.audio.speech.create(model="tts-1", voice="alloy", input="Hi.")
        assert default.response.headers["content-type"] == "audio/mpeg"
        assert sf.info(io.BytesIO(default.content)).format == "MP3"
    with client.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="Hi.", response_format="wav") as response:
        data = response.read()
    info = sf.info(io.BytesIO(data))
    assert info.samplerate == 44_100
    assert info.duration == pytest.approx(float(response.headers["x-supertonic-duration-s"]), abs=0.001)


@pytest.mark.parametrize(
    ("request_fields", "error_class", "param", "code"),
    [
        ({"input": ""}, openai.BadRequestError, "input", "empty_text"),
        ({"response_format": "aac"}, openai.UnprocessableEntityError, "response_format", "unsupported_format"),
        ({"voice": "nobody"}, openai.UnprocessableEntityError, "voice", "unknown_voice"),
        ({"speed": 9.0}, openai.BadRequestError, "speed", "invalid_parameter"),
    ],
)
def test_an_error_is_the_sdk_s_exception_with_type_and_param(client, request_fields, error_class, param, code):
    fields = {"model": "tts-1", "voice": "alloy", "input": "Hello.", "response_format": "pcm", **request_fields}
    with pytest.raises(error_class) as raised:
        client.audio.speech.create(**fields)
    error = raised.value
    assert (error.type, error.param, error.code) == ("invalid_request_error", param, code)
    assert error.body["field"] and error.body["message"]


def _raw(front, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """One request as curl sends it (``curl -I`` for HEAD), on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", front.server_address[1], timeout=60)
    try:
        connection.request(method, path, headers={"user-agent": "curl/8.5.0", "accept": "*/*"})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", ["/v1/voices", "/openapi.json", "/?text=Hello.&steps=1&seed=3", "/health"])
def test_head_through_the_front_is_get_without_the_body(front, path):
    get_status, get_headers, body = _raw(front, "GET", path)
    status, headers, empty = _raw(front, "HEAD", path)
    assert (status, get_status, empty) == (200, 200, b"")
    assert headers["content-type"] == get_headers["content-type"]
    if path == "/health":  # its report names each request's id, so only the length's presence is fixed
        assert int(headers["content-length"]) > 0
    else:  # the same document, or the same audio (seeded), as GET's body
        assert int(headers["content-length"]) == len(body)


def test_head_on_a_post_route_is_a_405_that_names_post(front):
    status, headers, body = _raw(front, "HEAD", "/v1/tts")
    assert (status, headers["allow"], body) == (405, "POST", b"")
