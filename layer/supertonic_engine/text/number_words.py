"""Numbers as words in the model's languages, from Unicode CLDR's spell-out rules.

The words come from unicode-rbnf (MIT; piper's own number reading), which runs the rule-based
number formats of CLDR (its ``rbnf/<language>.xml``): cardinals in each gender and case CLDR
names, ordinals and years, for every language the model speaks. A language's rules are read on
its first number (1-25 ms), never when the engine is imported; a spelled number is kept, since
texts repeat their numbers (years, prices). So is each part the rules spell on the way (345 of
12 345, the word for thousand agreeing with 12): a new number is mostly made of parts already said.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import _CacheInfo, cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unicode_rbnf.engine import RbnfEngine

# Numbers past this are read digit by digit: no reader says a 25-digit serial as one number, and
# the rules' own words stop at about 10^18.
LARGEST = 10**15


@cache
def _engine(lang: str) -> RbnfEngine:
    from unicode_rbnf.engine import RbnfEngine  # tens of milliseconds, once, on a language's first number

    return _remembering(RbnfEngine.for_language(lang))


def _remembering(engine: RbnfEngine) -> RbnfEngine:
    """``engine`` keeping what it works out: the words of a number in a rule set (the rules spell a
    number's parts through the same method, so those are kept too) and the form a plural word takes
    after a number (тысяча, тысячи, тысяч). Both depend on nothing but their arguments."""
    from unicode_rbnf.engine import DEFAULT_TOLERANCE, PluralFormatPart

    worked_out = engine.iter_format_number

    @lru_cache(maxsize=16384, typed=True)
    def words(number: Any, ruleset_name: str, radix: int | None = None, tolerance: float = DEFAULT_TOLERANCE) -> tuple[str, ...]:
        return tuple(worked_out(number, ruleset_name=ruleset_name, radix=radix, tolerance=tolerance))

    engine.iter_format_number = words  # type: ignore[method-assign]
    for ruleset in engine.rulesets.values():
        rules: Iterable[Any] = (*ruleset.numeric_rules.values(), *ruleset.special_rules.values())
        for part in (part for rule in rules for part in rule.parts if isinstance(part, PluralFormatPart)):
            part.render = lru_cache(maxsize=1024)(part.render)  # type: ignore[method-assign]
    return engine


def spelled_parts(lang: str) -> _CacheInfo:
    """How often ``lang``'s rules found the words of a number or a part of one already worked out."""
    return _engine(lang).iter_format_number.cache_info()  # type: ignore[attr-defined]


@cache
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
