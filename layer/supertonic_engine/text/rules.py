"""A rewrite rule is a compiled pattern and the function that spells one match; rules run in order."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Rule(NamedTuple):
    name: str  # says what the rule reads (shown when a rule misbehaves in a test)
    pattern: re.Pattern[str]
    spell: Callable[[re.Match[str]], str]


def alternation(words: Iterable[str]) -> str:
    """A regex alternative of ``words``, longest first so 시간 wins over 시 and ``ms`` over ``m``;
    a word ending in a Latin letter may not run on into more letters (``5 min`` is not ``5 m``)."""
    return "|".join(
        re.escape(w) + ("(?![A-Za-z])" if w[-1].isascii() and w[-1].isalpha() else "") for w in sorted(words, key=len, reverse=True)
    )


def apply_rules(text: str, rules: Iterable[Rule]) -> str:
    for rule in rules:
        text = rule.pattern.sub(rule.spell, text)
    return text
