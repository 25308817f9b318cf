"""Function URL responses and direct-invoke results: audio inline, as JSON, as a link, or an error.

Lambda refuses a synchronous result larger than 6 MB *after* the function has done all the work
(the client sees a 502 and the container is reset), so every success is measured as the exact
JSON the runtime will send, base64 included, before it is returned. Audio that does not fit is
parked in the results bucket and answered with a presigned link; without a bucket it is a 413
that says how much text would fit.
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import ResponseTooLarge, error_body, error_detail, http_status, openai_status
from .negotiation import JSON_TYPE
from .rendering import Rendered
from .service import Service
from .storage import PresignedUrl

# 6 MiB + 100 bytes is the largest payload the Runtime API accepts (RIE interop.MaxPayloadSize,
# https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); a little headroom stays.
SYNC_RESPONSE_LIMIT = 6_291_556 - 1024
ERROR_CLIP = "error.wav"


def json_response(status: int, document: Any, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return text_response(status, json.dumps(document, ensure_ascii=False), "application/json", headers)


def text_response(status: int, body: str, content_type: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": content_type, "cache-control": "no-store", **(headers or {})},
        "body": body,
        "isBase64Encoded": False,
    }


def empty_response(status: int, headers: dict[str, str]) -> dict[str, Any]:
    return {"statusCode": status, "headers": dict(headers), "body": "", "isBase64Encoded": False}


class HeadAnswer(dict[str, Any]):
    """An answer made for HEAD without making the GET's body: none, and a length only where it is known."""


def head_answer(status: int, headers: dict[str, str]) -> HeadAnswer:
    return HeadAnswer(statusCode=status, headers=dict(headers), body="", isBase64Encoded=False)


def without_body(response: dict[str, Any]) -> dict[str, Any]:
    """The answer to HEAD: the GET answer's status and headers with its length, and no body."""
    if isinstance(response, HeadAnswer):
        return response
    body = response["body"]
    length = len(base64.b64decode(body)) if response["isBase64Encoded"] else len(body.encode("utf-8"))
    headers = {**response["headers"], "content-length": str(length)}
    return {**response, "headers": headers, "body": "", "isBase64Encoded": False}


def binary_response(status: int, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"cache-control": "no-store", **headers},
        "body": base64.b64encode(body).decode("ascii"),
        "isBase64Encoded": True,
    }


def error_response(error: BaseException, *, request_id: str | None, as_audio: bool = False, openai: bool = False) -> dict[str, Any]:
    """The error's status with ``{"error": ...}`` (``openai``: in OpenAI's shape too), or with the
    bundled error clip for audio-only clients."""
    status = openai_status(error) if openai else http_status(error)
    if as_audio:
        detail = error_detail(error, request_id)
        return binary_response(status, error_clip(), {"content-type": "audio/wav", "x-supertonic-error": detail["code"]})
    return json_response(status, error_body(error, request_id, openai=openai))


@lru_cache(maxsize=1)
def error_clip() -> bytes:
    """A short tone sequence (see handler/scripts/make_error_clip.py) a speaker can play on failure."""
    return resources.files(__package__).joinpath("assets", ERROR_CLIP).read_bytes()


def size_of(result: Any) -> int:
    """Bytes of ``result`` as the runtime sends it, at worst.

    awslambdaric serialises with ``ensure_ascii=False`` only on AWS's managed Python runtimes; in
    a custom image such as this one every non-ASCII character becomes a ``\\uXXXX`` escape: 6 bytes
    for a Korean syllable that UTF-8 spells in 3, 12 for a character outside the BMP. Measuring
    the escaped form is exact there and an overestimate everywhere else.
    """
    return len(json.dumps(result, ensure_ascii=True))


