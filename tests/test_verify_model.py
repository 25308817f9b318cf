"""verify-model: a model directory checked file by file against the release's table."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from supertonic_engine.files import file_sha256
from supertonic_tools import fetch
from supertonic_tools import verify as verify_module
from supertonic_tools.verify import MISSING, MODIFIED, REAL, STANDIN, ReleaseFile, check_file, check_model

SCRIPT = Path(sys.executable).parent / "supertonic-lambda"
RELEASE_DIR = Path(fetch.__file__).parent / "release"
GRAPHS = [name for name in fetch.RELEASE_FILES if name.endswith(".onnx")]
SMALL_FILES = [name for name in fetch.RELEASE_FILES if not name.endswith(".onnx")]


def verify(model_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), "verify-model", str(model_dir)], capture_output=True, text=True, timeout=120)


def lines_by_file(stdout: str) -> dict[str, str]:
    return {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in stdout.splitlines() if not line.startswith("verdict")}


def test_the_tiny_stand_in_is_reported_as_a_stand_in(tiny_model_dir):
    proc = verify(tiny_model_dir)
    assert proc.returncode == 0, proc.stderr
    assert "verdict: stand-in model" in proc.stdout
    lines = lines_by_file(proc.stdout)
    assert all(lines[name].startswith(STANDIN) for name in GRAPHS)


def test_real_small_files_beside_stand_in_graphs_say_which_is_which(tiny_model_dir, tmp_path):
    model = tmp_path / "model"
    (model / "onnx").mkdir(parents=True)
    for name in GRAPHS:
        shutil.copy(tiny_model_dir / name, model / name)
    for name in SMALL_FILES:
        (model / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RELEASE_DIR / name, model / name)
    proc = verify(model)
    assert proc.returncode == 0, proc.stderr
    lines = lines_by_file(proc.stdout)
    assert {name: lines[name].split(" ")[0] for name in fetch.RELEASE_FILES} == {
        **{name: STANDIN for name in GRAPHS},
        **{name: REAL for name in SMALL_FILES},
    }
    assert proc.stdout.splitlines()[-1].startswith("verdict: stand-in model")


def test_one_changed_json_byte_is_reported_as_modified(tiny_model_dir, tmp_path):
    model = Path(shutil.copytree(tiny_model_dir, tmp_path / "model"))
    voice = model / "voice_styles" / "M3.json"
    data = bytearray(voice.read_bytes())
    data[-3] ^= 1
    voice.write_bytes(bytes(data))
    proc = verify(model)
    assert proc.returncode == 1
    line = lines_by_file(proc.stdout)["voice_styles/M3.json"]
    assert line.startswith(MODIFIED) and file_sha256(voice) in line and fetch.RELEASE_FILES["voice_styles/M3.json"].sha256 in line
    assert "verdict: modified: voice_styles/M3.json modified" in proc.stdout
    verdict = proc.stdout.splitlines()[-1]
    assert "supertonic-lambda fetch-model --out DIR" in verdict and "supertonic-lambda make-model --size tiny|full --out DIR" in verdict


def test_a_missing_graph_and_a_missing_directory(tiny_model_dir, tmp_path):
    model = Path(shutil.copytree(tiny_model_dir, tmp_path / "model"))
    (model / "onnx" / "vocoder.onnx").unlink()
    proc = verify(model)
    assert proc.returncode == 1 and "onnx/vocoder.onnx: missing" in proc.stdout and "onnx/vocoder.onnx missing" in proc.stdout
    proc = verify(tmp_path / "nowhere")
    assert proc.returncode == 2 and "is not a directory" in proc.stderr


def test_a_copy_of_the_release_is_real_and_a_short_file_incomplete(tmp_path):
    # A release of small files, with the table that describes it.
    table = {}
    for name in fetch.RELEASE_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(name.encode() * 3)
        table[name] = ReleaseFile((tmp_path / name).stat().st_size, file_sha256(tmp_path / name))
    result = check_model(tmp_path, table)
    assert result.verdict == REAL and result.ok and result.summary().startswith("real model")
    (tmp_path / "onnx" / "vocoder.onnx").write_bytes(b"onnx")
    (tmp_path / "LICENSE").unlink()
    result = check_model(tmp_path, table)
    assert result.verdict == MODIFIED and not result.ok
    assert [(f.path, f.status, f.incomplete) for f in result.files if f.status != REAL] == [
        ("onnx/vocoder.onnx", MODIFIED, True),
        ("LICENSE", MISSING, False),
    ]


def test_a_stand_in_graph_is_told_by_its_mark_without_hashing_it(tiny_model_dir, monkeypatch):
    hashed = []
    monkeypatch.setattr(verify_module, "file_sha256", lambda path: hashed.append(path) or file_sha256(path))
    checks = [check_file(tiny_model_dir, name, fetch.RELEASE_FILES[name]) for name in GRAPHS]
    assert [(c.status, c.sha256) for c in checks] == [(STANDIN, None)] * len(GRAPHS)
    assert hashed == []
    assert check_file(tiny_model_dir, "onnx/tts.json", fetch.RELEASE_FILES["onnx/tts.json"]).sha256 is not None
