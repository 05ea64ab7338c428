"""A Lesson step's view and chart, made once per process for every session that shows
them with the same scenario, control value, phase and width, and read-only for those
sessions. When a class moves on, a worker's ~80 sessions ask for the same new step within
seconds: one computes it while the others wait for it (each computing its own had taken a
core for seconds per step and left the heap's peak in the worker's memory). Not
st.cache_resource: its key hashing took a third of a class screen's own time."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from attention.teaching.lesson.steps import StepView
from ui import lesson
from ui.lesson import Chart, LessonStep
from ui.media import narrow_screen
from ui.scenario import Scenario

Made = TypeVar("Made")


class MadeOnce(Generic[Made]):
    """The last `limit` things made, by key; a missing one is made by the first caller
    while later callers of the same key wait for it (other keys are made meanwhile), and
    a made one is read without waiting. A failed making is not kept: the next caller
    tries again."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._made: OrderedDict[Hashable, Made] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()  # guards _made and _making, never held while making

    def get(self, key: Hashable, make: Callable[[], Made]) -> Made:
        made = self._made.get(key)
        if made is not None:
            return made
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:
            made = self._made.get(key)  # made while this caller waited
            if made is None:
                try:
                    made = make()
                    self._keep(key, made)
                finally:
                    with self._lock:
                        self._making.pop(key, None)
        return made

    def _keep(self, key: Hashable, made: Made) -> None:
        with self._lock:
            self._made[key] = made
            while len(self._made) > self._limit:
                self._made.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._made.clear()


# A class's every step, phase and width for a few sentences (one sentence's 14 steps ×
# 2 widths are ~0.1 MB each as views and again as charts).
_views: MadeOnce[StepView] = MadeOnce(limit=128)
_charts: MadeOnce[Chart] = MadeOnce(limit=256)


def step_view(step: LessonStep, scenario: Scenario, value: object) -> StepView:
    """The step's view for `scenario` and its control at `value`, on this screen's width
    (a ValueError when the sentence cannot show the step, e.g. one word)."""
    key = (step, scenario, value, narrow_screen())
    return _views.get(key, lambda: step.view(scenario, value))


def step_chart(
    step: LessonStep, scenario: Scenario, value: object, number: int, revealed: bool
) -> tuple[StepView, Chart]:
    """The step's view and its chart as drawn outside presenter mode (step `number`,
    asking or revealed), laid out for this screen's width."""
    view = step_view(step, scenario, value)
    key = (step, scenario, value, number, revealed, narrow_screen())
    return view, _charts.get(key, lambda: lesson.chart(step.text, view, number, False, revealed))
