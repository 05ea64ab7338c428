"""The Lesson in a real headless Chromium: in presenter mode every step and the last
slide fit a 1280×720 and a 1920×1080 window with no vertical scrolling and every chart
drawn (screenshots saved to look at), Next moves on, the lecture step's heads can be
dragged and moved with the arrow keys once it is answered (the arrows then move the
point, not the step), and the downloaded lesson file draws every figure offline, with
all network requests blocked and no page error."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.teaching.lesson.content import lesson_text
from attention.teaching.playground import head_trace
from harness.browser import SCREENSHOTS, count_script_runs, wait_for_rerun, wait_until_drawn
from harness.playground import mouse_drag, point, screen_xy, shown
from tests.browser.test_browser_layout import crowded

pytestmark = pytest.mark.browser
SIZES = [(1280, 720), (1920, 1080)]
STEPS = len(lesson_text())


# What a step shows at one moment: the scrolling main area's height, the header's bottom,
# Back / Next's tops, the question's font size, the figure's box and its caption lines'.
MEASURE = """() => {
    const box = (el) => el.getBoundingClientRect();
    const svg = document.querySelector('[data-testid="stPlotlyChart"] .main-svg');
    const question = [...document.querySelectorAll('[data-testid="stMarkdownContainer"] p')]
        .find((p) => p.innerText.startsWith('Check yourself:'));
    return {
        scroll: document.querySelector('[data-testid="stMain"]').scrollHeight,
        header: box(document.querySelector('[data-testid="stHeader"]')).bottom,
        buttons: [...document.querySelectorAll('.st-key-lesson_nav button')]
            .filter(b => /Back|Next/.test(b.innerText)).map(b => box(b).top),
        font: parseFloat(getComputedStyle(question).fontSize),
        figure: (({x, y, width, height}) => ({x, y, width, height}))(box(svg)),
        caption: [...document.querySelectorAll(
            '[data-testid="stPlotlyChart"] .gtitle tspan, '
            + '[data-testid="stPlotlyChart"] .gtitle-subtitle tspan')]
            .map(t => (({left, top, right, bottom}) => ({left, top, right, bottom}))(box(t))),
    };
}"""


def _fits(page, where: str) -> dict:
    """Measure the page now and check that it fits its window: no scroll, Back / Next
    below the header, the figure inside the window with every caption line whole."""
    shown = page.evaluate(MEASURE)
    height = page.viewport_size["height"]
    assert page.locator('[data-testid="stException"]').count() == 0, where
    assert shown["scroll"] <= height, f"{where} scrolls: {shown['scroll']} px"
    assert len(shown["buttons"]) == 2 and min(shown["buttons"]) >= shown["header"], where
    figure = shown["figure"]
    assert figure["y"] + figure["height"] <= height, where
    assert shown["caption"], f"{where}: no caption drawn"
    for line in shown["caption"]:
        assert line["top"] >= figure["y"] and line["bottom"] <= figure["y"] + figure["height"]
        assert line["right"] <= figure["x"] + figure["width"] + 1, f"{where}: caption cut"
    return shown


def quiz(page):
    """The step's quiz: the radio group named by its question."""
    return page.get_by_role("radiogroup", name=re.compile(r"^Check yourself: "))


def _answer(page, option: str) -> None:
    """Choose a quiz option, press Check and wait for the step to redraw with its
    feedback."""
    quiz(page).get_by_text(option, exact=True).click()
    count_script_runs(page)
    page.get_by_role("button", name="Check", exact=True).click()
    wait_for_rerun(page, min_charts=1)


def _right_and_wrong(page) -> tuple[str, str]:
    """After the reveal: the quiz's right option, as the revealed answer names it, and
    another of its options."""
    answer = page.locator('[data-testid="stAlert"]', has_text="The answer: “").inner_text()
    right = answer.split("“", 1)[1].split("”. ", 1)[0]
    options = quiz(page).locator('[data-testid="stMarkdownContainer"] p').all_inner_texts()
    assert right in options
    return right, next(o for o in options if o != right)


