"""Every error the function can answer with, and the one place each becomes a wire result.

The engine's typed errors and the few that only exist at the edge (routing, content types,
response size) are mapped here, and only here, to an HTTP status, the error body
``{"error": {"code", "message", "field"}}``, the S3 error manifest and a log line. A class not
listed inherits its nearest listed ancestor's status; anything that is not a ``SupertonicError``
is a bug and answers 500 with a message that points at the logs, never a stack trace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from supertonic_engine.errors import (
    AudioTooLong,
    ConfigurationError,
    DeadlineExceeded,
    InvalidParameter,
    InvalidRequest,
    InvalidVoiceBlend,
    ModelError,
    ModelNotConfigured,
    SupertonicError,
    TextTooLong,
    UnknownLanguage,
    UnknownVoice,
    UnsupportedCharacters,
    UnsupportedFormat,
    UnsupportedSsml,
    VoiceFileCorrupt,
    clipped,
    quoted,
)

from .storage import (
    ObjectMissing,
    ObjectTooLarge,
    StorageError,
    StorageFailed,
    StorageUnavailable,
    TextNotUtf8,
)
from .telemetry import logger

# The most characters of a message an answer, a manifest or a log line carries. Each error clips
# what it quotes (``quoted``); this is the last guard, for a message that quotes input some other way.
MESSAGE_LIMIT = 1_000

# --- errors that exist only at the edge ------------------------------------------------------------


class InvalidJson(InvalidParameter):
    code = "invalid_json"
    field = "body"


class UnsupportedMediaType(InvalidRequest):
    code = "unsupported_media_type"
    field = "content-type"

    def __init__(self, content_type: str) -> None:
        super().__init__(
            f"content-type {quoted(content_type)} is not accepted; send application/json, "
            "application/x-www-form-urlencoded fields, or text/plain with the options in the query string"
        )


class RouteNotFound(InvalidRequest):
    code = "not_found"

    def __init__(self, path: str, routes: Iterable[str]) -> None:
        super().__init__(f"no route {quoted(path)}; routes: {', '.join(sorted(set(routes)))}")


class MethodNotAllowed(InvalidRequest):
    code = "method_not_allowed"

    def __init__(self, method: str, path: str, allowed: Iterable[str]) -> None:
        self.allowed = sorted(set(allowed))
        super().__init__(f"{clipped(method)} is not allowed on {clipped(path)}; use {', '.join(self.allowed)}")


class JobNotFound(InvalidRequest):
    code = "job_not_found"
    field = "job_id"

    def __init__(self, job_id: str) -> None:
        super().__init__(f"no job {quoted(job_id)}; job ids are returned by POST /v1/jobs")


class ResponseTooLarge(InvalidRequest):
    """The audio would not fit the synchronous answer (Lambda's 6 MB, a load balancer's 1 MB) and there is no bucket to park it in."""

    code = "response_too_large"
    field = "text"

    def __init__(self, response_bytes: int, limit_bytes: int, text_chars: int, fmt: str) -> None:
        self.max_chars = chars_that_fit(text_chars, response_bytes, limit_bytes)
        super().__init__(
            f"the {fmt} audio is {response_bytes / 1e6:.1f} MB as base64, over the "
            f"{limit_bytes / 1e6:.1f} MB this answer may hold; send at most about {self.max_chars:,} characters, "
            "choose a smaller format (mp3, opus), or use POST /v1/jobs"
        )


class InputAudioTooLong(TextTooLong):
    """``AudioTooLong`` where the text's field is ``input`` (OpenAI's route): its clients split text by
    characters, so the refusal says about how many fit, besides the seconds."""

    field = "input"

    def __init__(self, refusal: AudioTooLong) -> None:
        self.length, self.limit, self.caller_bound = refusal.length, refusal.limit, refusal.caller_bound
        fits = "" if refusal.text_chars is None else _characters_fit(chars_that_fit(refusal.text_chars, refusal.length, refusal.limit))
        seconds = AudioTooLong.describe(refusal.length, refusal.limit).removeprefix("text ")
        InvalidRequest.__init__(self, f"input {seconds}{fits} {self.ADVICE}")


def _characters_fit(count: int) -> str:
    return f" About {count:,} character{'' if count == 1 else 's'} of input fit."


def chars_that_fit(text_chars: float, amount: float, limit: float) -> int:
    """About how many characters of a text whose ``text_chars`` make ``amount`` (bytes, seconds) stay
    within ``limit``: in proportion, a tenth kept back, as other text of the same length may make more."""
    return max(1, int(text_chars * limit / amount * 0.9))


class NotConfigured(SupertonicError):
    """A feature needs a setting the deployment does not have (a bucket)."""

    code = "not_configured"


class RecordsLeft(SupertonicError):
    """The invocation's time ran out before every record of an S3 event was rendered.

    Raised after the records that had time are done, so Lambda delivers the event again: the
    done ones are skipped then (their manifests exist) and the rest get the new invocation's time.
    """

    code = "records_left"

    def __init__(self, keys: Iterable[str], total: int) -> None:
        self.keys = list(keys)
        super().__init__(
            f"time ran out with {len(self.keys)} of {total} records of the event not rendered "
            f"(first: {quoted(self.keys[0])}); they are left for the retry, which skips the ones done"
        )


class BatchFailed(SupertonicError):
    """Every record of an SQS batch failed, so the invocation fails as a whole.

    Then no message is deleted, whether or not the mapping reports batch item failures (a mapping
    without ``ReportBatchItemFailures`` would delete the whole batch after a success); each
    returns to the queue after its visibility timeout and, its receives spent, to the dead-letter queue.
    """

    code = "batch_failed"

    def __init__(self, total: int, first: BaseException) -> None:
        code = getattr(first, "code", INTERNAL_ERROR_CODE)
        super().__init__(
            f"all {total} records of the batch failed (first: {code}); they return to the queue "
            "after its visibility timeout, then go to its dead-letter queue"
        )


class JobTooLarge(InvalidRequest):
    """A job rendered in parts whose parts or audio pass what its one assembly can hold."""

    code = "job_too_large"
    field = "text"


class PartMessageRefused(InvalidRequest):
    """A parts-queue message that names no planned part: forged, malformed or of an older plan.

    Dropped, never raised (a raise only brings it back); ``field`` names what did not match."""

    code = "part_message_refused"


class PartsQueueUnusable(ConfigurationError):
    """The parts queue refused the planner for good (no such queue, access or its KMS key denied)."""

    code = "parts_queue_unusable"


class NotAcceptable(InvalidRequest):
    code = "not_acceptable"
    field = "accept"

    def __init__(self, accept: str, offered: Iterable[str]) -> None:
        super().__init__(f"accept {quoted(accept)} excludes every type this route answers with: {', '.join(offered)}")


class MalformedEvent(InvalidRequest):
    """An event of a known source with a part missing or of the wrong type.

    Lambda's own events are well formed; this is a hand-made one (a test, a direct invoker),
    refused before anything is read, stored or rendered. ``field`` is the part's path in the event.
    """

    code = "malformed_event"

    def __init__(self, path: str, expected: str) -> None:
        super().__init__(f"event part {path} must be {expected}", field=path)


class UnknownEvent(InvalidRequest):
    """An event no source recognises. Raised, not answered: the invocation fails, so Lambda retries
    an asynchronous one and finally hands it to the on-failure destination, and an SQS message
    returns to its queue, instead of an event wired by mistake being dropped with a 200."""

    code = "unknown_event"
    field = "event"

    def __init__(self, keys: Iterable[str], where: str = "event") -> None:
        super().__init__(
            f"{where} not recognised (top-level keys: {clipped(', '.join(sorted(map(str, keys))), MESSAGE_LIMIT // 4) or 'none'}); send a function URL "
            'request, an S3 notification (direct, through EventBridge, SNS or SQS), or {"text": "..."} for a direct invoke',
            field=where,
        )


# --- the mapping ----------------------------------------------------------------------------------------

# What a request refused by its synchronous bounds (the only ``Limits`` the function sets) is told
# to do instead: the engine knows no jobs or buckets.
LONG_TEXT_ADVICE = "For longer text use POST /v1/jobs or drop a .txt file in the input bucket."
# What a synthesis stopped by its deadline is told, besides the engine's shorter text or fewer steps.
DEADLINE_ADVICE = "Send shorter text, fewer steps, or use an asynchronous job."

HTTP_STATUS: Mapping[type[BaseException], int] = {
    SupertonicError: 500,
    InvalidRequest: 400,
    RouteNotFound: 404,
    JobNotFound: 404,
    ObjectMissing: 404,
    MethodNotAllowed: 405,
    NotAcceptable: 406,
    TextTooLong: 413,
    ObjectTooLarge: 413,
    ResponseTooLarge: 413,
    JobTooLarge: 413,
    UnsupportedMediaType: 415,
    UnsupportedCharacters: 422,
    UnsupportedSsml: 422,
    UnknownVoice: 422,
    InvalidVoiceBlend: 422,
    UnknownLanguage: 422,
    UnsupportedFormat: 422,
    TextNotUtf8: 422,
    NotConfigured: 501,
    StorageError: 502,
    # The deployment is wrong (a variable, a lexicon file, a bucket or its permissions): the
    # service is down until an operator fixes it, as when the model is missing; the caller did
    # nothing wrong.
    ConfigurationError: 503,
    ModelError: 503,
    StorageFailed: 503,
    StorageUnavailable: 503,
    DeadlineExceeded: 504,
}

# Failures whose message says where things are stored (a bucket, whose name holds the account id,
# a key, an ETag, a path on disk) or quotes S3's own reply. The message goes only to the log line
# log_error writes, which carries the request id; the caller gets this sentence and that request id.
# None marks a kind whose message is public although its family's is not: it names a setting, no path.
PRIVATE_MESSAGES: Mapping[type[BaseException], str | None] = {
    StorageError: "the function's storage (S3) failed",
    StorageUnavailable: "the function's storage (S3) is busy or unreachable; try again shortly",
    ObjectMissing: "an object the request needs is not in the function's storage",
    ModelError: "the function's model could not be loaded",
    ModelNotConfigured: None,
    VoiceFileCorrupt: None,  # names the file as voice_styles/NAME.json, no path on disk
}

INTERNAL_ERROR_CODE = "internal_error"


def _nearest(table: Mapping[type[BaseException], Any], error: BaseException) -> Any:
    """The value of the nearest ancestor of ``error``'s class listed in ``table``, else None."""
    return next((table[cls] for cls in type(error).__mro__ if cls in table), None)


