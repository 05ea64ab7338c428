"""The app in a real headless Chromium: every page's deep link opens that page with
every chart drawn and no exception or error, markup in the URL's sentence stays text,
and a screenshot of each page is saved under artifacts/screenshots/ to look at."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from harness.browser import screenshot, wait_until_drawn
from tests.support.browser_checks import assert_no_failure, drawn_charts, marks
from ui.navigation import PAGES as APP_PAGES

pytestmark = pytest.mark.browser

# The pages loaded here by name (the heavier ones have their own browser tests); the start
# page's heading is the app's name, every other page's its title in the navigation.
LOADED = ("home", "head_spaces", "attention_maps", "why_heads", "real_model", "block")
PAGES = {
    Path(page.path).stem: ("", "Head Spaces") if index == 0 else (Path(page.path).stem, page.title)
    for index, page in enumerate(APP_PAGES)
    if Path(page.path).stem in LOADED
}


@pytest.mark.parametrize("name", LOADED)
def test_page_loads_without_exception(app_url, page, name):
    path, title = PAGES[name]
    page.goto(f"{app_url}/{path}")
    wait_until_drawn(page, min_charts=0 if name == "home" else 1)
    assert_no_failure(page)
    assert page.locator('[data-testid="stSidebar"]').count() == 1
    assert page.locator("h1").first.inner_text().strip() == title
    for chart in drawn_charts(page):
        assert chart["panels"] >= 1 and marks(chart) >= 1, chart
    assert screenshot(page, name).stat().st_size > 10_000


def test_markup_in_the_sentence_stays_text(app_url, page):
    text = "<b>bold</b> <script>window.__pwned = 1</script> <img src=x onerror=alert(1)>"
    page.goto(f"{app_url}/?text={quote(text)}")
    wait_until_drawn(page)
    assert page.locator('[data-testid="stSidebar"] textarea').input_value() == text
    assert page.evaluate("window.__pwned") is None
    assert page.locator("b", has_text="bold").count() == 0
    assert_no_failure(page)