def http_success(
    service: Service, rendered: Rendered, *, request_id: str, as_json: bool, limit: int = SYNC_RESPONSE_LIMIT
) -> dict[str, Any]:
    """200 with the audio (or JSON), or a link to it when it is larger than the front takes (``limit``
    bytes of the result's JSON: Lambda's 6 MB, or a load balancer's 1 MB)."""
    if as_json:
        response = json_response(200, _with_inline_audio(rendered), rendered.headers() | {"content-type": "application/json"})
    else:
        response = binary_response(200, _audio(rendered), rendered.headers())
    if size_of(response) <= limit:
        return response
    # A JSON answer hands its link over to be saved (the playground's Download); a 303 is followed
    # to play the audio, so its link must not turn a browser tab or a player into a download.
    link = _park(service, rendered, request_id, size_of(response), limit, download=as_json)
    linked = rendered.summary(with_text=True).to_json() | {"audio_url": link.url, "expires_in_s": link.expires_s}
    if as_json:
        return json_response(200, linked, {"location": link.url})
    # 303 See Other: the audio is over there; curl -L and browsers' fetch follow it by themselves.
    return json_response(303, linked, {"location": link.url})


def head_of_audio(
    service: Service,
    headers: dict[str, str],
    *,
    audio_bytes: int | None,
    streamed: bool,
    characters: int,
    fmt: str,
    limit: int = SYNC_RESPONSE_LIMIT,
) -> HeadAnswer:
    """HEAD of audio not made: the status ``http_success`` (or a stream) would give, from the
    forecast. ``audio_bytes`` is the exact size of the file where the length alone decides it (WAV
    and raw PCM), else None: then the answer is taken to fit inline, as nothing smaller can be said
    before encoding, and a GET may still be the 303 below. Nothing is stored, so a 303 has no
    ``location``: RFC 9110 §9.3.2 lets HEAD omit "header fields for which a value is determined only
    while generating the content"; the length goes only with the audio itself."""
    length = {} if audio_bytes is None or headers["content-type"] == JSON_TYPE else {"content-length": str(audio_bytes)}
    if streamed:
        return head_answer(200, headers | length)
    # The smallest answer a GET can send inline: the audio as base64 with these headers (a GET's add its timings).
    base64_chars = 4 * ((audio_bytes + 2) // 3) if audio_bytes else 0
    smallest = size_of(binary_response(200, b"", headers)) + base64_chars
    if smallest <= limit:
        return head_answer(200, headers | length)
    if service.config.results_bucket is None:
        raise ResponseTooLarge(smallest, limit, characters, fmt)
    return head_answer(303, json_response(303, None)["headers"])


def direct_success(service: Service, rendered: Rendered, *, request_id: str) -> dict[str, Any]:
    """A direct invoke's result: the JSON summary with the audio inline, or a link when it is too large."""
    document = _with_inline_audio(rendered)
    if size_of(document) <= SYNC_RESPONSE_LIMIT:
        return document
    link = _park(service, rendered, request_id, size_of(document), download=True)
    return rendered.summary(with_text=True).to_json() | {"audio_url": link.url, "expires_in_s": link.expires_s}


def _with_inline_audio(rendered: Rendered) -> dict[str, Any]:
    return rendered.summary(with_text=True).to_json() | {"audio_base64": base64.b64encode(_audio(rendered)).decode("ascii")}


def _audio(rendered: Rendered) -> bytes:
    """The audio of a synchronous answer; only S3 jobs encode into a file, and they never answer inline."""
    if rendered.audio is None:
        raise RuntimeError(f"the audio was encoded into {rendered.audio_path}, not kept in memory for a response")
    return rendered.audio


def _park(
    service: Service, rendered: Rendered, request_id: str, response_bytes: int, limit: int = SYNC_RESPONSE_LIMIT, *, download: bool
) -> PresignedUrl:
    """Put oversized audio in the results bucket and return a presigned GET link to it (``download``:
    ``ObjectStore.presigned_get``'s)."""
    bucket = service.config.results_bucket
    if bucket is None:
        raise ResponseTooLarge(response_bytes, limit, len(rendered.request.text), rendered.request.format.name)
    key = service.layout.response_key(request_id, rendered.extension)
    service.store.put(bucket, key, _audio(rendered), content_type=rendered.content_type)
    return service.store.presigned_get(bucket, key, service.config.url_expires_s, download=download)
