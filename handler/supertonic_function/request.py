"""One synthesis request mapped from the wire, whatever it arrived as.

A JSON body (``POST /``, ``POST /v1/tts``, a direct invoke, a ``.json`` job in the bucket), a
query string (``GET /?text=...``) and S3 object metadata (a ``.txt`` drop) all become the same
``TtsRequest``: the wire's fields, names and types mapped onto ``SynthesisOptions``. What the
values mean (ranges, the text, the voice, the format, ``Limits``) is checked once, by the engine's
``prepare`` (``TtsRequest.prepare``), so the edge and the engine can never disagree on what is
valid; every problem is raised as a typed error naming its field.
JSON text (a body, a job object) is read by ``parse_json``, which turns anything unreadable into
``InvalidJson``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from supertonic_engine import (
    CAPTION_FORMATS,
    DEFAULT_FORMAT,
    ChapterMark,
    Engine,
    Extras,
    Limits,
    Prepared,
    SynthesisOptions,
    book_text,
    chapter_marks,
    read_markdown,
)
from supertonic_engine.errors import AudioTooLong, EmptyText, InvalidParameter, SpokenTextTooLong, SupertonicError, quoted

from .config import true_or_false
from .errors import InvalidJson
from .voices import resolve_voice

ON_ERROR_CHOICES = ("json", "audio")
OPTION_FIELDS = (
    "voice",
    "lang",
    "steps",
    "speed",
    "format",
    "seed",
    "normalize",
    "on_error",
    "marks",
    "captions",
    "chunking",
    "text_type",
    "ssml",
    "first_chunk_chars",
    "first_chunk_steps",
    "trim_silence",
    "stream_format",
    "chapters",
)
# How an HTTP answer carries the audio: the file's bytes, or server-sent events (OpenAI's
# speech.audio.delta / speech.audio.done, with speech marks beside the audio when asked for).
STREAM_FORMATS = ("audio", "sse")
ANSWERS = ("audio", "marks", "captions")
FIELDS = ("text", *OPTION_FIELDS)


@dataclass(frozen=True)
class TtsRequest:
    text: str
    options: SynthesisOptions
    format: str = DEFAULT_FORMAT
    # Whether the caller named the format; when not, an HTTP request's Accept may pick another one.
    format_sent: bool = False
    on_error: str = "json"
    limits: Limits | None = None  # a synchronous request's bounds; None: the whole timeout is its bound
    text_field: str = "text"  # what the wire calls the text (``input`` in OpenAI's shape)
    # Speech mark types, and caption formats: the answer with ``format`` srt/vtt, sidecars of an S3 job.
    extras: Extras = Extras()
    answer: str = "audio"  # what a synchronous caller gets back: audio, marks (JSON lines) or captions
    text_type: str | None = None  # Polly's TextType: ssml or text; None: SSML when the text starts with <speak>
    stream_format: str = "audio"  # one of STREAM_FORMATS; read by HTTP answers only (a file is a file)
    chapters: bool = False  # a job's text is a Markdown book: a file per chapter beside the whole one's

    def as_book(self) -> tuple[TtsRequest, list[ChapterMark] | None]:
        """With ``chapters``: this request reading its text as a Markdown book (``#`` and ``##``
        headings start chapters, read as their titles; syntax is not read aloud) and where each
        chapter begins in what it reads; else itself and None."""
        if not self.chapters:
            return self, None
        if self.text_type == "ssml":
            raise InvalidParameter(
                "chapters reads the text as Markdown headings and paragraphs, not SSML: send one or the other", field="chapters"
            )
        book = read_markdown(self.text)
        return replace(self, text=book_text(book)), chapter_marks(book)

    def refuse_chapters(self) -> None:
        """A synchronous answer is one file: ``chapters`` is for jobs, which store one per chapter."""
        if self.chapters:
            raise InvalidParameter("chapters makes a file per chapter, which only a job stores: send it to POST /v1/jobs", field="chapters")

    def prepare(self, engine: Engine) -> Prepared:
        """The engine's one check of this request (text, options, voice, format, limits), its
        errors naming the wire's field for the text."""
        try:
            return engine.prepare(
                self.text,
                self.options,
                limits=self.limits or Limits(),
                format=self.format,
                extras=self.extras,
                text_type=self.text_type,
            )
        except SupertonicError as error:
            # The text as sent is the wire's field; what it reads as (spelled out, as audio) is not.
            if error.field == "text" and self.text_field != "text" and not isinstance(error, (SpokenTextTooLong, AudioTooLong)):
                raise _naming(self.text_field, error) from None
            raise

    def to_json(self) -> dict[str, Any]:
        """The request in the ``POST /v1/tts`` body shape; ``parse_request`` reads it back unchanged."""
        o = self.options
        document: dict[str, Any] = {
            "text": self.text,
            "voice": o.voice,
            "lang": o.lang,
            "steps": o.steps,
            "speed": o.speed,
            "format": self.format,
            "normalize": o.normalize,
        }
        if o.seed is not None:
            document["seed"] = o.seed
        if o.chunking != SynthesisOptions.chunking:
            document["chunking"] = o.chunking
        if self.text_type is not None:
            document["text_type"] = self.text_type
        if o.ssml != SynthesisOptions.ssml:
            document["ssml"] = o.ssml
        for name in ("first_chunk_chars", "first_chunk_steps"):
            if getattr(o, name) is not None:
                document[name] = getattr(o, name)
        if o.trim_silence:
            document["trim_silence"] = True
        if self.stream_format != "audio":
            document["stream_format"] = self.stream_format
        if self.chapters:
            document["chapters"] = True
        if self.extras.marks:
            document["marks"] = list(self.extras.marks)
        if self.answer == "captions":
            document["format"] = self.extras.captions[0]  # (fmt,) as build_request made it
        elif self.extras.captions:
            document["captions"] = list(self.extras.captions)
        return document


