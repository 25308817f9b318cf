"""A seeded generator of Lambda events for the function: function URL requests, direct invokes, S3
notifications and things that are none of these, most of them malformed or at an edge.

Seeded rather than drawn by hypothesis: every run makes exactly the requested number of events,
cheaply, and one seed and index name an event exactly (``EventFuzzer(seed).events(n)`` again).
Events start from the ``events/`` corpus or from the grammar of each source, then get a few
mutations: a value of the wrong type, a part deleted, text no model or encoder expects. A small
share are requests the function can serve, kept short and at 1-2 steps so the run stays fast.
Every event is passed through JSON, since that is how the runtime delivers it (``NaN`` included:
Python's JSON reads it).

The module holds no assertions (see tests/test_fuzz.py for what must hold of the answers).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

# What people type: words, numbers, dates, times, money, tags, emoji, odd spacing and punctuation.
TYPED_PIECES = [
    *"aZ 09.,!?%:/$-'\"()\n\t원년월일시개가한국어😀…「」",
    "<laugh>",
    "</laugh>",
    "<breath>",
    "<ko>",
    "API",
    "10:30",
    "2026년 8월 24일",
    "15,000원",
    "$3.50",
    "3개",
    "010-1234-5678",
    "https://example.com",
]
# SSML as Polly users write it, and as no parser should trust: unknown elements, bad values, entities, DOCTYPEs.
SSML_PIECES = [
    '<break time="300ms"/>',
    '<break strength="x-strong"/>',
    '<say-as interpret-as="cardinal">1,234</say-as>',
    '<say-as interpret-as="date" format="mdy">12/31/2025</say-as>',
    '<say-as interpret-as="telephone">010-1234-5678</say-as>',
    '<say-as interpret-as="characters">API</say-as>',
    '<sub alias="World Wide Web">WWW</sub>',
    "<p>One.</p>",
    "<s>Two</s>",
    '<lang xml:lang="ko-KR">안녕 3개</lang>',
    "Hello there.",
    " 2026년 8월 24일 ",
    "&amp;",
    "&lt;laugh&gt;",
]
HOSTILE_SSML = [
    '<prosody rate="slow">',
    "</speak>",
    "<speak>",
    "&bogus;",
    '<!DOCTYPE speak [<!ENTITY a "aaaa">]>',
    '<break time="99s"/>',
    '<break time="-1ms"/>',
    '<say-as interpret-as="ordinal">many</say-as>',
    '<lang xml:lang="xx">a</lang>',
    "<s>" * 40,
    "<sub>x</sub>",
    '<sub alias="a"><p>b</p></sub>',
    "&#0;",
    "&#xD800;",
    "<![CDATA[<x>]]>",
    "<?pi x?>",
    "<!-- c -->",
    "<",
    "&",
]
# Code points no request should break on: controls, bidi marks, combining marks, noncharacters, private
# use, lone surrogates (JSON spells them as \ud800), astral symbols, NUL.
ODD_CHARACTERS = [
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x85",
    "\u00a0",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2028",
    "\u0301",
    "\ufeff",
    "\ufffd",
    "\uffff",
    "\ue000",
    "\ud800",
    "\udfff",
    "\U0001f600",
    "\U0010ffff",
    "ᚠ",
    "ﷺ",
    "\u0661",
    "\uff12",
    "İ",
    "ß",
    "ǅ",
]
VOICES = ["M1", "M2", "M5", "F1", "F3", "F5", "f2", "alloy", "nova", "onyx", "ballad"]
LANGS = ["en", "ko", "ja", "na", "es", "fr", "de", "zh"]
# Opus is left to its own tests: it resamples to 48 kHz, which costs about as long as the audio lasts.
FORMATS = ["wav", "flac", "ogg", "mp3", "pcm", ".WAV", " mp3 ", "OGG"]
OPENAI_MODELS = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts", "supertonic-3"]
ROUTES = [
    ("POST", "/"),
    ("GET", "/"),
    ("POST", "/v1/tts"),
    ("POST", "/v1/audio/speech"),
    ("POST", "/v1/jobs"),
    ("GET", "/v1/jobs/{job_id}"),
    ("GET", "/v1/voices"),
    ("GET", "/health"),
    ("GET", "/openapi.json"),
]
ODD_PATHS = [
    "",
    "//",
    "/v1/tts/",
    "/v1//tts",
    "/V1/TTS",
    "/v1/tts/x",
    "/%00",
    "/\u00e9",
    "/\ud800",
    "/a" * 600,
    "/v1/jobs/",
    "/v1/jobs/../health",
    "/health?x",
    "/v1/voices.json",
    "/favicon.ico",
]
METHODS = ["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "post", "get", "TRACE", "", " ", "G ET"]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "",
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "application/ld+json",
    "multipart/form-data; boundary=x",
    "application/octet-stream",
    "APPLICATION/JSON",
    "application/json; charset=latin-1",
    "garbage",
    ";",
]
ACCEPTS = [
    "application/json",
    "audio/*",
    "*/*",
    "audio/wav;q=0",
    "application/json;q=0",
    "*/*;q=0",
    "text/html",
    "audio/mpeg",
    "application/octet-stream",
    "application/json;q=0.5, audio/*",
    "audio/*;q=0, */*;q=0.1",
    ";;;,,",
    "application/json;q=abc",
    "audio/*;q=2",
    "*/*, " * 50,
    "application/json;q=0, audio/*;q=0",
]
ORIGINS = ["https://app.example.com", "http://localhost:5173", "null", "https://evil.example.net", "\u00e9", ""]
STRING_NUMBERS = [
    "1",
    "2",
    "0",
    "-1",
    "101",
    "1.5",
    "1_0",
    "\u0661",
    "\uff12",
    "nan",
    "inf",
    "1e0",
    " 2 ",
    "+2",
    "",
    "0x10",
    "1.05",
    ".9",
    "2.",
    "9" * 50,
    "\u0967",
]
JOB_ID_CHARS = "0123456789abcdef"


@dataclass(frozen=True)
class FuzzEvent:
    index: int
    kind: str  # furl | direct | s3 | other
    event: Any
    synthesizes: bool  # built to be a request the function can serve (before any mutation)


class EventFuzzer:
    """``events(n)`` yields ``n`` events; ``input_bucket``/``output_bucket`` are the function's, and
    ``objects`` the ``(key, etag)`` of text objects already stored in the input bucket."""

    # Share of each kind: most events are function URL requests, as in the function's life.
    KINDS = (("furl", 0.6), ("direct", 0.2), ("s3", 0.1), ("other", 0.1))
    SERVABLE_SHARE = 0.05  # events built as requests that synthesize (short text, 1-2 steps)

    def __init__(
        self, seed: int, *, corpus: Sequence[Any], input_bucket: str, output_bucket: str, objects: Sequence[tuple[str, str]] = ()
    ) -> None:
        self.seed = seed
        self.corpus = [json.loads(json.dumps(event)) for event in corpus]
        self.input_bucket = input_bucket
        self.output_bucket = output_bucket
        self.objects = list(objects)
        self.rng = random.Random(seed)

    def events(self, count: int) -> Iterator[FuzzEvent]:
        kinds, weights = zip(*self.KINDS, strict=True)
        makers: dict[str, Callable[[bool], Any]] = {
            "furl": self.function_url,
            "direct": self.direct,
            "s3": self.s3,
            "other": self.other,
        }
        for index in range(count):
            kind = self.rng.choices(kinds, weights)[0]
            # Only requests can be servable: their share of them makes SERVABLE_SHARE of all events.
            servable = kind in ("furl", "direct") and self.rng.random() < self.SERVABLE_SHARE / 0.8
            event = makers[kind](servable)
            yield FuzzEvent(index, kind, json.loads(json.dumps(event)), servable)

    # --- values ----------------------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def odd_string(self, max_length: int = 24) -> str:
        pool = string.ascii_letters + string.digits + string.punctuation + " "
        return "".join(
            self.pick(ODD_CHARACTERS) if self.chance(0.3) else self.pick(pool) for _ in range(self.rng.randrange(max_length + 1))
        )

    def junk(self, depth: int = 0) -> Any:
        """Any JSON value, nested a little."""
        choice = self.rng.randrange(9 if depth < 2 else 6)
        return [
            lambda: None,
            lambda: self.chance(0.5),
            lambda: self.rng.randint(-(10**6), 10**6),
            lambda: self.pick([0.5, -0.0, 1e308, float("nan"), float("inf"), 10**40]),
            lambda: self.odd_string(),
            lambda: "",
            lambda: [self.junk(depth + 1) for _ in range(self.rng.randrange(3))],
            lambda: {self.odd_string(8): self.junk(depth + 1) for _ in range(self.rng.randrange(3))},
            lambda: [[[[]]]],
        ][choice]()

    def ssml(self, servable: bool) -> str:
        pieces = SSML_PIECES if servable else SSML_PIECES + HOSTILE_SSML + ODD_CHARACTERS
        return "<speak>" + "".join(self.pick(pieces) for _ in range(self.rng.randint(1, 8))) + "</speak>"

    def text(self, servable: bool) -> Any:
        if self.chance(0.1):
            return self.ssml(servable)
        if servable:
            return "".join(self.pick(TYPED_PIECES) for _ in range(self.rng.randint(1, 8))).strip() or "Hello."
        return self.pick(
            [
                lambda: "",
                lambda: " \n\t ",
                lambda: self.odd_string(40),
                lambda: "a" * 3001,
                lambda: "".join(self.pick(TYPED_PIECES) for _ in range(self.rng.randint(1, 12))),
                lambda: "Hello " + self.pick(ODD_CHARACTERS) + " there.",
                lambda: self.junk(),
                lambda: "<laugh>" * 5,
                lambda: "<ko>안녕</ko>" + self.pick(ODD_CHARACTERS),
            ]
        )()

    def option(self, name: str, servable: bool) -> Any:
        """A value for one option: valid when ``servable``, else valid or not, of any type."""
        valid = {
            "voice": lambda: self.pick(VOICES),
            "lang": lambda: self.pick(LANGS[:4]),
            "steps": lambda: self.rng.randint(1, 2),
            "speed": lambda: round(self.rng.uniform(0.7, 2.0), 2),
            "format": lambda: self.pick(["wav"] * 5 + FORMATS),
            "seed": lambda: self.rng.randrange(2**32),
            "normalize": lambda: self.chance(0.8),
            "on_error": lambda: self.pick(["json", "audio"]),
        }[name]
        if servable or self.chance(0.5):
            return valid()
        return self.pick(
            [
                lambda: None,
                lambda: self.junk(),
                lambda: self.odd_string(),
                lambda: self.pick(STRING_NUMBERS),
                lambda: self.pick([0, 101, -1, 1.5, 2**32, 10**400, float("nan"), True, "2", [], {}]),
                lambda: self.pick(LANGS + FORMATS + VOICES + ["aac", "xx", "M9", "audio", "JSON"]),
            ]
        )()

    def tts_fields(self, servable: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {"text": self.text(servable)}
        for name in ("voice", "lang", "steps", "speed", "format", "seed", "normalize", "on_error"):
            if name == "steps" or self.chance(0.4):  # steps always: the default (8) would be slow
                fields[name] = self.option(name, servable)
        if not servable and self.chance(0.15):
            fields[self.odd_string(10)] = self.junk()
        if not servable and self.chance(0.1):
            del fields[self.pick(list(fields))]
        return fields

    def openai_fields(self, servable: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "model": self.pick(OPENAI_MODELS[:1]) if servable else self.pick([*OPENAI_MODELS, "whisper-1", None, 3]),
            "input": self.text(servable),
            "voice": self.option("voice", servable),
        }
        if servable or self.chance(0.5):
            fields["response_format"] = self.pick(["mp3", "wav", "flac", "pcm"] if servable else [*FORMATS, "aac", 1])
        if servable or self.chance(0.5):
            fields["speed"] = round(self.rng.uniform(0.67, 1.9), 2) if servable else self.pick([0.1, 5, "1", None, True, 1.0])
        for name, value in (("instructions", "calm"), ("stream_format", self.pick(["audio", "sse"])), ("lang", "en")):
            if self.chance(0.2):
                fields[name] = value
        if not servable and self.chance(0.15):
            fields[self.odd_string(10)] = self.junk()
        return fields

    def query_of(self, fields: dict[str, Any]) -> dict[str, str]:
        """Fields as query-string text, some numbers spelled the ways int() and float() read but a client should not."""
        query = {}
        for name, value in fields.items():
            if isinstance(value, bool):
                value = self.pick(["true", "0", "yes", "off", "maybe"]) if self.chance(0.3) else str(value).lower()
            elif name in ("steps", "seed", "speed") and self.chance(0.3):
                value = self.pick(STRING_NUMBERS)
            query[str(name)] = value if isinstance(value, str) else json.dumps(value)
        return query

    # --- function URL -----------------------------------------------------------------------

    def function_url(self, servable: bool) -> dict[str, Any]:
        corpus = [e for e in self.corpus if e.get("version") == "2.0"]
        if not servable and corpus and self.chance(0.1):
            # A sample event with one part broken (most samples synthesize, at up to 8 steps: costly as they are).
            event = json.loads(json.dumps(self.pick(corpus)))
            self.mutate_envelope(event)
        else:
            event = self.http_request(servable)
        if not servable:
            for _ in range(self.rng.choice([0, 0, 0, 1, 1, 2])):
                self.mutate_envelope(event)
        return event

    def http_request(self, servable: bool) -> dict[str, Any]:
        method, template = self.pick(ROUTES[:5] if servable else ROUTES)
        if not servable and self.chance(0.2):
            method = self.pick(METHODS)
        elif method == "GET" and self.chance(0.1):
            method = "HEAD"
        path = template.replace("{job_id}", self.job_id())
        if not servable and self.chance(0.1):
            path = self.pick(ODD_PATHS)
        headers = {"host": "abc.lambda-url.us-east-1.on.aws", "user-agent": "fuzz"}
        query: dict[str, str] = {}
        body: str | None = None
        encoded = False
        if method in ("GET", "HEAD") and template == "/":
            query = self.query_of(self.tts_fields(servable))
        elif method not in ("GET", "HEAD", "OPTIONS") or self.chance(0.05):
            body, content_type, encoded = self.http_body(template, servable)
            if content_type is not None:
                headers["content-type"] = content_type
            if content_type == "text/plain" and self.chance(0.7):
                query = self.query_of({k: v for k, v in self.tts_fields(servable).items() if k != "text"})
        if servable:
            if self.chance(0.3):
                headers["accept"] = self.pick(["application/json", "audio/*", "*/*"])
        else:
            if self.chance(0.3):
                headers["accept"] = self.pick(ACCEPTS)
            if self.chance(0.1):
                headers["origin"] = self.pick(ORIGINS)
            if self.chance(0.1):
                headers[self.odd_string(8).lower()] = self.odd_string()
            if self.chance(0.05):
                query[self.odd_string(6)] = self.odd_string()
            if self.chance(0.05):
                query["on_error"] = "audio"
        event: dict[str, Any] = {
            "version": "2.0",
            "routeKey": "$default",
            "rawPath": path,
            "rawQueryString": "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in query.items()),
            "headers": headers,
            "requestContext": {
                "accountId": "anonymous",
                "apiId": "abc",
                "domainName": "abc.lambda-url.us-east-1.on.aws",
                "domainPrefix": "abc",
                "requestId": f"fuzz-{self.rng.randrange(10**9)}",
                "routeKey": "$default",
                "stage": "$default",
                "time": "03/Dec/2026:12:00:00 +0000",
                "timeEpoch": 1796299200000,
                "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7", "userAgent": "fuzz"},
            },
            "isBase64Encoded": encoded,
        }
        if query:
            event["queryStringParameters"] = query
        if body is not None:
            event["body"] = body
        return event

    def http_body(self, template: str, servable: bool) -> tuple[str | None, str | None, bool]:
        """(body, content type, base64-encoded) for a POST to ``template``."""
        fields = self.openai_fields(servable) if template == "/v1/audio/speech" else self.tts_fields(servable)
        if servable:
            text = json.dumps(fields, ensure_ascii=self.chance(0.5))
            if self.chance(0.2):  # curl -d: JSON labelled as a form, base64-encoded by the function URL
                return base64.b64encode(text.encode("utf-8")).decode("ascii"), "application/x-www-form-urlencoded", True
            return text, self.pick(["application/json", "application/json; charset=utf-8", None]), False
        content_type = self.pick([*CONTENT_TYPES, None])
        shape = self.rng.randrange(12)
        if shape < 5:
            text = json.dumps(fields, ensure_ascii=self.chance(0.5))
        elif shape == 5:
            text = "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in self.query_of(fields).items())
        elif shape == 6:
            text = json.dumps(self.junk())
        elif shape == 7:
            text = self.pick(
                [
                    "{",
                    '{"text": }',
                    "[" * 5000,
                    "1" * 5000,
                    '{"text": "a"} trailing',
                    "null",
                    '"just a string"',
                    '{"text": NaN}',
                    '{"text": "\\ud800"}',
                    "\ufeff{}",
                ]
            )
        elif shape == 8:
            text = str(fields.get("text") or fields.get("input") or "")
        elif shape == 9:
            raw = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(64)))
            return base64.b64encode(raw).decode("ascii"), content_type, True
        elif shape == 10:
            return self.pick(["!!!", "====", "not base64 at all", "QQ"]), content_type, True
        else:
            return None, content_type, False
        if self.chance(0.2):
            return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii"), content_type, True
        return text, content_type, False

    def job_id(self) -> str:
        if self.chance(0.7):
            return "".join(self.pick(JOB_ID_CHARS) for _ in range(32))
        return self.pick(["x", "0" * 31, "0" * 33, "G" * 32, self.odd_string(12) or "y"])

    def mutate_envelope(self, event: dict[str, Any]) -> None:
        """One part of the envelope deleted or given a value of the wrong type."""
        parts = [
            ("requestContext",),
            ("requestContext", "http"),
            ("requestContext", "http", "method"),
            ("requestContext", "domainName"),
            ("rawPath",),
            ("headers",),
            ("queryStringParameters",),
            ("body",),
            ("isBase64Encoded",),
            ("version",),
            ("cookies",),
        ]
        headers = event.get("headers")
        if isinstance(headers, dict) and headers:
            parts.append(("headers", self.pick(list(headers))))
        *parents, last = self.pick(parts)
        node = event
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return
        if self.chance(0.3):
            node.pop(last, None)
        else:
            node[last] = self.junk()

    # --- direct invokes ------------------------------------------------------------------

    def direct(self, servable: bool) -> dict[str, Any]:
        event = self.tts_fields(servable)
        if not servable:
            if self.chance(0.1):
                event[self.pick(["version", "Records", "requestContext", "Event", "body"])] = self.junk()
            if self.chance(0.1):
                event.pop("text", None)
                event["text"] = self.junk()
        return event

    # --- S3 ----------------------------------------------------------------------------------

    def s3(self, _servable: bool) -> dict[str, Any]:
        if self.chance(0.05):
            return {"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": self.input_bucket}
        records = [self.s3_record() for _ in range(self.rng.choice([1, 1, 1, 2, 3]))]
        if self.chance(0.1):
            record = self.pick(records)
            *parents, last = self.pick(
                [
                    ("eventName",),
                    ("s3",),
                    ("s3", "bucket"),
                    ("s3", "bucket", "name"),
                    ("s3", "object"),
                    ("s3", "object", "key"),
                    ("s3", "object", "size"),
                    ("s3", "object", "eTag"),
                    ("s3", "object", "versionId"),
                ]
            )
            node = record
            for part in parents:
                node = node[part] if isinstance(node, dict) and isinstance(node.get(part), dict) else None
            if isinstance(node, dict):
                if self.chance(0.3):
                    node.pop(last, None)
                else:
                    node[last] = self.junk()
        return {"Records": records}

    def s3_record(self) -> dict[str, Any]:
        stored = self.objects and self.chance(0.3)
        if stored:
            key, etag = self.pick(self.objects)
            bucket = self.input_bucket
            key = _quoted(key, safe="/")
            etag = etag if self.chance(0.7) else "0" * 32
        else:
            bucket = self.pick([self.input_bucket] * 4 + [self.output_bucket, "someone-else", ""])
            key = self.pick(
                [
                    lambda: f"input/{self.odd_string(12) or 'x'}.txt",
                    lambda: f"input/{self.odd_string(8)}.json",
                    lambda: "input/my+story.txt",
                    lambda: "input/a%20b.txt",
                    lambda: "input/%ZZ.txt",
                    lambda: f"input/jobs/{self.job_id()}.json",
                    lambda: "output/x.txt/abc/manifest.json",
                    lambda: "input/STORY.TXT",
                    lambda: "elsewhere/a.txt",
                    lambda: "input/" + "a" * self.rng.choice([900, 1100]) + ".txt",
                    lambda: "input/\ud800.txt",
                    lambda: "",
                    lambda: "input/",
                ]
            )()
            etag = self.pick([None, "", "0" * 32, '"quoted"', self.odd_string(8)])
        announced: dict[str, Any] = {"key": key}
        if etag is not None:
            announced["eTag"] = etag
        if self.chance(0.8):
            announced["size"] = self.pick([0, 5, 100, 10**9, -1]) if not stored or self.chance(0.2) else None
            if announced["size"] is None:
                del announced["size"]
        if self.chance(0.3):
            # No invented version id: S3 answers a HEAD pinned to one it never issued with a 400, which
            # the function rightly raises (to be retried) rather than call the object gone.
            announced["versionId"] = self.pick(["null", None])
        return {
            "eventVersion": self.pick(["2.1", "2.2", "2.0", "3.0"]),
            "eventSource": "aws:s3",
            "awsRegion": "us-east-1",
            "eventName": self.pick(
                ["ObjectCreated:Put"] * 5 + ["ObjectCreated:CompleteMultipartUpload", "ObjectRemoved:Delete", "s3:ObjectCreated:Put"]
            ),
            "s3": {"s3SchemaVersion": "1.0", "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"}, "object": announced},
        }

    # --- anything else -----------------------------------------------------------------------

    def other(self, _servable: bool) -> Any:
        return self.pick(
            [
                lambda: self.junk(),
                lambda: {},
                lambda: [],
                lambda: {"Records": []},
                lambda: {"Records": [self.junk()]},
                lambda: {"Records": [{"eventSource": "aws:sqs"}]},
                lambda: {"version": "2.0"},
                lambda: {"version": "2.0", "requestContext": self.junk()},
                lambda: {"version": "1.0", "httpMethod": "GET"},
                lambda: {"Event": "s3:TestEvent"},
                lambda: {self.odd_string(6): self.junk() for _ in range(3)},
            ]
        )()


def _quoted(text: str, safe: str = "") -> str:
    """Form-encoded as a browser or S3 would; a lone surrogate is spelled as the bytes it would take."""
    return quote_plus(text, safe=safe, errors="surrogatepass")
