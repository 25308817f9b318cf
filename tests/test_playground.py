"""GET / for a browser: the playground page, self-contained under a strict Content-Security-Policy.

The page's behaviour in a real browser is tested in test_playground_browser.py.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest
from fixtures_s3 import HttpAnswer, LambdaContext, audio_info

from supertonic_function.config import FunctionConfig
from supertonic_function.service import Service
from supertonic_harness.fronts.furl import http_to_event

pytest_plugins = ["fixtures_s3"]

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def _get(query: str = "", accept: str | None = BROWSER_ACCEPT) -> dict[str, Any]:
    return http_to_event("GET", f"/?{query}" if query else "/", [("accept", accept)] if accept is not None else [], b"")


def _call(app: Any, event: dict[str, Any]) -> HttpAnswer:
    return HttpAnswer.of(app.lambda_handler(event, LambdaContext(remaining_ms=60_000)))


def _sha256(block: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(block.encode("utf-8")).digest()).decode() + "'"


def _directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (d.split() for d in policy.split(";") if d.strip())}


def test_a_browser_gets_the_page_with_a_policy_that_allows_only_its_own_blocks(app: Any) -> None:
    answer = _call(app, _get())
    assert answer.status == 200 and answer.content_type == "text/html; charset=utf-8"
    html = answer.body.decode("utf-8")
    policy = _directives(answer.headers["content-security-policy"])
    assert policy["default-src"] == ["'none'"] and policy["connect-src"] == ["'self'"]
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.S)
    (style,) = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert policy["script-src"] == [_sha256(script)] and policy["style-src"] == [_sha256(style)]
    assert "'unsafe-inline'" not in answer.headers["content-security-policy"]
    # Nothing from elsewhere: no external scripts, styles, fonts or images, no inline handlers.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert not re.search(r"\son\w+=", html) and " style=" not in html
    assert 'data-sync-max-chars="3000"' in html and "{{" not in html


def test_job_audio_links_are_allowed_from_the_s3_endpoint_only(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    media = _directives(_call(app, _get()).headers["content-security-policy"])["media-src"]
    endpoint = app.service.store.client.meta.endpoint_url.rstrip("/")
    assert media == ["'self'", "blob:", endpoint, endpoint.replace("://", "://*.")]
    service = Service(FunctionConfig(warm_up=False), app.service.engine_or_error)
    monkeypatch.setattr(app, "service", service)
    answer = _call(app, _get())
    assert _directives(answer.headers["content-security-policy"])["media-src"] == ["'self'", "blob:"]
    assert 'data-jobs-enabled="false"' in answer.body.decode()


@pytest.mark.parametrize(
    ("query", "accept"),
    [("text=Hi&steps=2", BROWSER_ACCEPT), ("text=Hi&steps=2", None), ("text=Hi&steps=2", "*/*")],
)
def test_a_text_query_is_audio_whoever_asks(app: Any, query: str, accept: str | None) -> None:
    answer = _call(app, _get(query, accept))
    assert answer.status == 200 and answer.content_type.startswith("audio/wav")
    assert audio_info(answer.body).duration > 0


@pytest.mark.parametrize("accept", [None, "*/*", "audio/wav", "text/html;q=0, */*"])
def test_clients_that_do_not_ask_for_html_keep_the_api_answer(app: Any, accept: str | None) -> None:
    answer = _call(app, _get("", accept))
    assert answer.status == 400 and answer.json()["error"]["field"] == "text"


def test_every_api_call_in_the_page_is_relative_to_where_it_was_served(app: Any) -> None:
    """Behind an API Gateway stage the page is at /prod/ and the API under it: an absolute path
    such as "/v1/tts" would leave the stage."""
    (script,) = re.findall(r"<script>(.*?)</script>", _call(app, _get()).body.decode("utf-8"), re.S)
    assert re.findall(r"""["'`]/\w""", script) == []  # no string that starts at the origin's root
    fetches = re.findall(r"\bfetch\(([^,)]*)", script)
    assert fetches and all(argument.startswith("endpoint(") for argument in fetches), fetches
