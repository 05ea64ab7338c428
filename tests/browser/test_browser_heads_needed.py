"""The "Do we need all these heads?" page in headless Chromium: a click on a head's switch
goes into the link and moves the cosine; the importance map on the paraphrase task is
drawn with one cell per head; the pruning curve is drawn beside its random band.
Screenshots at a laptop's and a projector's size are kept to look at."""

from __future__ import annotations

import re

import pytest

from harness.browser import SCREENSHOTS, count_script_runs, wait_for_rerun, wait_until_drawn
from tests.support.browser_checks import assert_no_failure, drawn

# Importance and pruning on the task: up to LONG_MS per wait, so past the default timeout.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(2400)]
LAYERS, HEADS = 6, 12
LONG_MS = 900_000  # importance and pruning run the task's 186 sentences many times


def open_heads(page, app_url: str, query: str = "") -> None:
    page.goto(f"{app_url}/heads_needed{query}")
    wait_until_drawn(page, timeout_ms=300_000, min_charts=3)
    assert_no_failure(page)


COSINE_MOVED = """() => [...document.querySelectorAll('[data-testid="stMetric"]')]
    .filter(m => m.textContent.includes('Cosine'))
    .some(m => parseFloat(m.querySelector('[data-testid="stMetricValue"]').textContent) < 0.9999)"""


def cosine(page) -> float:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Cosine")
    return float(metric.locator('[data-testid="stMetricValue"]').inner_text())


def test_a_switch_goes_into_the_link_and_moves_the_cosine(app_url, page):
    open_heads(page, app_url)
    assert cosine(page) == pytest.approx(1.0, abs=1e-4)
    page.locator(".st-key-heads_layer_6 button").filter(has_text=re.compile(r"^12$")).click()
    page.wait_for_url("**heads_off=6.12**", timeout=120_000)
    page.wait_for_function(COSINE_MOVED, timeout=300_000)  # the URL changes before the rerun
    wait_until_drawn(page, timeout_ms=300_000, min_charts=3)
    assert_no_failure(page)
    assert cosine(page) < 0.9999
    switches = drawn(page, "heads_switches")
    assert switches["scatters"] == 1


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1280, 720)])
def test_importance_map_and_pruning_curve_are_drawn(app_url, page, width, height):
    page.set_viewport_size({"width": width, "height": height})
    open_heads(page, app_url)
    count_script_runs(page)  # a click while a rerun is in flight would be lost: wait for it
    page.locator(".st-key-heads_score button").filter(has_text="paraphrase accuracy").click()
    wait_for_rerun(page, timeout_ms=300_000, min_charts=2)  # no importance map until asked
    count_script_runs(page)
    page.locator(".st-key-heads_importance_go button").click(timeout=120_000)
    wait_for_rerun(page, timeout_ms=LONG_MS)
    page.locator(".st-key-heads_importance .js-plotly-plot").wait_for(timeout=LONG_MS)
    wait_until_drawn(page, timeout_ms=LONG_MS, min_charts=3)
    assert_no_failure(page)
    importance = drawn(page, "heads_importance")
    assert importance["heatmaps"] == 1
    assert importance["rows"] == [LAYERS] and importance["columns"] == [HEADS]  # 72 cells
    count_script_runs(page)
    page.locator(".st-key-heads_pruning_go button").click()
    wait_for_rerun(page, timeout_ms=LONG_MS)
    page.locator(".st-key-heads_pruning .js-plotly-plot").wait_for(timeout=LONG_MS)
    wait_until_drawn(page, timeout_ms=LONG_MS, min_charts=4)
    assert_no_failure(page)
    curve = drawn(page, "heads_pruning")
    assert curve["scatters"] == 4  # random band, random median, the curve, the marked point
    assert curve["shapes"] == 2  # the 5-point line and the marked point's line
    plot = page.locator(".st-key-heads_pruning .js-plotly-plot")
    measured = plot.evaluate("gd => Array.from(gd._fullData[2].x)")
    removable = plot.evaluate("gd => gd._fullData[3].x[0]")
    assert removable in measured  # the marked point is a measured one
    sentence = page.get_by_text(re.compile(r"heads go before the accuracy drops by 5 points"))
    if sentence.count():
        assert f"{removable} of {LAYERS * HEADS} heads" in sentence.first.inner_text()
    else:
        assert page.get_by_text(re.compile(r"go without the accuracy dropping")).count()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    size = f"{width}x{height}"
    page.screenshot(path=str(SCREENSHOTS / f"heads_needed_{size}.png"))
    for key in ("heads_switches", "heads_importance", "heads_pruning", "heads_rollout"):
        chart = page.locator(f".st-key-{key}")
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(SCREENSHOTS / f"heads_needed_{key}_{size}.png"))
