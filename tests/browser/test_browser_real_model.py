"""The real-model page in headless Chromium: all three charts drawn (72 heads) for a
short and a 512-token text; colouring the grid by a role frames and labels every head;
the stretch toggle really changes the large map's colour range; a table row opens its
head. Screenshots are kept to look at."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pytest

from attention.figures.real_model import GRID_BLOCKS
from harness.browser import SCREENSHOTS, screenshot, wait_until_drawn
from tests.support.apptest import tile_maps
from tests.support.browser_checks import assert_no_failure, drawn

pytestmark = pytest.mark.browser
HEADS = 72  # MiniLM: 6 layers × 12 heads


ROLE_SHOWN = """() => {
    const gd = document.querySelector('.st-key-real_grid .js-plotly-plot');
    return Boolean(gd && gd.layout.coloraxis2);
}"""
STRETCHED = """() => {
    const gd = document.querySelector('.st-key-real_head_map .js-plotly-plot');
    return Boolean(gd && gd.layout.coloraxis && gd.layout.coloraxis.cmax < 1);
}"""


def open_real_model(page, app_url: str, text: str | None = None) -> None:
    query = "" if text is None else f"?text={quote(text)}"
    page.goto(f"{app_url}/real_model{query}")
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    assert_no_failure(page)


def drawn_grid(page) -> dict:
    """The grid's one heatmap as Plotly drew it: z (NaN gutters as None), the number of
    heatmap images."""
    return page.locator(".st-key-real_grid .js-plotly-plot").evaluate(
        """gd => ({
            z: Array.from(gd._fullData[0].z, row => Array.from(row, v => isNaN(v) ? null : v)),
            images: gd.querySelectorAll('.heatmaplayer .hm image').length,
        })"""
    )


def test_real_model_page_draws_every_chart(app_url, page):
    open_real_model(page, app_url)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    assert charts.count() == 3
    assert (
        page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .plot-container').count() == 3
    )
    grid = drawn_grid(page)
    assert grid["images"] == 1  # the 72 maps are one heatmap trace
    maps = tile_maps(grid["z"])  # read back from the drawn matrix's NaN gutters
    n = len(page.locator('[data-testid="stText"]').first.inner_text().split(" · "))
    assert maps.shape == (6, 12, n, n)
    np.testing.assert_allclose(maps.sum(-1), 1.0, atol=n * 5e-6)  # rounded to 5 decimals
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    screenshot(page, "real_model")
    for index, name in enumerate(["grid", "head", "paths"]):
        charts.nth(index).screenshot(path=str(SCREENSHOTS / f"real_model_{name}.png"))
    table = page.locator('[data-testid="stDataFrame"]')
    table.screenshot(path=str(SCREENSHOTS / "real_model_table.png"))


def test_real_model_page_role_view(app_url, page):
    open_real_model(page, app_url)
    before = drawn(page, "real_grid")
    # the maps' grey edges (one path) and the opened head's frame
    assert not before["hasColoraxis2"] and before["shapes"] == 2
    assert len(before["annotations"]) == 12  # the head titles
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Colour the grid").click()
    page.get_by_role("option", name="[SEP]").click()
    page.wait_for_url("**real_role=%5BSEP%5D**", timeout=60_000)  # a link to share
    page.wait_for_function(ROLE_SHOWN, timeout=120_000)  # the URL changes before the rerun
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    assert_no_failure(page)
    after = drawn(page, "real_grid")
    assert after["hasColoraxis2"] and after["shapes"] == 2 + HEADS
    values = [float(text) for text in after["annotations"][len(before["annotations"]) :]]
    assert len(values) == HEADS and all(0 <= v <= 1 for v in values) and max(values) > 0
    grid = page.locator('[data-testid="stPlotlyChart"]').first
    grid.screenshot(path=str(SCREENSHOTS / "real_model_grid_role_sep.png"))


# The time the first large websocket message (the grid's figure) reached the page.
WATCH_FIRST_FIGURE = """(() => {
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (event) => {
                const size = event.data.byteLength ?? event.data.size ?? 0;
                if (size > 100000 && window.__figureAt === undefined) {
                    window.__figureAt = performance.now();
                }
            });
        }
    };
})()"""
PLOTLY_REQUESTED = """() => performance.getEntriesByType('resource')
    .filter(r => r.name.split('/').pop().startsWith('PlotlyChart'))
    .map(r => r.startTime)"""


def test_a_first_visit_loads_plotly_while_the_model_runs(app_url, page):
    """Streamlit's browser code fetches Plotly (its PlotlyChart chunk, private to the
    pinned Streamlit) when a first chart arrives; ui.charts.loading_plotly_meanwhile
    sends a blank chart before the forward pass, so the fetch starts before the grid's
    figure arrives, not after. The blank chart is gone once the page is drawn."""
    page.add_init_script(WATCH_FIRST_FIGURE)
    open_real_model(page, app_url, " ".join(f"early{i}" for i in range(300)))
    requested = page.evaluate(PLOTLY_REQUESTED)
    assert len(requested) == 1, "Streamlit's Plotly chunk was not found by name"
    assert requested[0] < page.evaluate("window.__figureAt")
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 3


def test_real_model_page_with_512_tokens(app_url, page):
    open_real_model(page, app_url, " ".join(f"word{i % 50}" for i in range(400)))
    notice = page.locator('[data-testid="stAlert"]').filter(has_text="the model reads at most")
    assert "512" in notice.inner_text()
    assert (
        page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .plot-container').count() == 3
    )
    assert tile_maps(drawn_grid(page)["z"]).shape == (6, 12, GRID_BLOCKS, GRID_BLOCKS)
    shared = drawn(page, "real_head_map")
    assert shared["rows"] == [512] and shared["colorRange"] == [0, 1]
    page.get_by_text("Colours up to its top weight").click()
    page.wait_for_url("**real_stretch=true**", timeout=60_000)
    # The address bar changes before the rerun starts, so "drawn" alone can still see the
    # old chart: wait for the map's colour axis to change, then for every chart.
    page.wait_for_function(STRETCHED, timeout=120_000)
    wait_until_drawn(page, timeout_ms=120_000, min_charts=3)
    stretched = drawn(page, "real_head_map")
    assert stretched["colorRange"][0] == 0
    # the scale tops out at the largest weight drawn (the figure rounds z to 5 decimals)
    assert stretched["colorRange"][1] == pytest.approx(stretched["zMax"], abs=1e-5)
    assert stretched["zMax"] < 1  # 512 tokens spread every head's weight thinner
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
    assert_no_failure(page)
    assert drawn(page, "real_head_map")["annotations"][0] == "layer 1 · head 3"
