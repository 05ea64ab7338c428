"""The Lesson in a real headless Chromium: in presenter mode every step and the last
slide fit a 1280×720 and a 1920×1080 window with no vertical scrolling and every chart
drawn (screenshots saved to look at), Next moves on, the lecture step's heads can be
dragged and moved with the arrow keys once it is answered (the arrows then move the
point, not the step), and the downloaded lesson file draws every figure offline, with
all network requests blocked and no page error."""

from __future__ import annotations

import numpy as np
import pytest

from attention.teaching.lesson.content import lesson_text
from attention.teaching.playground import head_trace
from harness.browser import SCREENSHOTS, count_script_runs, wait_for_rerun, wait_until_drawn
from harness.playground import mouse_drag, point, screen_xy, shown

pytestmark = pytest.mark.browser
SIZES = [(1280, 720), (1920, 1080)]
STEPS = len(lesson_text())


@pytest.fixture
def window(chromium, request):
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("window", SIZES, indirect=True, ids=["1280x720", "1920x1080"])
def test_every_step_fits_the_window_in_presenter_mode(app_url, window):
    page = window
    size = page.viewport_size
    page.goto(f"{app_url}/lesson?step=1&present=1")
    for number in range(1, STEPS + 1):
        wait_until_drawn(page, min_charts=1)
        page.wait_for_timeout(300)
        assert page.locator("strong", has_text=f"Step {number} of {STEPS}").count() == 1
        assert page.locator('[data-testid="stException"]').count() == 0
        scroll = page.evaluate(
            "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
        )
        assert scroll <= size["height"], f"step {number} scrolls: {scroll} px"
        chart = page.locator('[data-testid="stPlotlyChart"] .main-svg').first.bounding_box()
        assert chart["y"] + chart["height"] <= size["height"]
        assert chart["height"] >= size["height"] * 0.6, "the figure takes the height left"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"lesson_{size['width']}_step{number}.png"))
        if number < STEPS:
            page.get_by_role("button", name="Next ▶").click()
            page.wait_for_function(
                f"() => document.body.innerText.includes('Step {number + 1} of {STEPS}')"
            )


@pytest.mark.parametrize("window", SIZES, indirect=True, ids=["1280x720", "1920x1080"])
def test_the_last_slide_fits_the_window_in_presenter_mode(app_url, window):
    page = window
    page.goto(f"{app_url}/lesson?step={STEPS + 1}&present=1")
    wait_until_drawn(page, min_charts=0)
    page.get_by_text("Where to go next", exact=True).wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    scroll = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    assert scroll <= page.viewport_size["height"], f"the last slide scrolls: {scroll} px"
    assert page.get_by_role("button", name="Download the lesson (HTML)").count() == 0  # folded
    assert page.get_by_text("Take the lesson home").count() == 1


def test_the_lecture_steps_heads_move_by_hand_after_the_answer(page, app_url):
    step = next(i for i, s in enumerate(lesson_text(), 1) if s.id == "lecture")
    page.goto(f"{app_url}/lesson?step={step}")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_function("() => document.documentElement.dataset.lessonKeys === 'listening'")
    assert point(page).count() == 0  # asks first
    quiz = page.locator('[data-testid="stRadio"]', has_text="Check yourself")
    quiz.get_by_text("head 2", exact=True).click()
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