def http_status(error: BaseException) -> int:
    """The status of the nearest ancestor listed in ``HTTP_STATUS``; 500 for anything unexpected."""
    status = _nearest(HTTP_STATUS, error)
    return 500 if status is None else status


def error_detail(error: BaseException, request_id: str | None = None) -> dict[str, Any]:
    """``{"code", "message", "field"}`` as a caller may see it: an unexpected exception's text, and
    the message of a ``PRIVATE_MESSAGES`` class, stay in the logs.

    A field name is echoed as the caller sent it, and JSON can carry a lone surrogate
    (``"\ud800"``) that has no UTF-8 form: such characters are spelled as their escape, so every
    body and manifest encodes.
    """
    where = f" (request {request_id})" if request_id else ""
    if not isinstance(error, SupertonicError):
        return {"code": INTERNAL_ERROR_CODE, "message": f"internal error{where}; see the function's logs", "field": None}
    detail = error.to_dict()
    advice = _edge_advice(error)
    if advice is not None:
        detail["message"] = error.advised(advice)
    private = _nearest(PRIVATE_MESSAGES, error)
    if private is not None:
        detail["message"] = f"{private}{where}; the function's logs say why"
    return _bounded(detail)


def _bounded(detail: dict[str, str | None]) -> dict[str, Any]:
    """``detail`` with its message and field clipped (``MESSAGE_LIMIT``, ``QUOTE_LIMIT``) and every value
    spelled so it encodes: whatever a request quoted, the answer stays far under Lambda's 6 MB."""
    message, field = detail["message"], detail["field"]
    bounded = detail | {
        "message": None if message is None else clipped(message, MESSAGE_LIMIT),
        "field": None if field is None else clipped(field),
    }
    return {name: _utf8_safe(value) for name, value in bounded.items()}