def parse_json(text: str, what: str) -> object:
    """``text`` parsed as JSON, or ``InvalidJson`` that says why, about ``what`` ("the body", "the job")."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidJson(f"{what} is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        # The parser recurses once per level: '[' * 100000 passes Python's limit. Bad input, not a bug.
        raise InvalidJson(f"{what} is nested too deeply to be a request") from None
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        raise InvalidJson(f"{what} holds a number too long to read") from None


def parse_request(
    data: object,
    *,
    voices: Sequence[str],
    limits: Limits | None = None,
    from_strings: bool = False,
    defaults: Mapping[str, Any] | None = None,
) -> TtsRequest:
    """Check ``data`` and build the request.

    ``from_strings``: values come from a query string or object metadata, so numbers and booleans
    arrive as text, and keys that are not request fields (a cache buster, unrelated metadata) are
    ignored. A JSON body must use real JSON types and only the known fields, so typos are caught.
    ``defaults``: typed values of fields the deployment sets when the request does not.
    """
    if not isinstance(data, Mapping):
        raise InvalidParameter(f"the request must be a JSON object with the fields {', '.join(FIELDS)}", field="body")
    if not from_strings:
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise InvalidParameter(f"unknown field {quoted(unknown[0])}; fields are: {', '.join(FIELDS)}", field=unknown[0])
    values = {name: data[name] for name in FIELDS if name in data and data[name] is not None}
    if from_strings:
        values = {name: _from_string(name, value) for name, value in values.items()}
    text = check_text(values.pop("text", None))
    return build_request(text, {**(defaults or {}), **values}, voices, limits)


def build_request(
    text: str,
    values: Mapping[str, Any],
    voices: Sequence[str],
    limits: Limits | None = None,
    text_field: str = "text",
    default_format: str = DEFAULT_FORMAT,
) -> TtsRequest:
    """The request from already-typed option values (``voice``, ``lang``, ``steps``, ... ``on_error``);
    ``voices`` turns a name in another spelling (``f2``, OpenAI's ``nova``) into the model's.
    ``default_format``: the format when ``values`` names none (OpenAI's is mp3)."""
    on_error = values.get("on_error", "json")
    if on_error not in ON_ERROR_CHOICES:
        raise InvalidParameter(f"on_error must be one of {', '.join(ON_ERROR_CHOICES)}, got {quoted(on_error)}", field="on_error")
    voice = values.get("voice", SynthesisOptions.voice)
    if not isinstance(voice, str):
        raise InvalidParameter(f"voice must be a string such as {SynthesisOptions.voice!r}", field="voice")
    voice = resolve_voice(voice, voices)
    fmt = values.get("format", default_format)
    if not isinstance(fmt, str):
        raise InvalidParameter("format must be a string such as 'wav' or 'mp3'", field="format")
    options = SynthesisOptions(
        voice=voice,
        lang=_string(values, "lang", SynthesisOptions.lang),
        steps=values.get("steps", SynthesisOptions.steps),
        speed=values.get("speed", SynthesisOptions.speed),
        seed=values.get("seed"),
        normalize=_boolean(values, "normalize", True),
        chunking=_string(values, "chunking", SynthesisOptions.chunking),
        first_chunk_chars=values.get("first_chunk_chars"),
        first_chunk_steps=values.get("first_chunk_steps"),
        trim_silence=_boolean(values, "trim_silence", False),
        ssml=_string(values, "ssml", SynthesisOptions.ssml).lower(),  # the engine says which modes it reads
    )
    stream_format = _string(values, "stream_format", "audio").lower()
    if stream_format not in STREAM_FORMATS:
        raise InvalidParameter(
            f"stream_format must be one of {', '.join(STREAM_FORMATS)}, got {quoted(stream_format)}", field="stream_format"
        )
    fmt = fmt.strip().lower()
    marks, captions, answer = values.get("marks") or (), values.get("captions") or (), "audio"
    if fmt in CAPTION_FORMATS:  # captions as the answer; an S3 job still writes its audio beside them
        captions, fmt, answer = (fmt,), DEFAULT_FORMAT, "captions"
    extras = Extras(marks, captions)
    if extras.marks:
        if answer == "captions":
            raise InvalidParameter("marks and captions are two answers: send marks, or format srt/vtt, not both", field="marks")
        answer = "marks"
    text_type = values.get("text_type")
    if text_type is not None:
        text_type = _string(values, "text_type", "").lower()  # the engine says which values it reads
    return TtsRequest(
        text=text,
        options=options,
        format=fmt,
        on_error=on_error,
        limits=limits,
        text_field=text_field,
        format_sent="format" in values,
        extras=extras,
        answer=answer,
        text_type=text_type,
        stream_format=stream_format,
        chapters=_boolean(values, "chapters", False),
    )


def check_text(text: object, field: str = "text") -> str:
    """The words to speak, sent in ``field`` (``input`` in OpenAI's shape): present and a string
    (what they say is the engine's to check)."""
    if text is None:
        raise _naming(field, EmptyText(f"{field} is missing: send the words to speak in the '{field}' field"))
    if not isinstance(text, str):
        raise InvalidParameter(f"{field} must be a string, got {type(text).__name__}", field=field)
    return text


_Error = TypeVar("_Error", bound=SupertonicError)


def _naming(field: str, error: _Error) -> _Error:
    """``error`` pointing at ``field``: the engine's text errors always say 'text'."""
    error.field = field
    if field != "text" and error.message.startswith("text "):
        error.message = field + error.message[len("text") :]
    return error


def _string(values: Mapping[str, Any], name: str, default: str) -> str:
    value = values.get(name, default)
    if not isinstance(value, str):
        raise InvalidParameter(f"{name} must be a string, got {type(value).__name__}", field=name)
    return value.strip()


def _boolean(values: Mapping[str, Any], name: str, default: bool) -> bool:
    value = values.get(name, default)
    if not isinstance(value, bool):
        raise InvalidParameter(f"{name} must be true or false, got {quoted(value)}", field=name)
    return value


def _from_string(name: str, value: object) -> object:
    """Query-string and metadata values are text; turn them into the types the fields need."""
    if not isinstance(value, str):
        return value
    convert = _STRING_CONVERTERS.get(name)
    if convert is None:
        return value
    try:
        return convert(value.strip())
    except ValueError:
        raise InvalidParameter(
            f"{name}={quoted(value)} is not a valid {convert.__name__.strip('_').replace('_', ' ')}", field=name
        ) from None


# Plain ASCII decimals: int() and float() also read "1_0", "١٠" (Arabic-Indic digits), "1e3" and "nan".
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_WHOLE = re.compile(r"[+-]?[0-9]+")


def _number(raw: str) -> float:
    if not _DECIMAL.fullmatch(raw):
        raise ValueError(raw)
    return float(raw)


def _whole_number(raw: str) -> int:
    if not _WHOLE.fullmatch(raw):
        raise ValueError(raw)
    return int(raw)


_STRING_CONVERTERS: dict[str, Callable[[str], object]] = {
    "steps": _whole_number,
    "seed": _whole_number,
    "first_chunk_chars": _whole_number,
    "first_chunk_steps": _whole_number,
    "trim_silence": true_or_false,
    "chapters": true_or_false,
    "speed": _number,
    "normalize": true_or_false,
}
