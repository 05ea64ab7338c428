"""Step 8 of the Lesson in a real headless Chromium: opened on a seed nobody trained,
it shows the run's progress, then, with no click (its fragment polls and reruns the
page when the run ends), says the run is trained; Reveal then states the run's result."""

from __future__ import annotations

import pytest

from attention.teaching.lesson.content import lesson_text
from harness.browser import wait_until_drawn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
STEP = [step.id for step in lesson_text()].index("cost") + 1
SEED = 5  # a seed no other test trains, so the run starts here


def test_the_step_shows_progress_then_its_trained_answer(app_url, page):
    page.goto(f"{app_url}/lesson?step={STEP}&present=1&seed={SEED}")
    wait_until_drawn(page, min_charts=1)
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    assert page.get_by_text(f"(seed {SEED}):").first.is_visible()
    page.get_by_text(f"Trained on the two-lookup task (seed {SEED})").wait_for(timeout=180_000)
    assert page.locator('[data-testid="stProgress"]').count() == 0
    page.get_by_role("button", name="Reveal the answer").click()
    page.get_by_text("held-out sequences right").wait_for(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
