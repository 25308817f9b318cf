"""Typed errors of the engine.

Every error a caller can cause or meet has its own class with a stable ``code`` and, where one
input is at fault, the ``field`` that names it. The Lambda edge maps these classes to HTTP
statuses and error manifests in one place; the CLI prints ``message`` on one line.
Messages say what to do, not only what went wrong: a message that ends with the engine's advice
(``ADVICE``) lets a caller that knows another way out (another route, a bigger bound) put
its own in that place (``advised``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Characters of a value an error quotes back: enough to recognise it. A request may carry 6 MB, and
# an answer quoting all of it, escaped as the runtime sends it, would be over Lambda's 6 MB response
# limit: the caller would get a 502 instead of the error (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
QUOTE_LIMIT = 100


def clipped(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or its first ``limit`` characters, an ellipsis and its full length: ``abc… (3,000,000 characters)``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as ``{value!r}`` quotes it, with at most ``limit`` of its characters: ``'abc…' (3,000,000 characters)``.

    Every error that quotes what a request or a file holds quotes it through this.
    """
    if not isinstance(value, str):
        return clipped(repr(value), limit)
    if len(value) <= limit:
        return repr(value)
    head = repr(value[:limit])
    return f"{head[:-1]}…{head[-1]} ({len(value):,} characters)"


class SupertonicError(Exception):
    """Base of every error the engine raises on purpose."""

    code: str = "internal_error"
    field: str | None = None
    ADVICE = ""  # what the engine advises, the last words of the message, when it ends with advice

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if field is not None:
            self.field = field

    def advised(self, advice: str) -> str:
        """The message ending with ``advice`` (what this caller can do instead) in place of the engine's."""
        if not self.ADVICE or not self.message.endswith(self.ADVICE):
            return f"{self.message} {advice}"
        return self.message.removesuffix(self.ADVICE) + advice

    def to_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "message": self.message, "field": self.field}


# --- the request is at fault -------------------------------------------------------------------


class InvalidRequest(SupertonicError):
    """The request cannot be served as given; the caller must change it."""

    code = "invalid_request"


class InvalidParameter(InvalidRequest):
    """A parameter has the wrong type or is out of range (steps, speed, seed, format, ...)."""

    code = "invalid_parameter"


class EmptyText(InvalidRequest):
    code = "empty_text"
    field = "text"

    def __init__(self, message: str = "text is empty: send at least one speakable character") -> None:
        super().__init__(message)


class TextTooLong(InvalidRequest):
    code = "text_too_long"
    field = "text"

    ADVICE = "Split it into shorter texts."

    def __init__(self, length: float, limit: float, *, caller_bound: bool = False) -> None:
        self.length = length
        self.limit = limit
        # True: the bound was the caller's ``Limits`` (what one call may cost), not the engine's
        # maximum; the caller may know a way out (another route) to put in the message.
        self.caller_bound = caller_bound
        super().__init__(f"{self.describe(length, limit)} {self.ADVICE}")

    @staticmethod
    def describe(length: float, limit: float) -> str:
        return f"text is {length} characters; the limit is {limit}."


class SpokenTextTooLong(TextTooLong):
    """The text is short as written but long once read out: ``"9" * 3000`` is 15,000 characters of words."""

    @staticmethod
    def describe(length: float, limit: float) -> str:
        return f"text reads as {length:,} characters once numbers and symbols are spelled out; the limit is {limit:,}."


class AudioTooLong(TextTooLong):
    """The duration predictor forecasts more audio (``length``, in seconds) than one call may make.

    ``text_chars``: characters of the text as sent that the forecast covers (it stops once past the
    limit), so an edge can say about how many characters fit; None: unknown."""

    def __init__(self, length: float, limit: float, *, caller_bound: bool = False, text_chars: float | None = None) -> None:
        self.text_chars = text_chars
        super().__init__(length, limit, caller_bound=caller_bound)

    @staticmethod
    def describe(length: float, limit: float) -> str:
        return f"text would make at least {length:,.0f} s of audio; the limit is {limit:,.0f} s."


class UnsupportedCharacters(InvalidRequest):
    code = "unsupported_characters"
    field = "text"

    def __init__(self, characters: Iterable[str]) -> None:
        import unicodedata

        self.characters = sorted(set(characters))
        named = ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')})" for c in self.characters[:10])
        more = f" and {len(self.characters) - 10} more" if len(self.characters) > 10 else ""
        super().__init__(f"the model cannot read {len(self.characters)} character(s): {named}{more}. Remove or replace them.")


class InvalidSsml(InvalidRequest):
    """SSML that is not well-formed XML, or holds a value this function cannot read (a break's time)."""

    code = "invalid_ssml"
    field = "text"


class UnsupportedSsml(InvalidRequest):
    """Well-formed SSML with an element or attribute this function does not do: the message names it."""

    code = "unsupported_ssml"
    field = "text"

    def __init__(self, message: str, tag: str) -> None:
        self.tag = tag
        super().__init__(message)


class BookUnreadable(InvalidRequest):
    """An EPUB or Markdown book whose chapters cannot be read: not an EPUB, past a bound, a hostile
    or broken file inside it. The message names the file or the bound at fault."""

    code = "book_unreadable"
    field = "text"


