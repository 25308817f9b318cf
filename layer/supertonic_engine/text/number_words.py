"""Numbers as words in the model's languages, from Unicode CLDR's spell-out rules.

The words come from unicode-rbnf (MIT; piper's own number reading), which runs the rule-based
number formats of CLDR (its ``rbnf/<language>.xml``): cardinals in each gender and case CLDR
names, ordinals and years, for every language the model speaks. A language's rules are read on
its first number (1-25 ms), never when the engine is imported; a spelled number is kept, since
texts repeat their numbers (years, prices).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unicode_rbnf.engine import RbnfEngine

# Numbers past this are read digit by digit: no reader says a 25-digit serial as one number, and
# the rules' own words stop at about 10^18.
LARGEST = 10**15


@cache
def _engine(lang: str) -> RbnfEngine:
    from unicode_rbnf.engine import RbnfEngine  # tens of milliseconds, once, on a language's first number

    return RbnfEngine.for_language(lang)


def rulesets(lang: str) -> frozenset[str]:
    """The spell-out rule sets CLDR has for ``lang`` (``spellout-cardinal-feminine``, ``spellout-ordinal``, ...)."""
    return frozenset(_engine(lang).rulesets)


@lru_cache(maxsize=8192)
def spell(value: int, lang: str, ruleset: str) -> str | None:
    """``value`` in words by ``lang``'s rule set ``ruleset``; None when there is no such rule set or
    the value is past ``LARGEST`` (the caller keeps the digits rather than read them wrongly)."""
    if abs(value) >= LARGEST or ruleset not in rulesets(lang):
        return None
    from unicode_rbnf.engine import RbnfError

    try:
        words = _engine(lang).format_number(value, ruleset_names=[ruleset]).text
    except (RbnfError, ValueError, KeyError, IndexError):  # a rule set without a rule for this value
        return None
    return " ".join(words.split()) or None