def test_every_step_fits_the_window_in_presenter_mode(app_url, chromium):
    """At both sizes, every step before the reveal, after Reveal and after a wrong answer
    (the longest feedback); the 1920×1080 screen shows larger type and figures. Nothing
    is crowded (test_browser_layout.crowded): the lecture's picture at 1280×720 had its
    second row's titles on the first row's ticks."""
    measured = {}
    for width, height in SIZES:
        context = chromium.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(f"{app_url}/lesson?step=1&present=1")
        for number in range(1, STEPS + 1):
            wait_until_drawn(page, min_charts=1)
            page.wait_for_timeout(300)
            assert page.locator("strong", has_text=f"Step {number} of {STEPS}").count() == 1
            where = f"{width}×{height} step {number}"
            asked = _fits(page, f"{where} (asking)")
            assert not crowded(page), (where, crowded(page)[:3])
            assert asked["figure"]["height"] >= height * 0.6, "the figure takes the height left"
            measured[(width, number)] = asked
            count_script_runs(page)
            page.get_by_role("button", name="Reveal the answer").click()
            wait_for_rerun(page, min_charts=1)
            _fits(page, f"{where} (revealed)")
            assert not crowded(page), (f"{where} (revealed)", crowded(page)[:3])
            _, wrong = _right_and_wrong(page)
            # The longest feedback, "Not quite: it is “…”. " and why; the right answer's
            # is "Right. " and the same why, so it fits whenever this one does.
            _answer(page, wrong)
            assert page.get_by_text("Not quite: it is").count() == 1
            _fits(page, f"{where} (a wrong answer)")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"lesson_{width}_step{number}.png"))
            if number < STEPS:
                page.get_by_role("button", name="Next ▶").click()
                page.wait_for_function(
                    f"() => document.body.innerText.includes('Step {number + 1} of {STEPS}')"
                )
        context.close()
    for number in range(1, STEPS + 1):
        small, large = measured[(1280, number)], measured[(1920, number)]
        assert large["font"] >= 1.3 * small["font"], f"step {number}: type not scaled"
        ratio = large["figure"]["height"] / small["figure"]["height"]
        assert ratio >= 1.3, f"step {number}: figure not scaled ({ratio:.2f})"


# The width in px of the first map of a tiled heatmap, from the drawn x axis: cells
# per px from its range and length, times the map's cells (z's first row up to a gap).
MAP_PX = """() => {
    const chart = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    const axis = chart._fullLayout.xaxis;
    const row = chart._fullData[0].z[0];
    const cells = row.findIndex(v => v === null || Number.isNaN(v));
    return cells * axis._length / (axis.range[1] - axis.range[0]);
}"""


def test_the_real_models_heads_are_projected_one_layer_at_a_time(app_url, chromium):
    """Step 14 in presenter mode: a layer's 12 maps at least 80 px wide at 1280×720
    (the 72 together were ~30 px), layer 1 first, another layer with the slider."""
    step = next(i for i, s in enumerate(lesson_text(), 1) if s.id == "real_heads")
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{app_url}/lesson?step={step}&present=1")
    wait_until_drawn(page, min_charts=1)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    assert "MiniLM layer 1 of 6" in chart.inner_text()
    assert page.evaluate(MAP_PX) >= 80
    page.locator(".st-key-lesson_present_layer").get_by_role("slider").focus()
    count_script_runs(page)
    page.keyboard.press("ArrowRight")
    wait_for_rerun(page, min_charts=1)
    assert "MiniLM layer 2 of 6" in chart.inner_text()
    assert page.evaluate(MAP_PX) >= 80
    _fits(page, "step 14, layer 2")
    context.close()


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080"])
def test_the_last_slide_fits_the_window_in_presenter_mode(app_url, chromium, size):
    width, height = size
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{app_url}/lesson?step={STEPS + 1}&present=1")
    wait_until_drawn(page, min_charts=0)
    page.get_by_text("Where to go next", exact=True).wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    scroll = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    assert scroll <= page.viewport_size["height"], f"the last slide scrolls: {scroll} px"
    assert page.get_by_role("button", name="Download the lesson (HTML)").count() == 0  # folded
    assert page.get_by_text("Take the lesson home").count() == 1
    context.close()


