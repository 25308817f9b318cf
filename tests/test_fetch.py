"""fetch-model: fails fast and clearly without a route to the hub, downloads through the real hub
client from a local server in the hub's URL layout, resumes, falls back, and verifies every file."""

from __future__ import annotations

import json
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from published_assets import REPO_ROOT, published_assets

from supertonic_engine.errors import FetchFailed, ModelCorrupt
from supertonic_engine.files import file_sha256
from supertonic_tools import fetch
from supertonic_tools.verify import ReleaseFile

RELEASE_DIR = REPO_ROOT / "tools" / "supertonic_tools" / "release"


ARCHIVE, ORIGINAL = fetch.SOURCES


# --- a model hub on localhost -------------------------------------------------------------------


@dataclass
class Hub:
    """Serves directories as ``/{repo}/resolve/{revision}/{path}``, as the hub does (HEAD and GET,
    ETag, X-Repo-Commit, Content-Length, Range). ``faults[path]`` is a queue of what the next
    GETs of that file meet: ``drop`` (half the body, then the connection closes), ``error`` (500) or
    ``unsatisfiable`` (416, what a server answers a range beyond its file)."""

    repos: dict[tuple[str, str], Path] = field(default_factory=dict)
    faults: dict[str, list[str]] = field(default_factory=dict)
    log: list[tuple[str, str, str | None, int]] = field(default_factory=list)  # (method, path, Range, status)
    endpoint: str = ""

    def sent(self, path: str) -> list[tuple[str | None, int]]:
        return [(rng, status) for method, p, rng, status in self.log if method == "GET" and p.endswith("/" + path)]


