"""What normalizing costs per language: a 3,000-character text dense with numbers, money, times,
percentages and units, normalized first (the language's rules built and its CLDR rules read) and
then again with other numbers; and what the engine's import costs, in a fresh interpreter.

    supertonic-lambda bench --normalize --json benchmarks/normalize-cost.json
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from typing import Any

from supertonic_engine.text import LANGUAGES, normalize
from supertonic_engine.text.number_locale import locale_for

TEXT_CHARS = 3000
RUNS = 10


def dense_text(lang: str, seed: int) -> str:
    """About 3,000 characters of numbers in the ways ``lang`` writes them, drawn from wide ranges so
    each text's numbers are its own (a number spelled once is kept: repeats would flatter the cost)."""
    locale = locale_for(lang)
    mark = locale.decimal_mark if locale is not None else "."
    sign = next(iter(locale.currencies), "€") if locale is not None and locale.currencies else "€"
    draw = random.Random(seed)  # benchmark text, not a secret  # nosec B311
    pieces: list[str] = []
    while sum(len(piece) for piece in pieces) < TEXT_CHARS:
        n = draw.randrange
        pieces.append(
            f"{n(100, 99999)} {n(1, 999)}{mark}{n(1, 99)} {n(0, 23)}:{n(0, 59):02d} {n(1, 100)} % "
            f"{n(1, 9999)}{mark}{n(10, 99)} {sign} {n(1, 999)} km, "
        )
    return "".join(pieces)[:TEXT_CHARS]


def import_ms() -> dict[str, Any]:
    """The engine's import in a fresh interpreter, and whether it read any language's number rules."""
    probe = (
        "import sys, time; t = time.perf_counter(); import supertonic_engine; "
        "print((time.perf_counter() - t) * 1000, 'unicode_rbnf' in sys.modules, any('.locales.' in m for m in sys.modules))"
    )
    runs = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        ).stdout.split()  # this interpreter and a fixed probe, no input  # nosec B603
        runs.append((float(out[0]), out[1] == "True", out[2] == "True"))
    return {
        "import_ms": [round(ms, 1) for ms, _, _ in runs],
        "import_ms_median": round(statistics.median(ms for ms, _, _ in runs), 1),
        "reads_number_rules_at_import": any(rbnf or locales for _, rbnf, locales in runs),
    }


def run_normalize_cost() -> dict[str, Any]:
    rows = []
    for lang in (code for code in LANGUAGES if code != "na"):
        started = time.perf_counter()
        normalize(dense_text(lang, 0), lang)
        first_ms = (time.perf_counter() - started) * 1000.0
        warm = []
        for run in range(1, RUNS + 1):
            text = dense_text(lang, run)
            started = time.perf_counter()
            normalize(text, lang)
            warm.append((time.perf_counter() - started) * 1000.0)
        rows.append({"lang": lang, "first_ms": round(first_ms, 2), "ms": round(statistics.median(warm), 2), "max_ms": round(max(warm), 2)})
    return {"text_chars": TEXT_CHARS, "runs": RUNS, "normalize_rows": rows, **import_ms()}


def format_normalize_table(report: dict[str, Any]) -> str:
    lines = [
        f"Normalizing {report['text_chars']:,} characters dense with numbers, per language (median of {report['runs']} texts; "
        "first: the language's rules built and read)",
        f"{'lang':<6}{'first ms':>10}{'ms':>8}{'max ms':>9}",
    ]
    lines += [f"{r['lang']:<6}{r['first_ms']:>10.1f}{r['ms']:>8.2f}{r['max_ms']:>9.2f}" for r in report["normalize_rows"]]
    lines.append(
        f"\nimport supertonic_engine: median {report['import_ms_median']} ms of {report['import_ms']}; "
        f"reads number rules at import: {report['reads_number_rules_at_import']}"
    )
    return "\n".join(lines)
