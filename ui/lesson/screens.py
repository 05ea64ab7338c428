"""A Lesson step's view and chart, made once per process (shared_work/made_once.py) for every
session that shows them with the same scenario, control value, phase and width, and
read-only for those sessions: on the Lesson as on a class's screens, a step that ~80
sessions of a worker reach within seconds is computed once."""

from __future__ import annotations

from attention.teaching.lesson.steps import StepView
from shared_work.made_once import MadeOnce
from ui.lesson import drawing
from ui.lesson.drawing import Chart
from ui.lesson.step import LessonStep
from ui.media import narrow_screen
from view_state.scenario import Scenario

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
    return view, _charts.get(key, lambda: drawing.chart(step.text, view, number, False, revealed))
