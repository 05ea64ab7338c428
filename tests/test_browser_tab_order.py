"""Every control of every page is reachable with the Tab key alone (WCAG 2.1.1), in a
real Chromium at 1280×720: from the top of the page, Tab goes round every button, link,
field, slider, switch and focusable chart or table of the sidebar and the main area.
A composite widget is one stop whose arrow keys move inside it (a radio group, a row
of pills, a select box with its open button, a number field with its ± buttons): it
counts as reached when any of its parts is. Content of a closed expander is left out;
its summary line is a stop like any other."""

from __future__ import annotations

import pytest

from harness.browser import wait_until_drawn
from tests.test_browser_layout import PHONE_VIEWS

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
FOCUSED = """() => {
    const marked = document.activeElement && document.activeElement.closest('[data-tab-index]');
    return marked ? Number(marked.getAttribute('data-tab-index')) : null;
}"""


@pytest.mark.parametrize("view", PHONE_VIEWS)
def test_tab_reaches_every_control(chromium, app_url, view):
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{app_url}/{view}")
    wait_until_drawn(page, min_charts=PHONE_VIEWS[view])
    page.wait_for_timeout(1500)  # a first load may rerun once more
    wait_until_drawn(page, min_charts=PHONE_VIEWS[view])
    controls = page.evaluate(CONTROLS)
    assert len(controls) >= 15, controls  # the sidebar alone has more
    reached: set[int] = set()
    for _ in range(len(controls) + SPARE_PRESSES):
        page.keyboard.press("Tab")
        index = page.evaluate(FOCUSED)
        if index is not None:
            reached.add(index)
    reached_groups = {controls[index][0] for index in reached}
    missed = sorted({name for group, name in controls if group not in reached_groups})
    assert not missed, (view, missed)
    context.close()
