"""SSML through the real handler: the function URL (Polly's shape and OpenAI's), a query string,
speech marks into the SSML as sent, and refusals that name the field and the element."""

from __future__ import annotations

import json
from typing import Any

from fixtures_s3 import LambdaContext
from test_handler_http import _call, _get, _post

pytest_plugins = ["fixtures_s3"]

SSML = '<speak>Hello <sub alias="World Wide Web">WWW</sub>.<break time="1s"/><lang xml:lang="ko-KR">안녕하세요, 3개 주세요.</lang></speak>'


def test_an_ssml_request_is_read_as_ssml_with_its_breaks_in_the_audio(app: Any) -> None:
    answer = _call(app, _post({"text": SSML, "seed": 1, "steps": 1}, headers={"accept": "application/json"}))
    assert answer.status == 200, answer.body
    document = answer.json()
    assert [c["text"] for c in document["chunks"]] == ["Hello World Wide Web.", "안녕하세요, 세 개 주세요."]
    first, second = document["chunks"]
    assert round(second["start_s"] - first["end_s"], 3) == 1.0
    plain = _call(app, _post({"text": SSML, "text_type": "text", "seed": 1, "steps": 1}, headers={"accept": "application/json"}))
    assert plain.status == 200 and "<sub" in plain.json()["chunks"][0]["text"]  # text_type text: markup is words


def test_marks_of_ssml_point_into_the_document_as_sent(app: Any) -> None:
    answer = _call(app, _post({"text": SSML, "marks": ["sentence", "word"], "steps": 1}))
    assert answer.status == 200
    marks = [json.loads(line) for line in answer.body.decode("utf-8").splitlines()]
    raw = SSML.encode("utf-8")
    words = [m for m in marks if m["type"] == "word"]
    assert [raw[m["start"] : m["end"]].decode("utf-8") for m in words if m["value"] in ("Hello", "안녕하세요")] == ["Hello", "안녕하세요"]
    sentences = [m for m in marks if m["type"] == "sentence"]
    assert [m["value"] for m in sentences] == ["Hello WWW.", "안녕하세요, 3개 주세요."]
    assert sentences[1]["time"] - sentences[0]["time"] > 1000  # the break is heard between them


def test_a_query_string_and_a_direct_invoke_take_ssml_too(app: Any) -> None:
    query = "text=%3Cspeak%3EHi%3Cbreak+time%3D%22500ms%22%2F%3Ethere%3C%2Fspeak%3E&text_type=ssml&steps=1"
    answer = _call(app, _get("/", query, headers={"accept": "application/json"}))
    assert answer.status == 200 and [c["text"] for c in answer.json()["chunks"]] == ["Hi", "there"]
    result = app.lambda_handler({"text": "<speak>Hi<break time='500ms'/>there</speak>", "steps": 1, "format": "wav"}, LambdaContext())
    assert [c["text"] for c in result["chunks"]] == ["Hi", "there"]


def test_unsupported_ssml_is_a_422_naming_the_field_and_the_element(app: Any) -> None:
    answer = _call(app, _post({"text": '<speak><prosody rate="slow">Hi</prosody></speak>'}))
    assert answer.status == 422
    error = answer.json()["error"]
    assert error["code"] == "unsupported_ssml" and error["field"] == "text" and "<prosody>" in error["message"]
    openai = _call(
        app, _post({"model": "tts-1", "voice": "alloy", "input": "<speak><emphasis>Hi</emphasis></speak>"}, path="/v1/audio/speech")
    )
    assert openai.status == 422 and openai.json()["error"]["param"] == "input" and "<emphasis>" in openai.json()["error"]["message"]


def test_malformed_ssml_and_a_bad_text_type_are_400s_that_say_what_to_fix(app: Any) -> None:
    answer = _call(app, _post({"text": "<speak>Fish & chips</speak>"}))
    assert answer.status == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_ssml" and error["field"] == "text" and "&amp;" in error["message"]
    bomb = '<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>'
    refused = _call(app, _post({"text": bomb}))
    assert refused.status == 400 and "DOCTYPE" in refused.json()["error"]["message"]
    wrong = _call(app, _post({"text": "Hi", "text_type": "xml"}))
    assert wrong.status == 400 and wrong.json()["error"]["field"] == "text_type"
