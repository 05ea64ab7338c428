"""A keyboard-only walk in a real Chromium: from the top of the Attention-maps page, Tab
reaches the sidebar's Heads slider, an arrow key moves it (the URL and the drawn grid
follow), Tab reaches the grid's "Show as table" switch and Space opens the table, then
Shift+Tab reaches the page navigation and Enter opens Head spaces, where Tab reaches the
focus-token picker and typing a token's name sets the focus. Every focus stop on
the way must be visible: the pixels that change when an element takes the focus (its
focus indicator) differ from the same pixels unfocused by a contrast of 3:1 or more
(WCAG 2.4.7, measured as 2.4.13 measures it), over at least a 1-px ring around it."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from PIL import Image

from harness.browser import count_script_runs, wait_for_rerun, wait_until_settled, watch_settling
from tests.support.browser_checks import drawn_maps
from tests.support.colour_science import linear

pytestmark = pytest.mark.browser
MAX_STOPS = 80  # Tab presses allowed to reach a target: the page has ~45 stops above it
FOCUS_CONTRAST = 3.0
MARGIN_PX = 8  # a focus ring may sit a few pixels outside its element
RING_SECONDS = 1.0  # how long a focus ring may take to show
# The focused element: what it is, its box, and its widget's box (a slider's or a
# switch's focus ring is drawn on the widget's thumb or track, not on the hidden input);
# and the scroll offsets, so that a stop that scrolled the page is not compared.
FOCUSED = """() => {
    const el = document.activeElement;
    const box = e => {
        const r = e.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const widget = el.closest(['stSlider', 'stCheckbox', 'stRadioOption']
        .map(id => `[data-testid="${id}"]`).join(', ')) || el;
    const scrolls = Array.from(document.querySelectorAll(
        '[data-testid="stMain"], [data-testid="stSidebarContent"]')).map(s => s.scrollTop);
    return {tag: el.tagName,
            label: el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40),
            testid: (el.closest('[data-testid^="st"]') || el).getAttribute('data-testid'),
            table: Boolean(el.closest('.st-key-grid_chart_table')),
            box: box(el), widget: box(widget), scrolls: scrolls};
}"""


def _pixels(shot: bytes) -> np.ndarray:
    """A screenshot's RGB pixels (rows, columns, 3)."""
    return np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"))


def _luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance per pixel (rows, columns)."""
    return linear(rgb / 255.0) @ np.array([0.2126, 0.7152, 0.0722])


def _around(box: list[float], shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The pixels around and within `box` (left, top, right, bottom) on a screen of
    `shape`: (left, top, right, bottom), the box grown by MARGIN_PX and cut to the screen."""
    rows, cols = shape[:2]
    left, top = (max(0, int(v) - MARGIN_PX) for v in box[:2])
    return left, top, min(cols, int(box[2]) + MARGIN_PX), min(rows, int(box[3]) + MARGIN_PX)


def _ring_pixels(before: np.ndarray, after: np.ndarray) -> int:
    """How many pixels changed by a contrast of FOCUS_CONTRAST or more between two
    luminance images of the same pixels."""
    ratio = (np.maximum(before, after) + 0.05) / (np.minimum(before, after) + 0.05)
    return int((ratio >= FOCUS_CONTRAST).sum())


def _perimeter(box: list[float]) -> float:
    return 2 * ((box[2] - box[0]) + (box[3] - box[1]))


class Walk:
    """Tab (or Shift+Tab) through a page, measuring each focus stop's indicator."""

    def __init__(self, page):
        self.page = page
        self.unseen: list[tuple[str, int, float]] = []  # stops whose focus did not show
        self.measured = 0

    def press(self, key: str) -> dict:
        before = _pixels(self.page.screenshot())
        scrolls = self.page.evaluate(FOCUSED)["scrolls"] if self.measured else None
        self.page.keyboard.press(key)
        focused = self.page.evaluate(FOCUSED)
        if focused["tag"] in ("BODY", "MAIN") or (scrolls and scrolls != focused["scrolls"]):
            return focused  # no element, or the page scrolled: nothing to compare
        box = focused["widget"] if focused["tag"] == "INPUT" else focused["box"]
        left, top, right, bottom = _around(box, before.shape)
        unfocused = _luminance(before[top:bottom, left:right])
        # Streamlit's focus styles fade in (later on a loaded machine): look again, only
        # at those pixels, until the ring shows or RING_SECONDS have passed.
        clip = {"x": left, "y": top, "width": right - left, "height": bottom - top}
        deadline = time.monotonic() + RING_SECONDS
        while True:
            if not unfocused.size:  # the box is off the screen: nothing of it shows
                ring = 0
                break
            now = _luminance(_pixels(self.page.screenshot(clip=clip)))
            ring = _ring_pixels(unfocused, now)
            if ring >= _perimeter(focused["box"]) or time.monotonic() > deadline:
                break
        self.measured += 1
        if ring < _perimeter(focused["box"]):
            self.unseen.append((focused["label"], ring, _perimeter(focused["box"])))
        return focused

    def until(self, key: str, reached) -> dict:
        for _ in range(MAX_STOPS):
            focused = self.press(key)
            if reached(focused):
                return focused
        raise AssertionError(f"{key} never reached the target; last: {focused}")


def test_keyboard_only_walk_with_visible_focus(chromium, app_url):
    context = chromium.new_context(viewport={"width": 1280, "height": 1400})
    watch_settling(context)
    page = context.new_page()
    page.goto(f"{app_url}/attention_maps")
    wait_until_settled(page, min_charts=4)
    assert len(drawn_maps(page, "grid_chart")) == 4  # the default: 4 heads
    walk = Walk(page)

    walk.until("Tab", lambda f: f["label"] == "Heads" and f["testid"] == "stSlider")
    count_script_runs(page)
    page.keyboard.press("ArrowRight")
    wait_for_rerun(page, min_charts=4)
    page.wait_for_function("() => location.search.includes('heads=5')")
    assert len(drawn_maps(page, "grid_chart")) == 5  # the chart redrew with 5 heads

    walk.until("Tab", lambda f: f["table"])
    count_script_runs(page)
    page.keyboard.press("Space")
    wait_for_rerun(page, min_charts=4)
    table = page.locator('[data-testid="stTable"]')
    assert table.count() == 1  # the grid's is the page's only st.table
    assert "head 5" in table.inner_text()  # a column per head, the new one too

    walk.until(
        "Shift+Tab", lambda f: f["testid"] == "stSidebarNavLink" and "Head spaces" in f["label"]
    )
    page.keyboard.press("Enter")
    page.wait_for_url("**/head_spaces**")
    wait_until_settled(page, min_charts=5)
    assert page.locator("h1", has_text="Head spaces").count() == 1

    # The focus token, which a mouse sets by clicking a point, by keyboard: Tab to the
    # sidebar's picker, type a token's name, Enter.
    walk.until("Tab", lambda f: "Focus token" in f["label"])
    count_script_runs(page)
    page.keyboard.type("sat")
    page.keyboard.press("Enter")
    wait_for_rerun(page, min_charts=5)
    page.wait_for_function("() => new URLSearchParams(location.search).get('focus') === '2'")

    assert walk.measured >= 40
    assert not walk.unseen, walk.unseen
    context.close()
