"""Korean normalization: real sentences in, exactly what a Korean reader would say out."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supertonic_engine.errors import ConfigurationError, EmptyText, InvalidParameter, InvalidRequest, UnknownLanguage
from supertonic_engine.text import LANGUAGES, normalize
from supertonic_engine.text.lexicon import ENV_LEXICON
from supertonic_engine.text.tags import TAG

HANGUL = re.compile(r"[가-힣]")
PUNCTUATION = set(" .,!?;:'\"()[]「」『』~-…/<>")


def assert_reads_as_korean(text: str, *, latin: bool = False) -> None:
    """Only Hangul and punctuation, plus Latin letters where the case says so: no digit or symbol left."""
    for char in TAG.sub(" ", text):
        allowed = HANGUL.match(char) or char in PUNCTUATION or (latin and char.isascii() and char.isalpha())
        assert allowed, f"{char!r} in {text!r}"


class ArticleNormalizer:
    """``SupertonicTextNormalizer`` from the reference article, as published, to show what it gets wrong."""

    def __init__(self):
        self.lexicon_map: dict[str, str] = {
            "FastAPI": "패스트 에이피아이",
            "SaaS": "새스",
            "TTS": "티티에스",
            "ONNX": "온닉스",
            "Python": "파이썬",
            "SDK": "에스디케이",
            "API": "에이피아이",
        }
        self.currency_pattern = re.compile(r"(\d+)\s*원")
        self.date_pattern = re.compile(r"(\d{4})년\s*(\d{1,2})월\s*(\d{1,2})일")
        self.time_pattern = re.compile(r"(\d{1,2}):(\d{2})")
        self.special_char_pattern = re.compile(r"[^\w\s\.\,\!\?\~\<\>]")

    def normalize(self, text: str) -> str:
        for word, pronunciation in self.lexicon_map.items():
            text = re.sub(rf"\b{re.escape(word)}\b", pronunciation, text, flags=re.IGNORECASE)
        text = self.date_pattern.sub(r"\1년 \2월 \3일", text)
        text = self.time_pattern.sub(r"\1시 \2분", text)
        tags = re.findall(r"<[^>]+>", text)
        text_placeholder = re.sub(r"<[^>]+>", " ___TAG___ ", text)
        text_cleaned = self.special_char_pattern.sub("", text_placeholder)
        for tag in tags:
            text_cleaned = text_cleaned.replace("___TAG___", tag, 1)
        return re.sub(r"\s+", " ", text_cleaned).strip()


SENTENCES = [
    # The whole sentence of the brief: date, time of day, lexicon word.
    (
        "2026년 8월 24일 오후 3시에 FastAPI 서버를 배포했습니다.",
        "이천이십육 년 팔 월 이십사 일 오후 세 시에 패스트 에이피아이 서버를 배포했습니다.",
    ),
    # Dates in the three ways they are written.
    ("회의는 2026-08-24 14:00에 시작합니다.", "회의는 이천이십육 년 팔 월 이십사 일 열네 시에 시작합니다."),
    ("마감일은 2026.8.24.입니다.", "마감일은 이천이십육 년 팔 월 이십사 일입니다."),
    ("마감일은 2026. 8. 24.입니다.", "마감일은 이천이십육 년 팔 월 이십사 일입니다."),
    ("1990년대에 태어났어요.", "천구백구십 년대에 태어났어요."),
    # Times: native hours, Sino-Korean minutes and seconds.
    ("오전 10:30에 만나요.", "오전 열 시 삼십 분에 만나요."),
    ("오후 3시 5분에 출발합니다.", "오후 세 시 오 분에 출발합니다."),
    ("기록은 10:30:15였습니다.", "기록은 열 시 삼십 분 십오 초였습니다."),
    ("영업은 0시 30분에 끝나고 12시 정각에 다시 열어요.", "영업은 영 시 삼십 분에 끝나고 열두 시 정각에 다시 열어요."),
    ("3시간 30분 걸려요.", "세 시간 삼십 분 걸려요."),
    # Money.
    ("점심값은 15,000원이었어요.", "점심값은 만 오천 원이었어요."),
    ("커피는 ₩4,500입니다.", "커피는 사천오백 원입니다."),
    ("입장료는 ₩1,200이에요.", "입장료는 천이백 원이에요."),
    ("이 책은 $5예요.", "이 책은 오 달러예요."),
    ("환불액은 $15.50입니다.", "환불액은 십오 달러 오십 센트입니다."),
    ("월 50만 원 미만 예산으로 1억 2천만 원을 모았어요.", "월 오십만 원 미만 예산으로 일억 이천만 원을 모았어요."),
    # Plain numbers, decimals, negatives.
    ("인구는 1,234,567입니다.", "인구는 백이십삼만 사천오백육십칠입니다."),
    ("10000은 만이라고 읽어요.", "만은 만이라고 읽어요."),
    ("원주율은 3.14입니다.", "원주율은 삼 점 일사입니다."),
    ("반응은 0.5초 만에 옵니다.", "반응은 영 점 오 초 만에 옵니다."),
    ("오늘 기온은 -5도입니다.", "오늘 기온은 마이너스 오 도입니다."),
    ("9,900만 개 파라미터를 가진 모델입니다.", "구천구백만 개 파라미터를 가진 모델입니다."),
    # Phone numbers, digit by digit with 0 as 공.
    ("제 번호는 010-1234-5678입니다.", "제 번호는 공일공 일이삼사 오육칠팔입니다."),
    ("고객센터는 1588-1234입니다.", "고객센터는 일오팔팔 일이삼사입니다."),
    # Counters with native numerals up to 99.
    ("사과 3개를 샀어요.", "사과 세 개를 샀어요."),
    ("2시에 만나요.", "두 시에 만나요."),
    ("동생은 20살이고 형은 21살이에요.", "동생은 스무 살이고 형은 스물한 살이에요."),
    ("손님 1명이 고양이 5마리를 데려왔어요.", "손님 한 명이 고양이 다섯 마리를 데려왔어요."),
    ("커피 2잔 주세요.", "커피 두 잔 주세요."),
    ("3번째 줄, 1번째 자리에 앉으세요.", "세 번째 줄, 첫 번째 자리에 앉으세요."),
    ("책 100권을 읽었어요.", "책 백 권을 읽었어요."),
    ("20대 여성 2명과 차 2대가 왔어요.", "이십 대 여성 두 명과 차 두 대가 왔어요."),
    ("3개월 동안 2개국을 다녀왔어요.", "삼 개월 동안 이 개국을 다녀왔어요."),
    # The months whose names change.
    ("6월과 10월은 바빠요.", "유월과 시월은 바빠요."),
    # Percent, ordinals, units, ranges.
    ("할인율은 30%이고 점유율은 12.5%입니다.", "할인율은 삼십 퍼센트이고 점유율은 십이 점 오 퍼센트입니다."),
    ("제3회 정기 총회를 엽니다.", "제삼 회 정기 총회를 엽니다."),
    ("집에서 5km 떨어져 있고 무게는 3kg입니다.", "집에서 오 킬로미터 떨어져 있고 무게는 삼 킬로그램입니다."),
    ("파일은 10MB, 백업은 2GB입니다.", "파일은 십 메가바이트, 백업은 이 기가바이트입니다."),
    ("오늘 최고 기온은 30°C입니다.", "오늘 최고 기온은 삼십 도입니다."),
    ("물 2L와 우유 500ml를 샀어요.", "물 이 리터와 우유 오백 밀리리터를 샀어요."),
    ("사과를 3~5개 주세요.", "사과를 세 개에서 다섯 개 주세요."),
    ("1~2초씩 걸리면 탭을 닫아요.", "일 초에서 이 초씩 걸리면 탭을 닫아요."),
    ("8월 24~26일에 쉽니다.", "팔 월 이십사 일에서 이십육 일에 쉽니다."),
    ("버전 1.2.3을 배포했어요.", "버전 일 점 이 점 삼을 배포했어요."),
    # Lexicon words glued to particles; unknown acronyms spelled with letter names.
    ("API를 호출하고 SDK를 설치했어요.", "에이피아이를 호출하고 에스디케이를 설치했어요."),
    ("Python으로 TTS를 만들고 ONNX로 내보냈어요.", "파이썬으로 티티에스를 만들고 온닉스로 내보냈어요."),
    ("1인 SaaS를 운영합니다.", "일 인 새스를 운영합니다."),
    ("AWS Lambda에 올렸더니 CPU 점유율이 100%로 치솟습니다.", "에이더블유에스 람다에 올렸더니 씨피유 점유율이 백 퍼센트로 치솟습니다."),
    ("NPU와 XYZ를 비교했어요.", "엔피유와 엑스와이제트를 비교했어요."),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_korean_sentences(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected
    assert_reads_as_korean(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("api는 소문자로 써도 에이피아이예요.", "에이피아이는 소문자로 써도 에이피아이예요."),
        ("rapid라는 단어의 api는 그대로 둡니다.", "rapid라는 단어의 에이피아이는 그대로 둡니다."),
        ("IT 업계에서 it is라고 말해요.", "아이티 업계에서 it is라고 말해요."),
        ("fastapi와 python도 읽어요.", "패스트 에이피아이와 파이썬도 읽어요."),
        ("iPhone에서 Node.js를 써요.", "아이폰에서 노드제이에스를 써요."),
    ],
)
def test_lexicon_matches_whole_tokens_with_sensible_case(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected
    assert_reads_as_korean(expected, latin=True)


# --- the reference article's three bugs ----------------------------------------------------------


def test_article_bug_currency_pattern_never_applied() -> None:
    text = "점심값은 15,000원이었어요."
    assert ArticleNormalizer().normalize(text) == text  # compiled, then never used
    assert normalize(text, "ko") == "점심값은 만 오천 원이었어요."


def test_article_bug_date_rule_replaces_a_date_with_itself() -> None:
    text = "2026년 8월 24일에 배포했습니다."
    assert ArticleNormalizer().normalize(text) == text  # r'\1년 \2월 \3일' rewrites it as it was
    assert normalize(text, "ko") == "이천이십육 년 팔 월 이십사 일에 배포했습니다."


def test_article_bug_special_character_class_deletes_readable_characters() -> None:
    text = '"안녕"이라고 말했다: (참고) A-B; 「인용」, 50%.'
    # Quotes, colon, parentheses, hyphen, semicolon, CJK brackets and % all vanish there.
    assert ArticleNormalizer().normalize(text) == "안녕이라고 말했다 참고 AB 인용, 50."
    assert normalize(text, "ko") == '"안녕"이라고 말했다: (참고) A-B; 「인용」, 오십 퍼센트.'


def test_article_lexicon_misses_words_glued_to_particles() -> None:
    assert ArticleNormalizer().normalize("API를 호출") == "API를 호출"  # \b fails between I and 를
    assert normalize("API를 호출", "ko") == "에이피아이를 호출"


# --- tags, whitespace, errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<laugh> 정말 웃겨요 <breath> 3개나 있어요.", "<laugh> 정말 웃겨요 <breath> 세 개나 있어요."),
        ("웃음<laugh>3개", "웃음<laugh>세 개"),
        ("한숨   <sigh>   2번 쉬었어요", "한숨 <sigh> 두 번 쉬었어요"),
        # Inside a language tag the text is normalized as that language.
        ("오늘 <en>meeting at 10:30</en> 있어요 3개", "오늘 <en>meeting at ten thirty</en> 있어요 세 개"),
    ],
)
def test_tags_pass_through_untouched(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected


def test_whitespace_collapses_and_paragraphs_stay() -> None:
    assert normalize("  첫 문단\t\t입니다.\n다음 줄\n\n\n  둘째   문단  ", "ko") == "첫 문단 입니다. 다음 줄\n\n둘째 문단"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="가나다라마바사아자차카타파하한국어 .,!?;:'\"()「」『』~-…·。、，\n", min_size=1))
def test_text_without_numbers_or_latin_is_left_as_written(text: str) -> None:
    if not text.strip():
        return
    assert normalize(text, "ko").split() == text.split()


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_empty_text_is_refused(text: str) -> None:
    with pytest.raises(EmptyText):
        normalize(text, "ko")


@pytest.mark.parametrize("lang", ["kr", "KO", "xx", ""])
def test_unknown_language_is_refused(lang: str) -> None:
    with pytest.raises(UnknownLanguage) as error:
        normalize("안녕하세요", lang)
    assert error.value.available == list(LANGUAGES)


def test_language_codes_match_the_official_package() -> None:
    from supertonic.config import AVAILABLE_LANGUAGES

    assert LANGUAGES == tuple(AVAILABLE_LANGUAGES)


def test_other_languages_read_their_numbers_and_tidy_whitespace_around_tags() -> None:
    assert normalize("Tengo  3 gatos <laugh>  y 15,000 euros.", "es") == "Tengo tres gatos <laugh> y quince mil euros."


# --- extending the lexicon -----------------------------------------------------------------------


def test_lexicon_file_as_json_extends_and_overrides(tmp_path, monkeypatch) -> None:
    path = tmp_path / "words.json"
    path.write_text(json.dumps({"Kubeflow": "큐브플로", "api": "에이 피 아이"}), encoding="utf-8")
    monkeypatch.setenv(ENV_LEXICON, str(path))
    assert normalize("Kubeflow와 API를 써요.", "ko") == "큐브플로와 에이 피 아이를 써요."


def test_lexicon_file_as_tsv(tmp_path, monkeypatch) -> None:
    path = tmp_path / "words.tsv"
    path.write_text("# word\treading\n\nGrafana\t그라파나\nLoki\t로키\n", encoding="utf-8")
    monkeypatch.setenv(ENV_LEXICON, str(path))
    assert normalize("Grafana와 Loki, 그리고 SDK", "ko") == "그라파나와 로키, 그리고 에스디케이"


def test_lexicon_file_is_read_again_when_it_changes(tmp_path, monkeypatch) -> None:
    path = tmp_path / "words.json"
    path.write_text(json.dumps({"Loki": "로키"}), encoding="utf-8")
    monkeypatch.setenv(ENV_LEXICON, str(path))
    assert normalize("Loki", "ko") == "로키"
    path.write_text(json.dumps({"Loki": "로끼", "Tempo": "템포"}), encoding="utf-8")
    assert normalize("Loki Tempo", "ko") == "로끼 템포"


def test_lexicon_argument_wins_over_file_and_built_in(tmp_path, monkeypatch) -> None:
    path = tmp_path / "words.json"
    path.write_text(json.dumps({"Loki": "로키"}), encoding="utf-8")
    monkeypatch.setenv(ENV_LEXICON, str(path))
    assert normalize("Loki와 TTS", "ko", lexicon={"loki": "로오키", "TTS": "텍스트 음성 변환"}) == "로오키와 텍스트 음성 변환"


@pytest.mark.parametrize(
    ("content", "name"),
    [("not json {", "bad.json"), ('["a list"]', "list.json"), ("no tab here\n", "bad.tsv"), ('{"x": 1}', "num.json")],
)
def test_malformed_lexicon_file_is_the_operators_error(tmp_path, monkeypatch, content: str, name: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    monkeypatch.setenv(ENV_LEXICON, str(path))
    with pytest.raises(ConfigurationError) as error:
        normalize("안녕", "ko")
    assert not isinstance(error.value, InvalidRequest)  # never blamed on the caller (no 4xx)
    assert ENV_LEXICON in error.value.message and str(path) in error.value.message


def test_missing_lexicon_file_is_reported(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_LEXICON, str(tmp_path / "absent.json"))
    with pytest.raises(ConfigurationError, match="cannot read"):
        normalize("안녕", "ko")


@pytest.mark.parametrize("lexicon", [["API"], {"": "빈"}, {"API": 3}])
def test_malformed_lexicon_argument_is_refused(lexicon: object) -> None:
    with pytest.raises(InvalidParameter) as error:
        normalize("API", "ko", lexicon=lexicon)  # type: ignore[arg-type]
    assert error.value.field == "lexicon"


# Past Python's 4,300-digit limit for int(): such a run once raised a bare ValueError (a 500).
LONG_DIGITS = "7" * 5000


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        (LONG_DIGITS, 1),
        (f"{LONG_DIGITS}개", 1),
        (f"{LONG_DIGITS}원", 1),
        (f"₩{LONG_DIGITS}", 1),
        (f"{LONG_DIGITS}만 명", 1),
        (f"제{LONG_DIGITS}회", 1),
        (f"{LONG_DIGITS}~{LONG_DIGITS}개", 2),
        (f"{LONG_DIGITS}km", 1),
        (f"-{LONG_DIGITS}", 1),
        (f"{LONG_DIGITS}월", 1),
        (f"$1.{LONG_DIGITS}", 1),
    ],
    ids=["bare", "counter", "won", "won-sign", "large-word", "ordinal", "range", "unit", "negative", "month", "decimals"],
)
def test_a_run_of_thousands_of_digits_is_read_digit_by_digit(text: str, runs: int) -> None:
    spoken = normalize(text, "ko")
    assert not re.search(r"\d", spoken), spoken[:200]
    assert spoken.count("칠") == runs * len(LONG_DIGITS)


# --- fractions, URLs and e-mail addresses --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1/2", "이분의 일"),
        ("밀가루 3/4 컵을 넣어요.", "밀가루 사분의 삼 컵을 넣어요."),
        ("케이크의 2와 1/3을 먹었어요.", "케이크의 이와 삼분의 일을 먹었어요."),
        ("물 2 1/3컵", "물 이와 삼분의 일컵"),
        ("3 1/4", "삼과 사분의 일"),
        ("매출이 1/3로 줄었다.", "매출이 삼분의 일로 줄었다."),
        ("기울기는 -1/2입니다.", "기울기는 마이너스 이분의 일입니다."),
        ("3/2배", "이분의 삼배"),
        # A weekday after it makes a month and a day.
        ("12/25(목)에 만나요.", "십이 월 이십오 일(목)에 만나요."),
        ("6/10 (화요일)", "유월 십 일 (화요일)"),
        # Dates with a year stay dates; longer runs and paths are not fractions.
        ("2024/12/03에 출시", "이천이십사 년 십이 월 삼 일에 출시"),
        ("12/25/2024", "십이/이십오/이천이십사"),
        ("2024/12 결산", "이천이십사/십이 결산"),
        ("경로는 /usr/1/2입니다.", "경로는 /usr/일/이입니다."),
        ("v1/2 호환", "v일/이 호환"),
        ("0.5/2", "영 점 오/이"),
    ],
)
def test_fractions_read_denominator_first(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com/docs/1/2",
        "http://10.0.0.1:8080/api/v2?page=3",
        "www.example.co.kr/2024/12/03",
        "kim.3@example.co.kr",
        "support+12@mail.example.com",
    ],
)
def test_urls_and_emails_are_kept_as_written(text: str) -> None:
    assert normalize(f"주소는 {text}입니다.", "ko") == f"주소는 {text}입니다."
    assert normalize(f"({text}) 3개", "ko") == f"({text}) 세 개"


# --- scores and ratios ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Cannot be a time: one digit after the colon, an hour past 24, minutes past 59, three digits.
        ("3:2로 이겼다.", "삼 대 이로 이겼다."),
        ("화면 비율은 16:9입니다.", "화면 비율은 십육 대 구입니다."),
        ("1:1 문의를 남겨 주세요.", "일 대 일 문의를 남겨 주세요."),
        ("25:10", "이십오 대 십"),
        ("3:75", "삼 대 칠십오"),
        ("100:1의 경쟁률", "백 대 일의 경쟁률"),
        ("1:2:3으로 섞어요.", "일 대 이 대 삼으로 섞어요."),
        ("1.5:1", "일 점 오 대 일"),
        # Could be a time, but the words around it make it a score or a ratio.
        ("최종 스코어는 21:19였다.", "최종 스코어는 이십일 대 십구였다."),
        ("21:19로 이겼다.", "이십일 대 십구로 이겼다."),
        ("10:12로 졌다.", "십 대 십이로 졌다."),
        ("2:10 승", "이 대 십 승"),
        ("비율 1:10로 희석", "비율 일 대 십로 희석"),
        ("물과 1:10의 비율로", "물과 일 대 십의 비율로"),
    ],
)
def test_colon_between_numbers_reads_as_a_score_or_ratio(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("오전 10:30에 만나요.", "오전 열 시 삼십 분에 만나요."),
        ("경기는 10:30에 시작해요.", "경기는 열 시 삼십 분에 시작해요."),
        ("회의를 10:30으로 옮겼다.", "회의를 열 시 삼십 분으로 옮겼다."),
        ("영업시간 9:00~18:00", "영업시간 아홉 시~열여덟 시"),
        ("24:00", "스물네 시"),
        ("기록은 1:02:03", "기록은 한 시 이 분 삼 초"),
    ],
)
def test_a_colon_that_can_be_a_time_stays_a_time(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected


# --- a sign the words already say ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("내일은 영하 -5도입니다.", "내일은 영하 오 도입니다."),
        ("영하-12℃까지 내려가요.", "영하 십이 도까지 내려가요."),
        ("결과는 마이너스 -3이에요.", "결과는 마이너스 삼이에요."),
        ("마이너스−3", "마이너스 삼"),
        ("점수는 플러스 +3입니다.", "점수는 플러스 삼입니다."),
        ("영상 +5도", "영상 오 도"),
        # Without such a word, or with one that says the other sign, the sign is read as before.
        ("오늘 기온은 -5도입니다.", "오늘 기온은 마이너스 오 도입니다."),
        ("영상 -5도", "영상 마이너스 오 도"),
        ("영하 5도", "영하 오 도"),
        ("3-5도", "삼-오 도"),
    ],
)
def test_a_sign_already_said_in_words_is_not_read_twice(text: str, expected: str) -> None:
    assert normalize(text, "ko") == expected


# --- model and product names ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # After a space or glued as two digits, a number (iPhone 15 아이폰 십오, S24 에스이십사).
        ("iPhone 15를 샀어요.", "아이폰 십오를 샀어요."),
        ("Galaxy S24 Ultra", "Galaxy 에스이십사 Ultra"),
        ("G20 정상회의", "지이십 정상회의"),
        # A hyphen after a single letter is a label read as a number.
        ("A-1 구역", "에이 일 구역"),
        # Three or more digits, digit by digit with 0 as 공; a round number as a number.
        ("RTX 4090을 꽂았다.", "알티엑스 사공구공을 꽂았다."),
        ("RTX-4090 그래픽카드", "알티엑스 사공구공 그래픽카드"),
        ("RTX 2080", "알티엑스 이공팔공"),
        ("H100 8장", "에이치백 여덟 장"),
        ("A6000", "에이육천"),
        # A year after a name is a year.
        ("CES 2025에서 공개", "씨이에스 이천이십오에서 공개"),
        # Names said in English are in the lexicon; digits with a counter stay counters.
        ("A4 용지 2장", "에이포 용지 두 장"),
        ("MP3 파일과 CO2 배출", "엠피쓰리 파일과 씨오투 배출"),
        ("EC2와 S3에 B2B 서비스", "이씨투와 에스쓰리에 비투비 서비스"),
        ("CPU 2개와 GPU 8장", "씨피유 두 개와 지피유 여덟 장"),
        ("CPU 100% 사용", "씨피유 백 퍼센트 사용"),
        ("사과 3개-5개", "사과 세 개-다섯 개"),
        ("10시-12시", "열 시-열두 시"),
        ("10MB", "십 메가바이트"),
    ],
)
def test_model_names_read_their_digits_as_a_model_number(text: str, expected: str) -> None:
    spoken = normalize(text, "ko")
    assert spoken == expected
    assert_reads_as_korean(spoken, latin=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A name, a hyphen and one or two digits: the digits in English, as Koreans say them.
        ("GPT-4o를 썼다.", "지피티 포오를 썼다."),
        ("GPT-4로 요약했어요.", "지피티 포로 요약했어요."),
        ("GPT-3.5 모델", "지피티 쓰리 점 오 모델"),
        ("COVID-19 이후", "코비드 나인틴 이후"),  # the lexicon says COVID as a word
        ("Llama-2와 BERT-12", "Llama 투와 비이알티 트웰브"),
        ("XR-21, XR-30, XR-47", "엑스알 트웬티원, 엑스알 써티, 엑스알 포티세븐"),
        ("XR-10, XR-13, XR-0", "엑스알 텐, 엑스알 써틴, 엑스알 제로"),
        # One digit glued to capitals: in English too (M2 엠투, like the lexicon's A4 에이포, MP3 엠피쓰리).
        ("M2 칩을 탑재했다.", "엠투 칩을 탑재했다."),
        ("PS5를 샀고 K9도 봤다.", "피에스파이브를 샀고 케이나인도 봤다."),
        ("A4 용지와 MP3", "에이포 용지와 엠피쓰리"),
        # Three digits or more stay a model number read in Korean.
        ("RTX-4090과 H100", "알티엑스 사공구공과 에이치백"),
    ],
)
def test_digits_in_a_latin_name_are_read_in_english_as_koreans_say_them(text: str, expected: str) -> None:
    spoken = normalize(text, "ko")
    assert spoken == expected
    assert_reads_as_korean(spoken, latin=True)


def test_a_name_said_as_a_word_keeps_its_english_number() -> None:
    assert normalize("Qwen-2 이후", "ko", lexicon={"Qwen": "큐웬"}) == "큐웬 투 이후"
