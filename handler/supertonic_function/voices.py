"""Voice names a client may use: the model's own (M1..M5, F1..F5) and OpenAI's, mapped onto them.

OpenAI's names are mapped by the register they are known for (nova, shimmer, coral, sage: higher;
onyx, echo, ash, ballad: lower), so code written for ``/v1/audio/speech`` gets a plausible voice
instead of an error. Unknown names are left as given: the engine raises ``UnknownVoice``
listing what is available. In a blend (``"alloy:0.5,F2:0.5"``) each voice is mapped so; the
engine reads the blend itself (``supertonic_engine.voice_blend``).
"""

from __future__ import annotations

from collections.abc import Sequence

from supertonic_engine import rename_voices

OPENAI_VOICES: dict[str, str] = {
    "alloy": "F1",
    "nova": "F2",
    "shimmer": "F3",
    "coral": "F4",
    "sage": "F5",
    "marin": "F1",
    "echo": "M1",
    "onyx": "M2",
    "fable": "M3",
    "ash": "M4",
    "ballad": "M5",
    "verse": "M1",
    "cedar": "M2",
}


def resolve_voice(name: str, available: Sequence[str]) -> str:
    """``name`` in the model's spelling: one voice, or each voice of a blend, mapped by ``resolve_one``."""
    return rename_voices(name, lambda voice: resolve_one(voice, available))


def resolve_one(name: str, available: Sequence[str]) -> str:
    """The model voice for ``name``: exact, case-insensitive, or an OpenAI alias whose target exists."""
    if name in available:
        return name
    by_upper = {voice.upper(): voice for voice in available}
    if name.upper() in by_upper:
        return by_upper[name.upper()]
    target = OPENAI_VOICES.get(name.lower())
    if target is not None and target in available:
        return target
    return name


def describe_voices(available: Sequence[str]) -> list[dict[str, object]]:
    """One entry per model voice with the aliases that reach it (for ``GET /v1/voices``)."""
    return [{"id": voice, "aliases": sorted(alias for alias, target in OPENAI_VOICES.items() if target == voice)} for voice in available]
