"""Text before the model: normalization (numbers, dates, words to speak) and chunking.

The model's own character processing lives in ``unicode.py`` and is imported from there.
"""

from .chunking import DEFAULT_MAX_CHUNK_CHARS, DEFAULT_MAX_CHUNK_CHARS_KO, chunk_limit, chunk_text, default_max_chunk_chars
from .languages import LANGUAGES
from .normalize import normalize

__all__ = [
    "DEFAULT_MAX_CHUNK_CHARS",
    "DEFAULT_MAX_CHUNK_CHARS_KO",
    "LANGUAGES",
    "chunk_limit",
    "chunk_text",
    "default_max_chunk_chars",
    "normalize",
]
