"""Speech marks in Amazon Polly's shape, and captions (SRT, WebVTT) made from them.

A mark is ``{"time": ms, "type": "sentence"|"word", "start": byte, "end": byte, "value": text}``:
``start``/``end`` are byte offsets into the UTF-8 text as sent, as Polly defines them, and
``time`` is where the audio of that text begins. A word mark leaves out the punctuation around
the word as Polly's do (https://docs.aws.amazon.com/polly/latest/dg/sp-mks-example1.html: "Mary
had a little lamb." gives ``lamb`` at bytes 18-22, the sentence at 0-23), and a sentence does not
end at an abbreviation (``whole_sentence_spans``). The audio's layout comes from the duration
predictor alone (``Engine.timeline``), the same numbers synthesis uses, so marks cost milliseconds
and describe exactly the audio the same request returns.

What is exact and what is estimated (each mark says, ``"estimated": true|false``): a chunk's start
is exact, so a sentence that starts a chunk is exact; with ``chunking="sentence"`` every sentence
does. Inside a chunk the model offers no alignment (the duration predictor gives one length per
chunk), so a later sentence's or a word's time is placed by its share of the chunk's spoken
characters.
"""

from __future__ import annotations

import json
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import InvalidParameter, quoted
from .text.chunking import whole_sentence_spans
from .text.script import Script
from .text.unicode import says_nothing

if TYPE_CHECKING:
    from .deadline import Deadline

MARK_TYPES = ("sentence", "word", "ssml")  # ssml: where an SSML <mark name> stands, its name the value
CAPTION_FORMATS = ("srt", "vtt")
CAPTION_TYPES = {"srt": "application/x-subrip; charset=utf-8", "vtt": "text/vtt; charset=utf-8"}
MARKS_CONTENT_TYPE = "application/x-json-stream"  # what Polly answers speech marks with
CAPTION_LINE_CHARS = 42  # the usual subtitle line; two lines a cue at most
_WORD = re.compile(r"\S+")
_SPACE = re.compile(r"\s+")
_SAID_SIGNS = "%‰#&@"  # punctuation by Unicode's categories, but read aloud


@dataclass(frozen=True)
class SpeechMark:
    type: str
    time_ms: int
    end_ms: int  # where this text's audio ends (for captions; Polly's marks do not carry it)
    start: int  # byte offsets into the UTF-8 text
    end: int
    value: str
    estimated: bool
    written: str = ""  # a word with the punctuation around it, as captions show it (Polly's marks do not carry it)

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time_ms,
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "value": self.value,
            "estimated": self.estimated,
        }


@dataclass(frozen=True)
class Span:
    """Where one chunk's audio sits: ``start_s``..``end_s``, the ``text`` the model reads there."""

    text: str
    start_s: float
    end_s: float


def check_mark_types(value: object, field: str = "marks") -> tuple[str, ...]:
    """``["sentence", "word"]`` (or ``"sentence,word"`` from a query string or metadata) as a tuple, checked."""
    return _choices(value, field, MARK_TYPES, "mark types", "a mark type this function makes", " (Polly's viseme is not)")


def check_caption_formats(value: object, field: str = "captions") -> tuple[str, ...]:
    """``["srt", "vtt"]`` (or ``"srt,vtt"``) as a tuple, checked."""
    return _choices(value, field, CAPTION_FORMATS, "caption formats", "a caption format")


