"""Every control of every page, and of a live class's projector and student screen, is
reachable with the Tab key alone (WCAG 2.1.1), in a real Chromium at 1280×720: from
the top of the page, Tab goes round every button, link,
field, slider, switch and focusable chart or table of the sidebar and the main area.
A composite widget is one stop whose arrow keys move inside it (a radio group, a row
of pills, a select box with its open button, a number field with its ± buttons): it
counts as reached when any of its parts is. Content of a closed expander is left out;
its summary line is a stop like any other. No stop is out of sight: a collapsed sidebar
(the projector's, a phone's) is skipped, not walked through off the screen."""

from __future__ import annotations

import pytest

from harness.browser import wait_until_drawn, wait_until_settled, watch_settling
from tests.browser.test_browser_layout import PHONE_VIEWS
from tests.browser.test_browser_live_class import STEPS, shows, start_class

pytestmark = pytest.mark.browser
SPARE_PRESSES = 30  # Tab presses beyond one per control (the skip link, the menu, ...)
# Every visible, enabled control, marked with its index; each with the composite widget
# it is part of (or its own index) and what a reader would call it.
CONTROLS = """() => {
    const selector = 'button, input, textarea, select, a[href], [role="slider"], '
        + '[role="switch"], [role="checkbox"], [role="radio"], [tabindex]:not([tabindex="-1"])';
    const composite = ['stRadio', 'stButtonGroup', 'stSelectbox', 'stNumberInput']
        .map(id => `[data-testid="${id}"]`).join(', ');
    const shown = el => {
        if (el.disabled || el.closest('[aria-hidden="true"]')) return false;
        const closed = el.closest('details:not([open])');
        if (closed && !el.closest('summary')) return false;
        // a switch's or a radio button's input is drawn hidden: its widget shows
        const widget = el.closest('[data-testid^="st"]') || el;
        const box = widget.getBoundingClientRect();
        return box.width > 0 && box.height > 0
            && getComputedStyle(el).visibility !== 'hidden';
    };
    const controls = Array.from(document.querySelectorAll(selector)).filter(shown);
    const groups = new Map();
    return controls.map((el, index) => {
        el.setAttribute('data-tab-index', index);
        const group = el.closest(composite);
        if (group && !groups.has(group)) groups.set(group, `group ${groups.size}`);
        const name = el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40)
            || el.getAttribute('type');
        const where = (el.closest('[data-testid^="st"]') || el).getAttribute('data-testid');
        return [group ? groups.get(group) : `control ${index}`, `${name} (${where})`];
    });
}"""
# The focused control's index (null for another element) and whether its widget is on
# the screen, left to right (the page scrolls a focused element into view vertically).
FOCUSED = """() => {
    const el = document.activeElement;
    const marked = el && el.closest('[data-tab-index]');
    const box = ((el && el.closest('[data-testid^="st"]')) || document.body)
        .getBoundingClientRect();
    return [marked ? Number(marked.getAttribute('data-tab-index')) : null,
            box.right > 0 && box.left < window.innerWidth];
}"""


def unreached(page, at_least: int) -> list[str]:
    """The controls of `page` (at least `at_least` of them) that Tab never focused, and
    any stop it made out of sight."""
    controls = page.evaluate(CONTROLS)
    assert len(controls) >= at_least, controls
    reached: set[int] = set()
    unseen: list[str] = []
    for _ in range(len(controls) + SPARE_PRESSES):
        page.keyboard.press("Tab")
        index, on_screen = page.evaluate(FOCUSED)
        if index is not None:
            reached.add(index)
        if not on_screen:
            unseen.append(f"out of sight: {controls[index][1] if index is not None else '?'}")
    reached_groups = {controls[index][0] for index in reached}
    missed = {name for group, name in controls if group not in reached_groups}
    return sorted(missed) + unseen[:5]


@pytest.mark.parametrize("view", PHONE_VIEWS)
def test_tab_reaches_every_control(chromium, app_url, view):
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    watch_settling(context)
    page = context.new_page()
    page.goto(f"{app_url}/{view}")
    wait_until_settled(page, min_charts=PHONE_VIEWS[view])
    assert not unreached(page, at_least=15), view  # the sidebar alone has more
    context.close()


def test_tab_reaches_every_control_of_a_live_class(chromium, app_url):
    """The projector once a class runs (Reveal, Vote again, Close, the results, the
    console) and a student's screen on a laptop (the vote, Explore alone)."""
    projector = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
    student = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
    try:
        code = start_class(projector, app_url)
        student.goto(f"{app_url}/lesson?class={code}")
        shows(student, f"Class {code} · Step 1 of {STEPS}")
        wait_until_drawn(student, min_charts=1)
        assert not unreached(projector, at_least=10)
        assert not unreached(student, at_least=5)
    finally:
        projector.context.close()
        student.context.close()