class UnknownVoice(InvalidRequest):
    code = "unknown_voice"
    field = "voice"

    def __init__(self, voice: str, available: Iterable[str], blend: str | None = None) -> None:
        self.voice = voice
        self.available = sorted(available)
        within = f" (in the blend {quoted(blend)})" if blend is not None else ""
        super().__init__(f"voice {quoted(voice)}{within} not found; available: {', '.join(self.available)}")


class InvalidVoiceBlend(InvalidRequest):
    """A blend such as ``"F1:0.7,M2:0.3"`` that cannot be mixed: a bad weight, a voice twice, too many voices."""

    code = "invalid_voice_blend"
    field = "voice"

    def __init__(self, blend: str, problem: str) -> None:
        self.blend = blend
        super().__init__(
            f"voice blend {quoted(blend)}: {problem}. Write it as NAME:WEIGHT pairs separated by commas, "
            "e.g. 'F1:0.7,M2:0.3', or names only ('F1,M2') for equal weights"
        )


class UnknownLanguage(InvalidRequest):
    code = "unknown_language"
    field = "lang"

    def __init__(self, lang: str, available: Iterable[str]) -> None:
        self.lang = lang
        self.available = list(available)
        super().__init__(f"language {quoted(lang)} is not supported; use one of: {', '.join(self.available)}")


class UnsupportedFormat(InvalidRequest):
    code = "unsupported_format"
    field = "format"

    def __init__(self, fmt: str, available: Iterable[str], reason: str = "") -> None:
        self.format = fmt
        self.available = list(available)
        super().__init__(
            f"audio format {quoted(fmt)} is not available{': ' + reason if reason else ''}; use one of: {', '.join(self.available)}"
        )


# --- the model or the machine is at fault -------------------------------------------------------


class ConfigurationError(SupertonicError):
    """The server is set up wrong (an environment variable, a lexicon file): the operator must fix it."""

    code = "configuration_error"


class ModelError(SupertonicError):
    """The model directory cannot be used."""

    code = "model_unavailable"


class ModelMissing(ModelError):
    code = "model_missing"


class GraphMissing(ModelMissing):
    """A graph has neither its stock file nor a prepared copy this process can load (a prepared-only
    directory, such as the image's, made by another ONNX Runtime): the message names each such graph,
    why its prepared copy cannot stand in, and what to run."""

    def __init__(self, model_dir: object, refused: Mapping[str, str]) -> None:
        self.graphs = tuple(refused)
        reasons = "; ".join(f"onnx/{name}.onnx is absent and {why}" for name, why in refused.items())
        super().__init__(
            f"model directory {model_dir} has no loadable {', '.join(self.graphs)}: {reasons}. Put the stock graphs "
            "back (`supertonic-lambda fetch-model --out DIR`, or `make-model` for a stand-in), or prepare the graphs again "
            "with the ONNX Runtime that loads them (`supertonic-lambda prepare-model --model DIR` where the stock graphs "
            "are, as the image build does)"
        )


class ModelNotConfigured(ModelMissing):
    """No model directory was given at all: the fix is a setting, and the message names no path."""


class ModelCorrupt(ModelError):
    code = "model_corrupt"


class VoiceFileCorrupt(ModelCorrupt):
    """One file in ``voice_styles/`` (often a custom voice dropped there) is not a voice: only
    requests for that voice fail. The message names the file inside the model directory, no full path."""

    code = "voice_corrupt"
    field = "voice"


class FetchFailed(ModelError):
    code = "fetch_failed"


class DeadlineExceeded(SupertonicError):
    """Synthesis was stopped because its deadline passed; compute was cancelled, not abandoned."""

    code = "deadline_exceeded"
    ADVICE = "Send shorter text or fewer steps."

    def __init__(self, budget_s: float, elapsed_s: float, done_chunks: int = 0, total_chunks: int = 0, held_back_s: float = 0.0) -> None:
        self.budget_s = budget_s
        self.elapsed_s = elapsed_s
        self.done_chunks = done_chunks
        self.total_chunks = total_chunks
        self.held_back_s = held_back_s  # of the budget, kept for what follows synthesis (the upload)
        kept = f", counting {held_back_s:.2f} s to upload the audio made so far" if held_back_s else ""
        super().__init__(
            f"synthesis stopped after {elapsed_s:.2f} s: the deadline of {budget_s:.2f} s passed{kept} "
            f"({done_chunks}/{total_chunks} chunks done). {self.ADVICE}"
        )


class NoTimeToStart(DeadlineExceeded):
    """The time left could not hold the work, so none was started."""

    def __init__(self, left_s: float, needed_s: float, needed_for: str) -> None:
        self.budget_s = max(left_s, 0.0)
        self.elapsed_s = 0.0
        self.done_chunks = self.total_chunks = 0
        self.held_back_s = needed_s  # all of it was kept for what follows synthesis
        SupertonicError.__init__(
            self,
            f"no time was left to start synthesis: {max(left_s, 0.0):.2f} s remained and {needed_s:.2f} s are "
            f"kept for {needed_for}. {self.ADVICE}",
        )