def _choices(value: object, field: str, allowed: tuple[str, ...], plural: str, one: str, aside: str = "") -> tuple[str, ...]:
    """A list of names out of ``allowed`` (case aside), in ``allowed``'s order, each once; None or
    an empty list asks for none, as leaving the field out does."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidParameter(f"{field} must be a list of {plural} ({', '.join(allowed)}), got {value!r}", field=field)
    names = {v.lower() for v in value}
    unknown = [v for v in value if v.lower() not in allowed]
    if unknown:
        raise InvalidParameter(f"{field}: {unknown[0]!r} is not {one}; {plural} are {', '.join(allowed)}{aside}", field=field)
    return tuple(name for name in allowed if name in names)


def speech_marks(script: Script, spans: Sequence[Span], types: Sequence[str]) -> list[SpeechMark]:
    """The marks of ``types`` for ``script``, whose chunks (what it reads) sit at ``spans``.

    Offsets are bytes of the input as sent (for SSML, of the document, markup included); where
    each sentence falls among the chunks is ``_Layout``'s.
    """
    text = script.text
    layout = _Layout(script, [s.text for s in spans])
    clock = _Clock(layout, spans)
    marks: list[SpeechMark] = []
    for sentence in layout.sentences:
        a, b, start, end = sentence
        if "sentence" in types:
            time_s, exact = clock.at(start)
            marks.append(
                SpeechMark(
                    "sentence",
                    _ms(time_s),
                    _ms(clock.end_at(end)),
                    *script.byte_range(a, b),
                    text[a:b],
                    estimated=not (exact and layout.exact),
                )
            )
        if "word" in types:
            marks.extend(_words(script, a, b, start, end, clock, layout.exact))
    if "ssml" in types:
        for named in script.named_marks:
            # Among the others in the order of the document, as Polly lists them.
            at = bisect_right(marks, named.start, key=lambda m: m.start)
            position = layout.position_of(script, named.position)
            # After the last word: heard where the audio ends, after any break that ends the text.
            time_s, exact = clock.at(position) if position is not None else ((spans[-1].end_s if spans else 0.0) + script.tail_s, True)
            ms = _ms(time_s)
            marks.insert(at, SpeechMark("ssml", ms, ms, named.start, named.end, named.name, estimated=not (exact and layout.exact)))
    return marks


def chunk_byte_ranges(script: Script, chunks: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """For each of ``chunks`` (what ``script`` reads, in order), the UTF-8 byte range ``[start, end)``
    of the text as sent that it reads: from the start of the first sentence that begins in it to the
    end of the last one. A chunk in which no sentence begins (part of a sentence longer than a
    chunk) has the range of the sentence it continues, so ranges overlap only there."""
    layout = _Layout(script, chunks)
    beginning: list[list[_Sentence]] = [[] for _ in chunks]
    for sentence in layout.sentences:
        beginning[layout.chunk_at(sentence.start)].append(sentence)
    ranges = []
    under_way = layout.sentences[:1]  # the sentence a chunk in which none begins continues
    for group in beginning:
        group = group or under_way
        ranges.append(script.byte_range(group[0].a, group[-1].b) if group else (0, 0))
        under_way = group[-1:]
    return tuple(ranges)


def _words(script: Script, a: int, b: int, start: float, end: float, clock: _Clock, exact_layout: bool) -> list[SpeechMark]:
    text = script.text
    words = [m.span() for m in _WORD.finditer(text, a, b)]
    weights = [len(_squash(script.spoken(x, y))) for x, y in words]
    total = sum(weights)
    if not total:
        return []
    marks = []
    done = 0
    for (x, y), weight in zip(words, weights, strict=True):
        w_start = start + (end - start) * done / total
        done += weight
        w_end = start + (end - start) * done / total
        if not weight or not any(c.isalnum() for c in text[x:y]):  # a dash, a symbol: a pause, not a word
            continue
        time_s, exact = clock.at(w_start)
        first, last = _word_itself(text, x, y)  # timed as written (its punctuation a pause), named without it
        end_ms = _ms(clock.end_at(w_end))
        estimated = not (exact and exact_layout)
        marks.append(
            SpeechMark("word", _ms(time_s), end_ms, *script.byte_range(first, last), text[first:last], estimated, written=text[x:y])
        )
    return marks


def _word_itself(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` (a word as written between spaces) without the punctuation around it, as
    Polly's word marks have it ("lamb." is ``lamb``, '"Hi,"' is ``Hi``); signs that are said (``%``,
    ``#``, ``&``, ``@``) stay, and a word written with stops inside (``p.m.``, ``U.S.``) keeps its last."""
    a, b = start, end
    while a < b and _is_punctuation(text[a]):
        a += 1
    while b > a and _is_punctuation(text[b - 1]):
        b -= 1
    if b < end and text[b] == "." and "." in text[a:b]:
        b += 1
    return a, b


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P") and char not in _SAID_SIGNS


def json_lines(marks: Sequence[SpeechMark]) -> str:
    """Marks as Polly sends them: one JSON object a line."""
    return "".join(json.dumps(m.to_json(), ensure_ascii=False) + "\n" for m in marks)


class _Sentence(NamedTuple):
    a: int  # characters of the written text
    b: int
    start: float  # where its spoken characters begin and end among the chunks' (``_Layout.stream``)
    end: float


