"""Splitting long text into chunks the model reads one at a time.

The first two levels are exactly those of the official ``supertonic.utils.chunk_text``
(paragraphs at blank lines, sentences after ``.!?`` and whitespace, with its list of
abbreviations that do not end a sentence), and sentences are packed into chunks the same
greedy way, so whenever every sentence fits the result is the official one, character for
character. Only a sentence longer than the limit is cut further: after CJK sentence marks and
closing quotes, then at clauses (``,;:`` and ``、，；：``), then at spaces, and as a last resort
at the limit itself. No cut falls inside an inline tag such as ``<laugh>`` (tags hold no spaces
or punctuation, and a cut at the limit moves back to the tag's start).

A small first chunk (``first_chars``) lets the first audio come sooner: chunk ``n`` may hold
``min(max_chars, first_chars * 2**n)`` characters, so each chunk is ready before the previous one
has finished playing. While the limit is below ``max_chars`` a sentence longer than it is cut once,
at the coarsest boundary that leaves a prefix within it (never inside a word: a first word over the
limit is the chunk, whole), and its rest starts the next chunk; from the first chunk at
``max_chars`` on, the chunking is the official one again.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections import deque
from collections.abc import Callable

from ..errors import InvalidParameter, quoted
from .tags import tag_spans

DEFAULT_MAX_CHUNK_CHARS = 300
DEFAULT_MAX_CHUNK_CHARS_KO = 120  # Hangul decomposes into jamo for the model: ~2.5 tokens a syllable
MIN_CHUNK_CHARS = 10  # the official chunker refuses less

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n+")
# Verbatim from supertonic 1.3.1 (utils.py): split after .!? and whitespace, except after these.
_SENTENCE_BREAK = re.compile(
    r"(?<!Mr\.)(?<!Mrs\.)(?<!Ms\.)(?<!Dr\.)(?<!Prof\.)(?<!Sr\.)(?<!Jr\.)(?<!Ph\.D\.)(?<!etc\.)"
    r"(?<!e\.g\.)(?<!i\.e\.)(?<!vs\.)(?<!Inc\.)(?<!Ltd\.)(?<!Co\.)(?<!Corp\.)(?<!St\.)(?<!Ave\.)"
    r"(?<!Blvd\.)(?<!\b[A-Z]\.)(?<=[.!?])\s+"
)
# Finer boundaries for a sentence that does not fit, coarsest first. Each pattern matches the
# separator between two pieces (possibly empty: CJK punctuation is not followed by a space).
_FINER_BREAKS = (
    re.compile(r"(?<=[。！？…])\s*|(?<=[.!?][\"'”’)\]」』])\s+"),
    re.compile(r"(?<=[,;:])\s+|(?<=[、，；：])\s*"),
    re.compile(r"\s+"),
)


def default_max_chunk_chars(lang: str) -> int:
    """The official defaults: 120 characters for Korean, 300 for every other language."""
    return DEFAULT_MAX_CHUNK_CHARS_KO if lang == "ko" else DEFAULT_MAX_CHUNK_CHARS


def chunk_text(text: str, max_chars: int, *, pack: bool = True, first_chars: int | None = None, start_index: int = 0) -> list[str]:
    """Split ``text`` into non-empty chunks of at most ``max_chars`` characters, at the most natural boundaries.

    ``pack`` False: one sentence a chunk (a long one still cut), so every sentence starts a chunk
    and its time in the audio is known exactly. ``first_chars``: chunk ``n`` holds at most
    ``chunk_limit(start_index + n, max_chars, first_chars)`` characters (a word longer than that
    stays whole up to ``max_chars``); ``start_index`` is the number of chunks before this text
    (SSML sections continue the count). None, or a value of ``max_chars`` or more: the official chunks."""
    _check_chars("max_chunk_chars", max_chars)
    if first_chars is not None:
        _check_chars("first_chunk_chars", first_chars)
    chunks: list[str] = []
    for paragraph in _PARAGRAPH_BREAK.split(text.strip()):
        sentences = [sentence.strip() for sentence in _SENTENCE_BREAK.split(paragraph.strip()) if sentence.strip()]
        if first_chars is not None:
            sentences = _chunk_below_max(sentences, chunks, max_chars, first_chars, start_index, pack)
        pieces = [piece for sentence in sentences for piece in _split_long(sentence, max_chars, _FINER_BREAKS)]
        chunks.extend(_pack_sentences(pieces, max_chars) if pack else pieces)
    return chunks


def chunk_limit(index: int, max_chars: int, first_chars: int | None) -> int:
    """The most characters chunk ``index`` may hold: ``min(max_chars, first_chars * 2**index)``, ``max_chars`` without ``first_chars``."""
    if first_chars is None or index >= max_chars.bit_length():  # first_chars >= 1: 2**index alone passes max_chars
        return max_chars
    return min(max_chars, first_chars << index)


def _check_chars(name: str, chars: object) -> None:
    if isinstance(chars, bool) or not isinstance(chars, int) or chars < MIN_CHUNK_CHARS:
        raise InvalidParameter(f"{name} must be a whole number of at least {MIN_CHUNK_CHARS}, got {quoted(chars)}", field=name)


def _chunk_below_max(sentences: list[str], chunks: list[str], max_chars: int, first_chars: int, start_index: int, pack: bool) -> list[str]:
    """Append to ``chunks`` the chunks whose limit is below ``max_chars``; return the sentences left
    (the first may be the rest of a cut one), which the official chunking takes on."""
    left = deque(sentences)
    current = ""
    while left:
        limit = chunk_limit(start_index + len(chunks), max_chars, first_chars)
        sentence = left[0]
        if current:
            # The official counting rule, joining space included.
            if pack and len(current) + len(sentence) + 1 <= limit:
                current += " " + sentence
                left.popleft()
            else:
                chunks.append(current)
                current = ""
        elif limit >= max_chars:
            break
        elif len(sentence) <= limit:
            current = sentence
            left.popleft()
        else:
            # The first piece of the usual split at this limit is a prefix: the coarsest boundary within it.
            head = _split_long(sentence, limit, _FINER_BREAKS, word_chars=max_chars)[0]
            chunks.append(head)
            rest = sentence[len(head) :].lstrip()
            if rest:
                left[0] = rest
            else:
                left.popleft()
    if current:
        chunks.append(current)
    return list(left)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, as ``chunk_text`` finds them (paragraphs,
    then the official sentence breaks), in ``text``'s own positions, surrounding whitespace left out."""
    spans: list[tuple[int, int]] = []
    for paragraph in _spans_between(text, _PARAGRAPH_BREAK, 0, len(text)):
        spans.extend(_spans_between(text, _SENTENCE_BREAK, *paragraph))
    return spans


