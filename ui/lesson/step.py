"""What a Lesson step is: its words, its own control and how its view is computed;
ui/lesson/steps.py lists them in lesson order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from attention.teaching.lesson.content import StepText
from attention.teaching.lesson.steps import StepView
from view_state.scenario import Scenario


@dataclass(frozen=True)
class Control:
    """A step's own "Try this" control: a select slider over `options`, kept in the URL
    under `key` as the shown label (so `format` should keep labels short)."""

    key: str
    options: tuple
    default: object
    format: Callable[[object], str] = str
    sidebar: str | None = None  # the sidebar's parameter this control sets, if any


@dataclass(frozen=True)
class LessonStep:
    """One step: its words, its control (if any) and how to compute its view."""

    text: StepText
    control: Callable[[Scenario], Control | None]
    view: Callable[[Scenario, object], StepView]
    # After the reveal, the step's view to move by hand (given the control's value), if
    # it has one: before it, the live numbers would tell the answer.
    by_hand: Callable[[object], None] | None = None
    # Evidence computed as a shared job (given the scenario and whether the step is
    # revealed): its progress while it runs, its result with the reveal.
    evidence: Callable[[Scenario, bool], None] | None = None
    # In presenter mode, a figure to project instead of the view's (drawing its own
    # control), when the view's is too small to read from the back of a room.
    presenter: Callable[[Scenario], tuple[go.Figure, str]] | None = None  # and its setting
