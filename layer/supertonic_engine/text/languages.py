"""The language codes Supertonic 3 accepts, kept here so the engine never imports the SDK.

Same order as ``supertonic.config.AVAILABLE_LANGUAGES`` (1.3.1): 31 languages, then ``na``,
the language-agnostic fallback for text whose language is unknown.
"""

from __future__ import annotations

from ..errors import UnknownLanguage

LANGUAGES: tuple[str, ...] = (
    "en",
    "ko",
    "ja",
    "ar",
    "bg",
    "cs",
    "da",
    "de",
    "el",
    "es",
    "et",
    "fi",
    "fr",
    "hi",
    "hr",
    "hu",
    "id",
    "it",
    "lt",
    "lv",
    "nl",
    "pl",
    "pt",
    "ro",
    "ru",
    "sk",
    "sl",
    "sv",
    "tr",
    "uk",
    "vi",
    "na",
)


def check_language(lang: str) -> str:
    """Return ``lang`` if the model knows it, else raise ``UnknownLanguage`` listing the codes."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(str(lang), LANGUAGES)
    return lang
