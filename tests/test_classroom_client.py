"""The classroom benchmark's websocket client against a real browser: Chromium and
harness.streamlit_client load Head spaces and move the sidebar's Heads slider by one; the
server must send both the same elements (cached ones resolved), as many Plotly charts as
the page draws, and the same scenario in the address bar."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.browser import wait_until_drawn
from harness.streamlit_client import DONE, StreamlitTab, element_kinds

pytestmark = pytest.mark.browser


def _runs(frames: list[bytes]) -> list[tuple[list[ForwardMsg], str]]:
    """Split the browser's frames into finished runs: (delta messages with cached
    references resolved, the query string the run left)."""
    cache: dict[str, ForwardMsg] = {}
    runs, deltas, query = [], [], ""
    for frame in frames:
        msg = ForwardMsg()
        msg.ParseFromString(frame)
        if msg.WhichOneof("type") == "ref_hash":
            msg = cache[msg.ref_hash]
        elif msg.metadata.cacheable:
            cache[msg.hash] = msg
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            deltas = []
        elif kind == "delta":
            deltas.append(msg)
        elif kind == "page_info_changed":
            query = msg.page_info_changed.query_string
        elif kind == "script_finished" and msg.script_finished in DONE:
            runs.append((deltas, query))
    return runs


def _client_runs(url: str) -> list:
    async def run():
        tab = StreamlitTab(url, "head_spaces")
        runs = [await tab.open(), await tab.set("heads", 5)]
        await tab.close()
        return runs

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
        return pool.submit(asyncio.run, run()).result()


def test_client_gets_what_the_browser_gets_for_a_slider_move(app_url, page):
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(data)))
    page.goto(f"{app_url}/head_spaces")
    wait_until_drawn(page, min_charts=5)
    loaded = len(_runs(frames))
    heads = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]', has_text="Heads")
    heads.get_by_role("slider").press("ArrowRight")
    deadline = time.monotonic() + 60
    while len(_runs(frames)) == loaded and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    browser = _runs(frames)
    browser_load, browser_move = browser[loaded - 1], browser[loaded]

    client_load, client_move = _client_runs(app_url)

    assert client_load.ok and client_move.ok
    assert client_load.elements == element_kinds(browser_load[0])
    assert client_move.elements == element_kinds(browser_move[0])
    assert client_move.charts == page.locator('[data-testid="stPlotlyChart"]').count() == 5
    # The heads slider is bound to the address bar: the frontend writes it there itself
    # (no page_info_changed from the server), and so does the client.
    page.wait_for_function("location.search === '?heads=5'")
    assert client_move.query_string == urlsplit(page.url).query == "heads=5"
