"""The "Why several heads?" page in a real headless Chromium: it draws every section,
trains the four variants at the default settings when asked, and a full-page screenshot
is saved under artifacts/screenshots/ to look at."""

from __future__ import annotations

import pytest

from tests.browser import screenshot, wait_until_drawn

pytestmark = pytest.mark.browser


def test_page_draws_and_trains_in_the_browser(app_url, page):
    page.goto(f"{app_url}/why_heads")
    wait_until_drawn(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    before = page.locator('[data-testid="stPlotlyChart"]').count()
    assert before >= 8
    screenshot(page, "why_heads_before_training")

    page.get_by_role("button", name="Train the four variants").click()
    page.wait_for_selector('[data-testid="stProgress"]', timeout=30_000)
    wait_until_drawn(page, timeout_ms=180_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= before + 2
    assert page.get_by_text("(d) 4 heads × 8, sliced input").count() >= 1
    assert screenshot(page, "why_heads_trained").stat().st_size > 50_000
