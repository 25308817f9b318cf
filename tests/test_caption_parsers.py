"""Captions as the libraries people read them with see them: ``srt`` (SubRip) and ``webvtt-py``
(WebVTT) parse every file the function writes into the same cues, at the same times, with the
sentence's own text and nothing they would take for markup."""

from __future__ import annotations

import html
from typing import Any

import pytest
import srt
import webvtt
from test_handler_http import _call, _post

pytest_plugins = ["fixtures_s3"]

# SubRip's look-alikes for the characters its players read as markup (supertonic_engine.marks).
SRT_LOOK_ALIKES = str.maketrans({"\u2039": "<", "\u203a": ">", "\u2774": "{", "\u2775": "}"})
TEXTS = [
    "Mary had a little lamb.",  # Polly's speech-marks example
    "Dr. Smith arrived at 3 p.m. on Jan. 5th. He left at noon.",  # abbreviations end no sentence
    "I think 3 < 5 is true. R&amp;D pays. Fish & chips --> here.",  # what a player would read as markup
    "{\\an8}Up top {b}bold{/b} now.",  # SubRip players' brace tags
    "안녕하세요. 반갑습니다! 오늘 날씨가 좋네요?",
    "A long sentence that goes on and on past the two lines one caption holds, so that it is cut at its words "
    "into several cues, each of them a few words, and every one of them read back the same way by both parsers.",
]


def _captions(app: Any, text: str, fmt: str) -> str:
    answer = _call(app, _post({"text": text, "format": fmt, "steps": 1, "seed": 3}))
    assert answer.status == 200, answer.body
    return answer.body.decode("utf-8")


@pytest.mark.parametrize("text", TEXTS)
def test_srt_and_webvtt_py_read_the_same_cues_with_the_sentence_s_own_words(app: Any, text: str) -> None:
    subtitles = list(srt.parse(_captions(app, text, "srt")))
    cues = webvtt.from_string(_captions(app, text, "vtt")).captions
    assert subtitles and len(subtitles) == len(cues)
    for number, (subtitle, cue) in enumerate(zip(subtitles, cues, strict=True), 1):
        assert subtitle.index == number
        # The same times in both files (SubRip and WebVTT both write milliseconds).
        assert srt.timedelta_to_srt_timestamp(subtitle.start).replace(",", ".") == cue.start
        assert srt.timedelta_to_srt_timestamp(subtitle.end).replace(",", ".") == cue.end
        # webvtt-py strips what it reads as tags from .text: nothing is, so the two agree.
        assert cue.text == cue.raw_text
        assert "<" not in subtitle.content and "{" not in subtitle.content
        assert subtitle.content.translate(SRT_LOOK_ALIKES) == html.unescape(cue.text)
    # Together the cues hold the text's words, in order.
    shown = " ".join(html.unescape(cue.text).replace("\n", " ") for cue in cues)
    assert shown.split() == text.split()
