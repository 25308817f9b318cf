"""A rewrite rule is a compiled pattern and the function that spells one match; rules run in order."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Rule(NamedTuple):
    name: str  # says what the rule reads (shown when a rule misbehaves in a test)
    pattern: re.Pattern[str]
    spell: Callable[[re.Match[str]], str]


def apply_rules(text: str, rules: Iterable[Rule]) -> str:
    for rule in rules:
        text = rule.pattern.sub(rule.spell, text)
    return text
