"""The Lesson's keyboard and presentation-clicker keys in a real headless Chromium:
→ / PageDown / Space go to the next step and ← / PageUp back (the link's `?step=`
follows), A reveals the step's answer, and keys typed into a widget stay with it."""

from __future__ import annotations

import re

import pytest

from attention.teaching.lesson.content import lesson_text
from harness.browser import wait_until_drawn, wait_until_settled

pytestmark = pytest.mark.browser
KEYS = 'html[data-lesson-keys="listening"]'  # set once the listener is attached


def step_in_url(page) -> int:
    found = re.search(r"[?&]step=(\d+)", page.url)
    return int(found.group(1)) if found else 1


def press(page, key: str, step: int) -> None:
    """Press `key` with the focus on the page and wait for the link to show `step`."""
    page.keyboard.press(key)
    page.wait_for_function(
        f"() => /[?&]step={step}(&|$)/.test(location.search)"
        if step > 1
        else "() => !/[?&]step=/.test(location.search)",
        timeout=60_000,
    )
    wait_until_drawn(page, min_charts=1)
    assert page.get_by_text(f"Step {step} of {len(lesson_text())}", exact=True).count() == 1


def test_keys_move_through_the_steps_and_reveal(app_url, page):
    page.goto(f"{app_url}/lesson?step=2&present=1")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_selector(KEYS, state="attached", timeout=60_000)
    for key, step in [("ArrowRight", 3), ("PageDown", 4), ("Space", 5), ("ArrowLeft", 4)]:
        press(page, key, step)
    press(page, "PageUp", 3)
    assert step_in_url(page) == 3

    parts = re.split(r"\{[^}]*\}", lesson_text()[2].notice[0])  # no computed value
    notice = max(parts, key=len).replace("**", "")  # as rendered, without the bold marks
    assert page.get_by_text(notice).count() == 0  # the step asks first
    page.keyboard.press("a")
    page.get_by_text(notice).first.wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Reveal the answer").is_disabled()
    assert page.get_by_text("The answer: “").count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0


def test_keys_typed_into_a_widget_stay_with_it(app_url, page):
    page.goto(f"{app_url}/lesson?step=2")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_selector(KEYS, state="attached", timeout=60_000)
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"] input').first
    slider.focus()
    page.keyboard.press("ArrowRight")  # moves the "Try this" control, not the step
    page.wait_for_function("() => location.search.includes('lesson_head=')")
    wait_until_settled(page, min_charts=1)  # and a step change, had the key made one
    assert step_in_url(page) == 2
    assert "lesson_head=" in page.url  # the slider took the key
    assert page.get_by_text(f"Step 2 of {len(lesson_text())}", exact=True).count() == 1
