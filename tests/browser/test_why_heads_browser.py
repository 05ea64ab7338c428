"""The "Why several heads?" page in a real headless Chromium: it draws every section,
trains the four variants at the default settings when asked (every variant's loss curve
runs over every step, every variant's head maps are drawn), and whole-page screenshots
are saved under artifacts/screenshots/ to look at."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from attention.experiments.training.train import TrainingConfig
from harness.browser import screenshot, wait_until_drawn
from tests.support.browser_checks import assert_no_failure, drawn

pytestmark = pytest.mark.browser

MAIN_HEIGHT = "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"


def whole_page_screenshot(page, name: str):
    """Streamlit scrolls inside its main block: grow the viewport to the page's height
    so the screenshot holds every section, then return to the usual size."""
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": page.evaluate(MAIN_HEIGHT) + 50})
    wait_until_drawn(page)
    path = screenshot(page, name)
    page.set_viewport_size(size)
    return path


def test_page_draws_and_trains_in_the_browser(app_url, page):
    page.goto(f"{app_url}/why_heads")
    wait_until_drawn(page)
    assert_no_failure(page)
    assert page.locator(".st-key-wh_loss").count() == 0
    before = page.locator('[data-testid="stPlotlyChart"]').count()
    assert before >= 8
    whole_page_screenshot(page, "why_heads_before_training")

    page.get_by_role("button", name="Train the four variants").click()
    # Training shows its progress; a run another page already started in this server
    # (the Lesson's step 8 shares the job) may answer from its cache straight away.
    page.wait_for_selector('[data-testid="stProgress"], .st-key-wh_loss', timeout=30_000)
    wait_until_drawn(page, timeout_ms=180_000)
    assert_no_failure(page)
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= before + 2
    assert page.get_by_text("(d) 4 heads × 8, sliced input").count() >= 1
    config = TrainingConfig()
    loss = drawn(page, "wh_loss")  # per variant: raw losses (unnamed), then their mean
    assert loss["names"][1::2] == [variant.label for variant in config.variants()]
    assert loss["rows"] == [config.steps] * 2 * len(config.variants())
    # Each variant's panel of trained head maps shows at least one dark (weight > ~0.5)
    # cell. A numeric-looking token such as "5" once turned three of the four panels'
    # axes linear, which drew them blank.
    maps = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="key token (A:s")
    panels = maps.locator("g.hm image")
    assert panels.count() == 4
    for i in range(4):
        pixels = np.asarray(Image.open(io.BytesIO(panels.nth(i).screenshot())).convert("L"))
        assert (pixels < 90).sum() > 100, f"panel {i + 1} of the head maps is blank"
    assert whole_page_screenshot(page, "why_heads_trained").stat().st_size > 100_000
