"""A browser that reconnects to a new server keeps the move it made first.

When the server restarts (or a worker dies and nginx sends the browser to another), the
frontend reconnects to a NEW session; the first move after that reaches a session that
has never read the address bar. The sidebar must take the values the browser sent, not
reload the address bar over them. The sidebar's widgets are bound with the public
`bind="query-params"`, under which Streamlit puts the values a browser sends before the
address bar; this is the gate that it keeps doing so, and that a move reaches the URL."""

from __future__ import annotations

import pytest

from harness.browser import start_app, wait_until_drawn, wait_until_settled
from serving.launch import free_port

HEADS = 'input[type="range"][aria-label="Heads"]'
SEVENTH_HEAD_DRAWN = """[...document.querySelectorAll(
    '[data-testid="stPlotlyChart"] .annotation-text')].some((e) => e.textContent === 'head 7')"""

pytestmark = pytest.mark.browser  # it drives Chromium (the `page` fixture)
# The page's Streamlit socket is open again, and it is not the first one it opened (the
# `page` fixture's watch_settling counts them).
RECONNECTED = """() => window.__settle.sockets >= 2 && document.querySelector(
    '[data-testid="stApp"]').getAttribute('data-test-connection-state') === 'CONNECTED'"""


def _stop(proc) -> None:
    proc.kill()
    proc.wait(timeout=10)


def test_first_move_after_a_server_restart_is_kept(page):
    port = free_port()
    proc = start_app(port)
    try:
        page.goto(f"http://127.0.0.1:{port}/head_spaces?heads=6")
        wait_until_drawn(page, min_charts=4)
        _stop(proc)
        proc = start_app(port)  # the same address, a new process: no session survives
        # The frontend has pinged health and opened a second socket, to the new process.
        page.wait_for_function(RECONNECTED, timeout=60_000)
        wait_until_settled(page, min_charts=4)
        page.locator(HEADS).focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("location.search.includes('heads=7')", timeout=30_000)
        # a bound widget's frontend writes the URL at once, before the rerun draws
        page.wait_for_function(SEVENTH_HEAD_DRAWN, timeout=30_000)
        wait_until_drawn(page, min_charts=4)
        assert page.locator(HEADS).input_value() == "7"
        titles = page.locator('[data-testid="stPlotlyChart"] .annotation-text').all_text_contents()
        assert "head 7" in titles and "head 8" not in titles  # the page drew 7 heads
    finally:
        _stop(proc)
