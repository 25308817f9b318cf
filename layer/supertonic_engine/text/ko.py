"""Korean: numbers, dates, times, money, counters and units spelled out in Hangul.

Which numeral system a number takes depends on what follows it: native Korean before counters
of things and hours (세 개, 두 시, 스무 살, native up to 99), Sino-Korean before dates, minutes,
money and units, and for bare numbers. Phone numbers are read digit by digit with 0 as 공.
Capitalised acronyms the lexicon does not know are spelled with Korean letter names (CPU 씨피유).
Digits in a Latin-letter name are read as Koreans say them:

- one or two digits after a name and a hyphen, in English (GPT-4 지피티 포, GPT-4o 지피티 포오,
  COVID-19 코비드 나인틴), decimals after 점 in Korean (GPT-3.5 지피티 쓰리 점 오; some say
  쓰리 점 파이브);
- one digit glued to capitals, in English (M2 엠투, PS5 피에스파이브), as the lexicon's A4 에이포,
  MP3 엠피쓰리 and CO2 씨오투 are said;
- two digits glued (S24 에스이십사, G20 지이십), or a number after a space (iPhone 15 아이폰 십오),
  as a Korean number; three or more digits as a model number (RTX 4090 사공구공, H100 에이치백);
- after a single capital and a hyphen, a label read as a number (A-1 구역 에이 일 구역).

English digits are written as in everyday Korean: 원 투 쓰리 포 파이브 식스 세븐 에잇 나인 제로,
텐 일레븐 트웰브 ... 나인틴, 트웬티 ... 나인티 (``numbers.ko_english_number``). Fractions, scores
and ratios have rules of their own; the rules below say how each is told from a date or a time.
"""

from __future__ import annotations

import re

from .numbers import (
    DOTTED_NUMBER,
    MINUS_SIGN,
    WHOLE_NUMBER,
    ko_digits,
    ko_english_number,
    ko_native,
    ko_number,
    ko_sino,
    split_number,
    value_below,
)
from .rules import Rule, alternation, apply_rules

