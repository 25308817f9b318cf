"""Download the real Supertonic 3 weights from the model hub at a pinned revision, and verify them.

A machine without a route to the hub fails within seconds (one short connection probe) with a
message saying what to do instead, rather than hanging in retries.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlparse

from supertonic_engine.assets import graph_files, load_assets
from supertonic_engine.errors import FetchFailed, InvalidParameter
from supertonic_engine.files import file_sha256, replace_directory

logger = logging.getLogger(__name__)

REPO_ID = "Supertone/supertonic-3"
# The revision the official supertonic 1.3.1 package pins for supertonic-3 (tts_version v1.7.3).
REVISION = "724fb5abbf5502583fb520898d45929e62f02c0b"
DEFAULT_ENDPOINT = "https://huggingface.co"
PATTERNS = ["onnx/*", "voice_styles/*", "LICENSE", "README.md"]

# Published byte sizes and SHA-256 (first/last hex digits) of the four graphs at REVISION.
KNOWN_GRAPHS = {
    "duration_predictor": (3_470_807, "cd473acb", "dcb3"),
    "text_encoder": (36_022_466, "9df20bb7", "7ada"),
    "vector_estimator": (256_053_073, "2359240f2dca", "f3a6"),
    "vocoder": (101_364_763, "b2ec31ab", "e526"),
}


PROBE_TIMEOUT_S = 3.0


def fetch_model(out_dir: str | os.PathLike[str], revision: str = REVISION, timeout_s: float = PROBE_TIMEOUT_S) -> Path:
    """Download into ``out_dir`` (atomically: nothing is left half-written) and return it.

    ``out_dir`` must be absent, empty, or an earlier model directory: nothing else is ever replaced.
    """
    out = Path(out_dir).expanduser().resolve()
    _check_replaceable(out)
    endpoint = os.environ.get("HF_ENDPOINT", DEFAULT_ENDPOINT)
    _check_reachable(endpoint, timeout_s)
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise FetchFailed("fetch-model needs huggingface-hub: pip install 'supertonic-lambda[tools]'") from None

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        logger.info("downloading %s@%s to %s", REPO_ID, revision[:12], out)
        try:
            snapshot_download(repo_id=REPO_ID, revision=revision, local_dir=str(staging), allow_patterns=PATTERNS, etag_timeout=timeout_s)
        except Exception as exc:  # the hub client raises many types; all mean the same to the user
            raise FetchFailed(f"download of {REPO_ID}@{revision[:12]} failed: {exc}") from None
        shutil.rmtree(staging / ".cache", ignore_errors=True)
        if revision == REVISION:
            verify_graphs(staging)
        load_assets(staging)  # the layout is complete and every JSON parses
        replace_directory(staging, out)  # the old directory is kept until the new one is in place
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


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


def verify_graphs(model_dir: Path) -> None:
    """Compare each graph with the published size and hash of the pinned revision."""
    for name, (size, head, tail) in KNOWN_GRAPHS.items():
        path = graph_files(model_dir)[name]
        actual = path.stat().st_size
        if actual != size:
            raise FetchFailed(f"{path} is {actual} bytes, expected {size}: the download is incomplete; run fetch-model again")
        digest = file_sha256(path)
        if not (digest.startswith(head) and digest.endswith(tail)):
            raise FetchFailed(f"{path} has SHA-256 {digest}, expected {head}…{tail}: the file is corrupt; run fetch-model again")


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