# Where the official breaks end a sentence too early, for speech marks and captions (chunks keep the
# official breaks, so the audio is the official one). A full stop followed by a lowercase letter does not
# end a sentence in a script with letter case ("at 3 p.m. on", "approx. five"); scripts without case
# (Hangul, kana, Han) have no lowercase, so their breaks stay as they are. English alone adds the
# abbreviations the official list lacks that stand before a number ("Jan. 5th", "No. 7", "Fig. 2") or
# before a name ("Gen. Grant"), each only as written capitalised and only before what it stands before:
# "I met Jan. He left." and "Say no. 5 did." are two sentences each.
_BEFORE_A_NUMBER_EN = frozenset(
    {"Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec", "No", "Nos", "Vol", "Fig", "Ch", "Approx"}
)
_BEFORE_A_NAME_EN = frozenset({"Gen", "Gov", "Capt", "Col", "Lt", "Sgt", "Rev", "Sen", "Rep", "Hon", "Pres"})
_WORD_BEFORE_STOP = re.compile(r"(\w+)\.$")


def whole_sentence_spans(text: str, lang_at: Callable[[int], str]) -> list[tuple[int, int]]:
    """``sentence_spans`` joined again where a break follows an abbreviation rather than a sentence's
    end (the rule above); ``lang_at(i)`` is the language ``text[i]`` is read in."""
    spans: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        if spans and _sentence_goes_on(text, spans[-1], a, lang_at):
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    return spans