def test_the_lecture_steps_heads_move_by_hand_after_the_answer(page, app_url):
    step = next(i for i, s in enumerate(lesson_text(), 1) if s.id == "lecture")
    page.goto(f"{app_url}/lesson?step={step}")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_function("() => document.documentElement.dataset.lessonKeys === 'listening'")
    assert point(page).count() == 0  # asks first
    _answer(page, "head 2")
    point(page).wait_for()
    count_script_runs(page)
    mouse_drag(page, point(page), screen_xy(page, -2.0, -4.0))
    wait_for_rerun(page, min_charts=1)  # the drag's points reach the session
    dragged = shown(page)["query"]
    np.testing.assert_allclose(dragged, [-2.0, -4.0], atol=0.05)
    point(page).focus()
    count_script_runs(page)
    page.keyboard.press("ArrowLeft")  # moves the point, not the Lesson to the step before
    wait_for_rerun(page, min_charts=1)
    now = shown(page)
    np.testing.assert_allclose(now["query"], [dragged[0] - 0.05, dragged[1]], atol=1e-4)
    trace = head_trace(now["query"], now["keys"], now["values"])
    np.testing.assert_allclose(now["weights"], trace.weights[0, 0], atol=1e-6)
    assert page.locator("strong", has_text=f"Step {step} of {STEPS}").count() == 1


def test_the_downloaded_lesson_draws_offline(app_url, chromium, tmp_path):
    context = chromium.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = context.new_page()
    text = "<img src=x onerror=window.pwned=1> The cat sat on the mat."
    page.goto(f"{app_url}/lesson?text={text.replace(' ', '%20')}")
    wait_until_drawn(page, min_charts=1)
    page.get_by_text("Take the lesson home").click()
    button = page.get_by_role("button", name="Download the lesson")
    button.wait_for(timeout=120_000)
    with page.expect_download(timeout=120_000) as download:  # the file is built on click
        button.click()
    path = tmp_path / "lesson.html"
    download.value.save_as(path)
    context.close()

    offline = chromium.new_context()
    requests, errors = [], []
    offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else (requests.append(route.request.url), route.abort()))  # fmt: skip
    reader = offline.new_page()
    reader.on("pageerror", lambda error: errors.append(str(error)))
    reader.goto(path.as_uri())
    reader.wait_for_function(
        f"() => document.querySelectorAll('.plotly-graph-div .main-svg').length >= {STEPS}",
        timeout=60_000,
    )
    assert reader.locator(".plotly-graph-div").count() == STEPS
    assert not errors and not requests, (errors, requests)
    assert reader.evaluate("window.pwned") is None
    assert reader.locator("img[src=x]").count() == 0
    assert "<img src=x" in reader.locator("body").inner_text()  # shown as text
    offline.close()


def test_the_explanation_comes_under_the_chart_beside_the_answer(page, app_url):
    """Read top to bottom: the chart, the question, the checked answer's feedback, then
    what to notice, then Back / Next again; the chart does not move down when the answer
    is checked."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/lesson?step=1")
    wait_until_drawn(page, min_charts=1)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    title = page.locator("h2").first  # the step's title

    def chart_below_title() -> float:  # boxes are in the window, which scrolls
        return chart.bounding_box()["y"] - title.bounding_box()["y"]

    before = chart_below_title()
    options = quiz(page).locator('[data-testid="stMarkdownContainer"] p').all_inner_texts()
    _answer(page, options[-1])
    assert abs(chart_below_title() - before) < 2, "the chart moved"
    chart_top = chart.bounding_box()["y"]
    feedback = page.locator('[data-testid="stAlert"]').first.bounding_box()
    notice = page.locator(".st-key-lesson_notice").bounding_box()
    below = page.locator(".st-key-lesson_next_below").bounding_box()
    quiz_box = quiz(page).bounding_box()
    assert chart_top < quiz_box["y"] < feedback["y"] < notice["y"] < below["y"]
