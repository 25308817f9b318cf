"""``"ssml": "lenient"`` through the real handler: SSML written for Polly is read as Polly reads it,
skipping what this function does not do and naming it in ``x-supertonic-ssml-ignored``;
``<prosody rate>`` sets the speed where it holds every word, and ``<mark name>`` is an ``ssml``
speech mark where it stands."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fixtures_s3 import LambdaContext
from test_handler_http import _call, _get, _post

from supertonic_function.runtime import StreamedAnswer

pytest_plugins = ["fixtures_s3"]

# Polly's own speech-marks example with SSML (https://docs.aws.amazon.com/polly/latest/dg/sp-mks-example2.html).
POLLY_EXAMPLE = '<speak><prosody volume="+20dB">Mary had <break time="300ms"/>a little <mark name="animal"/>lamb</prosody></speak>'
IGNORED = "x-supertonic-ssml-ignored"


def _marks(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.decode("utf-8").splitlines()]


def test_polly_speech_marks_example_is_read_with_its_ssml_mark(app: Any) -> None:
    answer = _call(app, _post({"text": POLLY_EXAMPLE, "ssml": "lenient", "marks": ["sentence", "word", "ssml"], "steps": 1}))
    assert answer.status == 200, answer.body
    assert answer.headers[IGNORED] == "prosody volume"
    marks = _marks(answer.body)
    raw = POLLY_EXAMPLE.encode("utf-8")
    # The byte offsets Polly's page gives for the sentence and for the words it lists.
    assert [(m["type"], m["start"], m["end"]) for m in marks if m["type"] == "sentence"] == [("sentence", 31, 95)]
    words = {m["value"]: (m["start"], m["end"]) for m in marks if m["type"] == "word"}
    assert words["Mary"] == (31, 35) and words["had"] == (36, 39) and words["a"] == (61, 62) and words["lamb"] == (91, 95)
    assert [m["value"] for m in marks] == ["Mary had a little lamb", "Mary", "had", "a", "little", "animal", "lamb"]
    mark = marks[5]
    assert mark["type"] == "ssml" and raw[mark["start"] : mark["end"]] == b'<mark name="animal"/>'
    assert marks[4]["time"] <= mark["time"] <= marks[6]["time"]
    # The same marks whatever else is asked for: ssml alone gives just the mark.
    alone = _call(app, _post({"text": POLLY_EXAMPLE, "ssml": "lenient", "marks": ["ssml"], "steps": 1}))
    assert [(m["type"], m["value"], m["time"]) for m in _marks(alone.body)] == [("ssml", "animal", mark["time"])]


def test_a_mark_in_a_fragment_and_with_an_end_tag_points_at_its_element_as_sent(app: Any) -> None:
    fragment = 'One. <mark name="a&gt;b" note=">"></mark>Two.<break time="1s"/><mark name="end"/>'
    answer = _call(app, _post({"text": fragment, "text_type": "ssml", "ssml": "lenient", "marks": ["sentence", "ssml"], "steps": 1}))
    assert answer.status == 200, answer.body
    assert answer.headers[IGNORED] == "mark note"
    marks = _marks(answer.body)
    raw = fragment.encode("utf-8")
    named = [m for m in marks if m["type"] == "ssml"]
    assert [m["value"] for m in named] == ["a>b", "end"]
    assert [raw[m["start"] : m["end"]].decode() for m in named] == ['<mark name="a&gt;b" note=">"></mark>', '<mark name="end"/>']
    sentences = [m for m in marks if m["type"] == "sentence"]
    assert [m["value"] for m in sentences] == ["One.", "Two."]
    assert named[0]["time"] == sentences[1]["time"]  # heard where the words after it begin
    audio = _call(
        app, _post({"text": fragment, "text_type": "ssml", "ssml": "lenient", "steps": 1}, headers={"accept": "application/json"})
    )
    assert abs(named[1]["time"] - audio.json()["duration_s"] * 1000) <= 1  # after the closing break: where the audio ends


def test_unsupported_elements_are_read_as_their_words_and_named(app: Any) -> None:
    ssml = '<speak><prosody pitch="high">Hi</prosody> <emphasis level="strong">there</emphasis>, <amazon:effect name="whispered">friend</amazon:effect>.</speak>'
    answer = _call(app, _post({"text": ssml, "ssml": "lenient", "steps": 1}, headers={"accept": "application/json"}))
    assert answer.status == 200, answer.body
    assert answer.headers[IGNORED] == "prosody pitch, emphasis, amazon:effect"
    assert [c["text"] for c in answer.json()["chunks"]] == ["Hi there, friend."]
    strict = _call(app, _post({"text": ssml, "steps": 1}))
    assert strict.status == 422 and '"ssml": "lenient"' in strict.json()["error"]["message"]
    plain = _call(app, _post({"text": "<speak>Hi there.</speak>", "ssml": "lenient", "steps": 1}))
    assert plain.status == 200 and IGNORED not in plain.headers


def test_the_header_comes_with_a_streamed_answer_too(app: Any, configure: Any) -> None:
    configure(invoke_mode="RESPONSE_STREAM")
    event = _post({"text": "<speak><emphasis>Hi</emphasis> there.</speak>", "ssml": "lenient", "steps": 1})
    answer = app.lambda_handler(event, LambdaContext(remaining_ms=60_000))
    assert isinstance(answer, StreamedAnswer) and answer.prelude is not None
    assert answer.prelude["statusCode"] == 200 and answer.prelude["headers"][IGNORED] == "emphasis"


@pytest.mark.parametrize(
    ("ssml", "speed", "ignored"),
    [
        ('<speak> <prosody rate="150%">Hi there. Bye now.</prosody> </speak>', 1.575, None),
        ('<speak><prosody rate="slow"><p>Hi there.</p><p>Bye now.</p></prosody></speak>', 0.8925, None),
        # Part of the text only: the speed is one per request, so the rate is skipped and named.
        ('<speak>Hi there. <prosody rate="150%">Bye now.</prosody></speak>', 1.05, "prosody rate"),
        # 50% of 1.05 is below the model's slowest, 0.7.
        ('<speak><prosody rate="50%">Hi there.</prosody></speak>', 1.05, "prosody rate"),
        ('<speak><prosody rate="fastest">Hi there.</prosody></speak>', 1.05, "prosody rate"),
        (
            '<speak><prosody rate="fast" volume="loud">Hi <prosody rate="slow">there</prosody>.</prosody></speak>',
            1.26,
            "prosody volume, prosody rate",
        ),
    ],
)
def test_prosody_rate_sets_the_speed_where_it_holds_every_word(app: Any, ssml: str, speed: float, ignored: str | None) -> None:
    answer = _call(app, _post({"text": ssml, "ssml": "lenient", "steps": 1}, headers={"accept": "application/json"}))
    assert answer.status == 200, answer.body
    assert answer.json()["speed"] == speed and answer.headers.get(IGNORED) == ignored


def test_malformed_xml_is_refused_as_in_strict_mode(app: Any) -> None:
    malformed = "<speak>Fish & chips <emphasis>today</emphasis></speak>"
    strict = _call(app, _post({"text": malformed}))
    lenient = _call(app, _post({"text": malformed, "ssml": "lenient"}))
    assert lenient.status == strict.status and lenient.json()["error"] == strict.json()["error"]
    assert lenient.json()["error"]["code"] == "invalid_ssml"


def test_the_ssml_field_is_checked_and_read_from_every_wire(app: Any) -> None:
    wrong = _call(app, _post({"text": "<speak>Hi</speak>", "ssml": "loose"}))
    assert wrong.status == 400 and wrong.json()["error"]["field"] == "ssml" and "strict, lenient" in wrong.json()["error"]["message"]
    query = "text=%3Cspeak%3E%3Cemphasis%3EHi%3C%2Femphasis%3E%3C%2Fspeak%3E&ssml=lenient&steps=1"
    answer = _call(app, _get("/", query))
    assert answer.status == 200 and answer.headers[IGNORED] == "emphasis"
    direct = app.lambda_handler({"text": POLLY_EXAMPLE, "ssml": "lenient", "marks": ["ssml"]}, LambdaContext())
    assert [(m["type"], m["value"]) for m in direct["marks"]] == [("ssml", "animal")]
