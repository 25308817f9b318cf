"""The SSML subset Polly users write, read into a ``Script``.

``<speak>`` (its ``xml:lang`` sets the document's language), ``<break time="500ms"/>`` or
``strength``, ``<say-as interpret-as="characters|spell-out|cardinal|number|ordinal|digits|date|telephone">``
(``format`` for dates), ``<sub alias="...">``, ``<p>`` and ``<s>`` (each its own sentence),
``<lang xml:lang="ko-KR">`` (also ``xml:lang`` on ``p``/``s``), which reads its span in that language,
and ``<mark name="..."/>``, which says nothing and is an ``ssml`` speech mark where it stands.

Two modes (``SSML_MODES``). ``strict``: any other element or attribute is refused with its name, so
nothing is silently dropped. ``lenient``, as Polly treats tags it does not support: such an element
is read as the words inside it and an attribute is skipped, each listed in the script's ``ignored``
(the answer names them); ``<prosody rate>`` that holds every word of the document sets the speed.

The parser is expat, the standard library's XML parser, locked down as ``defusedxml`` does it: a
document type declaration (where entity bombs and external entities live) is refused outright,
as is nesting deeper than ``MAX_DEPTH``. Every character of the document's words keeps the bytes it
was written as, so speech marks point into the SSML as sent, as Polly's do.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import InvalidParameter, InvalidSsml, UnsupportedSsml, clipped, quoted
from .languages import LANGUAGES
from .say_as import DATE_FORMATS, INTERPRETATIONS, say_as
from .script import BLANK_LINE, NamedMark, Said, Script, Section, read_as

TEXT_TYPES = ("text", "ssml")  # Polly's TextType
SSML_MODES = ("strict", "lenient")
ELEMENTS = ("speak", "break", "say-as", "sub", "p", "s", "lang", "mark")
MAX_DEPTH = 32
MAX_BREAK_S = 10.0  # Polly's longest break
MAX_PAUSE_S = 60.0  # breaks in a row add up, to this much silence in one place
# Polly: none and x-weak add no pause, weak and medium a comma's, strong a sentence's, x-strong a paragraph's.
BREAK_STRENGTHS: Mapping[str, float] = {"none": 0.0, "x-weak": 0.0, "weak": 0.2, "medium": 0.4, "strong": 0.7, "x-strong": 1.2}
# A language switched inside a sentence is a new chunk, but no sentence ends there.
LANGUAGE_SWITCH_PAUSE_S = 0.1
_ATTRIBUTES: Mapping[str, tuple[str, ...]] = {
    "speak": ("xml:lang", "version", "xml:base"),
    "break": ("time", "strength"),
    "say-as": ("interpret-as", "format"),
    "sub": ("alias",),
    "p": ("xml:lang",),
    "s": ("xml:lang",),
    "lang": ("xml:lang", "onlangfailure"),
    "mark": ("name",),
}
# Polly's <prosody rate>: "x-slow, slow, medium, fast, and x-fast ... approximate, depending on your
# preferred voice. The medium option is the normal speed", or "between 20% and 200%"
# (https://docs.aws.amazon.com/polly/latest/dg/voice-speed-change-vip.html). The presets' factors are this function's.
PROSODY_RATES: Mapping[str, float] = {"x-slow": 0.7, "slow": 0.85, "medium": 1.0, "fast": 1.2, "x-fast": 1.4}
PROSODY_PERCENT_RANGE = (20.0, 200.0)
_PERCENT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*")
_TIME = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\s*")
_ENDS_SENTENCE = re.compile(r"[.!?…。！？]['\"’”)\]]*$")  # matched against text with its end stripped
_SSML_START = re.compile(r"\s*(?:<\?xml[\s?]|<speak[\s>/])")
_ROOT = "<speak>"


def read_script(text: str, lang: str, *, normalize: bool = True, text_type: str | None = None, ssml: str = "strict") -> Script:
    """``text`` as a ``Script``: SSML when ``text_type`` is ``ssml``, or when it is None and the text
    starts as an SSML document does; plain text otherwise. ``ssml``: one of ``SSML_MODES``."""
    if text_type is not None and text_type not in TEXT_TYPES:
        raise InvalidParameter(f"text_type must be one of {', '.join(TEXT_TYPES)}, got {quoted(text_type)}", field="text_type")
    check_ssml_mode(ssml)
    if text_type == "ssml" or (text_type is None and looks_like_ssml(text)):
        return parse_ssml(text, lang, normalize=normalize, lenient=ssml == "lenient")
    return Script.plain(text, lang, normalize=normalize)


def check_ssml_mode(mode: object) -> str:
    if mode not in SSML_MODES:
        raise InvalidParameter(f"ssml must be one of {', '.join(SSML_MODES)}, got {quoted(mode)}", field="ssml")
    return str(mode)


def looks_like_ssml(text: str) -> bool:
    """Whether ``text`` is an SSML document (it starts with ``<speak`` or an XML declaration)."""
    return _SSML_START.match(text) is not None


def parse_ssml(source: str, lang: str, *, normalize: bool = True, lenient: bool = False) -> Script:
    """``source`` (an SSML document; a bare fragment is read as if inside ``<speak>``) as a ``Script``
    whose default language is ``lang``. Raises ``InvalidSsml`` or ``UnsupportedSsml`` naming the problem;
    ``lenient``: an element or attribute this function does not read is skipped and listed instead."""
    wrapped = not looks_like_ssml(source)
    document = f"{_ROOT}{source}</speak>" if wrapped else source
    reader = _Reader(document.encode("utf-8"), lang, normalize, shift=len(_ROOT) if wrapped else 0, lenient=lenient)
    # The text arrived as characters and is fed as UTF-8: an encoding its declaration names is not the one it is in.
    parser = locked_down_parser(_refuse_doctype, encoding="utf-8")
    parser.StartElementHandler = lambda name, attributes: reader.start(name, attributes, parser.CurrentByteIndex)
    parser.EndElementHandler = lambda name: reader.end(name, parser.CurrentByteIndex)
    parser.CharacterDataHandler = lambda data: reader.characters(data, parser.CurrentByteIndex)
    parser.StartCdataSectionHandler = lambda: setattr(reader, "in_cdata", True)
    parser.EndCdataSectionHandler = lambda: setattr(reader, "in_cdata", False)
    try:
        parser.Parse(reader.document, True)
    except xml.parsers.expat.ExpatError as error:
        line, column = error.lineno, error.offset + 1 - (len(_ROOT) if wrapped and error.lineno == 1 else 0)
        raise InvalidSsml(
            f"the SSML is not well-formed XML: {xml.parsers.expat.ErrorString(error.code)} (line {line}, column {column}). "
            "Write & as &amp; and < as &lt; in text, and close every tag."
        ) from None
    return reader.script(source)


def locked_down_parser(refuse: Callable[..., None], *, encoding: str | None = None) -> xml.parsers.expat.XMLParserType:
    """An expat parser that calls ``refuse`` (which raises) at a document type declaration, an entity
    declaration or an external entity, and never reads a parameter entity, as ``defusedxml`` does."""
    parser = xml.parsers.expat.ParserCreate(encoding=encoding)
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse

    def refuse_external_entity(context: str, base: str | None, system_id: str | None, public_id: str | None) -> int:
        refuse(context, base, system_id, public_id)
        return 0  # never reached: expat would take 0 as "stop", too

    parser.ExternalEntityRefHandler = refuse_external_entity
    return parser


def _refuse_doctype(*_: object) -> None:
    raise InvalidSsml("SSML with a document type declaration (<!DOCTYPE ...>) or entities is refused: remove it")


@dataclass
class _Open:
    """An element being read: its name, the language inside it, and for sub/say-as what it holds."""

    name: str
    lang: str
    attributes: dict[str, str]
    start: int = 0  # where its text begins in the script
    words: list[str] = field(default_factory=list)
    skipped: bool = False  # not read (lenient): its words are read as the element around it reads them
    index: int | None = None  # a <mark>'s place in ``_Reader.marks``, a <prosody rate>'s in ``_Reader.rates``


class _Reader:
    """expat's events to the script's text, sections and said stretches."""

    def __init__(self, document: bytes, lang: str, normalize: bool, shift: int, lenient: bool = False) -> None:
        self.document = document
        self.lenient = lenient
        self.ignored: list[tuple[int, str]] = []  # (byte, what): elements and attributes skipped, lenient
        self.marks: list[NamedMark] = []
        self.rates: list[tuple[int, int, int, float | None]] = []  # <prosody rate>: (byte, start, end, factor)
        self.normalize = normalize
        self.shift = shift  # bytes of a ``<speak>`` added around a bare fragment
        self.chars: list[str] = []
        self.spans: list[tuple[int, int]] = []
        self.sections: list[Section] = []
        self.open: list[_Open] = []
        self.default_lang = lang
        self.section_start, self.section_lang = 0, lang
        self.said: list[Said] = []
        self.pause: float | None = None  # breaks since the last section ended
        self.switched = False  # the language changed inside a sentence since the last section ended
        self.in_cdata = False  # inside <![CDATA[...]]>, where "&" is itself
        self.size = len(document) - shift - (len(b"</speak>") if shift else 0)

    # --- events ----------------------------------------------------------------------------------

    def start(self, name: str, attributes: dict[str, str], at: int) -> None:
        if not self.open and name != "speak":
            raise InvalidSsml(f"an SSML document's root element is <speak>; this one is <{clipped(name)}>")
        if self.open and name == "speak":
            raise InvalidSsml("<speak> is the document's root: it cannot be inside another element")
        if len(self.open) >= MAX_DEPTH:
            raise InvalidSsml(f"the SSML nests elements more than {MAX_DEPTH} deep")
        outer = self.open[-1] if self.open else None
        if name not in ELEMENTS:
            if not self.lenient:
                raise UnsupportedSsml(
                    f"SSML <{clipped(name)}> is not supported; this function reads {', '.join(f'<{e}>' for e in ELEMENTS)}. "
                    f'Remove <{clipped(name)}> (its words are then read as they are), or send "ssml": "lenient" to have it skipped',
                    tag=name,
                )
            self._skip(name, attributes, at, outer)
            return
        for attribute in attributes:
            if attribute not in _ATTRIBUTES[name] and not attribute.startswith("xmlns"):
                if self.lenient:
                    self.ignored.append((at, f"{name} {attribute}"))
                    continue
                raise UnsupportedSsml(
                    f"SSML <{clipped(name)} {clipped(attribute)}=...> is not supported; <{clipped(name)}> takes {', '.join(_ATTRIBUTES[name])}",
                    tag=name,
                )
        if outer is not None and outer.name in ("sub", "say-as"):
            raise InvalidSsml(f"<{outer.name}> holds text only; it holds <{clipped(name)}>")
        lang = self._language(name, attributes, outer.lang if outer else self.default_lang)
        if name in ("p", "s"):
            self._separate(at)
        if lang != self.section_lang:
            self._cut(at, lang)
        if name == "break":
            self._break(attributes, at)
        if name == "say-as":
            self._check_say_as(attributes)
        if name == "sub" and "alias" not in attributes:
            raise InvalidSsml('<sub> needs an alias attribute, the words to say: <sub alias="World Wide Web">WWW</sub>')
        if name == "mark" and not attributes.get("name"):
            raise InvalidSsml('<mark> needs a name attribute, the value of its speech mark: <mark name="here"/>')
        index = None
        if name == "mark":
            index = len(self.marks)
            self.marks.append(NamedMark(len(self.chars), at, _tag_end(self.document, at), attributes["name"]))
        self.open.append(_Open(name, lang, attributes, len(self.chars), index=index))

    def _skip(self, name: str, attributes: Mapping[str, str], at: int, outer: _Open | None) -> None:
        """An element this function does not read, lenient: its words are read as its parent's are."""
        if outer is not None and outer.name in ("sub", "say-as"):
            raise InvalidSsml(f"<{outer.name}> holds text only; it holds <{clipped(name)}>")
        lang = outer.lang if outer else self.default_lang
        index = None
        if name == "prosody" and attributes:  # its rate may be read (``script``); the rest is named one by one
            if "rate" in attributes:
                index = len(self.rates)
                self.rates.append((at, len(self.chars), len(self.chars), _prosody_rate(attributes["rate"])))
            self.ignored.extend((at, f"{name} {attribute}") for attribute in attributes if attribute != "rate")
        else:
            self.ignored.append((at, name))
        self.open.append(_Open(name, lang, dict(attributes), len(self.chars), skipped=True, index=index))

    def end(self, name: str, at: int) -> None:
        element = self.open.pop()
        if element.skipped:
            if element.index is not None:  # <prosody rate>: the text it holds ends here
                byte, start, _, factor = self.rates[element.index]
                self.rates[element.index] = (byte, start, len(self.chars), factor)
            return
        if element.index is not None and self.document[at : at + 2] == b"</":  # <mark name="x"></mark> ends after its end tag
            mark = self.marks[element.index]
            self.marks[element.index] = NamedMark(mark.position, mark.start, _tag_end(self.document, at), mark.name)
        if name in ("sub", "say-as"):
            self._said(element)
        if name in ("p", "s"):
            self._separate(at)
        outer_lang = self.open[-1].lang if self.open else self.default_lang
        if outer_lang != self.section_lang:
            self._cut(at, outer_lang)

    def characters(self, data: str, at: int) -> None:
        written = data.encode("utf-8")
        reference = self.document[at : at + 1] == b"&" and not self.in_cdata  # &amp; or &#38; arrives alone, as "&"
        if not reference and self.document[at : at + len(written)] == written:
            position = at
            for char in data:
                size = len(char.encode("utf-8"))
                self._append(char, (position, position + size))
                position += size
        else:  # a character or entity reference (its own event), or a line end written as \r\n
            end = self.document.find(b";", at) + 1 if reference else at + len(written) + 1
            for char in data:
                self._append(char, (at, end))
        if self.open and self.open[-1].name in ("sub", "say-as"):
            self.open[-1].words.append(data)

    # --- the result --------------------------------------------------------------------------------

    def script(self, source: str) -> Script:
        self._close_section()
        spans = tuple(self._source_span(a, b) for a, b in self.spans)
        text = "".join(self.chars)
        rate = 1.0
        for at, start, end, factor in self.rates:
            # A rate for part of the text would need its own speed per chunk: honoured only where it holds every word.
            if factor is not None and rate == 1.0 and not text[:start].strip() and not text[end:].strip():
                rate = factor
            else:
                self.ignored.append((at, "prosody rate"))
        ignored = tuple(dict.fromkeys(what for _, what in sorted(self.ignored, key=lambda item: item[0])))
        marks = tuple(NamedMark(m.position, *self._source_span(m.start, m.end), m.name) for m in self.marks)
        return Script(text, source, tuple(self.sections), self.normalize, self.pause or 0.0, spans, True, ignored, marks, rate)

    def _source_span(self, a: int, b: int) -> tuple[int, int]:
        """Bytes of the document as bytes of the text as sent (a bare fragment was wrapped in ``<speak>``)."""
        return max(0, min(a - self.shift, self.size)), max(0, min(b - self.shift, self.size))

    # --- the pieces ----------------------------------------------------------------------------------

    def _language(self, name: str, attributes: Mapping[str, str], inherited: str) -> str:
        if name == "lang" and "xml:lang" not in attributes:
            raise InvalidSsml('<lang> needs an xml:lang attribute, such as <lang xml:lang="ko-KR">')
        tag = attributes.get("xml:lang")
        if tag is None:
            return inherited
        code = tag.strip().split("-")[0].split("_")[0].lower()
        if code not in LANGUAGES:
            raise UnsupportedSsml(
                f"<{name}> xml:lang {quoted(tag)}: the model does not speak it; its languages are {', '.join(LANGUAGES)}", tag=name
            )
        return code

    def _append(self, char: str, span: tuple[int, int]) -> None:
        self.chars.append(char)
        self.spans.append(span)

    def _separate(self, at: int) -> None:
        """A paragraph break in the text (``<p>``, ``<s>``): the chunker and the marks split there."""
        if self.chars and "".join(self.chars[-2:]) != "\n\n":
            for char in "\n\n":
                self._append(char, (at, at))

    def _cut(self, at: int, lang: str) -> None:
        """End the section here; the next one is read in ``lang``."""
        written = "".join(self.chars[self.section_start :])
        stripped = written.rstrip()
        inside_sentence = bool(stripped) and not _ENDS_SENTENCE.search(stripped) and not BLANK_LINE.search(written[len(stripped) :])
        self._close_section()
        self.switched = self.switched or inside_sentence
        self.section_lang = lang
        if self.chars and not self.chars[-1].isspace():
            self._append(" ", (at, at))  # the words on either side of a switch stay apart
        self.section_start = len(self.chars)

    def _close_section(self) -> None:
        written = "".join(self.chars[self.section_start :])
        if written.strip():
            pause = self.pause if self.pause is not None else (LANGUAGE_SWITCH_PAUSE_S if self.switched else None)
            self.sections.append(Section(self.section_start, len(self.chars), self.section_lang, pause, tuple(self.said)))
            self.pause, self.switched = None, False
        self.said = []
        self.section_start = len(self.chars)

    def _break(self, attributes: Mapping[str, str], at: int) -> None:
        seconds = _break_seconds(attributes)
        if seconds is None:
            return
        self._close_section()
        self.pause = (self.pause or 0.0) + seconds
        if self.pause > MAX_PAUSE_S:
            raise InvalidSsml(f"breaks in a row add up to {self.pause:g}s of silence; at most {MAX_PAUSE_S:g}s are allowed in one place")
        if self.chars and not self.chars[-1].isspace():
            self._append(" ", (at, at))
        self.section_start = len(self.chars)

    def _check_say_as(self, attributes: Mapping[str, str]) -> None:
        kind = attributes.get("interpret-as")
        if kind is None:
            raise InvalidSsml("<say-as> needs interpret-as, one of " + ", ".join(INTERPRETATIONS))
        if kind not in INTERPRETATIONS:
            raise UnsupportedSsml(
                f'<say-as interpret-as="{clipped(kind)}"> is not supported; interpret-as is one of {", ".join(INTERPRETATIONS)}',
                tag="say-as",
            )
        fmt = attributes.get("format")
        if fmt is not None and (kind != "date" or fmt not in DATE_FORMATS):
            raise UnsupportedSsml(
                f'<say-as interpret-as="{clipped(kind)}" format="{clipped(fmt)}"> is not supported; format is for dates, one of {", ".join(DATE_FORMATS)}',
                tag="say-as",
            )

    def _said(self, element: _Open) -> None:
        content = "".join(element.words)
        if element.name == "sub":
            words = element.attributes["alias"]
            if self.normalize and words.strip():
                words = read_as(words, element.lang)
        else:
            words = say_as(content, element.attributes["interpret-as"], element.attributes.get("format"), element.lang)
        if len(self.chars) == element.start and element.name == "sub":
            raise InvalidSsml('<sub> needs the written text it stands for: <sub alias="World Wide Web">WWW</sub>')
        if len(self.chars) > element.start:
            self.said.append(Said(element.start, len(self.chars), " ".join(words.split())))