class _Layout:
    """The chunks' spoken characters (whitespace aside) end to end, and each written sentence's place among them.

    Sentences are found in the written text as the chunker finds them in the spoken text, and each
    is read alone to find where it falls among the chunks' characters. Should reading a sentence
    alone differ from reading it in context, positions fall back to proportions of the whole and
    ``exact`` is False. Sentences that say nothing are left out.
    """

    def __init__(self, script: Script, chunks: Sequence[str]) -> None:
        squashed = [_squash(chunk) for chunk in chunks]
        self.offsets = [0]
        for piece in squashed:
            self.offsets.append(self.offsets[-1] + len(piece))
        self.stream = "".join(squashed)
        self.total = self.offsets[-1]
        written = whole_sentence_spans(script.text, script.lang_at)
        spoken = [_squash(script.spoken(a, b)) for a, b in written]
        self.sentences: list[_Sentence] = self._aligned(written, spoken)
        self.exact = bool(self.sentences) or not any(spoken)
        if self.exact:
            return
        said_total = sum(len(s) for s in spoken)
        scale = 1.0 if said_total == self.total else self.total / max(1, said_total)
        position = 0
        for (a, b), said in zip(written, spoken, strict=True):
            if said:
                self.sentences.append(_Sentence(a, b, position * scale, (position + len(said)) * scale))
            position += len(said)

    def _aligned(self, written: Sequence[tuple[int, int]], spoken: Sequence[str]) -> list[_Sentence]:
        """Each sentence placed where it is read, when every one is found in order among the
        chunks' characters; a sentence that says nothing to the model may be missing (its chunk was
        not sent: ``says_nothing``). Empty when they are not all found so."""
        sentences, position = [], 0
        for (a, b), said in zip(written, spoken, strict=True):
            if not said:
                continue
            if self.stream.startswith(said, position):
                sentences.append(_Sentence(a, b, position, position + len(said)))
                position += len(said)
            elif not says_nothing(said):
                return []
        return sentences if position == self.total else []

    def position_of(self, script: Script, at: int) -> float | None:
        """Where ``script.text[at:]`` begins among the chunks' spoken characters; None: after the last word."""
        for sentence in self.sentences:
            if at <= sentence.a:
                return sentence.start
            if at < sentence.b:
                said = len(_squash(script.spoken(sentence.a, sentence.b)))
                share = len(_squash(script.spoken(sentence.a, at))) / max(1, said)
                return sentence.start + (sentence.end - sentence.start) * share
        return None

    def chunk_at(self, position: float) -> int:
        """The chunk whose characters hold ``position``."""
        return min(max(0, bisect_right(self.offsets, position) - 1), len(self.offsets) - 2)


class _Clock:
    """Positions in the chunks' spoken characters to seconds of audio, the chunks sitting at ``spans``."""

    def __init__(self, layout: _Layout, spans: Sequence[Span]) -> None:
        self.layout = layout
        self.spans = list(spans)

    def at(self, position: float) -> tuple[float, bool]:
        """Seconds where ``position`` is heard, and whether that is exact (a chunk's first character)."""
        if not self.spans:
            return 0.0, False
        index = self.layout.chunk_at(position)
        return self._time(index, position), position == self.layout.offsets[index]

    def end_at(self, position: float) -> float:
        """Seconds where the character before ``position`` ends: a chunk's last one ends with its audio."""
        if not self.spans:
            return 0.0
        return self._time(self.layout.chunk_at(position - 1e-9), position)

    def _time(self, index: int, position: float) -> float:
        span, offsets = self.spans[index], self.layout.offsets
        length = offsets[index + 1] - offsets[index]
        share = 0.0 if not length else min(1.0, max(0.0, (position - offsets[index]) / length))
        return span.start_s + share * (span.end_s - span.start_s)


def _squash(text: str) -> str:
    return _SPACE.sub("", text)


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000.0))


# --- captions ------------------------------------------------------------------------------------------
# Cue text is the spoken text, never markup (WebVTT's escapes, SubRip's lack of them); making the cues
# is one pass over the marks (each sentence finds its words by bisection), a given ``Deadline`` checked
# at every sentence.

