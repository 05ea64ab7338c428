"""A Lesson step's view and chart are made once per process for every session showing the
same (ui/lesson/screens.py): on the Lesson page as on a class's screens, a step many sessions
reach at once is computed once, and sessions never share what differs between them."""

from __future__ import annotations

import pytest

from tests.support.apptest import chart, check_answer, open_page
from ui.lesson import drawing
from ui.lesson.step import LessonStep
from ui.lesson.steps import LESSON_STEPS
from view_state.scenario import Scenario

FEED_FORWARD = 11  # the step whose view took 52 ms per session when each computed its own
SENTENCE = "The river bank was steep, so the bank clerk walked."
BY_HAND = 3  # the step asked with one figure and revealed with another


@pytest.fixture
def counted_step():
    """Make step `number` count its view computations into `calls` for one test."""
    replaced: dict[int, LessonStep] = {}

    def count(number: int, calls: list[str]) -> None:
        real = replaced.setdefault(number, LESSON_STEPS[number - 1])

        def view(scenario, value):
            calls.append("view")
            return real.view(scenario, value)

        LESSON_STEPS[number - 1] = LessonStep(real.text, real.control, view)

    yield count
    for number, real in replaced.items():
        LESSON_STEPS[number - 1] = real


def test_lesson_sessions_at_one_step_share_its_view_and_chart(monkeypatch, counted_step):
    """Two students on the Lesson (no class) at step 11 with the same sentence: the step
    is computed and laid out once; a third with another sentence gets its own."""
    calls: list[str] = []
    counted_step(FEED_FORWARD, calls)
    real_chart = drawing.chart
    monkeypatch.setattr(
        drawing, "chart", lambda *a, **k: calls.append("chart") or real_chart(*a, **k)
    )
    key = f"lesson_view_{LESSON_STEPS[FEED_FORWARD - 1].text.id}"
    drawn = []
    for text in (SENTENCE, SENTENCE, "Bread rises while the oven warms."):
        at = open_page("pages/lesson.py", step=str(FEED_FORWARD), text=text)
        assert not at.exception
        drawn.append(chart(at, key))
    assert calls == ["view", "chart", "view", "chart"]  # once per sentence
    assert drawn[0] == drawn[1]
    assert drawn[2] != drawn[0]


def test_revealing_draws_the_revealed_chart_from_the_view_already_made(counted_step):
    """Step 3 asks with one figure and reveals another: answering draws the revealed one
    from the view made for the question, not a second computation."""
    calls: list[str] = []
    counted_step(BY_HAND, calls)
    key = f"lesson_view_{LESSON_STEPS[BY_HAND - 1].text.id}"
    at = open_page("pages/lesson.py", step=str(BY_HAND), seed="9")
    asking = chart(at, key)
    check_answer(at)
    assert not at.exception
    assert calls == ["view"]
    assert chart(at, key)["data"] != asking["data"]  # the arithmetic, drawn after the answer


def test_a_steps_control_is_chosen_once_per_scenario():
    """Step 2's control picks its head from a model run: every session (and every rerun)
    with the same scenario gets the one made, another scenario its own."""
    qkv = LESSON_STEPS[1]
    assert qkv.control(Scenario(seed=21)) is qkv.control(Scenario(seed=21))
    assert qkv.control(Scenario(seed=21)) is not qkv.control(Scenario(seed=22))