# Counters read with native numerals up to 99 (한 개, 두 시, 세 번째, 스무 살).
NATIVE_COUNTERS = (
    "개",
    "명",
    "사람",
    "마리",
    "잔",
    "병",
    "그릇",
    "접시",
    "봉지",
    "번째",
    "번",
    "살",
    "시간",
    "시",
    "권",
    "장",
    "대",
    "채",
    "척",
    "켤레",
    "벌",
    "그루",
    "송이",
    "가지",
    "군데",
    "곳",
    "달",
    "통",
    "줄",
    "자루",
    "쌍",
    "배",
    "판",
    "칸",
    "알",
    "걸음",
    "바퀴",
    "글자",
    "문장",
    "마디",
)
# Counters read with Sino-Korean numerals (년, 월, 일, 분, 원 ...); listed so that, say, 개월 and 개국
# are not taken for 개, and 달러 not for 달.
SINO_COUNTERS = (
    "년대",
    "년",
    "개월",
    "개국",
    "월",
    "일",
    "주일",
    "주년",
    "주",
    "분",
    "초",
    "원",
    "달러",
    "유로",
    "엔",
    "위안",
    "파운드",
    "센트",
    "층",
    "호선",
    "호",
    "회",
    "차",
    "등",
    "위",
    "세기",
    "세",
    "인분",
    "인",
    "학년",
    "학기",
    "도",
    "점",
    "박",
    "편",
    "쪽",
    "페이지",
    "번지",
    "평",
    "칼로리",
    # Units written in Hangul (200밀리초, 10메가바이트): prefixes are enough to find them.
    "퍼센트",
    "킬로",
    "밀리",
    "센티",
    "메가",
    "기가",
    "테라",
    "미터",
    "그램",
    "리터",
    "바이트",
    "와트",
    "볼트",
    "헤르츠",
)
# Written units: what to say, with {n} standing for the Sino-Korean number.
UNITS = {
    "%": "{n} 퍼센트",
    "%p": "{n} 퍼센트포인트",
    "km": "{n} 킬로미터",
    "m": "{n} 미터",
    "cm": "{n} 센티미터",
    "mm": "{n} 밀리미터",
    "km²": "{n} 제곱킬로미터",
    "m²": "{n} 제곱미터",
    "㎡": "{n} 제곱미터",
    "㎢": "{n} 제곱킬로미터",
    "km/h": "시속 {n} 킬로미터",
    "kg": "{n} 킬로그램",
    "g": "{n} 그램",
    "mg": "{n} 밀리그램",
    "L": "{n} 리터",
    "ml": "{n} 밀리리터",
    "mL": "{n} 밀리리터",
    "KB": "{n} 킬로바이트",
    "kB": "{n} 킬로바이트",
    "MB": "{n} 메가바이트",
    "GB": "{n} 기가바이트",
    "TB": "{n} 테라바이트",
    "Mbps": "{n} 메가비피에스",
    "Gbps": "{n} 기가비피에스",
    "Hz": "{n} 헤르츠",
    "kHz": "{n} 킬로헤르츠",
    "MHz": "{n} 메가헤르츠",
    "GHz": "{n} 기가헤르츠",
    "ms": "{n} 밀리초",
    "W": "{n} 와트",
    "kW": "{n} 킬로와트",
    "kWh": "{n} 킬로와트시",
    "V": "{n} 볼트",
    "mAh": "{n} 밀리암페어시",
    "dB": "{n} 데시벨",
    "px": "{n} 픽셀",
    "°C": "{n} 도",
    "℃": "{n} 도",
    "°F": "화씨 {n} 도",
    "℉": "화씨 {n} 도",
    "°": "{n} 도",
}
# Korean letter names for spelling unknown acronyms (CPU 씨피유, AWS 에이더블유에스).
LETTER_NAMES = dict(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트".split(),
        strict=True,
    )
)
# Currency symbol -> (unit, unit of its hundredths).
CURRENCIES = {"₩": ("원", None), "$": ("달러", "센트"), "€": ("유로", "센트"), "£": ("파운드", "펜스"), "¥": ("엔", None)}
SPECIAL_MONTHS = {6: "유월", 10: "시월"}  # 육월 and 십월 lose a consonant in speech and in writing

_WEEKDAY = "[월화수목금토일]"
_COUNTER = alternation(NATIVE_COUNTERS + SINO_COUNTERS)
_UNIT = alternation(UNITS)
# A unit may stand one space away from its number (5 km); a counter is written against it (3개).
_SUFFIX = rf"(?: ?(?:{_UNIT})|{_COUNTER})"


def quantity(number: str, suffix: str) -> str:
    """A number with the counter or unit that follows it, in the numerals that counter takes."""
    suffix = suffix.strip()
    integer, fraction = split_number(number)
    integer = integer.lstrip("0") or "0"  # 08월 is 팔 월, not 공팔 월
    number = integer + (f".{fraction}" if fraction else "")
    if suffix in UNITS:
        return UNITS[suffix].format(n=ko_number(number))
    value = value_below(integer, 100)  # only small numbers change with the counter
    if suffix == "월" and value in SPECIAL_MONTHS and not fraction:
        return SPECIAL_MONTHS[value]
    # Native numerals only for small whole counts; 20대 is an age group (이십 대), 두 대 counts machines.
    if value is None or value < 1 or fraction or suffix not in NATIVE_COUNTERS or (suffix == "대" and value % 10 == 0):
        return f"{ko_number(number)} {suffix}"
    if suffix == "번째" and value == 1:
        return "첫 번째"
    return f"{ko_native(value)} {suffix}"


def _hour(hour: int) -> str:
    return "영 시" if hour == 0 else f"{ko_native(hour)} 시"