def _edge_advice(error: SupertonicError) -> str | None:
    """What the function advises in place of the engine's advice: the ways out only it knows."""
    if isinstance(error, TextTooLong):
        return LONG_TEXT_ADVICE if error.caller_bound else None
    if isinstance(error, DeadlineExceeded):
        return DEADLINE_ADVICE
    return None


def _utf8_safe(value: str | None) -> str | None:
    if value is None:
        return None
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


# OpenAI's error body adds ``type`` and ``param`` (https://platform.openai.com/docs/guides/error-codes):
# its SDKs read them into the exception they raise. ``param`` is the request field in OpenAI's
# names; a part of the request that is no parameter (a header, the body as a whole) is null.
OPENAI_PARAMS: Mapping[str, str] = {"text": "input", "format": "response_format"}
NOT_OPENAI_PARAMS = frozenset({"body", "accept", "content-type"})


def openai_status(error: BaseException) -> int:
    """The status on OpenAI's route: OpenAI answers input over its length with 400
    ``invalid_request_error``, and its SDK has no exception class for 413 (a bare ``APIStatusError``),
    so what the function's own routes answer 413 is a 400 there."""
    status = http_status(error)
    return 400 if status == 413 else status


def error_body(error: BaseException, request_id: str | None = None, *, openai: bool = False) -> dict[str, Any]:
    """``{"error": {"code", "message", "field"}}``; ``openai``: with OpenAI's ``type`` and ``param`` too,
    the text named ``input`` as that route calls it."""
    if openai and isinstance(error, AudioTooLong):
        error = InputAudioTooLong(error)
    detail = error_detail(error, request_id)
    if openai:
        field = detail["field"]
        detail["type"] = "invalid_request_error" if http_status(error) < 500 else "server_error"
        detail["param"] = None if field in NOT_OPENAI_PARAMS else OPENAI_PARAMS.get(field, field)
    return {"error": detail}


