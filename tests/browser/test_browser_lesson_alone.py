"""A student alone with the Lesson, in a real Chromium. A keyboard-only walk: on every step
the student Tabs into the quiz, walks to its *last* option with the arrow keys (choosing
answers nothing: WCAG 3.2.2), Tabs to Check and presses Enter; the feedback then marks
that answer, and the score agrees with the feedback at every step (PageDown turns the
page). A step's chart outline is read out by a screen reader, not shown."""

from __future__ import annotations

import re

import pytest

from attention.teaching.lesson.content import lesson_text
from harness.browser import count_script_runs, wait_for_rerun, wait_until_drawn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KEYS = 'html[data-lesson-keys="listening"]'
QUIZ = '[class*="st-key-quiz_"]'  # the quiz's radio (its key starts with quiz_)
IN_QUIZ = f"""() => Boolean(document.activeElement
    && document.activeElement.closest('{QUIZ} [data-testid="stRadio"]'))"""
CHECKED = "() => document.activeElement && document.activeElement.innerText === 'Check'"
MAX_TABS = 80


def tab_until(page, condition: str) -> None:
    """Press Tab until `condition` (a JS predicate on the page) holds."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate(condition):
            return
    raise AssertionError(f"Tab never reached it: {condition}")


def score(page) -> tuple[int, int]:
    text = page.get_by_text(re.compile(r"^Score so far: ")).inner_text()
    right, answered = re.search(r"(\d+) right of (\d+) answered", text).groups()
    return int(right), int(answered)


def test_a_keyboard_walk_answers_every_quiz_with_its_last_option(app_url, page):
    steps = len(lesson_text())
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/lesson?step=1")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_selector(KEYS, state="attached", timeout=60_000)
    right_so_far = 0
    for number in range(1, steps + 1):
        assert page.get_by_text(f"Step {number} of {steps}", exact=True).count() == 1
        page.locator("h2").first.click()  # start from the step's title, as a reader would
        tab_until(page, IN_QUIZ)
        options = page.locator(f'{QUIZ} input[type="radio"]')
        for _ in range(options.count() - 1):
            count_script_runs(page)
            page.keyboard.press("ArrowRight")  # a choice reruns the page, and answers nothing
            wait_for_rerun(page, min_charts=1)
        last = options.nth(options.count() - 1)
        assert last.is_checked(), f"step {number}: the arrows did not reach the last option"
        assert page.get_by_text("Not quite: it is").count() == 0, "choosing answered"
        assert page.get_by_text(re.compile(r"^Right\. ")).count() == 0, "choosing answered"
        tab_until(page, CHECKED)
        count_script_runs(page)
        page.keyboard.press("Enter")
        wait_for_rerun(page, min_charts=1)
        right = page.get_by_text(re.compile(r"^Right\. ")).count() == 1
        wrong = page.get_by_text("Not quite: it is").count() == 1
        assert right != wrong, f"step {number}: one verdict on the checked answer"
        right_so_far += right
        assert score(page) == (right_so_far, number), f"step {number}: score and feedback"
        if number < steps:
            page.locator("h2").first.click()  # off the buttons: PageDown turns the page
            page.keyboard.press("PageDown")
            page.get_by_text(f"Step {number + 1} of {steps}", exact=True).wait_for()
            wait_until_drawn(page, min_charts=1)


def test_a_steps_chart_outline_is_read_out_but_not_shown(app_url, page):
    """The Lesson's computed outline of its chart ("The chart draws 11 points …") is in
    the page for a screen reader, but takes no room on screen."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/lesson?step=1")
    wait_until_drawn(page, min_charts=1)
    outline = page.get_by_text(re.compile(r"^The chart draws \d+ points"))
    assert outline.count() == 1
    holder = page.locator('[class*="st-key-for_screen_readers_"]').filter(has=outline)
    box = holder.bounding_box()
    assert box is not None and box["height"] <= 1, box
    style = holder.evaluate("e => [getComputedStyle(e).overflow, getComputedStyle(e).clipPath]")
    assert style == ["hidden", "inset(50%)"]  # clipped to nothing: the text draws no pixel
    assert "The chart draws" in page.locator('[data-testid="stMain"]').text_content()