def _sentence_goes_on(text: str, before: tuple[int, int], start: int, lang_at: Callable[[int], str]) -> bool:
    """Whether the sentence ``before`` goes on at ``text[start]`` (the next one as the official breaks find it)."""
    a, b = before
    if text[b - 1] != "." or _PARAGRAPH_BREAK.search(text, b, start):
        return False
    following = text[start]
    if following.islower():
        return True
    word = _WORD_BEFORE_STOP.search(text, a, b)
    if word is None or lang_at(b - 1) != "en":
        return False
    return (word[1] in _BEFORE_A_NUMBER_EN and following.isdigit()) or (word[1] in _BEFORE_A_NAME_EN and following.isupper())


def _spans_between(text: str, separator: re.Pattern[str], start: int, end: int) -> list[tuple[int, int]]:
    """The stripped, non-empty pieces of ``text[start:end]`` between matches of ``separator``."""
    pieces = []
    position = start
    for match in separator.finditer(text, start, end):
        pieces.append((position, match.start()))
        position = match.end()
    pieces.append((position, end))
    stripped = []
    for a, b in pieces:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            stripped.append((a, b))
    return stripped


def _pack_sentences(sentences: list[str], max_chars: int) -> list[str]:
    """Join consecutive sentences with one space while they fit, as the official chunker does."""
    chunks: list[str] = []
    current = ""
    for sentence in sentences:
        # The official test counts the joining space even before the first sentence of a chunk;
        # kept so that chunk boundaries stay identical.
        if len(current) + len(sentence) + 1 <= max_chars:
            current += (" " if current else "") + sentence
        else:
            if current:
                chunks.append(current)
            current = sentence
    if current:
        chunks.append(current)
    return chunks


def _split_long(text: str, max_chars: int, breaks: tuple[re.Pattern[str], ...], *, word_chars: int | None = None) -> list[str]:
    """``text`` as it is if it fits, else cut at the first level of ``breaks`` that has a boundary.

    A run without any boundary (a word) is cut every ``word_chars`` (default ``max_chars``)."""
    if len(text) <= max_chars:
        return [text]
    if not breaks:
        return _hard_cut(text, word_chars or max_chars)
    spans = _pieces(text, breaks[0])
    if len(spans) == 1:
        return _split_long(text, max_chars, breaks[1:], word_chars=word_chars)
    chunks: list[str] = []
    for start, end in _pack_spans(spans, max_chars):
        # A packed run keeps the text between its pieces exactly as written.
        chunks.extend(_split_long(text[start:end], max_chars, breaks[1:], word_chars=word_chars))
    return chunks


def _pieces(text: str, separator: re.Pattern[str]) -> list[tuple[int, int]]:
    """Spans of the non-empty pieces between separators, ignoring separators inside tags."""
    tags = tag_spans(text)
    spans = []
    start = 0
    for match in separator.finditer(text):
        cut, resume = match.span()
        if _tag_around(cut, tags) is not None:
            continue
        if cut > start:
            spans.append((start, cut))
        start = max(start, resume)
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _pack_spans(spans: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    """Greedily merge neighbouring spans while the merged stretch of text fits."""
    packed = [spans[0]]
    for start, end in spans[1:]:
        if end - packed[-1][0] <= max_chars:
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed


def _hard_cut(text: str, max_chars: int) -> list[str]:
    """Cut a run without any boundary every ``max_chars``, moving a cut back off a tag or a combining mark."""
    tags = tag_spans(text)
    chunks = []
    start = 0
    while len(text) - start > max_chars:
        cut = start + max_chars
        tag_start = _tag_around(cut, tags)
        if tag_start is not None and tag_start > start:
            cut = tag_start
        while cut > start + 1 and unicodedata.combining(text[cut]):
            cut -= 1
        chunks.append(text[start:cut])
        start = cut
    chunks.append(text[start:])
    return chunks


def _tag_around(position: int, tags: list[tuple[int, int]]) -> int | None:
    """The start of the tag that ``position`` falls strictly inside, if any (``tags`` in text order)."""
    index = bisect_left(tags, (position,)) - 1
    if index >= 0 and tags[index][0] < position < tags[index][1]:
        return tags[index][0]
    return None
