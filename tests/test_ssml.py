"""The SSML subset: what each element makes the model read, the silences breaks put in the audio,
languages switched per span, marks pointing into the SSML as sent, and every refusal naming the
element. The stand-in's audio is noise; chunk texts, languages, silences and timings are real."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supertonic_engine import Engine, Extras, InvalidParameter, SynthesisOptions
from supertonic_engine.errors import EmptyText, InvalidRequest, InvalidSsml, UnsupportedSsml
from supertonic_engine.text.say_as import say_as
from supertonic_engine.text.ssml import MAX_DEPTH, looks_like_ssml, parse_ssml, read_script

ONE_STEP = SynthesisOptions(steps=1, seed=4)


@pytest.fixture(scope="module")
def engine(tiny_model_dir):
    return Engine.load(tiny_model_dir)


def chunks_of(engine: Engine, ssml: str, options: SynthesisOptions = ONE_STEP) -> list[tuple[str, str, float]]:
    prepared = engine.prepare(ssml, options)
    return list(zip(prepared.chunks, prepared.langs, prepared.pauses, strict=True))


# --- what is read --------------------------------------------------------------------------------


def test_sub_is_read_as_its_alias_and_say_as_as_asked(engine):
    (chunk,) = engine.prepare(
        '<speak>The <sub alias="World Wide Web Consortium">W3C</sub> sent <say-as interpret-as="characters">ABC</say-as> '
        'in <say-as interpret-as="cardinal">1,234</say-as> copies, the <say-as interpret-as="ordinal">3</say-as> time, '
        'code <say-as interpret-as="digits">2048</say-as>.</speak>',
        ONE_STEP,
    ).chunks
    assert chunk == (
        "The World Wide Web Consortium sent A B C in one thousand two hundred thirty-four copies, the third time, code two zero four eight."
    )


@pytest.mark.parametrize(
    ("content", "kind", "fmt", "lang", "said"),
    [
        ("03/05/2024", "date", "mdy", "en", "March fifth, twenty twenty-four"),
        ("05/03/2024", "date", "dmy", "en", "March fifth, twenty twenty-four"),
        ("20240305", "date", None, "en", "March fifth, twenty twenty-four"),
        ("2024-06-05", "date", None, "ko", "이천이십사 년 유월 오 일"),
        ("12-25", "date", "md", "en", "December twenty-fifth"),
        ("1999", "date", "y", "en", "nineteen ninety-nine"),
        ("+1 (555) 010-0199", "telephone", None, "en", "plus one, five five five, zero one zero, zero one nine nine"),
        ("010-1234-5678", "telephone", None, "ko", "공일공, 일이삼사, 오육칠팔"),
        ("-3.5", "cardinal", None, "ko", "마이너스 삼 점 오"),
        ("21st", "ordinal", None, "en", "twenty-first"),
        ("1", "ordinal", None, "ko", "첫 번째"),
        ("3", "ordinal", None, "ko", "세 번째"),
        ("SK2", "spell-out", None, "ko", "에스 케이 이"),
        ("2048", "digits", None, "de", "2 0 4 8"),
        ("1234", "number", None, "de", "1234"),  # the model reads digits itself in languages without rules
    ],
)
def test_say_as_readings(content, kind, fmt, lang, said):
    assert say_as(content, kind, fmt, lang) == said


@pytest.mark.parametrize(
    ("content", "kind", "fmt"),
    [
        ("many", "cardinal", None),
        ("third", "ordinal", None),
        ("soon", "date", None),
        ("13/45/2024", "date", "mdy"),
        ("2024", "date", "mdy"),
        ("none", "telephone", None),
        ("x", "digits", None),
    ],
)
def test_say_as_refuses_what_it_cannot_read_naming_the_kind(content, kind, fmt):
    with pytest.raises(InvalidSsml, match=f'interpret-as="{kind}"'):
        say_as(content, kind, fmt, "en")


def test_the_document_language_and_lang_spans_pick_each_chunks_language(engine):
    chunks = chunks_of(
        engine,
        '<speak xml:lang="en-US">I love <lang xml:lang="ko-KR">김치 3개</lang> a lot. '
        '<p xml:lang="ko">오늘은 2024년 6월 5일입니다.</p></speak>',
    )
    assert [(text, lang) for text, lang, _ in chunks] == [
        ("I love", "en"),
        ("김치 세 개", "ko"),
        ("a lot.", "en"),
        ("오늘은 이천이십사 년 유월 오 일입니다.", "ko"),
    ]
    prepared = engine.prepare('<speak>Hi <lang xml:lang="fr-FR">bonjour</lang></speak>', ONE_STEP)
    assert prepared.model_text == "<en>Hi.</en>\n<fr>bonjour.</fr>"
    # A switch inside a sentence is a short pause, not a sentence's.
    assert [pause for *_, pause in chunks] == [0.0, 0.1, 0.1, ONE_STEP.silence_s]


def test_p_and_s_are_sentences_of_their_own(engine):
    chunks = chunks_of(engine, "<speak><p><s>First without a stop</s><s>second one</s></p><p>A paragraph</p></speak>")
    assert [text for text, *_ in chunks] == ["First without a stop", "second one", "A paragraph"]


def test_plain_text_is_read_as_before_and_text_type_decides(engine):
    plain = "Call me at 3 pm <laugh> please."
    assert engine.prepare(plain, ONE_STEP).chunks == engine.prepare(plain, ONE_STEP, text_type="text").chunks
    assert not read_script(plain, "en").is_ssml and read_script("  <speak>x</speak>", "en").is_ssml
    # text_type ssml reads a bare fragment as if inside <speak>; text reads markup as written.
    (chunk,) = engine.prepare('Wait <break time="1s"/> no', ONE_STEP, text_type="ssml").chunks[:1]
    assert chunk == "Wait"
    assert "speak" in engine.prepare("<speak>Hi</speak>", ONE_STEP, text_type="text").chunks[0]
    with pytest.raises(InvalidParameter) as refused:
        engine.prepare("Hi", ONE_STEP, text_type="xml")
    assert refused.value.field == "text_type"
    assert looks_like_ssml('<?xml version="1.0"?><speak>x</speak>') and not looks_like_ssml("< speak >")


# --- the silences -----------------------------------------------------------------------------------


def test_breaks_are_the_silences_between_chunks_to_the_sample(engine):
    ssml = (
        '<speak><break time="250ms"/>Before the pause.<break time="1.5s"/>After it, '
        '<break strength="weak"/>then more<break strength="none"/> words.<break time="2s"/></speak>'
    )
    prepared = engine.prepare(ssml, ONE_STEP)
    assert prepared.chunks == ("Before the pause.", "After it,", "then more words.")
    assert prepared.pauses == (0.25, 1.5, 0.2) and prepared.tail_s == 2.0
    made = engine.synthesize(prepared)
    rate = made.sample_rate
    starts = [round(t.start_s * rate) for t in made.chunks]
    ends = [round(t.end_s * rate) for t in made.chunks]
    assert starts[0] == engine.frames(0.25) and not made.audio[: starts[0]].any()
    for index, pause in ((1, 1.5), (2, 0.2)):
        assert starts[index] - ends[index - 1] == engine.frames(pause)
        assert not made.audio[ends[index - 1] : starts[index]].any()
    assert made.frames - ends[-1] == engine.frames(2.0) and not made.audio[ends[-1] :].any()
    # What the timeline (and so every mark) says is where synthesis put it.
    assert [(t.start_s, t.end_s) for t in engine.timeline(prepared)] == [(t.start_s, t.end_s) for t in made.chunks]


def test_a_request_of_only_breaks_says_nothing(engine):
    with pytest.raises(EmptyText):
        engine.prepare('<speak><break time="1s"/> <p> </p></speak>', ONE_STEP)


def test_parts_of_an_ssml_text_render_to_its_sequential_audio(engine):
    ssml = (
        '<speak>One sentence here. <break time="800ms"/>Another one follows. '
        '<lang xml:lang="ko">한국어 문장입니다.</lang> The end.<break time="1s"/></speak>'
    )
    prepared = engine.prepare(ssml, SynthesisOptions(steps=1, seed=9, max_chunk_chars=20))
    parts = engine.parts(prepared)
    assert {p.lang for p in parts} == {"en", "ko"} and [p.pause_s for p in parts] == list(prepared.pauses)
    stitched = np.concatenate(
        [piece for p in parts for piece in (np.zeros(engine.frames(p.pause_s), np.float32), engine.render_part(p))]
        + [np.zeros(engine.frames(prepared.tail_s), np.float32)]
    )
    np.testing.assert_array_equal(stitched, engine.synthesize(prepared).audio)


# --- marks point into the SSML -------------------------------------------------------------------------


def test_marks_are_byte_offsets_into_the_ssml_as_sent_timed_after_each_break(engine):
    ssml = (
        '<speak>Café <sub alias="double you three see">W3C</sub> &amp; friends.<break time="700ms"/>'
        '<p>Zweite <say-as interpret-as="digits">42</say-as> Zeile.</p></speak>'
    )
    prepared = engine.prepare(ssml, ONE_STEP, extras=Extras(marks=["sentence", "word"]))
    marks = engine.marks(prepared)
    raw = ssml.encode("utf-8")
    sentences = [m for m in marks if m.type == "sentence"]
    assert [m.value for m in sentences] == ["Café W3C & friends.", "Zweite 42 Zeile."]
    assert raw[sentences[0].start : sentences[0].end].decode() == 'Café <sub alias="double you three see">W3C</sub> &amp; friends.'
    words = {m.value: raw[m.start : m.end].decode() for m in marks if m.type == "word"}
    assert words["Café"] == "Café" and words["W3C"] == "W3C" and words["42"] == "42" and words["Zeile"] == "Zeile"
    timeline = engine.timeline(prepared)
    assert [m.time_ms for m in sentences] == [round(t.start_s * 1000) for t in timeline]
    assert sentences[1].time_ms - sentences[0].end_ms == 700
    assert not any(m.estimated for m in sentences)


# --- refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ssml", "named"),
    [
        ('<speak><prosody rate="slow">Hi</prosody></speak>', "<prosody>"),
        ('<speak><amazon:effect name="whispered">Hi</amazon:effect></speak>', "<amazon:effect>"),
        ('<speak><break time="1s" duration="2"/>Hi</speak>', "duration"),
        ('<speak><say-as interpret-as="expletive">Hi</say-as></speak>', 'interpret-as="expletive"'),
        ('<speak><lang xml:lang="tlh">Hi</lang></speak>', "tlh"),
        ('<speak><say-as interpret-as="cardinal" format="mdy">3</say-as></speak>', "format"),
    ],
)
def test_what_is_not_supported_is_refused_naming_it(engine, ssml, named):
    with pytest.raises(UnsupportedSsml) as refused:
        engine.prepare(ssml, ONE_STEP)
    assert named in refused.value.message and refused.value.field == "text"


@pytest.mark.parametrize(
    ("ssml", "said"),
    [
        ("<speak>Tom & Jerry</speak>", "(line 1, column 13)"),
        ("<speak>Tom\n&amp; Jerry &c</speak>", "(line 2, column 15)"),
        ("<speak>unclosed <p>paragraph</speak>", "mismatched tag"),
        ('<speak><break time="fast"/>Hi</speak>', '"500ms"'),
        ('<speak><break time="11s"/>Hi</speak>', "at most 10s"),
        ('<speak><break strength="huge"/>Hi</speak>', "strength is one of"),
        ("<speak><sub>W3C</sub></speak>", "alias"),
        ('<speak><sub alias="x">a <p>b</p></sub></speak>', "holds text only"),
        ("<speak><lang>Hi</lang></speak>", "xml:lang"),
        ("<speak><say-as>3</say-as></speak>", "interpret-as"),
        ("<p>Hi</p>", "root element is <speak>"),  # text_type ssml below: a <p> document has no <speak>
    ],
)
def test_what_is_malformed_is_refused_saying_what_to_fix(engine, ssml, said):
    with pytest.raises(InvalidSsml) as refused:
        engine.prepare(ssml if ssml.startswith("<speak") else f'<?xml version="1.0"?>{ssml}', ONE_STEP)
    assert said in refused.value.message and refused.value.field == "text"


def test_entities_and_document_types_are_refused_before_any_expansion():
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {n} "{("&" + p + ";") * 10}">' for p, n in zip("abcdefgh", "bcdefghi", strict=True))
        + "]><speak>&i;</speak>"
    )
    external = '<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>'
    for document in (bomb, external):
        # Refused at the declaration, before any entity is declared, let alone expanded or fetched.
        with pytest.raises(InvalidSsml, match="DOCTYPE"):
            parse_ssml(document, "en")
    with pytest.raises(InvalidSsml, match="undefined entity"):
        parse_ssml("<speak>&nbsp;</speak>", "en")


def test_nesting_deeper_than_the_limit_is_refused():
    deep = "<speak>" + "<s>" * MAX_DEPTH + "Hi" + "</s>" * MAX_DEPTH + "</speak>"
    with pytest.raises(InvalidSsml, match=f"more than {MAX_DEPTH} deep"):
        parse_ssml(deep, "en")
    fits = "<speak>" + "<s>" * (MAX_DEPTH - 1) + "Hi" + "</s>" * (MAX_DEPTH - 1) + "</speak>"
    assert parse_ssml(fits, "en").text.strip() == "Hi"


def test_breaks_in_a_row_add_up_to_a_bound():
    assert parse_ssml('<speak>a<break time="10s"/><break time="10s"/>b</speak>', "en").sections[1].pause_s == 20.0
    with pytest.raises(InvalidSsml, match="add up to 70s"):
        parse_ssml("<speak>a" + '<break time="10s"/>' * 7 + "b</speak>", "en")


PIECES = [
    '<break time="300ms"/>',
    '<break strength="weak"/>',
    "<p>",
    "</p>",
    "<s>",
    "</s>",
    '<lang xml:lang="ko-KR">',
    "</lang>",
    '<say-as interpret-as="cardinal">',
    '<say-as interpret-as="date">',
    '<say-as interpret-as="ordinal">',
    '<say-as interpret-as="telephone">',
    '<say-as interpret-as="characters">',
    "</say-as>",
    '<sub alias="x y">',
    "</sub>",
    "Hello",
    " there. ",
    "9" * 5000,
    "2024-13-45",
    "-",
    "3/4",
    "김치 3개",
    "&amp;",
    "&#x1F600;",
    "<!-- c -->",
    "<![CDATA[<]]>",
    "<prosody>",
    "&x;",
    "<",
    "\n\n",
    " ",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.sampled_from(["en", "ko", "de"]))
def test_any_document_is_read_or_refused_as_a_request_error(pieces, lang):
    """Whatever the markup, the answer is a script that reads consistently or a typed refusal, never a crash."""
    document = "<speak>" + "".join(pieces) + "</speak>"
    try:
        script = parse_ssml(document, lang)
    except InvalidRequest:
        return
    raw = document.encode("utf-8")
    for section in script.sections:
        assert section.start < section.end and section.lang in ("en", "ko", "de")
        start, end = script.byte_range(section.start, section.end)
        assert 0 <= start <= end <= len(raw)
    assert script.spoken() == "\n\n".join(filter(None, (script.section_spoken(s) for s in script.sections))) or not script.sections


def test_a_declared_encoding_is_not_trusted_the_text_is_utf8():
    for declared in ("bogus", "latin-1", "UTF-16"):
        script = parse_ssml(f'<?xml version="1.0" encoding="{declared}"?><speak>café crème.</speak>', "en")
        assert script.text == "café crème."


def test_an_entity_is_marked_by_all_of_its_bytes_and_cdata_by_its_own():
    for written in ("&amp;", "&#38;", "&#x26;"):
        document = f"<speak>Salt {written}</speak>"
        script = parse_ssml(document, "en")
        start, end = script.byte_range(0, len(script.text))
        assert document.encode()[start:end].decode() == f"Salt {written}"
    document = "<speak><![CDATA[&x]]> y</speak>"
    script = parse_ssml(document, "en")
    assert script.text == "&x y" and document.encode()[slice(*script.byte_range(0, 2))] == b"&x"


def test_a_break_before_what_says_nothing_is_kept(engine):
    prepared = engine.prepare('<speak><break time="3s"/>★<break time="1s"/>World.</speak>', ONE_STEP)
    assert prepared.chunks == ("World.",) and prepared.pauses == (4.0,)
    prepared = engine.prepare('<speak>Hello.<break time="2s"/>★</speak>', ONE_STEP)
    assert prepared.tail_s == 2.0


def test_a_language_switch_at_the_end_adds_no_silence(engine):
    assert engine.prepare('<speak xml:lang="ko-KR">안녕하세요</speak>', ONE_STEP).tail_s == 0.0
    prepared = engine.prepare('<speak>Hi <lang xml:lang="ko">안녕</lang></speak>', ONE_STEP)
    assert prepared.pauses == (0.0, 0.1) and prepared.tail_s == 0.0


def test_a_long_run_of_blank_lines_is_read_in_linear_time():
    """Ten times the blank lines take about ten times as long, not a hundred times."""

    def seconds(lines: int) -> float:
        document = "<speak>" + "\n" * lines + "x<lang xml:lang='ko'>y</lang>" * 20 + "</speak>"
        started = time.perf_counter()
        parse_ssml(document, "en")
        return time.perf_counter() - started

    seconds(1000)  # warm
    small, large = min(seconds(5000) for _ in range(3)), min(seconds(50000) for _ in range(3))
    assert large < 30 * small


def test_only_a_speak_element_makes_text_ssml_and_only_at_the_root():
    assert not looks_like_ssml("<speakers> are on sale.") and looks_like_ssml("<speak/>") and looks_like_ssml("<speak\n>x</speak>")
    with pytest.raises(InvalidSsml, match="root"):
        parse_ssml("<speak><speak>x</speak></speak>", "en")
    with pytest.raises(InvalidSsml, match="written text"):
        parse_ssml('<speak><sub alias="x"></sub></speak>', "en")
    with pytest.raises(InvalidSsml, match="500ms"):
        parse_ssml('<speak><break time="٣s"/></speak>', "en")


def test_every_word_inside_a_sub_gets_its_share_of_the_alias(engine):
    ssml = '<speak><sub alias="one">a b c</sub> end.</speak>'
    prepared = engine.prepare(ssml, ONE_STEP)
    words = [m for m in engine.marks(prepared, ["word"])]
    assert [m.value for m in words] == ["a", "b", "c", "end"]
    times = [m.time_ms for m in words]
    assert times == sorted(times) and len(set(times)) == 4
