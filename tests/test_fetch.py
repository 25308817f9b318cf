"""fetch-model: fails fast and clearly without a route to the hub, and checks what it downloads."""

from __future__ import annotations

import hashlib
import socket
import time

import pytest

from supertonic_engine.errors import FetchFailed
from supertonic_tools import fetch


def test_without_a_route_to_the_hub_it_fails_fast_with_what_to_do(tmp_path, monkeypatch):
    # An address nothing listens on: the same refusal a machine without internet gets.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(FetchFailed) as err:
        fetch.fetch_model(tmp_path / "model", timeout_s=5)
    assert time.monotonic() - started < 5
    assert "cannot reach the model hub" in err.value.message and "copy DIR" in err.value.message
    assert not (tmp_path / "model").exists()


def test_the_pinned_revision_is_the_official_packages():
    from supertonic.config import MODEL_CONFIGS

    assert fetch.REVISION == MODEL_CONFIGS["supertonic-3"]["revision"]
    assert fetch.REPO_ID == MODEL_CONFIGS["supertonic-3"]["repo"]


def test_a_truncated_or_altered_graph_is_refused(tmp_path, monkeypatch):
    (tmp_path / "onnx").mkdir()
    payload = b"model bytes"
    digest = hashlib.sha256(payload).hexdigest()
    known = {name: (len(payload), digest[:8], digest[-4:]) for name in fetch.KNOWN_GRAPHS}
    monkeypatch.setattr(fetch, "KNOWN_GRAPHS", known)
    for name in known:
        (tmp_path / "onnx" / f"{name}.onnx").write_bytes(payload)
    fetch.verify_graphs(tmp_path)
    (tmp_path / "onnx" / "vocoder.onnx").write_bytes(payload[:-1])
    with pytest.raises(FetchFailed, match="incomplete"):
        fetch.verify_graphs(tmp_path)
    (tmp_path / "onnx" / "vocoder.onnx").write_bytes(b"X" + payload[1:])
    with pytest.raises(FetchFailed, match="corrupt"):
        fetch.verify_graphs(tmp_path)


@pytest.mark.parametrize("kind", ["file", "foreign_dir", "cwd"])
def test_fetch_never_replaces_what_is_not_a_model(tmp_path, monkeypatch, kind):
    from supertonic_engine.errors import InvalidParameter

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # never reached: the check comes first
    if kind == "file":
        target = tmp_path / "notes.txt"
        target.write_text("keep me")
    elif kind == "foreign_dir":
        target = tmp_path / "Documents"
        target.mkdir()
        (target / "thesis.tex").write_text("keep me")
    else:
        target = tmp_path
        monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidParameter) as err:
        fetch.fetch_model(target)
    assert err.value.field == "out"
    assert target.exists() and (kind != "foreign_dir" or (target / "thesis.tex").read_text() == "keep me")


def test_an_earlier_model_download_may_be_replaced_and_an_empty_dir_used(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    earlier = tmp_path / "model"
    (earlier / "onnx").mkdir(parents=True)
    (earlier / "onnx" / "tts.json").write_text("{}")
    empty = tmp_path / "empty"
    empty.mkdir()
    for target in (earlier, empty):
        with pytest.raises(FetchFailed, match="cannot reach"):  # got past the check, stopped at the probe
            fetch.fetch_model(target)
    assert (earlier / "onnx" / "tts.json").exists()  # a failed fetch leaves the earlier model in place
