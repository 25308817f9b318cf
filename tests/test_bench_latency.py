"""The latency benchmark: its percentile and stall-margin arithmetic, the mp3 prefixes, and one tiny run."""

from __future__ import annotations

import io
import json
import random

import numpy as np
import pytest
import soundfile as sf

from supertonic_harness.bench.latency import (
    Mp3Prefixes,
    Settings,
    coalesce,
    run_latency,
    smallest_margin,
)
from supertonic_harness.bench.run import register
from supertonic_harness.function.rie import RESPONSE_STREAM
from supertonic_harness.stats import percentile


def test_percentile_is_the_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 4.0, 2.0, 3.0], 50) == 3.0
    assert percentile([5.0, 1.0, 4.0, 2.0, 3.0], 95) == 5.0
    twenty = [float(n) for n in range(20, 0, -1)]
    assert (percentile(twenty, 50), percentile(twenty, 95), percentile(twenty, 100)) == (10.0, 19.0, 20.0)
    assert percentile([7.5], 95) == 7.5
    assert percentile([], 50) is None


def test_margin_is_the_audio_ahead_of_each_piece_at_its_worst() -> None:
    # Pieces at 0.25, 0.75, 2.25 and 2.5 s carrying 1, 0.5, 1.5 and 1 s of audio: piece 2 comes
    # 2 s after the first byte with only 1.5 s played, half a second of silence.
    arrivals = [0.25, 0.75, 2.25, 2.5]
    before = [0.0, 1.0, 1.5, 3.0]
    assert smallest_margin(arrivals, before.__getitem__) == -0.5
    # Audio always ahead: the tightest piece is the second, with 1 - 0.5 s to spare.
    assert smallest_margin([0.0, 0.5, 1.0], [0.0, 1.0, 4.0].__getitem__) == 0.5


def test_reads_a_moment_apart_are_one_arrival_at_the_last_read() -> None:
    arrivals, pieces = coalesce([0.5, 0.5005, 0.501, 0.75, 2.0], [b"a", b"b", b"c", b"d", b"e"], within_s=0.001)
    assert (arrivals, pieces) == ([0.501, 0.75, 2.0], [b"abc", b"d", b"e"])
    assert coalesce([], []) == ([], [])


def test_one_piece_has_no_margin() -> None:
    assert smallest_margin([1.0], lambda i: pytest.fail("nothing to decode")) is None
    assert smallest_margin([], lambda i: pytest.fail("nothing to decode")) is None


def test_margin_search_matches_every_piece_decoded_with_fewer_decodes() -> None:
    rng = random.Random(7)
    for _ in range(50):
        n = rng.randint(2, 60)
        arrivals = sorted(rng.uniform(0, 20) for _ in range(n))
        before = [0.0]
        for _ in range(n - 1):
            before.append(before[-1] + rng.choice([0.0, rng.uniform(0, 1.5)]))
        decoded: list[int] = []

        def audio_before(i: int, before: list[float] = before, decoded: list[int] = decoded) -> float:
            decoded.append(i)
            return before[i]

        exact = min(before[i] - (arrivals[i] - arrivals[0]) for i in range(1, n))
        assert smallest_margin(arrivals, audio_before) == exact
        assert len(decoded) == len(set(decoded)) <= n - 1


def test_mp3_prefixes_hold_the_audio_of_their_whole_frames() -> None:
    rate = 44_100
    noise = (np.random.default_rng(0).standard_normal(rate) * 0.1).astype(np.float32)
    encoded = io.BytesIO()
    sf.write(encoded, noise, rate, format="MP3", subtype="MPEG_LAYER_III")
    data = encoded.getvalue()
    quarter = len(data) // 4
    prefixes = Mp3Prefixes([data[:quarter], data[quarter : 2 * quarter], data[2 * quarter :]])
    seconds = [prefixes(n) for n in range(4)]
    assert seconds[0] == 0.0
    assert seconds == sorted(seconds)
    assert 0.1 < seconds[1] < seconds[2] < seconds[3]
    assert seconds[3] == pytest.approx(len(sf.read(io.BytesIO(data))[0]) / rate)
    assert prefixes.decodes == 4


