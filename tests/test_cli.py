"""The console script as a user runs it: real processes, real files, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile as sf

SCRIPT = Path(sys.executable).parent / "supertonic-lambda"


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def run(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, input=stdin, timeout=120, env=env)


def test_synthesize_writes_decodable_audio_and_says_it_is_a_stand_in(tiny_model_dir, tmp_path):
    out = tmp_path / "hello.flac"
    proc = run(
        "synthesize",
        "Hello from a serverless function.",
        "--voice",
        "F1",
        "--lang",
        "en",
        "--steps",
        "2",
        "--seed",
        "1",
        "-o",
        str(out),
        "--model",
        str(tiny_model_dir),
    )
    assert proc.returncode == 0, proc.stderr
    from supertonic_engine.standin_marker import NOTE

    assert f"model: stand-in ({NOTE})" in proc.stdout
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()
    info = sf.info(out)
    assert info.samplerate == 44_100 and info.format == "FLAC" and info.duration > 0.5
    assert [p.name for p in tmp_path.iterdir()] == ["hello.flac"]  # no temporary left behind


def test_synthesize_json_reports_chunks_and_reads_stdin(tiny_model_dir, tmp_path):
    out = tmp_path / "ko.wav"
    proc = run(
        "synthesize",
        "-",
        "--lang",
        "ko",
        "--steps",
        "1",
        "--json",
        "-o",
        str(out),
        "--model",
        str(tiny_model_dir),
        stdin="첫 번째 문장입니다. 두 번째 문장도 있습니다.",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["model"] == "stand-in" and summary["lang"] == "ko" and summary["chunks"]
    assert summary["duration_s"] == pytest.approx(sf.info(out).duration, abs=1e-3)


def test_synthesize_blends_voices_and_reports_the_blend(tiny_model_dir, tmp_path):
    outputs = {}
    for voice in ("F1:7,M2:3", "F1"):
        out = tmp_path / f"{voice.replace(':', '-').replace(',', '_')}.wav"
        proc = run(
            "synthesize",
            "Two voices in one.",
            "--voice",
            voice,
            "--steps",
            "1",
            "--seed",
            "4",
            "--json",
            "-o",
            str(out),
            "--model",
            str(tiny_model_dir),
        )
        assert proc.returncode == 0, proc.stderr
        outputs[json.loads(proc.stdout)["voice"]] = out.read_bytes()
    assert set(outputs) == {"F1:0.7,M2:0.3", "F1"} and outputs["F1:0.7,M2:0.3"] != outputs["F1"]


def test_synthesize_pcm_is_24_khz_samples_as_the_summary_says(tiny_model_dir, tmp_path):
    out = tmp_path / "hello.pcm"
    proc = run("synthesize", "Raw samples.", "--steps", "1", "--json", "-o", str(out), "--model", str(tiny_model_dir))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["format"] == "pcm" and summary["sample_rate"] == 24_000
    assert out.stat().st_size / 2 / 24_000 == pytest.approx(summary["duration_s"], abs=2e-3)


@pytest.mark.parametrize(
    "args, field_hint",
    [
        (["synthesize", "", "-o", "x.wav"], "text is empty"),
        (["synthesize", "Hi.", "--voice", "nobody", "-o", "x.wav"], "voice 'nobody' not found"),
        (
            ["synthesize", "Hi.", "--voice", "F1:0.5,nobody:0.5", "-o", "x.wav"],
            "voice 'nobody' (in the blend 'F1:0.5,nobody:0.5') not found",
        ),
        (["synthesize", "Hi.", "--voice", "F1:0,M2:1", "-o", "x.wav"], "the weight of 'F1' is 0"),
        (["synthesize", "Hi.", "--lang", "klingon", "-o", "x.wav"], "language 'klingon'"),
        (["synthesize", "Hi.", "--steps", "0", "-o", "x.wav"], "steps must be"),
        (["synthesize", "Hi.", "-o", "x.aac"], "audio format 'aac'"),
        (["normalize", "", "--lang", "ko"], "text is empty"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line_and_no_traceback(tiny_model_dir, tmp_path, args, field_hint):
    proc = run(*args, "--model", str(tiny_model_dir))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert field_hint in lines[0]
    assert not (Path.cwd() / "x.wav").exists()


def test_a_missing_model_directory_says_how_to_get_one(tmp_path):
    proc = run("synthesize", "Hi.", "-o", str(tmp_path / "x.wav"), "--model", str(tmp_path / "absent"))
    assert proc.returncode == 1
    assert "fetch-model" in proc.stderr and "Traceback" not in proc.stderr


def test_normalize_prints_exactly_what_the_model_reads(tiny_model_dir):
    proc = run("normalize", "3개 주세요", "--lang", "ko", "--model", str(tiny_model_dir))
    assert proc.returncode == 0, proc.stderr
    import unicodedata

    assert proc.stdout.strip() == "<ko>" + unicodedata.normalize("NFKD", "세 개 주세요.") + "</ko>"


def test_ssml_from_standard_input_is_read_as_ssml_and_refused_naming_the_element(tiny_model_dir, tmp_path):
    fragment = 'Call <say-as interpret-as="telephone">555-0100</say-as>.<break time="1s"/>Bye.'
    proc = run("normalize", "-", "--text-type", "ssml", "--model", str(tiny_model_dir), stdin=fragment)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["<en>Call five five five, zero one zero zero.</en>", "<en>Bye.</en>"]
    marks = tmp_path / "marks.json"
    document = f"<speak>{fragment}</speak>"
    proc = run("synthesize", document, "--marks", "sentence", "-o", str(marks), "--model", str(tiny_model_dir))
    assert proc.returncode == 0, proc.stderr
    first, second = (json.loads(line) for line in marks.read_text(encoding="utf-8").splitlines())
    assert document.encode()[first["start"] : first["end"]].decode() == fragment[: fragment.index("<break")]
    assert second["value"] == "Bye." and second["time"] >= 1000
    proc = run("normalize", '<speak><emphasis level="strong">No</emphasis></speak>', "--model", str(tiny_model_dir))
    assert proc.returncode == 2 and "SSML <emphasis> is not supported" in proc.stderr and "Traceback" not in proc.stderr


def test_make_model_writes_the_official_layout(tmp_path):
    proc = run("make-model", "--size", "tiny", "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    assert "noise, not speech" in proc.stdout
    for name in ("duration_predictor", "text_encoder", "vector_estimator", "vocoder"):
        assert (tmp_path / "m" / "onnx" / f"{name}.onnx").is_file()


def test_fetch_model_fails_fast_here(tmp_path):
    import os
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run("fetch-model", "--out", str(tmp_path / "real"), env={**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{port}"})
    assert proc.returncode == 1
    assert "cannot reach the model hub" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "case, expected_code, hint",
    [
        ("make_model_over_a_folder", 2, "is not a stand-in model directory"),
        ("negative_seed", 2, "seed must be a non-negative integer"),
        ("unwritable_output", 1, "Permission denied"),
        ("fetch_over_a_file", 2, "is a file"),
    ],
)
def test_more_mistakes_are_one_line_too(tiny_model_dir, tmp_path, case, expected_code, hint):
    import os

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    args = {
        "make_model_over_a_folder": ["make-model", "--out", str(folder)],
        "negative_seed": ["make-model", "--out", str(tmp_path / "new"), "--seed", "-1"],
        "unwritable_output": ["synthesize", "Hi.", "-o", str(locked / "x.wav"), "--model", str(tiny_model_dir)],
        "fetch_over_a_file": ["fetch-model", "--out", str(folder / "keep.txt")],
    }[case]
    env = {**os.environ}
    if case == "unwritable_output" and os.geteuid() == 0:
        # root ignores directory modes; a path under a file cannot be created by anyone
        args[args.index("-o") + 1] = str(folder / "keep.txt" / "x.wav")
        hint = "keep.txt"
    proc = run(*args, env=env)
    assert proc.returncode == expected_code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr and hint in lines[0]
    assert (folder / "keep.txt").read_text() == "keep"
