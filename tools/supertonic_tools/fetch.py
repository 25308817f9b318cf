"""Download the real Supertonic 3 release from the model hub at a pinned revision, and verify every file.

Files arrive in ``<out>.partial`` beside ``out``, which survives a failure: the next run keeps the
files already verified and continues a cut-off file where it stopped (an HTTP Range request,
through huggingface_hub's own ``http_get``), so a dropped connection never costs the 400 MB again;
a cut-off file the server will not resume, or whose kept bytes prove wrong, starts over at once.
Only a complete, verified set replaces ``out``.

A machine without a route to the hub fails within seconds (one short connection probe) with a
message saying what to do instead, rather than hanging in retries.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from supertonic_engine.assets import load_assets
from supertonic_engine.errors import FetchFailed, InvalidParameter
from supertonic_engine.files import file_sha256, replace_directory

from .verify import REAL, FileCheck, ReleaseFile, check_file, check_model

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Source:
    repo: str
    revision: str

    def __str__(self) -> str:
        return f"{self.repo}@{self.revision[:12]}"


# Where the release is fetched from, in this order. Supertone archived its upstream in September 2026;
# the archived GitHub repository's example READMEs and current projects fetch the archive at this
# revision (release/PROVENANCE.md, "The release"), so it comes first. The official
# `supertonic` 1.3.1 SDK still pins the original repository (supertonic/config.py, MODEL_CONFIGS),
# the second source when the first fails. Both revisions hold the same files: public manifests
# list the same digests for both (release/PROVENANCE.md, "The release").
SOURCES = (
    Source("supertone-oss-archive/supertonic-3", "aafc6e32416a594460b32413efc49d7fe4ce6d46"),
    Source("Supertone/supertonic-3", "724fb5abbf5502583fb520898d45929e62f02c0b"),
)
DEFAULT_ENDPOINT = "https://huggingface.co"

# Every file of the release fetch-model downloads and verifies, with its published byte size and
# SHA-256, as the download manifests of a dozen public projects that pin these revisions publish them;
# the sources of each value are listed in release/PROVENANCE.md, whose table a test keeps equal to
# this one.
# LICENSE (15,007 bytes, 0d944a91…) is pinned by the same manifests for both repositories and
# revisions; release/LICENSE is a copy. README.md (the model card) is downloaded but not verified:
# no public manifest publishes its size or digest at either revision.
RELEASE_FILES: dict[str, ReleaseFile] = {
    "onnx/duration_predictor.onnx": ReleaseFile(3_700_147, "c3eb91414d5ff8a7a239b7fe9e34e7e2bf8a8140d8375ffb14718b1c639325db"),
    "onnx/text_encoder.onnx": ReleaseFile(36_416_150, "c7befd5ea8c3119769e8a6c1486c4edc6a3bc8365c67621c881bbb774b9902ff"),
    "onnx/vector_estimator.onnx": ReleaseFile(256_534_781, "883ac868ea0275ef0e991524dc64f16b3c0376efd7c320af6b53f5b780d7c61c"),
    "onnx/vocoder.onnx": ReleaseFile(101_424_195, "085de76dd8e8d5836d6ca66826601f615939218f90e519f70ee8a36ed2a4c4ba"),
    "onnx/tts.json": ReleaseFile(8_253, "42078d3aef1cd43ab43021f3c54f47d2d75ceb4e75f627f118890128b06a0d09"),
    "onnx/unicode_indexer.json": ReleaseFile(277_676, "9bf7346e43883a81f8645c81224f786d43c5b57f3641f6e7671a7d6c493cb24f"),
    "voice_styles/F1.json": ReleaseFile(292_046, "bbdec6ee00231c2c742ad05483df5334cab3b52fda3ba38e6a07059c4563dbc2"),
    "voice_styles/F2.json": ReleaseFile(292_423, "7c722c6a72707b1a77f035d67f0d1351ba187738e06f7683e8c72b1df3477fc6"),
    "voice_styles/F3.json": ReleaseFile(290_794, "12f6ef2573baa2defa1128069cb59f203e3ab67c92af77b42df8a0e3a2f7c6ab"),
    "voice_styles/F4.json": ReleaseFile(291_808, "c2fa764c1225a76dfc3e2c73e8aa4f70d9ee48793860eb34c295fff01c2e032b"),
    "voice_styles/F5.json": ReleaseFile(291_479, "45966e73316415626cf41a7d1c6f3b4c70dbc1ba2bee5c1978ef0ce33244fc8d"),
    "voice_styles/M1.json": ReleaseFile(291_748, "e35604687f5d23694b8e91593a93eec0e4eca6c0b02bb8ed69139ab2ea6b0a5b"),
    "voice_styles/M2.json": ReleaseFile(292_055, "b76cbf62bac707c710cf0ae5aba5e31eea1a6339a9734bfae33ab98499534a50"),
    "voice_styles/M3.json": ReleaseFile(290_198, "ea1ac35ccb91b0d7ecad533a2fbd0eec10c91513d8951e3b25fbba99954e159b"),
    "voice_styles/M4.json": ReleaseFile(291_522, "ca8eefad4fcd989c9379032ff3e50738adc547eeb5e221b82593a6d7b3bac303"),
    "voice_styles/M5.json": ReleaseFile(291_469, "dd22b92740314321f8ae11c5e87f8dd60d060f15dd3a632b5adf77f471f77af2"),
    "LICENSE": ReleaseFile(15_007, "0d944a9110fed9a9602d60e0423a272903e7bd21ab060490774efc77c2275e9f"),
}
UNVERIFIED_FILES = ("README.md",)

PROBE_TIMEOUT_S = 3.0
_PARTIAL_SUFFIX = ".incomplete"
_STAGING_NOTE = ".fetch-model.json"  # says which repository and revision a staging directory holds


def fetch_model(out_dir: str | os.PathLike[str], revision: str | None = None, timeout_s: float = PROBE_TIMEOUT_S) -> Path:
    """Download into ``out_dir`` and return it; nothing is left half-written there.

    Without ``revision`` (or with either source's pinned revision, which names the same release)
    every file of ``RELEASE_FILES`` is verified against its published size and digest. Another
    revision (tried in each source's repository in turn) gets only the layout check, and is
    downloaded afresh from one repository alone: a branch may have moved since an earlier run, and
    two repositories' branches may differ.
    ``out_dir`` must be absent, empty, or an earlier model directory: nothing else is ever replaced.
    """
    out = Path(out_dir).expanduser().resolve()
    _check_replaceable(out)
    if revision in {s.revision for s in SOURCES}:
        revision = None  # the release itself: fetched, and verified, as without a revision
    sources = SOURCES if revision is None else tuple(Source(s.repo, revision) for s in SOURCES)
    verified = revision is None
    if verified and out.is_dir() and check_model(out, RELEASE_FILES).verdict == REAL:
        logger.info("%s already holds the release, every file verified", out)
        return out
    endpoint = os.environ.get("HF_ENDPOINT", DEFAULT_ENDPOINT).rstrip("/")
    _check_reachable(endpoint, timeout_s)
    staging = out.with_name(f"{out.name}.partial")

    failures = []
    for source in sources:
        _prepare_staging(staging, source)
        try:
            _download(source, endpoint, staging, RELEASE_FILES if verified else None)
            break
        except FetchFailed as exc:
            logger.warning("%s: %s", source, exc.message)
            failures.append(f"from {source}: {exc.message}")
    else:
        if verified:
            advice = f"What was verified stays in {staging}: run fetch-model again to continue."
        else:
            shutil.rmtree(staging)  # unverified files are never reused
            advice = "Run fetch-model again to retry (an unverified revision is downloaded afresh each time)."
        raise FetchFailed("download failed " + "; then ".join(failures) + f". {advice}")
    load_assets(staging)  # the layout is complete and every JSON parses
    _swap_in(staging, out)
    return out


def _swap_in(staging: Path, out: Path) -> None:
    """Move ``staging`` to ``out`` without its note, which is put back if the move fails: a staging
    directory without its note is never touched again."""
    note = staging / _STAGING_NOTE
    text = note.read_text()
    note.unlink()
    try:
        replace_directory(staging, out)  # the old directory is kept until the new one is in place
    except BaseException:
        if staging.is_dir():
            note.write_text(text)
        raise


def _download(source: Source, endpoint: str, staging: Path, table: dict[str, ReleaseFile] | None) -> None:
    """Every file of the release from ``source`` into ``staging``, each checked as it lands."""
    try:
        from huggingface_hub import hf_hub_url
        from huggingface_hub.errors import HfHubHTTPError
        from huggingface_hub.file_download import http_get
        from huggingface_hub.utils import build_hf_headers
    except ImportError:
        raise FetchFailed("fetch-model needs huggingface-hub: pip install 'supertonic-lambda[tools]'") from None
    headers = build_hf_headers()

    def get(name: str, partial: Path, have: int) -> int:
        """``name`` into ``partial``, resuming at byte ``have``; returns the byte it started from.

        ``http_get`` is not given the expected size: its own size check would refuse a short file
        with advice for another tool, where ``_accept`` says what fetch-model does about it."""
        url = hf_hub_url(source.repo, name, revision=source.revision, endpoint=endpoint)
        logger.info("downloading %s from %s%s", name, source, f" from byte {have:,}" if have else "")
        try:
            try:
                with partial.open("ab") as f:
                    http_get(url, f, resume_size=have, headers=headers)
                return have
            except HfHubHTTPError as exc:
                if not have:
                    raise
                # A refused range (416: the partial is longer than the served file) would be refused
                # on every later run too, so start over. The earlier bytes are overwritten only as new
                # ones arrive: a source that lacks the file leaves them for the next source or run.
                logger.warning("%s: resuming at byte %s failed (%s); downloading it from the start", name, f"{have:,}", exc)
            with partial.open("r+b") as f:
                try:
                    http_get(url, f, headers=headers)
                finally:
                    if f.tell():
                        f.truncate()
            return 0
        except Exception as exc:  # the hub client raises many types; all mean the same to the user
            raise FetchFailed(f"{name}: {exc}") from None

    names = list(table or RELEASE_FILES) + list(UNVERIFIED_FILES)
    for name in names:
        expected = table.get(name) if table else None
        target = staging / name
        if target.is_file():
            if expected is not None and check_file(staging, name, expected).status == REAL:
                continue  # verified in an earlier run
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + _PARTIAL_SUFFIX)
        have = partial.stat().st_size if partial.is_file() else 0
        if expected is None or have > expected.size:
            partial.unlink(missing_ok=True)  # nothing to check a resumed file against, or not this file
            have = 0
        if expected is None or have < expected.size:
            have = get(name, partial, have)
        partial.rename(target)
        if expected is None:
            continue
        check = check_file(staging, name, expected)
        if check.status != REAL and have:
            # Bytes kept from an earlier run went into it: they, not the source, may be what is wrong.
            logger.warning(
                "%s: the partial download kept from an earlier run was corrupt (%s); downloading it again", name, check.describe()
            )
            target.unlink()
            get(name, partial, 0)
            partial.rename(target)
            check = check_file(staging, name, expected)
        _accept(check, target)


def _accept(check: FileCheck, target: Path) -> None:
    if check.status == REAL:
        return
    digest = check.sha256 or file_sha256(target)  # a graph told by its stand-in mark was not hashed
    target.unlink()  # the next run downloads it again
    if check.incomplete:
        raise FetchFailed(
            f"{check.path} is {check.size:,} bytes, expected {check.expected.size:,}: the download is incomplete; "
            "run fetch-model again to continue"
        )
    raise FetchFailed(
        f"{check.path} has SHA-256 {digest} ({check.size:,} bytes), but the release's is {check.expected.sha256} "
        f"({check.expected.size:,} bytes): this source serves another file; it was not kept (if a second run meets "
        "it again, a proxy or mirror alters it: set HF_ENDPOINT to another)"
    )


def _prepare_staging(staging: Path, source: Source) -> None:
    """Ready ``staging`` for a download from ``source``, noting the source in it.

    What an earlier run or source left is kept only when both it and ``source`` are verified
    against the table: every release source at its pinned revision serves the same files. Unverified
    files are never reused. Only a directory fetch-model made itself (it carries the note) is ever emptied."""
    note = staging / _STAGING_NOTE
    if staging.exists():
        if not staging.is_dir() or (any(staging.iterdir()) and not note.is_file()):
            raise InvalidParameter(
                f"{staging} exists and is not an earlier fetch-model download; move it away or name another --out", field="out"
            )
        if note.is_file() and not (source in SOURCES and _noted_source(note) in SOURCES):
            shutil.rmtree(staging)
    staging.mkdir(parents=True, exist_ok=True)
    note.write_text(json.dumps({"source": f"{source.repo}@{source.revision}"}))


def _noted_source(note: Path) -> Source:
    try:
        recorded = json.loads(note.read_text()).get("source", "")
    except (ValueError, AttributeError):  # unreadable, or not the object this module writes
        recorded = ""
    repo, _, revision = str(recorded).rpartition("@")
    return Source(repo, revision)


def _check_replaceable(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InvalidParameter(f"--out {out} is a file; name a new or empty directory", field="out")
    if out.is_dir() and any(out.iterdir()) and not (out / "onnx" / "tts.json").is_file():
        raise InvalidParameter(
            f"--out {out} is a non-empty directory that is not a model directory; name a new or empty one "
            "(fetch-model replaces only an earlier model download)",
            field="out",
        )
    if Path.cwd().resolve().is_relative_to(out):
        raise InvalidParameter(f"--out {out} contains the current directory; name another directory", field="out")


def _check_reachable(endpoint: str, timeout_s: float) -> None:
    parsed = urlparse(endpoint)
    host, port = parsed.hostname or "", parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        raise FetchFailed(
            f"cannot reach the model hub at {endpoint} ({exc.strerror or exc}). Run "
            "`supertonic-lambda fetch-model --out DIR` on a machine with internet access and copy DIR "
            "here (or build the image with the model folder), or set HF_ENDPOINT to a reachable mirror."
        ) from None
