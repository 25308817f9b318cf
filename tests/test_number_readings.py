"""Numbers read aloud in every language the model speaks, from hand-written tables
(tests/number_readings/<lang>.py), and the README's reading table rendered from them."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from number_readings import CATEGORIES
from published_assets import published_assets

from supertonic_engine.text import LANGUAGES, normalize

REPO = Path(__file__).resolve().parents[1]
SPOKEN = [lang for lang in LANGUAGES if lang != "na"]
TABLE_START, TABLE_END = "<!-- reading table: tests/test_number_readings.py -->", "<!-- end of reading table -->"


def _table(lang: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"number_readings.{lang}")
    except ModuleNotFoundError:
        return None


TABLES = {lang: table for lang in SPOKEN if (table := _table(lang)) is not None}
CASES = [(lang, *reading) for lang, table in TABLES.items() for reading in table.READINGS]


@pytest.mark.parametrize(("lang", "category", "written", "read"), CASES, ids=[f"{c[0]}-{c[1]}-{n}" for n, c in enumerate(CASES)])
def test_a_number_reads_as_a_reader_says_it(lang: str, category: str, written: str, read: str) -> None:
    assert normalize(written, lang) == read


def test_every_table_covers_every_category_or_says_why_its_digits_stay() -> None:
    for lang, table in TABLES.items():
        read = {category for category, _, _ in table.READINGS}
        assert set(table.KEPT) | read >= set(CATEGORIES), f"{lang}: {set(CATEGORIES) - read - set(table.KEPT)} neither read nor kept"
        assert not read & set(table.KEPT), f"{lang}: a category both read and kept"
        # A language whose numbers keep their digits reads only its symbols' and units' words.
        least = 15 if _reads_numbers(lang) else 5
        assert len(table.READINGS) >= least, f"{lang}: {len(table.READINGS)} readings"
        assert all(category in CATEGORIES for category, _, _ in table.READINGS)


def test_a_category_kept_keeps_its_digits_whatever_rule_would_read_them() -> None:
    from supertonic_engine.text.number_locale import KEEPS, locale_for

    for lang in LOCALES:
        locale = locale_for(lang)
        assert locale is not None, lang
        if locale.cardinal is None:  # no number is read: every digit stays
            continue
        unread = set(TABLES[lang].KEPT) & set(KEEPS)
        assert unread <= set(locale.keeps), f"{lang}: {unread - set(locale.keeps)} kept in its table, read by its rules"
    assert normalize("Spotkanie o 14:30, 5. miejsce, w 1999 roku.", "pl") == "Spotkanie o 14:30, 5. miejsce, w 1999 roku."


def _reads_numbers(lang: str) -> bool:
    from supertonic_engine.text.number_locale import locale_for

    locale = locale_for(lang)
    return locale is None or locale.cardinal is not None  # en and ko have rules of their own


def test_no_digit_of_a_category_read_survives() -> None:
    for lang, category, _, read in CASES:
        if _reads_numbers(lang):
            assert not re.search(r"\d", read), f"{lang} {category}: {read!r}"


@pytest.mark.parametrize(("lang", "category", "written", "read"), CASES[::3])
def test_reading_twice_changes_nothing(lang: str, category: str, written: str, read: str) -> None:
    assert normalize(normalize(written, lang), lang) == normalize(written, lang)


def test_every_reading_is_in_characters_the_real_model_reads() -> None:
    from supertonic_engine.text.readable import readable
    from supertonic_engine.text.unicode import TextEncoder

    # The real model's character table: the release's own unicode_indexer.json.
    encoder = TextEncoder(np.array(json.loads((published_assets() / "onnx" / "unicode_indexer.json").read_text())))
    for *_, read in CASES:
        encoder.check(readable(read))  # as the engine hands it on (Ukrainian ʼ as '); UnsupportedCharacters names any it cannot


# English and Korean read more than numbers (abbreviations, acronyms): their own tests hold them to this.
LOCALES = sorted(lang for lang in TABLES if lang not in ("en", "ko"))


@settings(max_examples=60, deadline=None)
@given(lang=st.sampled_from(LOCALES), words=st.lists(st.text(alphabet=st.characters(categories=["L"]), min_size=1), max_size=8))
def test_text_without_numbers_or_symbols_is_left_as_it_is(lang: str, words: list[str]) -> None:
    text = " ".join(words)
    if text.strip():
        assert normalize(text, lang) == " ".join(text.split())


def reading_table() -> str:
    """Language x category: read (✅) or digits kept (—, with why below the table)."""
    lines = ["| language | " + " | ".join(CATEGORIES) + " |", "|---" * (len(CATEGORIES) + 1) + "|"]
    reasons = []
    for lang in SPOKEN:
        table = TABLES.get(lang)
        read = {category for category, _, _ in table.READINGS} if table else set()
        kept = table.KEPT if table else {}
        cells = ["✅" if category in read else "—" for category in CATEGORIES]
        lines.append(f"| {lang} | " + " | ".join(cells) + " |")
        reasons += [f"- {lang}, {category}: {why}" for category, why in kept.items()]
        if table is None:
            reasons.append(f"- {lang}: no readings, digits stay as written")
    return "\n".join([TABLE_START, *lines, "", *reasons, TABLE_END])


def test_the_readme_s_reading_table_is_the_tests_own() -> None:
    readme = (REPO / "README.md").read_text()
    start, end = readme.find(TABLE_START), readme.find(TABLE_END)
    assert start >= 0 and end > start, "README: no reading table"
    assert readme[start : end + len(TABLE_END)] == reading_table(), "run: python tests/test_number_readings.py > the table"


if __name__ == "__main__":
    print(reading_table())


def test_importing_the_engine_reads_no_language_s_number_rules() -> None:
    from supertonic_harness.bench.normalize_cost import import_ms

    assert import_ms()["reads_number_rules_at_import"] is False  # each language's rules are read on its first text


# Digits that are not one number a reader says, in any language with a locale: they stay as written.
KEPT_AS_WRITTEN = [
    ("de", "Ruf an: 030 1234567."),
    ("de", "Ruf an: +49 30 1234567."),
    ("pl", "Zadzwoń: tel. 601 234 567."),
    ("es", "Teléfono: 912 345 678."),
    ("pt", "Ligue (11) 98765-4321."),
    ("ru", "Звоните 8 800 555 35 35."),
    ("ja", "電話は03-1234-5678です。"),
    ("fr", "ISBN 978-2-07-036822-8"),
    ("sv", "Datum: 2024-03-21."),
    ("ja", "日付は2024/05/03です。"),
    ("de", "Um 23:59:59 endet es."),
    ("de", "Am 3.5. kommt sie."),
    ("de", "Wir treffen uns um 7.45 Uhr."),
    ("sv", "Vi kör Python 3.12."),
    ("de", "Eine MP3, ein A4-Blatt und H2O."),
    ("pl", "Spotkanie o 14:30, w latach 1990-2000."),
    ("hi", "आज़ादी 15/08/1947 को मिली।"),
    ("it", "Il 1° maggio è festa."),
    ("hu", "2026. augusztus 24-én jön."),
]


@pytest.mark.parametrize(("lang", "text"), KEPT_AS_WRITTEN)
def test_digits_that_are_not_a_number_a_reader_says_stay_as_written(lang: str, text: str) -> None:
    assert normalize(text, lang) == text


@settings(max_examples=200, deadline=None)
@given(
    lang=st.sampled_from(LOCALES),
    text=st.text(alphabet=st.sampled_from(list("0123456789.,:-/ \u00a0\u202f%€$+°'")), min_size=1, max_size=40),
)
def test_any_run_of_digits_and_marks_reads_or_stays_without_failing(lang: str, text: str) -> None:
    if text.strip():
        spoken = normalize(text, lang)
        assert normalize(spoken, lang) == spoken or re.search(r"\d", spoken)  # read once, or digits left as written


def test_a_long_run_of_grouped_numbers_takes_time_in_proportion_to_its_length() -> None:
    import time

    def seconds(text: str) -> float:
        started = time.perf_counter()
        normalize(text, "fr")
        return time.perf_counter() - started

    seconds("111 " * 100)  # the rules built
    short, long = min(seconds("111 " * 500) for _ in range(3)), min(seconds("111 " * 4000) for _ in range(3))
    # Eight times the text: about eight times the time; a pattern that rescans the run would take sixty-four.
    assert long < 24 * short


def test_a_number_s_parts_are_spelled_once_and_read_as_the_rules_say() -> None:
    from unicode_rbnf.engine import RbnfEngine

    from supertonic_engine.text.number_words import spell, spelled_parts

    spell(12_345, "ru", "spellout-cardinal-masculine")
    before = spelled_parts("ru")
    spell(52_345, "ru", "spellout-cardinal-masculine")  # 345 and тысяч again: remembered, not worked out
    assert spelled_parts("ru").hits > before.hits
    # Remembered parts change no reading: the same words as CLDR's rules read afresh.
    draw = np.random.default_rng(7)
    for lang, ruleset in (("ru", "spellout-cardinal-feminine"), ("cs", "spellout-cardinal-neuter"), ("de", "spellout-numbering")):
        fresh = RbnfEngine.for_language(lang)
        for value in [*range(0, 1200, 7), *(int(v) for v in draw.integers(1000, 10**9, 300))]:
            assert spell(value, lang, ruleset) == " ".join(fresh.format_number(value, ruleset_names=[ruleset]).text.split()), (lang, value)


# Two numbers joined by a hyphen that are not a range from the one to the other: a score (the
# higher first), a name with a number (COVID-19, A-4), a phone number, a date, an ISBN.
NOT_RANGES = [
    ("de", "Es steht 2-1.", "Es steht zwei-eins."),
    ("de", "COVID-19 und ein A-4-Blatt.", "COVID-neunzehn und ein A-vier-Blatt."),
    ("de", "Ruf an: 030-1234567.", "Ruf an: 030-1234567."),
    ("de", "Am 2024-05-03.", "Am 2024-05-03."),
    ("fr", "ISBN 978-2-07-036822-8", "ISBN 978-2-07-036822-8"),
    ("nl", "Versie 3-2-1 is uit.", "Versie drie-twee-een is uit."),
    ("cs", "Hráli 3-5-2.", "Hráli tři-pět-dva."),
]


@pytest.mark.parametrize(("lang", "written", "read"), NOT_RANGES)
def test_a_hyphen_between_numbers_that_are_no_range_stays(lang: str, written: str, read: str) -> None:
    assert normalize(written, lang) == read