# WebVTT cue text escapes "&", "<" and ">" as "&amp;", "&lt;", "&gt;" (https://www.w3.org/TR/webvtt1/,
# cue text); a raw "<" starts a tag such as <v Bob> or <c.red>, a raw "&" a character reference.
# With ">" escaped the text cannot hold "-->", which a cue's text may not contain.
_VTT_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# SubRip has no escapes, and its players read <b>, <i>, <u> and <font color=...> in cue text as
# markup (SubRip's own source, https://forum.doom9.org/showpost.php?p=470941&postcount=2), some also
# {b}, {i}, {u} and ASS overrides such as {\an8} (https://www.xmedia-recode.de/en/help/faq/srt.php):
# "<", ">", "{" and "}" are replaced by look-alikes that are never markup (the single angle
# quotation marks, the medium curly brackets); an entity such as "&lt;" would show as those four
# characters where a player does not decode it. With ">" replaced the text cannot hold "-->", the
# arrow of a cue's timing line.
_SRT_TEXT = str.maketrans({"<": "\u2039", ">": "\u203a", "{": "\u2774", "}": "\u2775"})


@dataclass(frozen=True)
class Cue:
    start_ms: int
    end_ms: int
    text: str  # the words as spoken, one or two lines; never a blank line, never markup-escaped


def caption_cues(marks: Sequence[SpeechMark], line_chars: int = CAPTION_LINE_CHARS, *, deadline: Deadline | None = None) -> list[Cue]:
    """A cue per sentence; one too long for two lines is cut at words, each piece timed by its first word."""
    sentences = [m for m in marks if m.type == "sentence"]
    words = sorted((m for m in marks if m.type == "word"), key=lambda w: w.start)
    word_starts = [w.start for w in words]
    cues: list[Cue] = []
    for sentence in sentences:
        if deadline is not None:
            deadline.check()
        if _fits(sentence.value, line_chars):
            cues.append(Cue(sentence.time_ms, sentence.end_ms, _wrap(sentence.value, line_chars)))
            continue
        first = bisect_left(word_starts, sentence.start)
        last = bisect_left(word_starts, sentence.end, lo=first)
        inside = [w for w in words[first:last] if w.end <= sentence.end]
        if len(inside) < 2:
            cues.append(Cue(sentence.time_ms, sentence.end_ms, _wrap(sentence.value, line_chars)))
            continue
        group: list[SpeechMark] = []
        for word in inside:
            if group and not _fits(_as_written([*group, word]), line_chars):
                cues.append(Cue(group[0].time_ms, word.time_ms, _wrap(_as_written(group), line_chars)))
                group = []
            group.append(word)
        cues.append(Cue(group[0].time_ms, sentence.end_ms, _wrap(_as_written(group), line_chars)))
    return cues


def _as_written(words: Sequence[SpeechMark]) -> str:
    return " ".join(w.written or w.value for w in words)


def captions(marks: Sequence[SpeechMark], fmt: str, *, deadline: Deadline | None = None) -> str:
    """SubRip or WebVTT text of ``marks`` (sentence marks, word marks to cut long sentences)."""
    if fmt not in CAPTION_FORMATS:
        raise InvalidParameter(f"caption format must be one of {', '.join(CAPTION_FORMATS)}, got {quoted(fmt)}", field="format")
    cues = caption_cues(marks, deadline=deadline)
    if fmt == "srt":
        return "".join(
            f"{n}\n{_stamp(c.start_ms, ',')} --> {_stamp(c.end_ms, ',')}\n{c.text.translate(_SRT_TEXT)}\n\n" for n, c in enumerate(cues, 1)
        )
    return "WEBVTT\n\n" + "".join(f"{_stamp(c.start_ms, '.')} --> {_stamp(c.end_ms, '.')}\n{c.text.translate(_VTT_TEXT)}\n\n" for c in cues)


def _wrap(text: str, line_chars: int) -> str:
    """One line, or two at the space nearest the middle that keeps both within ``line_chars`` (else
    nearest the middle). Every run of whitespace (a line break, a blank line) becomes one space, so a
    cue's text never holds a blank line, which would end the cue early."""
    text = " ".join(text.split())
    if len(text) <= line_chars:
        return text
    spaces = [i for i, c in enumerate(text) if c == " "]
    if not spaces:
        return text
    fitting = [i for i in spaces if i <= line_chars and len(text) - i - 1 <= line_chars]
    cut = min(fitting or spaces, key=lambda i: abs(i - len(text) // 2))
    return text[:cut] + "\n" + text[cut + 1 :]


def _fits(text: str, line_chars: int) -> bool:
    return all(len(line) <= line_chars for line in _wrap(text, line_chars).split("\n"))


def _stamp(ms: int, separator: str) -> str:
    hours, rest = divmod(max(0, ms), 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{millis:03d}"
