"""Pronunciation lexicons: written words (mostly English in Korean text) mapped to what to say.

Matching is by whole token: an entry matches only where it is not glued to other Latin letters
or digits, so ``API를`` gives 에이피아이를 while ``rapid`` is left alone. Case: an entry written
with lowercase letters (a word or brand: Python, FastAPI, SaaS) matches in any case; an acronym
written in capitals matches in capitals, and also in lowercase when it has three or more letters
(``api``), because two-letter lowercase tokens are usually English words (``it``, ``us``).

The built-in Korean lexicon is ``lexicon_ko.json``; ``SUPERTONIC_LEXICON`` may name a JSON object
or a TSV file (``word<TAB>reading`` per line, ``#`` comments) whose entries are merged over it,
and a per-call mapping is merged over both. Entries merge case-insensitively, so ``api`` in a
user file replaces the built-in ``API``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path

from ..errors import ConfigurationError, InvalidParameter, quoted

ENV_LEXICON = "SUPERTONIC_LEXICON"
BUILTIN_KOREAN_LEXICON = Path(__file__).with_name("lexicon_ko.json")


class Lexicon:
    """A set of entries compiled once into a single longest-first pattern."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self.entries = dict(entries)
        self._exact: dict[str, str] = {}
        self._any_case: dict[str, str] = {}
        alternatives = []
        for word in sorted(self.entries, key=len, reverse=True):
            reading = self.entries[word]
            if any(c.islower() for c in word):
                self._any_case[word.casefold()] = reading
                alternatives.append(f"(?i:{re.escape(word)})")
            else:
                self._exact[word] = reading
                forms = [word]
                if sum(c.isalpha() for c in word) >= 3:
                    self._exact[word.lower()] = reading
                    forms.append(word.lower())
                alternatives.extend(re.escape(form) for form in forms)
        self._pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(alternatives)})(?![A-Za-z0-9])") if alternatives else None

    def __bool__(self) -> bool:
        return bool(self.entries)

    def merged(self, extra: Mapping[str, str]) -> Lexicon:
        """This lexicon with ``extra`` on top; an entry replaces any entry that differs only in case."""
        if not extra:
            return self
        replaced = {word.casefold() for word in extra}
        kept = {word: reading for word, reading in self.entries.items() if word.casefold() not in replaced}
        return Lexicon({**kept, **extra})

    def apply(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(self._reading, text)

    def _reading(self, match: re.Match[str]) -> str:
        token = match.group()
        return self._exact[token] if token in self._exact else self._any_case[token.casefold()]


def checked_entries(entries: object, source: str, field: str) -> dict[str, str]:
    """``entries`` as a word -> reading dict, or ``InvalidParameter`` saying which entry is wrong."""
    if not isinstance(entries, Mapping):
        raise InvalidParameter(f"{source}: a lexicon must map words to readings", field=field)
    checked = {}
    for word, reading in entries.items():
        if not isinstance(word, str) or not word.strip() or word != word.strip():
            raise InvalidParameter(f"{source}: lexicon word {quoted(word)} must be non-empty text without edge spaces", field=field)
        if not isinstance(reading, str):
            raise InvalidParameter(f"{source}: the reading of {quoted(word)} must be text", field=field)
        checked[word] = reading
    return checked


def read_lexicon_file(path: str | Path) -> dict[str, str]:
    """Entries from a JSON object file or a TSV file (``word<TAB>reading``; blank and ``#`` lines skipped)."""
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as error:
        raise _unreadable(path, error) from None
    if path.suffix.lower() == ".json" or content.lstrip().startswith("{"):
        try:
            entries = json.loads(content)
        except json.JSONDecodeError as error:
            raise ConfigurationError(f"{ENV_LEXICON}: {path} is not valid JSON ({error})") from None
        return _file_entries(entries, path)
    entries = {}
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        word, tab, reading = line.partition("\t")
        if not tab:
            raise ConfigurationError(f"{ENV_LEXICON}: {path}:{number}: write 'word<TAB>reading'")
        entries[word.strip()] = reading.strip()
    return _file_entries(entries, path)


def _file_entries(entries: object, path: Path) -> dict[str, str]:
    # A bad file is the operator's to fix, not the caller's: same checks, the configuration's error.
    try:
        return checked_entries(entries, str(path), ENV_LEXICON)
    except InvalidParameter as error:
        raise ConfigurationError(f"{ENV_LEXICON}: {error.message}") from None


def _unreadable(path: str | Path, error: OSError) -> ConfigurationError:
    return ConfigurationError(f"{ENV_LEXICON}={str(path)!r}: cannot read it ({error.strerror})")


@cache
def _builtin_korean() -> Lexicon:
    return Lexicon(json.loads(BUILTIN_KOREAN_LEXICON.read_text(encoding="utf-8")))


@lru_cache(maxsize=8)
def _korean_with_file(path: str, mtime_ns: int, size: int) -> Lexicon:
    # The file's identity is part of the key, so an edited file is read again.
    return _builtin_korean().merged(read_lexicon_file(path))


def korean_lexicon(env: Mapping[str, str] | None = None) -> Lexicon:
    """The built-in Korean lexicon merged with the file named by ``SUPERTONIC_LEXICON``, if any."""
    env = os.environ if env is None else env
    path = env.get(ENV_LEXICON, "").strip()
    if not path:
        return _builtin_korean()
    try:
        stat = Path(path).stat()
    except OSError as error:
        raise _unreadable(path, error) from None
    return _korean_with_file(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def with_extra(base: Lexicon, extra: tuple[tuple[str, str], ...]) -> Lexicon:
    """``base`` merged with per-call entries; cached because callers tend to send the same ones."""
    return base.merged(dict(extra))