def _phone(match: re.Match[str]) -> str:
    return " ".join(ko_digits(group) for group in match.group().split("-"))


def _date(match: re.Match[str]) -> str:
    year, separator, month, day, period = match.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return match.group()
    spoken = f"{quantity(year, '년')} {quantity(month, '월')} {quantity(day, '일')}"
    # 2026.8.24. ends with the date's own dot; after 2026-08-24 a dot ends the sentence.
    return spoken + (period if separator != "." else "")


# A colon between numbers is a score or a ratio (3:2로 이겼다 삼 대 이, 16:9 십육 대 구, 1:1 일 대 일)
# when it cannot be a time - the parts after the colon are not two digits each, or the hour is past
# 24, or the minutes or seconds past 59 - or when the words around it say so: a word for a ratio
# or score just before it (비율은 1:10, 스코어 21:19), or a win, a loss or a ratio just after it
# (21:19로 이겼다, 2:10 승, 1:10의 비율). Anything else that can be a time is a time (10:30).
_SCORE_BEFORE = re.compile(r"(?:비율|비례|종횡비|화면비|스코어|점수|전적|배당|세트)[은는이가을를도의]? ?$")
_SCORE_AFTER = re.compile(
    r" ?(?:으?로|의)? ?(?:이기|이겨|이겼|졌|패하|패했|패배|승리|완승|완패|신승|석패|비기|비겼|앞서|앞섰|뒤져|뒤졌"
    r"|역전|무승부|비율|비례|스코어|점수|[승패](?![가-힣]))"
)


def _could_be_time(parts: list[str]) -> bool:
    hour, *rest = parts
    return (
        all(part.isdigit() for part in parts)
        and all(len(part) == 2 for part in rest)
        and len(hour) <= 2
        and int(hour) <= 24
        and all(int(part) <= 59 for part in rest)
    )


def _score_or_ratio(match: re.Match[str]) -> str:
    parts = match.group().split(":")
    text = match.string
    in_context = bool(_SCORE_BEFORE.search(text, max(0, match.start() - 8), match.start()) or _SCORE_AFTER.match(text, match.end()))
    if _could_be_time(parts) and not in_context:
        return match.group()  # the time rule reads it
    return " 대 ".join(ko_number(part) for part in parts)


def _time(match: re.Match[str]) -> str:
    hour, minute, second = (int(g) if g else 0 for g in match.groups())
    if hour > 24 or minute > 59 or second > 59:
        return match.group()
    words = [_hour(hour)]
    if minute:
        words.append(quantity(str(minute), "분"))
    if second:
        words.append(quantity(str(second), "초"))
    return " ".join(words)


def _with_and(word: str) -> str:
    """``word`` with the particle "and" it takes: 과 after a final consonant (삼과), else 와 (이와)."""
    has_final = "가" <= word[-1] <= "힣" and (ord(word[-1]) - ord("가")) % 28 != 0
    return word + ("과" if has_final else "와")


def _fraction(match: re.Match[str]) -> str:
    whole, numerator, denominator = match.groups()
    spoken = f"{ko_number(denominator)}분의 {ko_number(numerator)}"  # the denominator comes first
    if whole is None:
        return spoken
    # 2 1/3 is two and a third; 12 3/2 is not a mixed number, just a number and a fraction.
    joined = int(numerator) < int(denominator)
    return f"{_with_and(ko_number(whole)) if joined else ko_number(whole)} {spoken}"


def _month_day(match: re.Match[str]) -> str:
    month, day = match.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return match.group()
    return f"{quantity(month, '월')} {quantity(day, '일')}"


def _sign_word(match: re.Match[str]) -> str:
    return f"{match.group(1) or match.group(2)} "


