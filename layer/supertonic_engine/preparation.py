"""The one check of a request: text, options, voice, format and extras to a ``Prepared``, before any audio.

Everything that can be refused without running the model is refused here: the text (characters,
lengths as written and as spoken), the options, the voice, the output format and what else is
wanted (``Extras``). A ``Preparer`` needs the model's assets only, no sessions.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace

from . import config
from .assets import ModelAssets, VoiceStyle
from .audio import DEFAULT_FORMAT, AudioFormat, audio_format
from .errors import EmptyText, InvalidParameter, TextTooLong, UnsupportedCharacters
from .marks import chunk_byte_ranges
from .options import NO_EXTRAS, NO_LIMITS, SPEED_RANGE, Extras, Limits, SynthesisOptions
from .text import chunk_text, default_max_chunk_chars
from .text.script import Script
from .text.ssml import read_script
from .text.unicode import TextEncoder, model_text, says_nothing


@dataclass(frozen=True)
class Prepared:
    """A checked request, ready to synthesize: what ``Engine.prepare`` returns and ``stream`` reads."""

    text: str  # as sent
    script: Script  # the text as written and as read (SSML's words, sections, pauses)
    chunks: tuple[str, ...]  # what the model reads, one call of the pipeline each
    langs: tuple[str, ...]  # the language of each chunk (``options.lang`` unless SSML switches it)
    pauses: tuple[float, ...]  # seconds of silence before each chunk (the first: none, unless a break)
    tail_s: float  # seconds of silence after the last chunk (an SSML break at the end)
    options: SynthesisOptions
    style: VoiceStyle
    format: AudioFormat
    limits: Limits = NO_LIMITS
    extras: Extras = NO_EXTRAS  # speech marks and captions asked for, besides or instead of audio

    @property
    def total_silence_s(self) -> float:
        """All the silence the audio holds besides the speech."""
        return sum(self.pauses) + self.tail_s

    @property
    def model_text(self) -> str:
        """The exact text the model will read, one chunk per line, tags included."""
        return "\n".join(model_text(chunk, lang) for chunk, lang in zip(self.chunks, self.langs, strict=True))

    @functools.cached_property
    def chunk_byte_ranges(self) -> tuple[tuple[int, int], ...]:
        """For each chunk, the UTF-8 byte range ``[start, end)`` of ``text`` (for SSML, the document)
        that it reads: whole sentences, located as speech marks locate them. Kept once found: it reads
        every sentence again, and a response may describe its audio twice (inline, then linked)."""
        return chunk_byte_ranges(self.script, self.chunks)


def _at_rate(options: SynthesisOptions, script: Script) -> tuple[SynthesisOptions, Script]:
    """The speed the script's rate asks for (``<prosody rate>``), where the model reads it; a rate
    that would take the speed outside ``SPEED_RANGE`` is skipped and named with what else was."""
    if script.rate == 1.0:
        return options, script
    speed = round(options.speed * script.rate, 4)
    if not SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]:
        return options, replace(script, ignored=tuple(dict.fromkeys((*script.ignored, "prosody rate"))), rate=1.0)
    return replace(options, speed=speed), script


class Preparer:
    """The one check of a request: text, options, voice and format to a ``Prepared``; needs no sessions."""

    def __init__(self, assets: ModelAssets, env: Mapping[str, str] | None = None) -> None:
        self.assets = assets
        self.encoder = TextEncoder(assets.indexer)
        self.max_text_chars = config.max_text_chars(env)

    def prepare(
        self,
        text: str,
        options: SynthesisOptions | None = None,
        *,
        limits: Limits = NO_LIMITS,
        format: str = DEFAULT_FORMAT,
        extras: Extras = NO_EXTRAS,
        text_type: str | None = None,
    ) -> Prepared:
        """Check ``text`` with ``options`` (defaults: ``SynthesisOptions()``) and split it into chunks;
        raises the typed ``InvalidRequest`` errors. ``limits`` bound the text here and the forecast
        audio when it is synthesized; ``format`` is the file ``synthesize(into=...)`` will write;
        ``extras`` what else is wanted (speech marks, captions); ``text_type`` ``ssml`` or ``text``
        (None: SSML when the text starts with ``<speak>``)."""
        options = options or SynthesisOptions()
        self._check_text(text, limits)
        script = read_script(text, options.lang, normalize=options.normalize, text_type=text_type, ssml=options.ssml)
        options, script = _at_rate(options, script)
        chunks, langs, pauses, tail_s = self._chunks(script, options, limits)
        style = self.assets.voice(options.voice)
        # A blend is reported (and stored in a job's parts) by its canonical name: "F1:0.7,M2:0.3".
        options = options if style.name == options.voice else replace(options, voice=style.name)
        return Prepared(
            text, script, tuple(chunks), tuple(langs), tuple(pauses), tail_s, options, style, audio_format(format), limits, extras
        )

    def _check_text(self, text: str, limits: Limits) -> None:
        """The text as sent: a string of real characters, not blank, within the lengths."""
        if not isinstance(text, str):
            raise InvalidParameter(f"text must be a string, got {type(text).__name__}", field="text")
        # JSON can spell a lone surrogate ("\\ud800"); it is no character, and UTF-8 cannot store or send it.
        surrogates = [c for c in text if "\ud800" <= c <= "\udfff"]
        if surrogates:
            raise UnsupportedCharacters(surrogates)
        if not text.strip():
            raise EmptyText()
        if len(text) > self.max_text_chars:
            raise TextTooLong(len(text), self.max_text_chars)
        limits.check_text(text)

    def _chunks(self, script: Script, options: SynthesisOptions, limits: Limits) -> tuple[list[str], list[str], list[float], float]:
        """The chunks the model reads, each with its language and the silence before it, and the silence after the last."""
        said = [(section, script.section_spoken(section)) for section in script.sections]
        spoken = "\n\n".join(words for _, words in said)
        if not spoken.strip():
            raise EmptyText()
        limits.check_spoken(spoken)
        self.encoder.check(spoken)
        pack = options.chunking == "packed"
        chunks: list[str] = []
        langs: list[str] = []
        pauses: list[float] = []
        carried: float | None = None  # the break before a section that said nothing (only symbols) still separates
        for section, words in said:
            # The silence before a section's first chunk: its break, else the usual one (none at the very start).
            owed = section.pause_s if carried is None else carried + (section.pause_s or 0.0)
            size = options.max_chunk_chars or default_max_chunk_chars(section.lang)
            # A section's chunks continue the count, so only the document's first chunk starts small.
            sized = (
                chunk_text(words, size, pack=pack, first_chars=options.first_chunk_chars, start_index=len(chunks)) if words.strip() else []
            )
            for chunk in sized:
                if says_nothing(chunk):
                    continue
                pauses.append(owed if owed is not None else options.pause_before(len(chunks)))
                chunks.append(chunk)
                langs.append(section.lang)
                owed = None
            carried = owed
        if not chunks:
            raise EmptyText("text has nothing to say once symbols and emoji are removed: send words")
        return chunks, langs, pauses, script.tail_s + (carried or 0.0)
