"""What shapes a synthesis besides the text: the options, the bounds of one call, and what else is wanted.

Each is a frozen value checked once, on construction, so a value that exists is a valid one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import AudioTooLong, InvalidParameter, SpokenTextTooLong, TextTooLong, UnknownLanguage, quoted
from .marks import check_caption_formats, check_mark_types
from .text import LANGUAGES, default_max_chunk_chars
from .text.ssml import check_ssml_mode

DEFAULT_VOICE = "M1"
DEFAULT_LANG = "en"
DEFAULT_STEPS = 8
DEFAULT_SPEED = 1.05
DEFAULT_SILENCE_S = 0.3
STEPS_RANGE = (1, 100)
SPEED_RANGE = (0.7, 2.0)
CHUNK_CHARS_RANGE = (10, 400)  # the estimator's position table ends at 1000 tokens
MAX_SILENCE_S = 5.0
CHUNKINGS = ("packed", "sentence")  # sentences packed into chunks as the official package does, or one a chunk


@dataclass(frozen=True)
class SynthesisOptions:
    """Everything that shapes one synthesis besides the text; checked once on construction.

    For the first audio to come sooner (a streamed answer cannot start before its first chunk is
    rendered):

    - ``first_chunk_chars``: the first chunk holds at most this many characters, and each later
      one up to twice the one before, until ``max_chunk_chars`` (``text.chunk_limit``). A very short
      first chunk costs prosody on the real model, which reads each chunk alone: a clause of a few
      words is spoken as if it were a whole utterance. None: the official chunks.
    - ``first_chunk_steps``: flow steps for the first chunk only. 4 steps instead of 8 nearly halves
      its render time, at some cost in quality. None: ``steps``.
    - ``trim_silence``: cut each chunk's leading and trailing silence (the real model pads 250-600 ms
      before speech and 550-850 ms after it) down to ``silence.LEAD_S`` / ``silence.TAIL_S``; the
      chunk timings then follow the trimmed audio.

    ``ssml``: how SSML is read, ``strict`` (an element or attribute this function does not read is
    refused) or ``lenient`` (skipped, and named in ``Script.ignored``), as ``text.ssml`` describes.
    """

    voice: str = DEFAULT_VOICE
    lang: str = DEFAULT_LANG
    steps: int = DEFAULT_STEPS
    speed: float = DEFAULT_SPEED
    seed: int | None = None
    normalize: bool = True
    max_chunk_chars: int | None = None
    silence_s: float = DEFAULT_SILENCE_S
    chunking: str = "packed"
    first_chunk_chars: int | None = None
    first_chunk_steps: int | None = None
    trim_silence: bool = False
    ssml: str = "strict"

    def __post_init__(self) -> None:
        if self.lang not in LANGUAGES:
            raise UnknownLanguage(str(self.lang), LANGUAGES)
        if self.chunking not in CHUNKINGS:
            raise InvalidParameter(f"chunking must be one of {', '.join(CHUNKINGS)}, got {quoted(self.chunking)}", field="chunking")
        _check_int("steps", self.steps, *STEPS_RANGE)
        _check_number("speed", self.speed, *SPEED_RANGE)
        _check_number("silence_s", self.silence_s, 0.0, MAX_SILENCE_S)
        if self.seed is not None:
            _check_int("seed", self.seed, 0, 2**32 - 1)
        if self.max_chunk_chars is not None:
            _check_int("max_chunk_chars", self.max_chunk_chars, *CHUNK_CHARS_RANGE)
        if self.first_chunk_chars is not None:
            _check_int("first_chunk_chars", self.first_chunk_chars, *CHUNK_CHARS_RANGE)
        if self.first_chunk_steps is not None:
            _check_int("first_chunk_steps", self.first_chunk_steps, *STEPS_RANGE)
        if not isinstance(self.trim_silence, bool):
            raise InvalidParameter(f"trim_silence must be true or false, got {quoted(self.trim_silence)}", field="trim_silence")
        check_ssml_mode(self.ssml)

    def steps_for(self, index: int) -> int:
        """The flow steps of chunk ``index``: ``first_chunk_steps`` for the first when set, else ``steps``."""
        return self.first_chunk_steps if index == 0 and self.first_chunk_steps is not None else self.steps

    def pause_before(self, index: int) -> float:
        """The usual silence before chunk ``index``: none before the first, ``silence_s`` between two."""
        return self.silence_s if index else 0.0

    @property
    def chunk_chars(self) -> int:
        return self.max_chunk_chars or default_max_chunk_chars(self.lang)


@dataclass(frozen=True)
class Limits:
    """What one call may cost, for callers that must answer quickly (a synchronous request).

    Every bound is checked before any audio is made: the text as written, the text once normalized
    (``"9" * 3000`` reads as 15,000 characters), and the audio the duration predictor forecasts.
    The predictor then runs first for every chunk (milliseconds each) and synthesis reuses its
    output. None: no bound. Each refusal is a ``TextTooLong`` with ``caller_bound`` set.
    """

    max_text_chars: int | None = None
    max_spoken_chars: int | None = None
    max_audio_s: float | None = None
    # Seconds the caller needs after synthesis per second of audio (base64, an upload): kept back
    # from the deadline once the audio's length is forecast, so the whole answer is ready in time.
    after_s_per_audio_s: float = 0.0

    @property
    def forecast(self) -> bool:
        """Whether the audio's length must be known before synthesis starts."""
        return self.max_audio_s is not None or self.after_s_per_audio_s > 0

    def check_text(self, text: str) -> None:
        if self.max_text_chars is not None and len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars, caller_bound=True)

    def check_spoken(self, spoken: str) -> None:
        if self.max_spoken_chars is not None and len(spoken) > self.max_spoken_chars:
            raise SpokenTextTooLong(len(spoken), self.max_spoken_chars, caller_bound=True)

    def check_audio(self, seconds: float, text_chars: float | None = None) -> None:
        """``text_chars``: characters of the text as sent that make these ``seconds``, for the refusal to carry."""
        if self.max_audio_s is not None and seconds > self.max_audio_s:
            raise AudioTooLong(seconds, self.max_audio_s, caller_bound=True, text_chars=text_chars)


NO_LIMITS = Limits()


@dataclass(frozen=True)
class Extras:
    """What a caller wants besides the audio: speech mark types (``Engine.marks``) and caption
    formats (``Engine.captions``).

    Each accepts what a wire sends: a list, a comma-separated string (a query string, object
    metadata), or nothing (None, an empty list or string: none wanted). Checked once, here, into
    the known names in their usual order, each once; anything else is an ``InvalidParameter``
    naming ``marks`` or ``captions``.
    """

    marks: tuple[str, ...] = ()
    captions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "marks", check_mark_types(self.marks))
        object.__setattr__(self, "captions", check_caption_formats(self.captions))

    def __bool__(self) -> bool:
        return bool(self.marks or self.captions)


NO_EXTRAS = Extras()


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidParameter(f"{name} must be a whole number from {low} to {high}, got {quoted(value)}", field=name)
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be from {low} to {high}, got {value}", field=name)


def _check_number(name: str, value: object, low: float, high: float) -> None:
    # An int is always finite, and math.isfinite cannot take one past float's range (JSON's 1e400 as digits).
    real = isinstance(value, (float, np.floating))
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or (real and not math.isfinite(value)):
        raise InvalidParameter(f"{name} must be a number from {low} to {high}, got {quoted(value)}", field=name)
    if not low <= value <= high:
        raise InvalidParameter(f"{name} must be from {low} to {high}, got {value}", field=name)
