"""Benchmark texts: 59, 152 and 266 characters (the lengths of the official performance table) in
English and Korean, one long text of about 3,000 characters for the chunked path, the latency
benchmark's sentence and paragraph, and the voice and request that every mode speaks with."""

from __future__ import annotations

import itertools
import re

VOICE = "M1"
SUMMARY_CASE = ("en", 266, 8)  # the request the summary speaks of: language, characters, steps

SHORT_TEXTS: dict[str, dict[int, str]] = {
    "en": {
        59: "The morning train was late, so we walked along the harbour.",
        152: (
            "Serverless speech lets a small team add a voice to any button. The function wakes, reads the "
            "text, and returns clear audio before anyone notices a wait."
        ),
        266: (
            "When the storm finally passed, the village gathered on the hill to watch the sky clear. Children "
            "pointed at the first stars while parents counted the boats returning to the harbour. Nobody spoke "
            "for a long while; the only sound was the wind moving through the grass."
        ),
    },
    "ko": {
        59: "오늘 아침에는 비가 조금 내렸지만, 오후부터는 맑은 하늘을 볼 수 있을 것 같습니다. 우산은 꼭 챙기세요.",
        152: (
            "작은 팀도 버튼 하나에 목소리를 붙일 수 있습니다. 함수가 깨어나 글을 읽고, 사용자가 기다림을 느끼기 전에 "
            "깨끗한 음성을 돌려줍니다. 서버를 따로 관리할 필요도 없고, 요청이 없을 때는 비용도 들지 않습니다. 그래서 "
            "혼자 일하는 개발자에게 특히 아주 잘 맞는 방식입니다."
        ),
        266: (
            "폭풍이 마침내 지나가자 마을 사람들은 언덕에 모여 하늘이 개는 모습을 지켜보았습니다. 아이들은 첫 별을 "
            "가리켰고, 부모들은 항구로 돌아오는 배를 하나씩 세었습니다. 한동안 아무도 말을 하지 않았고, 들리는 "
            "소리라고는 풀밭을 스치는 바람 소리뿐이었습니다. 어둠이 내려앉자 누군가 등불을 켰고, 사람들은 천천히 "
            "집으로 돌아갔습니다. 내일은 다시 바다로 나갈 수 있을 것입니다. 모두가 그렇게 믿었고, 그 믿음은 틀리지 "
            "않았습니다. 다음 날 아침 바다는 거울처럼 아주 잔잔했습니다."
        ),
    },
}


# The latency benchmark's short texts: a sentence of about 62 characters and a paragraph of about 400
# (its page and its synchronous-limit text are ``long_text`` of 1,500 and 2,900 characters).
LATENCY_SENTENCE = "Please hold the line for a moment; your call matters to us all."
LATENCY_PARAGRAPH = (
    "Every evening the lighthouse keeper climbed the narrow stairs, trimmed the wick and polished the lens "
    "until it shone. Ships far out at sea watched for its steady beam, and the fishermen of the bay knew that as long "
    "as the light turned, the rocks could be passed in safety. In winter the storms came without warning, yet the keeper "
    "never missed a night, and the village trusted him as it trusted the tide."
)


def long_text(chars: int = 3000, lang: str = "en") -> str:
    """Whole sentences of the benchmark texts, cycled, up to about ``chars`` characters (at least one sentence)."""
    sentences = [s.strip() for text in SHORT_TEXTS[lang].values() for s in re.findall(r"[^.!?;]+[.!?;]", text)]
    out = sentences[0]
    for sentence in itertools.islice(itertools.cycle(sentences), 1, None):
        if len(out) + 1 + len(sentence) > chars:
            break
        out += " " + sentence
    return out
