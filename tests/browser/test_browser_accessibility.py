"""An automated accessibility audit: axe-core (shipped in axe-playwright-python) in a real
headless Chromium over every page, every Lesson step and its last slide (walked with Next
in one page) at 1280×720, a projector, and every page at 390×844, a phone, with the rules
for WCAG 2.0, 2.1 and 2.2 levels A and AA. No critical and no serious violation may
remain anywhere on the page, Streamlit's own chrome included (none is found there at
these sizes, so nothing is allowed for). axe cannot judge charts' meaning or colour
choices; tests/pages/test_colours.py checks those. Beside axe: no accessible name carries
markdown (Streamlit names a widget's group by its label as written)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from attention.teaching.lesson.content import lesson_text
from harness.browser import wait_until_drawn
from tests.browser.test_browser_layout import PAGE_CHARTS
from tests.support.browser_checks import marked_up_names
from ui.navigation import PAGES

pytestmark = pytest.mark.browser
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"critical", "serious"}
# URL paths: Streamlit serves the default (first) page at "/", the others at their stem.
PAGE_PATHS = ["" if i == 0 else page.path[6:-3] for i, page in enumerate(PAGES)]
STEPS = len(lesson_text())  # then the last slide: results, no chart
# Something each page always draws, waited for before the audit (a fresh server's first
# load reruns once through app.py, so "script finished" alone can come early).
HEADING = '[data-testid="stMainBlockContainer"] :is(h1, h2)'
DRAWN = {"playground": '[data-kind="query"]'}
AXE = Axe()


def _blocking_violations(page) -> list[str]:
    """axe's critical and serious WCAG A/AA violations on the page, one line each."""
    results = AXE.run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]},
    )
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['html'][:120]}"
        for violation in results.response["violations"]
        if violation["impact"] in BLOCKING
        for node in violation["nodes"]
    ]


def _audit(chromium, app_url: str, size: tuple[int, int], path: str) -> list[str]:
    width, height = size
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/{path}")
        name = path.split("?")[0]
        wait_until_drawn(page, min_charts=PAGE_CHARTS.get(name, 0))
        page.wait_for_selector(DRAWN.get(name, HEADING))
        assert page.locator('[data-testid="stException"]').count() == 0
        return _blocking_violations(page) + marked_up_names(page)
    finally:
        context.close()


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_no_serious_violation_on_a_projector(chromium, app_url, path):
    assert _audit(chromium, app_url, (1280, 720), path) == []


def test_no_serious_violation_on_any_lesson_step(chromium, app_url):
    """Steps 2 to the last and the last slide, each reached with Next as a student does
    (step 1 is the page's own audit above); a fresh page per step took ~10 s each."""
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    found = {}
    try:
        page.goto(f"{app_url}/lesson?step=2")
        for number in range(2, STEPS + 2):
            shown = f"Step {number} of {STEPS}" if number <= STEPS else "The end"
            page.locator("strong", has_text=shown).wait_for()
            wait_until_drawn(page, min_charts=int(number <= STEPS))
            page.wait_for_selector(HEADING)
            assert page.locator('[data-testid="stException"]').count() == 0, shown
            found[shown] = _blocking_violations(page) + marked_up_names(page)
            if number <= STEPS:
                page.get_by_role("button", name="Next ▶").click()
    finally:
        context.close()
    assert len(found) == STEPS
    assert {where: lines for where, lines in found.items() if lines} == {}


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_no_serious_violation_on_a_phone(chromium, app_url, path):
    assert _audit(chromium, app_url, (390, 844), path) == []
