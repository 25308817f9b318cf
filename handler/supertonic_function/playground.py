"""The page ``GET /`` gives a browser: a playground that calls the API it is served by.

The page is one file (``assets/playground.html``) with its script and style inline, so it needs
nothing from anywhere else and the Content-Security-Policy can allow exactly those two blocks by
hash (no ``'unsafe-inline'``), fetches to this origin only, and media from ``blob:`` (the audio
the page fetched) and the S3 endpoint that a job's presigned link points at.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from .responses import text_response
from .service import Service

PAGE = "playground.html"
# Filled in per deployment; they sit in attributes, outside the hashed script, so the hashes hold.
SYNC_MAX_CHARS = "{{sync_max_text_chars}}"
JOBS_ENABLED = "{{jobs_enabled}}"


@lru_cache(maxsize=1)
def _page() -> tuple[str, str]:
    """The page's HTML and the hash sources of its inline ``<script>`` and ``<style>``."""
    html = resources.files(__package__).joinpath("assets", PAGE).read_text("utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    return html, f"script-src {_hashes(scripts)}; style-src {_hashes(styles)}"


def _hashes(blocks: list[str]) -> str:
    return " ".join("'sha256-" + base64.b64encode(hashlib.sha256(block.encode("utf-8")).digest()).decode("ascii") + "'" for block in blocks)


def content_security_policy(inline_sources: str, media_origins: tuple[str, ...]) -> str:
    return "; ".join(
        (
            "default-src 'none'",
            inline_sources,
            "connect-src 'self'",
            " ".join(("media-src 'self' blob:", *media_origins)),
            "img-src data:",  # the empty icon: no favicon request, which would be an invocation
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


def _storage_origins(service: Service) -> tuple[str, ...]:
    """Where presigned audio links (a finished job, an answer over 6 MB) point: the S3 endpoint,
    path-style or virtual-hosted."""
    if service.config.input_bucket is None and service.config.results_bucket is None:
        return ()
    endpoint = urlsplit(service.store.client.meta.endpoint_url)
    return (f"{endpoint.scheme}://{endpoint.netloc}", f"{endpoint.scheme}://*.{endpoint.netloc}")


def page_response(service: Service) -> dict[str, Any]:
    """The playground as a function URL response, with its policy."""
    html, inline_sources = _page()
    body = html.replace(SYNC_MAX_CHARS, str(service.config.sync_max_text_chars)).replace(
        JOBS_ENABLED, "true" if service.config.input_bucket else "false"
    )
    headers = {
        "content-security-policy": content_security_policy(inline_sources, _storage_origins(service)),
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
    }
    return text_response(200, body, "text/html; charset=utf-8", headers)
