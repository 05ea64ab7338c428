"""A Lesson step's view and chart are made once per process for every session showing the
same (ui/step_screens.py): on the Lesson page as on a class's screens, a step many sessions
reach at once is computed once, and sessions never share what differs between them."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.apptest import chart, open_page
from ui import lesson, step_screens
from ui.lesson import LessonStep
from ui.lesson_steps import LESSON_STEPS

FEED_FORWARD = 11  # the step whose view took 52 ms per session when each computed its own
SENTENCE = "The river bank was steep, so the bank clerk walked."
BY_HAND = 3  # the step asked with one figure and revealed with another


def test_callers_of_one_key_wait_for_one_making():
    made: list[int] = []

    def make():
        made.append(1)
        time.sleep(0.2)
        return object()

    cache = step_screens.MadeOnce(limit=4)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: cache.get("step", make), range(8)))
    assert len(made) == 1
    assert all(thing is got[0] for thing in got)


def test_a_key_being_made_does_not_hold_up_another():
    cache = step_screens.MadeOnce(limit=4)
    release = threading.Event()
    slow = threading.Thread(target=cache.get, args=("slow", lambda: release.wait(10) and "slow"))
    slow.start()
    time.sleep(0.05)  # the slow key is being made
    started = time.perf_counter()
    assert cache.get("quick", lambda: "quick") == "quick"
    assert time.perf_counter() - started < 1  # did not wait for the slow one
    release.set()
    slow.join()
    assert cache.get("slow", lambda: "made again") == "slow"


def test_a_failed_making_is_not_kept_and_the_oldest_goes_first():
    cache = step_screens.MadeOnce(limit=2)

    def fail():
        raise ValueError("a one-word sentence")

    with pytest.raises(ValueError, match="one-word"):
        cache.get("short", fail)
    assert cache.get("short", lambda: "tried again") == "tried again"
    cache.get("b", lambda: "b")
    cache.get("c", lambda: "c")  # over the limit: "short", the oldest, goes
    assert cache.get("short", lambda: "made anew") == "made anew"
    assert cache.get("c", lambda: "not made") == "c"


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
    real_chart = lesson.chart
    monkeypatch.setattr(
        lesson, "chart", lambda *a, **k: calls.append("chart") or real_chart(*a, **k)
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
    quiz = next(radio for radio in at.radio if radio.key.startswith("quiz_"))
    quiz.set_value(quiz.options[0]).run()
    assert not at.exception
    assert calls == ["view"]
    assert chart(at, key)["data"] != asking["data"]  # the arithmetic, drawn after the answer