def error_result(error: BaseException, request_id: str | None = None) -> dict[str, Any]:
    """What an invoker that is not a function URL reads: the error body and the HTTP status it stands for."""
    return error_body(error, request_id) | {"status": http_status(error)}


def log_error(error: BaseException, action: str, **context: Any) -> None:
    """The one logging policy for an error that became an answer.

    A bug (anything that is not a ``SupertonicError``) is logged with its stack trace; a failure
    on the function's side that it understands (5xx: no model, a wrong setting, S3 down) as one
    error line; a refused request (4xx) as an info line, since the caller must act, not the operator.
    """
    if not isinstance(error, SupertonicError):
        logger.exception(f"{action} failed", extra=context)
    elif http_status(error) >= 500:
        logger.error(f"{action} failed", extra={**context, "error": _bounded(error.to_dict())})
    else:
        logger.info(f"{action} refused", extra={**context, "error": _bounded(error.to_dict())})


def is_input_fault(error: BaseException) -> bool:
    """Retrying cannot fix it: the text or its parameters must change.

    In the S3 path these become an error manifest and the event is done; every other failure
    (S3 throttling, a missing model, a wrong setting, a bug) is raised so Lambda retries the event
    and, once the retries are spent, sends it to the on-failure destination. A deadline is the
    text's fault only when the text had the invocation's whole time (``s3_trigger`` decides that).
    """
    return isinstance(error, (InvalidRequest, DeadlineExceeded))
