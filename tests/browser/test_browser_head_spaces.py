"""The head-spaces and attention-maps pages in headless Chromium: at the default and at
8 heads every head's panel is drawn (counted in the DOM), the animation moves the points
in the browser, a click picks the focus."""

from __future__ import annotations

import numpy as np
import pytest

from harness.browser import screenshot, wait_until_drawn
from tests.support.browser_checks import assert_no_failure, drawn, drawn_maps

pytestmark = pytest.mark.browser

POINT_ON_SCREEN = """([chartIndex, point]) => {
    const gd = document.querySelectorAll('.js-plotly-plot')[chartIndex];
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    const trace = gd._fullData[0];
    const rect = gd.getBoundingClientRect();
    return [rect.left + xa._offset + xa.d2p(trace.x[point]),
            rect.top + ya._offset + ya.d2p(trace.y[point])];
}"""
POINTS = "gd => Array.from(gd._fullData[0].x).concat(Array.from(gd._fullData[0].y))"
TOKENS = 11  # "The cat sat on the mat because it was tired."
CHARTS = {"head_spaces": 5, "attention_maps": 4}
PER_HEAD_CHARTS = {  # charts with one titled tile per head
    "head_spaces": ["head_space_chart", "values_chart"],
    "attention_maps": [],
}
GRIDS = {"head_spaces": "heatmap_chart", "attention_maps": "grid_chart"}  # one trace each


@pytest.mark.parametrize("heads", [4, 8])
@pytest.mark.parametrize("name", ["head_spaces", "attention_maps"])
def test_screenshots_at_default_and_eight_heads(app_url, page, name, heads):
    page.set_viewport_size({"width": 1600, "height": 2600})
    page.goto(f"{app_url}/{name}?heads={heads}" if heads != 4 else f"{app_url}/{name}")
    wait_until_drawn(page, min_charts=CHARTS[name])
    assert_no_failure(page)
    titles = [f"head {h}" for h in range(1, heads + 1)]
    for key in PER_HEAD_CHARTS[name]:
        chart = drawn(page, key)
        assert chart["panels"] == 1, (key, chart["panels"])  # every head on one pair of axes
        assert [text.split("<br>")[0].split(" · ")[0] for text in chart["annotations"]] == titles
    grid = drawn(page, GRIDS[name])
    assert grid["heatmaps"] == 1 and [t.split("<br>")[0] for t in grid["annotations"]] == titles
    maps = drawn_maps(page, GRIDS[name])
    assert maps.shape == (heads, TOKENS, TOKENS)
    np.testing.assert_allclose(maps.sum(axis=2), 1.0, atol=1e-3)  # every query's weights
    screenshot(page, f"{name}_{heads}_heads")


def test_animation_plays_in_the_browser(app_url, page):
    page.goto(f"{app_url}/head_spaces")
    wait_until_drawn(page, min_charts=5)
    motion = page.locator(".js-plotly-plot").nth(1)
    label = motion.locator(".slider-label").first
    assert "before" in label.text_content()
    points = motion.evaluate(POINTS)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    motion.locator(".updatemenu-button", has_text="Play").click()
    page.wait_for_function(
        """() => {
            const t = document.querySelectorAll('.js-plotly-plot')[1]
                .querySelector('.slider-label').textContent;
            return t.includes('head 2');
        }""",
        timeout=15_000,
    )
    assert not [u for u in requests if "/_stcore/" in u]  # no server round trip
    assert motion.evaluate(POINTS) != points  # the tokens moved on screen
    screenshot(page, "head_spaces_motion_playing")


def test_clicking_a_token_makes_it_the_focus(app_url, page):
    page.goto(f"{app_url}/head_spaces")
    wait_until_drawn(page, min_charts=5)
    focus_box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"] input')
    assert focus_box.input_value() == "1 · cat"
    x, y = page.evaluate(POINT_ON_SCREEN, [0, 5])
    page.mouse.click(x, y)
    page.wait_for_function(
        """() => document.querySelector(
            '[data-testid="stSidebar"] [data-testid="stSelectbox"] input'
        ).value === '5 · mat'""",
        timeout=20_000,
    )
    wait_until_drawn(page)
    assert_no_failure(page)
    assert "focus=5" in page.url


def test_a_shared_link_reopens_the_same_view(app_url, page):
    """Scenario knobs and the page's own controls both live in the URL."""
    page.goto(
        f"{app_url}/attention_maps?heads=2&maps_kind=cross&maps_second=Du%20bist%20m%C3%BCde"
        "&maps_head_2=2"
    )
    wait_until_drawn(page, min_charts=4)
    assert drawn_maps(page, "grid_chart").shape == (2, 3, 11)  # 3 German × 11 English tokens
    big = page.evaluate(
        "() => document.querySelectorAll('.js-plotly-plot')[1].layout.annotations[0].text"
    )
    assert big == "head 2"
    assert "maps_kind=cross" in page.url and "heads=2" in page.url


PLAY_TIMING = """gd => {
    const play = gd.layout.updatemenus[0].buttons[0].args[1];
    const steps = gd.layout.sliders[0].steps.map(s => s.args[1].transition.duration);
    return {transitions: play.transition.map(t => t.duration), steps};
}"""


@pytest.mark.parametrize("reduce", [True, False])
def test_the_animation_steps_without_gliding_when_the_system_asks_for_reduced_motion(
    app_url, chromium, reduce
):
    """The browser's prefers-reduced-motion reaches the server (ui.media) and the
    before → after chart it draws then moves nothing between stages."""
    context = chromium.new_context(
        viewport={"width": 1600, "height": 1000},
        reduced_motion="reduce" if reduce else "no-preference",
    )
    page = context.new_page()
    try:
        page.goto(f"{app_url}/head_spaces")
        wait_until_drawn(page, min_charts=CHARTS["head_spaces"])
        motion = page.locator(".js-plotly-plot").nth(1)
        if reduce:  # the component's report reruns the fragment: wait for the new chart
            # While the fragment redraws, the chart can exist without its layout yet:
            # a read that throws means "not drawn yet", not a failure.
            page.wait_for_function(
                "() => { try { return"
                f" ({PLAY_TIMING})(document.querySelectorAll('.js-plotly-plot')[1])"
                ".steps.every(d => d === 0); } catch (e) { return false; } }",
                timeout=30_000,
            )
        timing = motion.evaluate(PLAY_TIMING)
        assert_no_failure(page)
        moves = timing["transitions"][0::2] + timing["steps"]
        assert all(d == 0 for d in moves) if reduce else all(d > 0 for d in moves)
    finally:
        context.close()