def _model_number(digits: str) -> str:
    # One or two digits are a number (S24 에스이십사, 아이폰 15 십오); three or more are read digit by
    # digit with 0 as 공 (RTX 4090 사공구공), as speakers say model numbers, except a round number
    # (H100 에이치백, A6000 에이육천), which they say as a number.
    if len(digits) <= 2 or (digits[0] != "0" and not digits[1:].strip("0")):
        return ko_number(digits)
    return ko_digits(digits)


def _letter_names(letters: str) -> str:
    return "".join(LETTER_NAMES[letter.upper()] for letter in letters)


def _name_number(digits: str, decimals: str | None, *, in_english: bool) -> str:
    number = ko_english_number(digits) if in_english else _model_number(digits)
    return number + (f" 점 {ko_digits(decimals, zero='영')}" if decimals else "")


def _glued_model(match: re.Match[str]) -> str:
    letters, hyphen, digits, decimals, suffix = match.groups()
    # GPT-4, M2 in English; A-1 (a single letter's label), S24 and H100 in Korean.
    in_english = (len(digits) <= 2 and len(letters) > 1) if hyphen else len(digits) == 1
    return (
        _letter_names(letters)
        + (" " if hyphen else "")
        + _name_number(digits, decimals, in_english=in_english)
        + _letter_names(suffix or "")
    )


def _hyphen_model(match: re.Match[str]) -> str:
    digits, decimals, suffix = match.groups()
    return " " + _name_number(digits, decimals, in_english=len(digits) <= 2) + _letter_names(suffix or "")


def _spaced_model(match: re.Match[str]) -> str:
    letters, digits = match.groups()
    # CES 2025 is a year (이천이십오); RTX 2080 and GTX 1080 are model numbers, outside these years.
    return f"{letters} {ko_number(digits) if 1950 <= int(digits) <= 2049 else _model_number(digits)}"


def _currency(match: re.Match[str]) -> str:
    symbol, number = match.groups()
    unit, subunit = CURRENCIES[symbol]
    integer, fraction = split_number(number)
    if subunit is None or not fraction or len(fraction) > 2:
        return f"{ko_number(number)} {unit}"
    cents = int(fraction.ljust(2, "0"))
    words = [] if integer == "0" and cents else [f"{ko_number(integer)} {unit}"]
    if cents:
        words.append(f"{ko_sino(cents)} {subunit}")
    return " ".join(words)


def _range_start(match: re.Match[str]) -> str:
    # Only the first number is rewritten, with the counter of the second: 3~5개 -> 세 개에서 5개.
    first, suffix = match.group(1), match.group(2)
    return f"{quantity(first, suffix) if suffix else ko_number(first)}에서 "


def _ordinal(match: re.Match[str]) -> str:
    number, counter = match.groups()
    return f"제{ko_number(number)}" + (f" {counter}" if counter else "")


def _large_number(match: re.Match[str]) -> str:
    number, word = match.groups()
    # 만 원, 천 원 and 백 원 drop the 일 of 1; 일억 and 일조 keep it.
    return word if number == "1" and word in "만천백" else ko_number(number) + word


def _dotted(match: re.Match[str]) -> str:
    return " 점 ".join(ko_number(part) for part in match.group().split("."))


def _acronym(match: re.Match[str]) -> str:
    return "".join(LETTER_NAMES[letter] for letter in match.group())