def test_ratios_and_the_estimate_of_the_default_run_from_the_cells_measured() -> None:
    from supertonic_harness.bench.latency import TEXTS, estimate_default_run, stream_vs_buffered

    cells = [
        {
            "profile": "2vcpu-2gb",
            "precision": "int8",
            "mode": mode,
            "text": name,
            "ttfb_p50_s": 8.0 if mode == "BUFFERED" else 1.0,
            "last_byte_p50_s": 8.0 if mode == "BUFFERED" else 10.0,
            "wall_s_per_warm_request": 1.0,
            "wall_s_per_first_byte_request": 0.5 if mode == RESPONSE_STREAM else None,
            "wall_s_per_cold_request": 2.0,
        }
        for mode in ("BUFFERED", RESPONSE_STREAM)
        for name in TEXTS
    ]
    ratios = stream_vs_buffered(cells)
    assert [(r["text"], r["total_time_ratio"], r["ttfb_ratio"]) for r in ratios] == [(name, 1.25, 0.125) for name in TEXTS]
    settings = {"profiles": ["2vcpu-2gb"], "precisions": ["int8"], "modes": ["BUFFERED", RESPONSE_STREAM], "texts": list(TEXTS)}
    estimate = estimate_default_run({"settings": settings, "cells": cells})
    # Per mode: 20 + 20 + 5 + 5 warm requests and 2 cold ones of 2 s for the sentence and the paragraph;
    # buffered, every warm one whole (1 s); streamed, 5 + 5 + 2 + 2 whole and the other 36 hung up (0.5 s).
    assert estimate["measured_cells_at_default_counts_s"] == (50 + 8) + (14 + 18 + 8)
    assert estimate["default_run_s"] == 98 * 4  # 2 profiles x 2 precisions, 1 of them measured
    streamed_only = estimate_default_run({"settings": {**settings, "modes": [RESPONSE_STREAM]}, "cells": cells[len(TEXTS) :]})
    assert streamed_only["default_run_s"] is None and streamed_only["measured_cells_at_default_counts_s"] == 40


def _bench_parser():
    import argparse

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser


def test_latency_flags_pick_the_cells_and_refuse_unknown_ones() -> None:
    from supertonic_harness.bench.latency import settings_from_args

    args = _bench_parser().parse_args(
        ["bench", "--latency", "--model", "tiny", "--texts", "page", "--requests", "3", "--modes", "buffered"]
    )
    settings = settings_from_args(args)
    assert (settings.texts, dict(settings.requests), settings.modes, settings.cold_texts) == (
        ("page",),
        {"page": 3},
        ("BUFFERED",),
        ("sentence", "paragraph"),
    )
    with pytest.raises(SystemExit, match="--precisions"):
        settings_from_args(_bench_parser().parse_args(["bench", "--latency", "--precisions", "fp16"]))


def test_first_chunk_flags_are_deployment_settings_where_0_turns_one_off() -> None:
    from supertonic_harness.bench.latency import synthesis_settings

    chosen = synthesis_settings(Settings(first_chunk_chars=50, first_chunk_steps=3))
    assert (chosen["first_chunk_chars"], chosen["first_chunk_steps"]) == (50, 3)
    off = synthesis_settings(Settings(first_chunk_chars=0, first_chunk_steps=0))
    assert "first_chunk_chars" not in off and "first_chunk_steps" not in off


def test_the_threads_flag_is_the_sessions_setting_the_function_reads() -> None:
    from supertonic_function.config import FunctionConfig
    from supertonic_harness.bench.latency import function_environment, settings_from_args

    args = _bench_parser().parse_args(["bench", "--latency", "--intra-op-threads", "2"])
    environment = function_environment(settings_from_args(args))
    assert environment == {"SUPERTONIC_INTRA_OP_THREADS": "2"}
    config = FunctionConfig.from_env({**environment, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1769"})
    assert config.session_config(environment).intra_op_threads == 2  # over the memory size's one
    assert function_environment(settings_from_args(_bench_parser().parse_args(["bench", "--latency"]))) == {}


def test_a_tiny_run_times_both_modes_end_to_end(tmp_path, capsys) -> None:
    settings = Settings(
        model="tiny",
        profiles=("2vcpu-2gb",),
        precisions=("fp32",),
        texts=("paragraph",),
        requests={"paragraph": 3},
        whole={"paragraph": 2},  # the third streamed request hangs up at its first piece
        cold=1,
        cold_texts=("paragraph",),
        first_chunk_chars=60,
    )
    report = run_latency(settings)
    json.dumps(report)  # the report is what --json writes
    cells = {cell["mode"]: cell for cell in report["cells"]}
    assert set(cells) == {"BUFFERED", RESPONSE_STREAM}
    prepared = report["texts"]["paragraph"]
    assert prepared["first_chars"] <= 60 and prepared["count"] >= 2
    for cell in cells.values():
        assert cell["failures"] == [] and cell["warm_requests"] == 3 and len(cell["cold_ttfb_s"]) == 1
        assert cell["ttfb_p50_s"] <= cell["last_byte_p50_s"]
        assert cell["chunks_header"] == [prepared["count"]]
        assert cell["peak_rss_mb_max"] > 0
    streamed = cells[RESPONSE_STREAM]
    assert streamed["pieces_median"] > 1 and streamed["smallest_margin_s"] is not None
    # A buffered answer's first byte is its whole: every buffered request is read to the end.
    assert (cells["BUFFERED"]["whole_requests"], streamed["whole_requests"]) == (3, 2)
    hung_up = [s for s in streamed["samples"] if s["kind"] == "warm" and s["last_byte_s"] is None]
    assert len(hung_up) == 1 and hung_up[0]["ttfb_s"] > 0 and hung_up[0]["peak_rss_mb"] is None
    assert cells["BUFFERED"]["smallest_margin_s"] is None
    assert [r["text"] for r in report["ratios"]] == ["paragraph"]
