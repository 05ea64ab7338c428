"""The block page in headless Chromium: every chart drawn at the default scenario and at
16 heads × 64 tokens (read back from the drawn charts), a bad translation sentence shows
a message, and markup typed into it stays text. Screenshots go to
artifacts/screenshots/ to look at."""

from __future__ import annotations

import pytest

from harness.browser import screenshot, wait_until_drawn
from tests.support.browser_checks import assert_no_failure, drawn

pytestmark = pytest.mark.browser

TALL = {"width": 1600, "height": 7600}
CHARTS = 12  # §1: 6 (two of them MiniLM, one with MiniLM beside), §2: 2, §3: 4
DECODER_ROWS = "gd => Array.from(gd._fullData[0].y)"  # the decoder's query tokens
DEFAULT_TOKENS = 11  # "The cat sat on the mat because it was tired."


def assert_heads_and_tokens(page, heads: int, tokens: int, width: int) -> None:
    """The concatenation shows one row per token, heads × d_head columns and a band and
    an outline per head; the norm bars and the hidden layer have one entry per token."""
    concat = drawn(page, "block_concat")
    assert concat["rows"] == [tokens, tokens] and concat["columns"] == [width, width]
    assert concat["shapes"] == 2 * heads
    assert drawn(page, "block_norms")["bars"] == 4 * tokens  # 2 sublayers × stream, update
    assert drawn(page, "block_hidden")["rows"] == [tokens]


def test_default_view(app_url, page):
    page.set_viewport_size(TALL)
    page.goto(f"{app_url}/block")
    wait_until_drawn(page, min_charts=CHARTS)
    assert_no_failure(page)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == CHARTS
    assert page.locator('[data-testid="stMetric"]').count() == 4
    assert_heads_and_tokens(page, heads=4, tokens=DEFAULT_TOKENS, width=64)
    screenshot(page, "block_default")


def test_sixteen_heads_and_sixty_four_tokens(app_url, page):
    page.set_viewport_size(TALL)
    words = "%20".join(f"w{i}" for i in range(64))
    page.goto(f"{app_url}/block?heads=16&d_model=384&text={words}")
    wait_until_drawn(page, 120_000, min_charts=CHARTS)
    assert_no_failure(page)
    assert_heads_and_tokens(page, heads=16, tokens=64, width=384)
    screenshot(page, "block_16_heads_64_tokens")


def test_unknown_words_and_markup_get_a_plain_message(app_url, page):
    page.set_viewport_size(TALL)
    page.goto(f"{app_url}/block")
    wait_until_drawn(page, min_charts=CHARTS)
    box = page.get_by_label("English (source)")
    box.fill("you are <b>sleepy</b> <img src=x onerror=window.__pwned=1>")
    box.press("Enter")
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=30_000)
    wait_until_drawn(page)
    error = page.locator('[data-testid="stAlertContentError"]')
    assert "English vocabulary" in error.inner_text()
    assert "sleepy" in error.inner_text()
    assert error.locator("b, img").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stPlotlyChart"]').count() == CHARTS - 4
    screenshot(page, "block_unknown_word")


def test_depth_slider_and_example_rerun_their_own_section(app_url, page):
    page.set_viewport_size(TALL)
    page.goto(f"{app_url}/block")
    wait_until_drawn(page, min_charts=CHARTS)
    thumb = page.get_by_role("slider", name="Depth for the picture below")
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function(
        "Array.from(document.querySelectorAll('.gtitle'))"
        ".some(t => t.textContent.includes('after 7 layers'))",
        timeout=30_000,
    )
    assert "block_depth=7" in page.url  # the view can be shared as a link
    decoder = page.locator(".st-key-block_decoder .js-plotly-plot")
    assert "Sie" not in decoder.evaluate(DECODER_ROWS)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Example").click()
    page.get_by_role("option", name="you are tired, sir → Sie sind müde, mein Herr").click()
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('input'))
                 .some(i => i.value === 'Sie sind müde, mein Herr')""",
        timeout=30_000,
    )
    wait_until_drawn(page, min_charts=CHARTS)
    assert_no_failure(page)
    assert "block_target=Sie" in page.url
    assert {"Sie", "sind", "müde"} <= set(decoder.evaluate(DECODER_ROWS))
    decision = page.locator('[data-testid="stMarkdown"]').filter(has_text="asks for")
    assert "asks for Sie" in decision.inner_text()  # computed from the new example's maps
    screenshot(page, "block_sie_sind_muede")
