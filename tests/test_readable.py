"""Ordinary text of every supported language is read, never refused, on the real Supertonic 3 table.

The stand-in model ships the release's ``unicode_indexer.json`` byte for byte, so what the front end
refuses here is what it refuses on the real model. docs/readable-characters.md is built by this
module from that table and the pipeline, and a test keeps it current:
``./dev python tests/test_readable.py`` rewrites it.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supertonic_engine.assets import load_assets
from supertonic_engine.errors import EmptyText, UnsupportedCharacters
from supertonic_engine.options import SynthesisOptions
from supertonic_engine.preparation import Preparer
from supertonic_engine.text.languages import LANGUAGES
from supertonic_engine.text.readable import FOLDS, readable
from supertonic_engine.text.unicode import TextEncoder, _fold
from supertonic_tools.standin.release import RELEASE_DIR

DOC = Path(__file__).resolve().parent.parent / "docs" / "readable-characters.md"
INDEXER = np.array(json.loads((RELEASE_DIR / "onnx" / "unicode_indexer.json").read_text()), dtype=np.int64)
ENCODER = TextEncoder(INDEXER)

# A few sentences per language as its writers type them: their letters, diacritics, quotation marks
# (with the no-break and narrow no-break spaces French puts inside them) and punctuation.
SENTENCES: dict[str, str] = {
    "en": "“Don’t worry,” she said — it’s only a short walk to the café… Isn’t it lovely?",
    "ko": "「안녕하세요」라고 인사했다. 오늘은 날씨가 정말 좋네요! 내일도 맑을까요? ‘괜찮아’라고 답했다.",
    "ja": "「こんにちは」と彼は言った。今日は、とても良い天気ですね！明日は雨が降るでしょうか？『はい』と答えた。",
    "ar": "قال المعلم: «اقرأ الكتاب جيدًا»، ثم سأل: هل فهمتم الدرس؟ نعم؛ فهمناه تمامًا.",
    "bg": "„Добро утро!“ – каза тя. Днес времето е слънчево, а утре ще вали. Дадох ѝ книгата.",
    "cs": "„Dobrý den,“ řekla paní Nováková. Příští týden pojedeme do Brna – těšíme se! ‚Ano‘, odpověděl.",
    "da": "»Hvor skal vi hen?« spurgte hun. Vi kører til Århus i morgen, og så spiser vi rødgrød med fløde.",
    "de": "„Guten Morgen!“, sagte die Ärztin. Wir fahren übermorgen nach Köln – die Straße ist gesperrt. ‚Schön‘, meinte er.",
    "el": "«Καλημέρα!» είπε η γιαγιά. Πού πηγαίνεις σήμερα\u037e Θα έρθω κι εγώ· η προϋπόθεση είναι να βιαστούμε.",
    "es": "¿Dónde está la estación? ¡Qué lejos! —preguntó Íñigo—. «Mañana llegaremos a La Coruña», dijo el pingüino.",
    "et": "„Tere hommikust!“ ütles õpetaja. Täna on ilus ilm ja me läheme jõe äärde. Šokolaad maitses žüriile.",
    "fi": "”Hyvää huomenta!” sanoi äiti. Menemme tänään järvelle, ja söin jäätelöä. Šakki on hauska peli.",
    "fr": "«\u00a0Bonjour\u202f!\u00a0» dit l’élève. Où est la bibliothèque\u202f? Il est déjà 8\u00a0h\u202f; le cœur de Noël bat.",
    "hi": "राम ने कहा, “आज मौसम बहुत अच्छा है।” क्या तुम कल दिल्ली जाओगे? ऋषि ने ज़रूरी किताबें पढ़ीं॥ मेरे पास १२ किताबें हैं। डॉ॰ शर्मा आए।",
    "hr": "„Dobro jutro!” rekla je baka. Đurđica živi u Čakovcu, a ćevapi su ukusni. Idemo li sutra?",
    "hu": "„Jó reggelt!” – mondta a tanító. Hűvös az idő, de ő nem fázik. Öt őzet láttunk az erdőben.",
    "id": "“Selamat pagi!” kata Ibu. Kami akan pergi ke pasar besok – jangan lupa membawa payung, ya?",
    "it": "«Buongiorno!» disse l’insegnante. Perché non vieni alla festa? È già tardi… Però c’è ancora tempo.",
    "lt": "„Labas rytas!“ – pasakė mokytoja. Šiandien eisime į ežerą, o rytoj – į miestą. Ąžuolas žaliuoja.",
    "lv": "„Labrīt!” sacīja skolotāja. Šodien mēs iesim uz ezeru; ķirši ir gatavi un ļoti garšīgi. Ņem arī gurķus!",
    "nl": "„Goedemorgen!” zei de juf. ‘Wat gaan we doen?’ vroeg Anouk. We gaan naar de dierentuin, één keer per jaar.",
    "pl": "„Dzień dobry!” – powiedziała pani Zofia. Jutro jedziemy do Łodzi, więc pośpiesz się. »Żółć« to trudne słowo.",
    "pt": "“Bom dia!” disse a avó. Você já comeu pão? Amanhã vamos à praia — não se esqueça. «Obrigado», respondeu o João.",
    "ro": "„Bună dimineața!” a spus învățătoarea. Mâine mergem la București; ţara e frumoasă şi ştii asta. «Da», a zis.",
    "ru": "«Доброе утро!» — сказала бабушка. Ёлка стоит в углу, а мы пьём чай. „Хорошо“, — ответил он.",
    "sk": "„Dobré ráno!“ povedala pani učiteľka. Zajtra pôjdeme do Ružomberka – ťahá nás to tam. Päť ľudí čaká.",
    "sl": "„Dober dan!“ je rekla babica. Jutri gremo na Šmarno goro, čeprav je vroče. »Zakaj pa ne?« je vprašal.",
    "sv": "”God morgon!” sa mamma. Vi åker till Göteborg i morgon – glöm inte väskan. »Tack«, svarade han.",
    "tr": "“Günaydın!” dedi öğretmen. İstanbul’a yarın gideceğiz; Şule ve Ömer de gelecek. Çok güzel, değil mi?",
    "uk": "«Доброго ранку!» — сказала мама. Ми їдемо до Києва, а ґанок уже пофарбований. Подвір’я пахне мʼятою.",
    "vi": "“Xin chào!” cô giáo nói. Hôm nay trời đẹp quá; chúng ta đi dạo ở Hà Nội nhé? Tiếng Việt có dấu: ả, ẫ, ợ, ữ, ỵ.",
}


@pytest.fixture(scope="module")
def preparer(tiny_model_dir: Path) -> Preparer:
    return Preparer(load_assets(tiny_model_dir))


def test_the_stand_in_reads_with_the_release_table(preparer: Preparer) -> None:
    assert np.array_equal(preparer.assets.indexer, INDEXER)


def test_every_supported_language_has_sentences() -> None:
    assert sorted(SENTENCES) == sorted(lang for lang in LANGUAGES if lang != "na")


@pytest.mark.parametrize("normalize", [True, False], ids=["normalized", "as-written"])
@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_ordinary_text_of_each_language_is_read_whole(preparer: Preparer, lang: str, normalize: bool) -> None:
    prepared = preparer.prepare(SENTENCES[lang], SynthesisOptions(lang=lang, normalize=normalize))
    for chunk, chunk_lang in zip(prepared.chunks, prepared.langs, strict=True):
        ids, _ = ENCODER.encode(chunk, chunk_lang)
        assert (ids >= 0).all()
    if not normalize:  # nothing is lost on the way: every letter written is read, as NFKD spells it
        letters = {c for c in unicodedata.normalize("NFKD", readable(SENTENCES[lang])) if unicodedata.category(c)[0] == "L"}
        assert letters <= set(prepared.model_text)


def test_each_fold_is_of_a_character_the_official_pipeline_cannot_read_into_one_it_can() -> None:
    # So the ids of every text the official SDK reads correctly stay the SDK's.
    assert all(not _reads(_fold(char)) for char in FOLDS)
    assert all(_reads(_fold(f"a{folded}b")) for folded in FOLDS.values())


def test_folds_apply_with_normalization_off_and_in_ssml(preparer: Preparer) -> None:
    written = "„Hallo“ sagte er\u00ad, ‚gut‘."
    for text, text_type in ((written, "text"), (f'<speak>{written} <sub alias="‚so‘">x</sub></speak>', "ssml")):
        for normalize in (True, False):
            prepared = preparer.prepare(text, SynthesisOptions(lang="de", normalize=normalize), text_type=text_type)
            # The official pipeline drops the space before a quote, as it does for ‘gut’.
            assert prepared.model_text.startswith("<de>\"Hallo\" sagte er,'gut'."), prepared.model_text


@pytest.mark.parametrize("char", ["≤", "≠", "‰", "ə", "‡", "ᚠ"])
def test_what_the_model_cannot_read_is_still_refused_by_name(preparer: Preparer, char: str) -> None:
    with pytest.raises(UnsupportedCharacters) as refused:
        preparer.prepare(f"Es gilt x {char} y.", SynthesisOptions(lang="de"))
    assert refused.value.characters == [char] and unicodedata.name(char) in refused.value.message


READABLE_CHARACTERS = sorted({chr(code) for code in np.flatnonzero(INDEXER >= 0)} | set(FOLDS))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(st.sampled_from(READABLE_CHARACTERS), min_size=1, max_size=60),
    lang=st.sampled_from(LANGUAGES),
    normalize=st.booleans(),
)
def test_text_of_characters_the_table_or_the_folds_read_is_never_refused(preparer: Preparer, text: str, lang: str, normalize: bool) -> None:
    try:
        prepared = preparer.prepare(text, SynthesisOptions(lang=lang, normalize=normalize), text_type="text")
    except EmptyText:
        return
    for chunk, chunk_lang in zip(prepared.chunks, prepared.langs, strict=True):
        assert (ENCODER.encode(chunk, chunk_lang)[0] >= 0).all()


def test_the_doc_lists_every_fold() -> None:
    assert set(FOLDS) <= {char for _, char in _plausible()}


def test_the_readable_characters_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == readable_characters_doc(), "run: ./dev python tests/test_readable.py"


# --- docs/readable-characters.md ----------------------------------------------------------------------

# The code points a text of a supported language may plausibly hold: the blocks of its scripts and
# of the typography, currency and units its writers use. Hangul syllables and CJK ideographs are
# counted, not listed.
PLAUSIBLE: dict[str, tuple[range, ...]] = {
    "Latin-1 Supplement": (range(0x00A0, 0x0100),),
    "Latin Extended-A": (range(0x0100, 0x0180),),
    "Latin Extended-B (Vietnamese, Romanian)": (range(0x01A0, 0x01B1), range(0x0218, 0x021C)),
    "Spacing Modifier Letters (apostrophes)": (range(0x02B9, 0x02BD),),
    "Greek": (range(0x0384, 0x03CF),),
    "Cyrillic": (range(0x0400, 0x0460), range(0x0490, 0x0492)),
    "Arabic": (range(0x060C, 0x0671),),
    "Devanagari": (range(0x0900, 0x0971),),
    "Latin Extended Additional (ẞ, Vietnamese)": (range(0x1E9E, 0x1E9F), range(0x1EA0, 0x1EFA)),
    "General Punctuation": (range(0x2000, 0x2070),),
    "Currency Symbols": (range(0x20A0, 0x20C1),),
    # ℃ ℉ ℓ № ™, fractions, arrows, − √ ∞ ≈ ≠ ≤ ≥
    "Units, fractions, arrows, maths": tuple(
        range(first, last + 1)
        for first, last in (
            (0x2103, 0x2103),
            (0x2109, 0x2109),
            (0x2113, 0x2113),
            (0x2116, 0x2116),
            (0x2122, 0x2122),
            (0x2150, 0x215F),
            (0x2190, 0x2194),
            (0x21D2, 0x21D2),
            (0x2212, 0x2212),
            (0x221A, 0x221A),
            (0x221E, 0x221E),
            (0x2248, 0x2248),
            (0x2260, 0x2260),
            (0x2264, 0x2265),
        )
    ),
    "CJK Symbols and Punctuation": (range(0x3000, 0x3040),),
    "Hiragana and Katakana": (range(0x3041, 0x3100),),
    "Hangul Compatibility Jamo": (range(0x3131, 0x318F),),
    "Byte order mark": (range(0xFEFF, 0xFF00),),
    "Halfwidth and Fullwidth Forms": (range(0xFF01, 0xFFEF),),
}
COUNTED: tuple[tuple[str, range], ...] = (
    ("Hangul Syllables", range(0xAC00, 0xD7A4)),
    ("CJK Unified Ideographs", range(0x4E00, 0xA000)),
)


def _reads(text: str) -> bool:
    return all(ENCODER.readable(c) for c in text)


def _glyph(char: str) -> str:
    """``char`` as a table shows it: itself, or its code point when it is invisible, a space or a combining mark."""
    return f"U+{ord(char):04X}" if unicodedata.category(char)[0] in "CZM" else char


def _shown(text: str) -> str:
    if not text:
        return "(nothing)"
    if not text.strip():
        return "a space"
    return f"`{text.strip()}`"


def _name(char: str) -> str:
    return unicodedata.name(char, "(unnamed control)").title()


def _outcome(char: str) -> tuple[str, str]:
    """What becomes of ``char`` on its way to the model: (who, what it becomes), read between two letters."""
    ours = readable(char)
    if ours != char:
        return "service", ours
    read = _fold(f"a{char}b")[1:-1]
    if not _reads(read):
        return "refused", ""
    decomposed = unicodedata.normalize("NFKD", char)
    return ("nfkd", decomposed) if read == decomposed else ("sdk", read)


def _plausible() -> Iterator[tuple[str, str]]:
    for block, ranges in PLAUSIBLE.items():
        for code in (code for codes in ranges for code in codes):
            char = chr(code)
            if INDEXER[code] < 0 and unicodedata.category(char) != "Cn":
                yield block, char


def _folded_section(title: str, intro: list[str], rows: list[tuple[str, str, str]]) -> list[str]:
    lines = [f"## {title} ({len(rows)})", "", *intro, "| character | code point | name | becomes |", "|---|---|---|---|"]
    return lines + [f"| {_glyph(char)} | U+{ord(char):04X} | {_name(char)} | {_shown(becomes)} |" for _, char, becomes in rows] + [""]


def readable_characters_doc() -> str:
    """docs/readable-characters.md, rebuilt from the release's table and the pipeline."""
    rows: dict[str, list[tuple[str, str, str]]] = {"service": [], "sdk": [], "nfkd": [], "refused": []}
    for block, char in _plausible():
        who, becomes = _outcome(char)
        rows[who].append((block, char, becomes))
    readable_ids = int((INDEXER >= 0).sum())
    lines = [
        "# Characters the model's table cannot read",
        "",
        "<!-- Generated by tests/test_readable.py from the release's onnx/unicode_indexer.json and the",
        "     text pipeline; a test keeps it current. Rebuild: ./dev python tests/test_readable.py -->",
        "",
        f"Supertonic 3 reads a character only if its `unicode_indexer.json` gives it an id: {readable_ids:,} of",
        f"its {len(INDEXER):,} code points. Text reaches the table in three steps, and a character that",
        "none of them turns into readable ones is refused with a 422 (`unsupported_characters`) naming it:",
        "",
        "1. normalization (`normalize`, on by default; `--no-normalize` and `normalize: false` skip it)",
        "   says numbers, dates, currency and units as words in English and Korean;",
        "2. this service folds the characters below that ordinary text of a supported language holds and",
        "   the official pipeline would map to -1 (`layer/supertonic_engine/text/readable.py`); this step",
        "   always runs, with or without normalization, in SSML too, and touches nothing the official",
        "   pipeline reads, so the model sees the official SDK's ids for every text the SDK reads;",
        "3. the official SDK's own preprocessing (`layer/supertonic_engine/text/unicode.py`, identical",
        '   to `supertonic` 1.3.1): NFKD, emoji removal, its symbol table, `@` as "at", whitespace.',
        "",
        "Listed: every code point without an id in the blocks a text of the 31 languages may plausibly",
        "hold (Latin-1, Latin Extended-A, Romanian and Vietnamese letters, Greek, Cyrillic, Arabic,",
        "Devanagari, general punctuation, currency signs, common units and maths, CJK punctuation, kana,",
        "Hangul jamo, full- and half-width forms), each as read between two letters.",
        "",
    ]
    lines += _folded_section("Folded by this service", [], rows["service"])
    lines += _folded_section(
        "Folded by the official pipeline",
        ['Its symbol table, emoji and decoration removal, `@` → "at", and whitespace (after NFKD).', ""],
        rows["sdk"],
    )
    lines += [
        f"## Decomposed by NFKD into characters the table has ({len(rows['nfkd'])})",
        "",
        "Precomposed letters become a base letter and combining marks (`é` → `e` U+0301), compatibility",
        "forms their plain equivalent (full-width `Ａ` → `A`, `ﾊ` → `ハ`, `²` → `2`).",
        "",
        "| block | characters |",
        "|---|---|",
    ]
    by_block: dict[str, list[str]] = {}
    for block, char, _ in rows["nfkd"]:
        by_block.setdefault(block, []).append(_glyph(char))
    lines += [f"| {block} | {' '.join(chars)} |" for block, chars in by_block.items()]
    lines += [
        "",
        f"## Refused: a 422 naming the character ({len(rows['refused'])})",
        "",
        "Mostly letters and signs of languages the model does not speak (Serbian and Macedonian Cyrillic,",
        "Sanskrit and Marathi signs, Kashmiri and Farsi letters, archaic kana and Hangul jamo) and symbols",
        "that running text of a supported language rarely holds (‰, ≤, ⇒, most currency signs): write them",
        "as words.",
        "",
        "| block | character | code point | name |",
        "|---|---|---|---|",
    ]
    lines += [f"| {block} | {_glyph(char)} | U+{ord(char):04X} | {_name(char)} |" for block, char, _ in rows["refused"]]
    lines += ["", "## Counted", "", "| block | code points | read (after NFKD) | refused |", "|---|---|---|---|"]
    for block, codes in COUNTED:
        read = sum(_reads(_fold(chr(code))) for code in codes)
        lines.append(f"| {block} U+{codes[0]:04X}–U+{codes[-1]:04X} | {len(codes):,} | {read:,} | {len(codes) - read:,} |")
    lines += [
        "",
        "Every Hangul syllable is read (NFKD spells it in conjoining jamo); an ideograph without an id is",
        "refused by name.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    DOC.write_text(readable_characters_doc(), encoding="utf-8")
    print(f"wrote {DOC}", file=sys.stderr)
