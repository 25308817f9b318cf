"""Spelling numbers out in Korean and English; shared by the language modules.

Korean has two numeral systems: Sino-Korean (일, 이, 삼 ...; dates, money, measures, anything
above 99) and native Korean (하나, 둘, 셋 ...; counted things and hours), whose forms before a
counter differ (한 개, 두 시, 스무 살). English needs cardinals, ordinals and years.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

# How numbers are written, as regex sources the language rules build on.
# One number: thousands separators only in well-formed groups, an optional decimal part.
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# The same, not cut out of a longer run of digits.
WHOLE_NUMBER = rf"(?<!\d)(?:{NUMBER})(?!\d)"
# A minus sign: before a digit, not after a word or number ("3-5" is a range, "A-1" a code).
MINUS_SIGN = r"(?<![\w.,])(?<!\d )[-−](?=\d)"
# Three or more dot-separated numbers: versions and addresses (1.2.3, 192.168.0.1).
DOTTED_NUMBER = r"(?<![\d.])\d+(?:\.\d+){2,}(?!\.?\d)"


def value_below(digits: str, limit: int) -> int | None:
    """The value of a run of digits when it is below ``limit``, else None.

    Never converts a long run: Python refuses ``int()`` on more than 4,300 digits (a ValueError),
    and a number past a reading's limit is read digit by digit anyway, so its value is never needed.
    """
    significant = digits.lstrip("0")
    if len(significant) > len(str(limit)):
        return None
    value = int(significant or "0")
    return value if value < limit else None


def split_number(token: str) -> tuple[str, str]:
    """``"1,234.50"`` -> ``("1234", "50")``: the integer digits and the decimal digits."""
    integer, _, fraction = token.replace(",", "").partition(".")
    return integer, fraction


def _spell(
    token: str,
    cardinal: Callable[[int], str],
    digits: Callable[[str], str],
    decimals: Callable[[str], str],
    point: str,
    limit: int,
) -> str:
    integer, fraction = split_number(token)
    value = value_below(integer, limit)
    # "007" or a 25-digit serial is read digit by digit, as people read them.
    if (len(integer) > 1 and integer.startswith("0")) or value is None:
        words = digits(integer)
    else:
        words = cardinal(value)
    return f"{words} {point} {decimals(fraction)}" if fraction else words


# --- Korean ----------------------------------------------------------------------------------------

_KO_DIGITS = "영일이삼사오육칠팔구"
_KO_SMALL_UNITS = ((1000, "천"), (100, "백"), (10, "십"), (1, ""))
_KO_LARGE_UNITS = ("", "만", "억", "조", "경")
_KO_LIMIT = 10 ** (4 * len(_KO_LARGE_UNITS))

_NATIVE_TENS = ("", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔")
_NATIVE_ONES = ("", "하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉")
# Before a counter the first four and twenty shorten: 한 개, 두 개, 세 개, 네 개, 스무 개.
_NATIVE_ONES_BEFORE_COUNTER = ("", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉")


def _ko_group(value: int) -> str:
    """1..9999 in Sino-Korean; a leading 1 is silent before 천, 백, 십 (천이백, not 일천이백)."""
    words = []
    for size, unit in _KO_SMALL_UNITS:
        digit = value // size % 10
        if digit:
            words.append(("" if digit == 1 and unit else _KO_DIGITS[digit]) + unit)
    return "".join(words)


def ko_sino(n: int) -> str:
    """Sino-Korean reading with a space after each 만-group: 1234567 -> 백이십삼만 사천오백육십칠."""
    if n == 0:
        return "영"
    if n >= _KO_LIMIT:
        return ko_digits(str(n))
    groups = []
    for unit in _KO_LARGE_UNITS:
        n, value = divmod(n, 10000)
        if value:
            # 10000 is 만, not 일만; but 일억, 일조 keep their 일.
            word = "" if value == 1 and unit == "만" else _ko_group(value)
            groups.append(word + unit)
        if not n:
            break
    return " ".join(reversed(groups))


def ko_native(n: int, *, before_counter: bool = True) -> str:
    """Native Korean for 1..99 (세 개, 스무 살; 셋, 스물 standing alone); Sino-Korean otherwise."""
    if not 1 <= n <= 99:
        return ko_sino(n)
    if n == 20 and before_counter:
        return "스무"
    tens, ones = divmod(n, 10)
    return _NATIVE_TENS[tens] + (_NATIVE_ONES_BEFORE_COUNTER if before_counter else _NATIVE_ONES)[ones]


def ko_digits(digits: str, *, zero: str = "공") -> str:
    """Digit by digit; 0 is 공 in phone numbers and codes, 영 after a decimal point."""
    return "".join(zero if d == "0" else _KO_DIGITS[int(d)] for d in digits)


# English numbers as Koreans write them in Hangul (GPT-4 지피티 포, COVID-19 코비드 나인틴, MP3
# 엠피쓰리): 3 is 쓰리 and 13, 30 써틴, 써티 as they are written in everyday use, not the
# 외래어 표기법 forms 스리, 서틴, 서티.
_KO_ENGLISH_ONES = "제로 원 투 쓰리 포 파이브 식스 세븐 에잇 나인 텐 일레븐 트웰브 써틴 포틴 피프틴 식스틴 세븐틴 에이틴 나인틴".split()
_KO_ENGLISH_TENS = "_ _ 트웬티 써티 포티 피프티 식스티 세븐티 에이티 나인티".split()


def ko_english_number(digits: str) -> str:
    """One or two digits read in English, in Hangul: 4 포, 19 나인틴, 47 포티세븐; 05 digit by digit (제로파이브)."""
    if len(digits) > 2 or (len(digits) == 2 and digits.startswith("0")):
        return "".join(_KO_ENGLISH_ONES[int(d)] for d in digits)
    value = int(digits)
    if value < 20:
        return _KO_ENGLISH_ONES[value]
    tens, ones = divmod(value, 10)
    return _KO_ENGLISH_TENS[tens] + (_KO_ENGLISH_ONES[ones] if ones else "")


def ko_number(token: str) -> str:
    """A written number in Sino-Korean: ``3.14`` -> 삼 점 일사, ``15,000`` -> 만 오천."""
    return _spell(token, ko_sino, ko_digits, partial(ko_digits, zero="영"), "점", _KO_LIMIT)


# --- English ---------------------------------------------------------------------------------------

_EN_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_EN_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
EN_CARDINAL_LIMIT = 10**15
_EN_IRREGULAR_ORDINALS = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def _en_below_hundred(n: int) -> str:
    if n < 20:
        return _EN_ONES[n]
    tens, ones = divmod(n, 10)
    return _EN_TENS[tens] + (f"-{_EN_ONES[ones]}" if ones else "")


def _en_below_thousand(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    words = [_EN_ONES[hundreds], "hundred"] if hundreds else []
    if rest:
        words.append(_en_below_hundred(rest))
    return " ".join(words)


def en_cardinal(n: int) -> str:
    """1234 -> one thousand two hundred thirty-four (American style, no "and")."""
    if n == 0:
        return "zero"
    if n >= EN_CARDINAL_LIMIT:
        return en_digits(str(n))
    words = []
    for size, name in _EN_SCALES:
        if n >= size:
            words += [_en_below_thousand(n // size), name]
            n %= size
    if n:
        words.append(_en_below_thousand(n))
    return " ".join(words)


def en_ordinal(n: int) -> str:
    """21 -> twenty-first, 100 -> one hundredth."""
    return _en_ordinal_words(en_cardinal(n))


def en_written_ordinal(digits: str) -> str:
    """The digits of a written ordinal ("21" of "21st") in words; a run past the cardinals' limit
    is read digit by digit with the last one ordinal (one two ... nine ninth)."""
    value = value_below(digits, EN_CARDINAL_LIMIT)
    return en_ordinal(value) if value is not None else _en_ordinal_words(en_digits(digits))


def _en_ordinal_words(words: str) -> str:
    cut = max(words.rfind(" "), words.rfind("-")) + 1
    head, last = words[:cut], words[cut:]
    if last in _EN_IRREGULAR_ORDINALS:
        return head + _EN_IRREGULAR_ORDINALS[last]
    return head + (last[:-1] + "ieth" if last.endswith("y") else last + "th")


def en_year(n: int) -> str:
    """Years as spoken: 1999 nineteen ninety-nine, 2005 two thousand five, 2026 twenty twenty-six."""
    if not 1000 <= n <= 9999 or n % 1000 == 0 or 2000 < n < 2010:
        return en_cardinal(n)
    century, rest = divmod(n, 100)
    if rest == 0:
        return f"{en_cardinal(century)} hundred"
    if rest < 10:
        return f"{en_cardinal(century)} oh {_EN_ONES[rest]}"
    return f"{en_cardinal(century)} {en_cardinal(rest)}"


def en_digits(digits: str) -> str:
    """Digit by digit: 555 -> five five five."""
    return " ".join(_EN_ONES[int(d)] for d in digits)


def en_number(token: str) -> str:
    """A written number in English words: ``3.14`` -> three point one four."""
    return _spell(token, en_cardinal, en_digits, en_digits, "point", EN_CARDINAL_LIMIT)