def _tag_end(document: bytes, at: int) -> int:
    """The byte after the ``>`` that closes the tag starting at ``at`` (an attribute's value may hold ``>``)."""
    quote: int | None = None
    for position in range(at, len(document)):
        byte = document[position]
        if quote is not None:
            quote = None if byte == quote else quote
        elif byte in b"\"'":
            quote = byte
        elif byte == ord(">"):
            return position + 1
    return len(document)


def _prosody_rate(rate: str) -> float | None:
    """``<prosody rate>`` as a factor of the speed; None: not a rate Polly reads."""
    if rate.strip() in PROSODY_RATES:
        return PROSODY_RATES[rate.strip()]
    match = _PERCENT.fullmatch(rate)
    if match is None or not PROSODY_PERCENT_RANGE[0] <= float(match.group(1)) <= PROSODY_PERCENT_RANGE[1]:
        return None
    return float(match.group(1)) / 100.0


def _break_seconds(attributes: Mapping[str, str]) -> float | None:
    """The pause a ``<break>`` asks for; None: none at all (``strength="none"``, ``x-weak``)."""
    time = attributes.get("time")
    if time is not None:
        match = _TIME.fullmatch(time)
        if match is None:
            raise InvalidSsml(f'<break time="{clipped(time)}">: write a time such as "500ms" or "1.5s"')
        seconds = float(match.group(1)) / (1000.0 if match.group(2) == "ms" else 1.0)
        if seconds > MAX_BREAK_S:
            raise InvalidSsml(f'<break time="{clipped(time)}">: a break is at most {MAX_BREAK_S:g}s; use several for longer')
        return seconds
    strength = attributes.get("strength", "medium")
    if strength not in BREAK_STRENGTHS:
        raise InvalidSsml(f'<break strength="{clipped(strength)}">: strength is one of {", ".join(BREAK_STRENGTHS)}')
    return BREAK_STRENGTHS[strength] or None
