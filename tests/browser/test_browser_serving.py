"""The app as a class gets it: two real workers behind nginx (serving.Cluster) in headless
Chromium. Every page draws under the Content-Security-Policy with no violation reported,
the security headers arrive and no header names a worker, and a link holding the longest
allowed sentence opens Head spaces in every script (5,000 CJK characters: a 45 KB
address, 414 with nginx's default buffers)."""

from __future__ import annotations

import urllib.parse

import pytest

from harness.browser import wait_until_drawn
from serving.cluster import Cluster
from serving.headers import SECURITY_HEADERS
from serving.launch import free_port
from tests.support.browser_checks import assert_no_failure, drawn_charts
from ui.navigation import PAGES
from view_state.url_params import MAX_TEXT_CHARS

pytestmark = pytest.mark.browser

# Every CSP violation the page reports, from before its first script runs.
_RECORD_VIOLATIONS = """window.__violations = [];
document.addEventListener('securitypolicyviolation', e => window.__violations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`));"""
# Past 128 tokens the real model's point charts are WebGL (Plotly's regl needs eval).
WEBGL_SENTENCE = " ".join(["the lecturer opens the link and the class follows"] * 16)
LONGEST_SENTENCES = {
    script: (words * MAX_TEXT_CHARS)[:MAX_TEXT_CHARS]
    for script, words in {
        "CJK": "注意力机制",
        "Arabic": "انتباه ",
        "emoji": "🙂",  # four bytes each: a 60 KB address
    }.items()
}


@pytest.fixture(scope="module")
def cluster(nginx, tmp_path_factory):
    with Cluster(2, free_port(), tmp_path_factory.mktemp("serve-app")) as running:
        yield running


@pytest.fixture
def watched(page):
    page.add_init_script(_RECORD_VIOLATIONS)
    return page


def _open(page, url: str, min_charts: int) -> None:
    response = page.goto(url)
    assert response.status == 200
    wait_until_drawn(page, 120_000, min_charts)
    assert_no_failure(page)
    assert page.evaluate("window.__violations") == []


def test_the_first_page_arrives_with_the_security_headers_and_no_worker_named(cluster, watched):
    response = watched.goto(cluster.url)
    headers = response.all_headers()
    for name, value in SECURITY_HEADERS.items():
        assert headers[name.lower()] == value
    assert "x-upstream" not in headers
    assert not any(f":{w.port}" in value for w in cluster.workers for value in headers.values())


@pytest.mark.parametrize("path", [page.path for page in PAGES])
def test_every_page_draws_under_the_content_security_policy(cluster, watched, path):
    name = path.removeprefix("pages/").removesuffix(".py")
    url = cluster.url + ("/" if name == "home" else f"/{name}")
    _open(watched, url, min_charts=0 if name in ("home", "lesson", "playground") else 1)
    assert all(chart["panels"] or chart["gl"] for chart in drawn_charts(watched))
    if name == "playground":  # its head is an SVG component, whose JS comes from a blob:
        watched.locator('[data-kind="query"]').first.wait_for()
        assert watched.evaluate("window.__violations") == []


def test_webgl_charts_draw_under_the_content_security_policy(cluster, watched):
    query = urllib.parse.urlencode({"text": WEBGL_SENTENCE})
    _open(watched, f"{cluster.url}/real_model?{query}", min_charts=1)
    assert sum(chart["gl"] for chart in drawn_charts(watched)) > 0


@pytest.mark.parametrize("script", list(LONGEST_SENTENCES))
def test_a_link_with_the_longest_sentence_opens_head_spaces(cluster, watched, script):
    sentence = LONGEST_SENTENCES[script]
    assert len(sentence) == MAX_TEXT_CHARS
    url = f"{cluster.url}/head_spaces?{urllib.parse.urlencode({'text': sentence})}"
    _open(watched, url, min_charts=1)
    assert watched.locator(".st-key-text textarea").input_value() == sentence
