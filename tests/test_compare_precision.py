"""compare-precision: int8 against fp32, same seed, per sentence, as a table and as JSON."""

from __future__ import annotations

import json
import shutil

import numpy as np

from supertonic_cli.main import main
from supertonic_harness.bench import compare_precision


def test_compare_precision_prints_its_table_and_writes_json(tiny_model_dir, tmp_path, capsys):
    model = tmp_path / "tiny"
    shutil.copytree(tiny_model_dir, model)
    out = tmp_path / "compare.json"
    assert main(["compare-precision", "--model", str(model), "--steps", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "thresholds: same duration, log-mel distance <=" in printed
    assert "mel dB" in printed and "SNR dB" in printed and "stand-in" in printed
    report = json.loads(out.read_text())  # strict JSON: no NaN
    assert len(report["sentences"]) == len(compare_precision.SENTENCES)
    assert {r["lang"] for r in report["sentences"]} == {"en", "ko"}
    assert all(r["same_duration"] for r in report["sentences"])  # the duration predictor is fp32 in both
    assert report["thresholds"] == json.loads(json.dumps(compare_precision.THRESHOLDS))
    assert report["quantization"]["per_channel"] is True
    assert set(report["idle_rss_mb"]) == {"fp32", "fp32_and_int8"}


def test_the_measures_see_what_they_should():
    rate = 44_100
    t = np.arange(rate) / rate
    speech = (np.sin(2 * np.pi * 220 * t) * (t < 0.6)).astype(np.float32) * 0.5
    speech[int(0.6 * rate) :] = 1e-3 * np.sin(2 * np.pi * 3000 * t[int(0.6 * rate) :])  # a quiet pause
    same = compare_precision.compare("en", "x", speech, speech.copy(), rate)
    assert same.snr_db == float("inf") and same.log_mel_distance_db == 0 and same.rms_ratio == 1 and not same.failed
    hiss = speech + np.random.default_rng(0).normal(0, 1e-2, speech.size).astype(np.float32)
    noisy = compare_precision.compare("en", "x", speech, hiss, rate)
    assert noisy.pause_frames > 0 and noisy.int8_pause_floor_db > noisy.fp32_pause_floor_db + 10
    assert "pause_floor" in noisy.failed
    quiet = compare_precision.compare("en", "x", speech, speech * 0.46, rate)  # a quantized vocoder's level drop
    assert "rms_ratio" in quiet.failed and "duration" not in quiet.failed
    shorter = compare_precision.compare("en", "x", speech, speech[:-100], rate)
    assert "duration" in shorter.failed