def _handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _answer(self, status: int, name: str) -> None:
            hub.log.append((self.command, self.path, self.headers.get("Range"), status))
            self.send_response(status)
            if status >= 400:
                if status in (404, 500):
                    self.send_header("X-Error-Code", "EntryNotFound" if status == 404 else "InternalError")
                self.send_header("Content-Length", "0")
                self.end_headers()

        def _serve(self, body: bool) -> None:
            m = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", self.path)
            root = hub.repos.get((m.group(1), m.group(2))) if m else None
            local = root / m.group(3) if root and m else None
            if local is None or not local.is_file():
                return self._answer(404, "")
            name = m.group(3) if m else ""
            fault = hub.faults[name].pop(0) if body and hub.faults.get(name) else None
            if fault == "error":
                return self._answer(500, name)
            if fault == "unsatisfiable":
                return self._answer(416, name)
            data = local.read_bytes()
            start = 0
            if rng := self.headers.get("Range"):
                start = int(re.fullmatch(r"bytes=(\d+)-", rng).group(1))  # type: ignore[union-attr]
            self._answer(206 if start else 200, name)
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.send_header("ETag", f'"{file_sha256(local)}"')
            self.send_header("X-Repo-Commit", m.group(2) if m else "")
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if not body:
                return
            if fault == "drop":
                self.wfile.write(data[start : start + (len(data) - start) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(data[start:])

    return Handler


@pytest.fixture
def hub(monkeypatch):
    hub = Hub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hub.endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    yield hub
    server.shutdown()
    server.server_close()


@pytest.fixture
def release(tiny_model_dir, tmp_path, monkeypatch) -> Path:
    """A small release to serve (the tiny stand-in plus LICENSE and README.md), with the table
    swapped for its files' sizes and digests."""
    root = Path(shutil.copytree(tiny_model_dir, tmp_path / "served"))
    shutil.copy(RELEASE_DIR / "LICENSE", root / "LICENSE")
    (root / "README.md").write_text("model card\n")
    table = {name: ReleaseFile((root / name).stat().st_size, file_sha256(root / name)) for name in fetch.RELEASE_FILES}
    monkeypatch.setattr(fetch, "RELEASE_FILES", table)
    return root


def _same_files(a: Path, b: Path) -> bool:
    names = [*fetch.RELEASE_FILES, *fetch.UNVERIFIED_FILES]
    return all((a / n).read_bytes() == (b / n).read_bytes() for n in names)


# --- downloads through the hub client ------------------------------------------------------------


def test_a_good_release_is_accepted_and_lands_in_out(hub, release, tmp_path):
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    out = fetch.fetch_model(tmp_path / "model")
    assert _same_files(release, out)
    assert not (tmp_path / "model.partial").exists()
    assert not list(out.rglob("*.incomplete")) and not (out / ".fetch-model.json").exists()
    assert all(ORIGINAL.repo not in path for _, path, _, _ in hub.log)  # the first source sufficed


def test_one_changed_byte_is_refused_naming_the_file_and_both_digests(hub, release, tmp_path):
    expected = fetch.RELEASE_FILES["onnx/tts.json"].sha256
    data = bytearray((release / "onnx" / "tts.json").read_bytes())
    data[10] ^= 1
    (release / "onnx" / "tts.json").write_bytes(bytes(data))
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    with pytest.raises(FetchFailed) as err:
        fetch.fetch_model(tmp_path / "model")
    message = err.value.message
    assert "onnx/tts.json" in message and expected in message and file_sha256(release / "onnx" / "tts.json") in message
    assert "run fetch-model again" in message
    assert not (tmp_path / "model").exists() and not (tmp_path / "model.partial" / "onnx" / "tts.json").exists()


def test_a_truncated_file_is_refused_as_incomplete(hub, release, tmp_path):
    vocoder = release / "onnx" / "vocoder.onnx"
    vocoder.write_bytes(vocoder.read_bytes()[:-100])
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    incomplete = r"onnx/vocoder.onnx is [\d,]+ bytes, expected [\d,]+: the download is incomplete; run fetch-model again to continue"
    with pytest.raises(FetchFailed, match=incomplete):
        fetch.fetch_model(tmp_path / "model")
    assert not (tmp_path / "model").exists()


VECTOR_ESTIMATOR = "onnx/vector_estimator.onnx"


def _cut_off(hub: Hub, release: Path, tmp_path: Path, monkeypatch) -> int:
    """A first run cut off in the middle of the vector estimator; returns how many bytes it kept."""
    from huggingface_hub import constants

    # The client writes in 10 MB blocks; the served graph is smaller, so let it write as bytes arrive.
    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    hub.faults[VECTOR_ESTIMATOR] = ["drop", "error"]  # cut mid-file, then the client's own retry fails too
    with pytest.raises(FetchFailed, match="run fetch-model again to continue"):
        fetch.fetch_model(tmp_path / "model")
    kept = _partial(tmp_path).stat().st_size
    assert 0 < kept < (release / VECTOR_ESTIMATOR).stat().st_size
    # The original repository lacks the file: its refusal costs nothing of what the archive delivered.
    assert hub.sent(VECTOR_ESTIMATOR)[-2:] == [(f"bytes={kept}-", 404), (None, 404)]
    note = json.loads((tmp_path / "model.partial" / ".fetch-model.json").read_text())
    assert note == {"source": f"{ORIGINAL.repo}@{ORIGINAL.revision}"}  # the last source tried
    return kept


def _partial(tmp_path: Path) -> Path:
    return tmp_path / "model.partial" / "onnx" / "vector_estimator.onnx.incomplete"


def test_an_interrupted_download_resumes_where_it_stopped_on_the_next_run(hub, release, tmp_path, monkeypatch):
    kept = _cut_off(hub, release, tmp_path, monkeypatch)
    first_run = len(hub.log)
    fetched_whole = {p for m, p, _, status in hub.log if m == "GET" and status == 200 and not p.endswith(VECTOR_ESTIMATOR)}
    assert fetched_whole

    out = fetch.fetch_model(tmp_path / "model")
    second = [(p, rng) for m, p, rng, _ in hub.log[first_run:] if m == "GET"]
    assert (f"/{ARCHIVE.repo}/resolve/{ARCHIVE.revision}/{VECTOR_ESTIMATOR}", f"bytes={kept}-") in second
    assert not fetched_whole & {p for p, _ in second}  # what the first run finished is not fetched again
    assert _same_files(release, out)


@pytest.mark.parametrize(("fault", "status"), [("unsatisfiable", 416), ("error", 500)])
def test_a_refused_resumption_starts_the_file_over_in_the_same_run(hub, release, tmp_path, monkeypatch, fault, status):
    kept = _cut_off(hub, release, tmp_path, monkeypatch)
    hub.faults[VECTOR_ESTIMATOR] = [fault]
    out = fetch.fetch_model(tmp_path / "model")
    assert hub.sent(VECTOR_ESTIMATOR)[-2:] == [(f"bytes={kept}-", status), (None, 200)]
    assert _same_files(release, out)


@pytest.mark.parametrize("length", ["full", "cut"])
def test_a_corrupt_partial_from_an_earlier_run_is_downloaded_again(hub, release, tmp_path, monkeypatch, caplog, length):
    kept = _cut_off(hub, release, tmp_path, monkeypatch)
    size = (release / VECTOR_ESTIMATOR).stat().st_size
    _partial(tmp_path).write_bytes(b"\0" * (size if length == "full" else kept))
    before = len(hub.sent(VECTOR_ESTIMATOR))
    out = fetch.fetch_model(tmp_path / "model")
    assert hub.sent(VECTOR_ESTIMATOR)[before:] == ([] if length == "full" else [(f"bytes={kept}-", 206)]) + [(None, 200)]
    assert "the partial download kept from an earlier run was corrupt" in caplog.text
    assert _same_files(release, out)


def test_a_failed_layout_check_leaves_a_download_the_next_run_redoes(hub, release, tmp_path):
    broken = Path(shutil.copytree(release, tmp_path / "broken"))
    (broken / "onnx" / "tts.json").write_text("[]")  # parses, but is not a tts.json
    hub.repos[(ARCHIVE.repo, "main")] = broken
    with pytest.raises(ModelCorrupt, match="tts.json"):
        fetch.fetch_model(tmp_path / "model", revision="main")
    hub.repos[(ARCHIVE.repo, "main")] = release  # the branch moved on
    out = fetch.fetch_model(tmp_path / "model", revision="main")
    assert _same_files(release, out)  # nothing of the first run's unverified files was reused


def test_a_failed_swap_leaves_a_download_the_next_run_finishes(hub, release, tmp_path, monkeypatch):
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    swap = fetch.replace_directory

    def fail(staged: Path, target: Path) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(fetch, "replace_directory", fail)
    with pytest.raises(OSError, match="no space"):
        fetch.fetch_model(tmp_path / "model")
    monkeypatch.setattr(fetch, "replace_directory", swap)
    first_run = len(hub.log)
    out = fetch.fetch_model(tmp_path / "model")
    # Every verified file is kept; only the model card, which nothing verifies, is fetched again.
    assert {p for m, p, _, _ in hub.log[first_run:] if m == "GET"} == {f"/{ARCHIVE.repo}/resolve/{ARCHIVE.revision}/README.md"}
    assert _same_files(release, out) and not (out / ".fetch-model.json").exists()


def test_an_unverified_revision_comes_whole_from_one_repository(hub, release, tmp_path):
    archive = Path(shutil.copytree(release, tmp_path / "archive-main"))
    (archive / "LICENSE").write_text("the archive's main branch\n")
    (archive / "README.md").unlink()  # the last file: every other one came from the archive first
    hub.repos[(ARCHIVE.repo, "main")] = archive
    hub.repos[(ORIGINAL.repo, "main")] = release
    out = fetch.fetch_model(tmp_path / "model", revision="main")
    assert _same_files(release, out)


def test_a_sources_pinned_revision_named_as_revision_is_verified(hub, release, tmp_path):
    with (release / "LICENSE").open("a") as f:
        f.write("one more line\n")
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    with pytest.raises(FetchFailed, match="LICENSE has SHA-256"):
        fetch.fetch_model(tmp_path / "model", revision=ARCHIVE.revision)


def test_the_archive_failing_falls_back_to_the_original_repository(hub, release, tmp_path):
    hub.repos[(ORIGINAL.repo, ORIGINAL.revision)] = release  # the archive answers 404
    out = fetch.fetch_model(tmp_path / "model")
    assert _same_files(release, out)
    archive_answers = {status for _, path, _, status in hub.log if path.startswith(f"/{ARCHIVE.repo}/")}
    assert archive_answers == {404}


def test_the_table_is_applied_only_at_the_pinned_revision(hub, tiny_model_dir, tmp_path):
    # The real table stays: the stand-in's graphs do not match it.
    served = Path(shutil.copytree(tiny_model_dir, tmp_path / "served"))
    (served / "LICENSE").write_text("another revision's license\n")
    (served / "README.md").write_text("card\n")
    other = "0123456789abcdef0123456789abcdef01234567"
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = served
    hub.repos[(ARCHIVE.repo, other)] = served
    with pytest.raises(FetchFailed, match="onnx/duration_predictor.onnx has SHA-256 [0-9a-f]{64}"):
        fetch.fetch_model(tmp_path / "pinned")
    out = fetch.fetch_model(tmp_path / "other", revision=other)
    assert _same_files(served, out)


def test_a_verified_model_is_not_downloaded_again(hub, release, tmp_path):
    hub.repos[(ARCHIVE.repo, ARCHIVE.revision)] = release
    out = fetch.fetch_model(tmp_path / "model")
    before = len(hub.log)
    assert fetch.fetch_model(out) == out
    assert len(hub.log) == before


# --- the table and where it comes from ---------------------------------------------------------


def _markdown_rows(text: str, path_cell: str) -> dict[str, ReleaseFile]:
    pattern = rf"^\| {path_cell} \| ([\d,]+) \| ([0-9a-f]{{64}}) \|"
    return {m.group(1): ReleaseFile(int(m.group(2).replace(",", "")), m.group(3)) for m in re.finditer(pattern, text, re.MULTILINE)}


def test_the_table_equals_the_provenance_manifest():
    rows = _markdown_rows((RELEASE_DIR / "PROVENANCE.md").read_text(), r"`([^`]+)`")
    assert rows == fetch.RELEASE_FILES


def test_the_table_equals_the_published_values_in_the_shared_assets():
    rows = _markdown_rows((published_assets() / "README.md").read_text(), r"(\S+)")
    assert len(rows) == 16
    assert {name: fetch.RELEASE_FILES[name] for name in rows} == rows
    assert set(fetch.RELEASE_FILES) - set(rows) == {"LICENSE"}  # pinned by the public manifests (PROVENANCE.md)


def test_every_vendored_file_has_the_tables_size_and_digest():
    vendored = sorted(p.relative_to(RELEASE_DIR).as_posix() for p in RELEASE_DIR.rglob("*") if p.is_file() and p.name != "PROVENANCE.md")
    assert len(vendored) == 13 and "LICENSE" in vendored
    for name in vendored:
        assert ReleaseFile((RELEASE_DIR / name).stat().st_size, file_sha256(RELEASE_DIR / name)) == fetch.RELEASE_FILES[name], name


def test_the_second_source_is_the_official_packages():
    from supertonic.config import MODEL_CONFIGS

    assert (ORIGINAL.repo, ORIGINAL.revision) == (MODEL_CONFIGS["supertonic-3"]["repo"], MODEL_CONFIGS["supertonic-3"]["revision"])


# --- refusals before any download ----------------------------------------------------------------


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
    assert not (tmp_path / "model").exists() and not (tmp_path / "model.partial").exists()


@pytest.mark.parametrize("kind", ["file", "foreign_dir", "cwd", "foreign_partial"])
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
    elif kind == "foreign_partial":
        monkeypatch.setattr(fetch, "_check_reachable", lambda endpoint, timeout_s: None)
        target = tmp_path / "model"
        (tmp_path / "model.partial").mkdir()
        (tmp_path / "model.partial" / "thesis.tex").write_text("keep me")
    else:
        target = tmp_path
        monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidParameter) as err:
        fetch.fetch_model(target)
    assert err.value.field == "out"
    assert kind == "foreign_partial" or target.exists()
    assert kind not in ("foreign_dir", "foreign_partial") or next(tmp_path.rglob("thesis.tex")).read_text() == "keep me"


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
