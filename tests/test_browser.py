"""The app in a real headless Chromium: every page loads without an exception, and a
screenshot of each is saved under artifacts/screenshots/ to look at."""

from __future__ import annotations

import pytest

from harness.browser import screenshot, wait_until_drawn

pytestmark = pytest.mark.browser

PAGES = {
    "home": "",
    "head_spaces": "head_spaces",
    "attention_maps": "attention_maps",
    "why_heads": "why_heads",
    "real_model": "real_model",
    "block": "block",
}


@pytest.mark.parametrize("name", list(PAGES))
def test_page_loads_without_exception(app_url, page, name):
    page.goto(f"{app_url}/{PAGES[name]}")
    wait_until_drawn(page, min_charts=0 if name == "home" else 1)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stSidebar"]').count() == 1
    assert page.locator("h1").count() >= 1
    assert screenshot(page, name).stat().st_size > 10_000


def test_markup_in_the_sentence_stays_text(app_url, page):
    text = "<b>bold</b> <script>window.__pwned = 1</script> <img src=x onerror=alert(1)>"
    page.goto(f"{app_url}/?text={text.replace(' ', '%20').replace('<', '%3C').replace('>', '%3E')}")
    wait_until_drawn(page)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("b", has_text="bold").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