RULES: tuple[Rule, ...] = (
    Rule("phone number", re.compile(r"(?<![\d-])(?:0\d{1,2}-\d{3,4}-\d{4}|1[5-9]\d{2}-\d{4})(?![\d-])"), _phone),
    Rule("date", re.compile(r"(?<![\d.])(\d{4})([-./]) ?(\d{1,2})\2 ?(\d{1,2})(?!\d)(\.?)"), _date),
    Rule("score or ratio", re.compile(r"(?<![\d:.])\d+(?:\.\d+)?(?::\d+(?:\.\d+)?){1,2}(?![\d:]|\.\d)"), _score_or_ratio),
    Rule("time", re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])"), _time),
    Rule("dotted number", re.compile(DOTTED_NUMBER), _dotted),
    # 영하 -5도 is 영하 오 도: the word already says the sign, so the sign is not read twice; a sign
    # that contradicts the word (영상 -5도) is still read.
    Rule("sign said in words", re.compile(r"(영하|마이너스) ?[-−](?=\d)|(영상|플러스) ?\+(?=\d)"), _sign_word),
    Rule("negative sign", re.compile(MINUS_SIGN), lambda m: "마이너스 "),
    # A slash between two numbers is a fraction (1/2 이분의 일, 2와 1/3, 2 1/3 이와 삼분의 일), unless
    # a weekday in parentheses follows (12/25(목): a month and a day) or it is part of something
    # longer: a year first (2024/12/03, taken above as a date; 2024/12 has 4 digits and stays), a
    # third part (12/25/2024), letters or a slash on either side (paths, a/1/2, v1/2); URLs never
    # get here.
    Rule("month/day", re.compile(rf"(?<![A-Za-z0-9/.:-])(\d{{1,2}})/(\d{{1,2}})(?= ?\({_WEEKDAY}(?:요일)?\))"), _month_day),
    Rule(
        "fraction",
        re.compile(r"(?<![A-Za-z0-9/.:,-])(?:(\d{1,3}) )?(\d{1,3})[/⁄](\d{1,3})(?![A-Za-z0-9/⁄]|[.,]\d)"),
        _fraction,
    ),
    Rule("currency symbol", re.compile(rf"([₩$€£¥]) ?({WHOLE_NUMBER})"), _currency),
    # Model names: capitals with digits (S24, H100, RTX-4090, a letter or two may follow: 4o) and
    # capitals then a space and 3-4 digits (RTX 4090). Their digits are a model number, never a
    # counter or a date, and their capitals are spelled. A known name before a hyphen has become
    # Hangul by now (GPT-4o is 지피티-4o here): the hyphen and number after a word, Hangul or
    # Latin (Llama-2), are a model too, unless a counter follows (3개-5개). Names said in English
    # (A4 에이포, MP3) are lexicon entries.
    Rule(
        "model name",
        re.compile(r"(?<![A-Za-z0-9])([A-Z]{1,5})(-?)(\d+)(?:\.(\d+))?([A-Za-z]{1,2})?(?![A-Za-z0-9]|\.\d)"),
        _glued_model,
    ),
    Rule(
        "model after a word",
        re.compile(rf"(?<=[가-힣A-Za-z])-(\d{{1,4}})(?:\.(\d+))?([A-Za-z]{{1,2}})?(?![A-Za-z0-9-]|\.\d|{_SUFFIX})"),
        _hyphen_model,
    ),
    Rule("spaced model name", re.compile(rf"(?<![A-Za-z0-9])([A-Z]{{2,5}}) (\d{{3,4}})(?![\d,.]|{_SUFFIX})"), _spaced_model),
    Rule("range", re.compile(rf"({WHOLE_NUMBER}) ?~ ?(?={WHOLE_NUMBER}({_SUFFIX})?)"), _range_start),
    Rule("ordinal", re.compile(rf"(?<![가-힣])제 ?({WHOLE_NUMBER})({_COUNTER})?"), _ordinal),
    Rule("large number word", re.compile(rf"({WHOLE_NUMBER})([조억만천백])"), _large_number),
    Rule("counter or unit", re.compile(rf"({WHOLE_NUMBER})({_SUFFIX})"), lambda m: quantity(*m.groups())),
    Rule("number", re.compile(WHOLE_NUMBER), lambda m: ko_number(m.group())),
    Rule("percent sign", re.compile(r"%"), lambda m: " 퍼센트"),
    Rule("acronym", re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,5}(?![A-Za-z0-9])"), _acronym),
)


def normalize_korean(text: str) -> str:
    """Korean text with every number, unit and unknown acronym in speakable Hangul."""
    return apply_rules(text, RULES)
