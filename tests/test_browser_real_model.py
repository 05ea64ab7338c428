"""The real-model page in headless Chromium: it draws all three charts without an
exception for a short and a 512-token text, and screenshots are kept to look at."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from harness.browser import SCREENSHOTS, screenshot, wait_until_drawn

pytestmark = pytest.mark.browser


def open_real_model(page, app_url: str, text: str | None = None) -> None:
    query = "" if text is None else f"?text={quote(text)}"
    page.goto(f"{app_url}/real_model{query}")
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_real_model_page_draws_every_chart(app_url, page):
    open_real_model(page, app_url)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    assert charts.count() == 3
    assert (
        page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .plot-container').count() == 3
    )
    assert charts.first.locator(".heatmaplayer .hm").count() == 72  # one image per head
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    screenshot(page, "real_model")
    for index, name in enumerate(["grid", "head", "paths"]):
        charts.nth(index).screenshot(path=str(SCREENSHOTS / f"real_model_{name}.png"))
    table = page.locator('[data-testid="stDataFrame"]')
    table.screenshot(path=str(SCREENSHOTS / "real_model_table.png"))


def test_real_model_page_role_view(app_url, page):
    open_real_model(page, app_url)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Colour the grid").click()
    page.get_by_role("option", name="[SEP]").click()
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "real_role=%5BSEP%5D" in page.url  # the view can be shared as a link
    grid = page.locator('[data-testid="stPlotlyChart"]').first
    grid.screenshot(path=str(SCREENSHOTS / "real_model_grid_role_sep.png"))


def test_real_model_page_with_512_tokens(app_url, page):
    open_real_model(page, app_url, " ".join(f"word{i % 50}" for i in range(400)))
    notice = page.locator('[data-testid="stAlert"]').filter(has_text="the model reads at most")
    assert "512" in notice.inner_text()
    assert (
        page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .plot-container').count() == 3
    )
    page.get_by_text("Stretch the colours to this head's largest weight").click()
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for index, name in enumerate(["grid", "head_stretched", "paths"]):
        charts.nth(index).screenshot(path=str(SCREENSHOTS / f"real_model_512_{name}.png"))


def test_clicking_a_table_row_opens_that_head(app_url, page):
    open_real_model(page, app_url)
    table = page.locator('[data-testid="stDataFrame"]')
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    row_px = 35  # the data grid's header and row height
    page.mouse.click(box["x"] + 18, box["y"] + 3.5 * row_px)  # row 3's checkbox: layer 1 head 3
    page.locator("h2", has_text="Layer 1 · head 3 up close").wait_for(timeout=60_000)
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    assert page.locator('[data-testid="stException"]').count() == 0
