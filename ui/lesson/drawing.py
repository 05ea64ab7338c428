"""A step's chart prepared for this screen (slides, phone, presenter) and drawn with its
accessible name, summary and table."""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from attention.figures.base.phone import for_phone
from attention.figures.drawn_tables import MAX_COLUMNS, MAX_ROWS, figure_rows
from attention.figures.lesson import CAPTION_CHARS, PHONE_CAPTION_CHARS, for_slides
from attention.teaching.lesson.content import StepText
from attention.teaching.lesson.steps import StepView
from attention.teaching.narration.lesson import chart_outline
from ui.charts import show_chart
from ui.lesson.presenter import LEAST_CHART_PX, PRESENTER_FONT_SCALE
from ui.lesson.step import LessonStep
from ui.lesson.walk import REVEALED, control_value, phase
from ui.media import narrow_screen, small_window
from view_state.scenario import Scenario


@dataclass(frozen=True)
class Chart:
    """A step's figure ready to draw, with its accessible name, summary and table."""

    shown: go.Figure
    name: str
    summary: str
    table: list[dict[str, object]]


def chart(
    text: StepText,
    view: StepView,
    number: int,
    present: bool,
    revealed: bool,
    projected: tuple[go.Figure, str] | None = None,
) -> Chart:
    """The step's view (or `projected`, the presenter's own figure and its setting; after
    the reveal, the view's revealed figure if it has one) with its caption; in presenter
    mode as tall as the window allows, and larger unless the window is small."""
    scale = PRESENTER_FONT_SCALE if present and not small_window() else 1.0
    drawn, setting = projected or (view.figure, view.setting)
    if projected is None and view.revealed_figure is not None and revealed:
        drawn = view.revealed_figure
    lines = [f"Head Spaces lesson, step {number}: {text.title}", setting]
    phone = narrow_screen()
    chars = PHONE_CAPTION_CHARS if phone else CAPTION_CHARS
    shown = for_slides(
        drawn, lines, scale, present, chars, keep_plot=phone and not present,
        least_height=LEAST_CHART_PX,
    )  # fmt: skip
    if phone:  # laid out for the phone here, so a class's screens share it (draw_chart)
        shown = for_phone(shown)
    spec = shown.to_dict()
    return Chart(
        shown,
        name=f"Step {number}: {text.title}",
        summary=chart_outline(spec, MAX_ROWS, MAX_COLUMNS),
        table=figure_rows(spec),
    )


def draw_chart(text: StepText, prepared: Chart, present: bool) -> None:
    """Draw a step's chart (laid out for this screen's width by chart()): in presenter
    mode it fills the height and its text stays in normal mode."""
    key = f"lesson_view_{text.id}"
    if present:
        with st.container(key="lesson_view"):
            show_chart(prepared.shown, key=key, name=prepared.name, laid_out=True)
    else:
        show_chart(
            prepared.shown,
            key=key,
            name=prepared.name,
            summary=prepared.summary,  # an outline of the drawing: for a screen reader
            table=prepared.table,
            laid_out=True,
            words_shown=False,
        )


def presenter_figure(
    text: StepText, view: StepView, number: int, projected: tuple[go.Figure, str] | None
) -> None:
    """Prepare and draw the step's chart in presenter mode as this session's phase of the
    step says (the presenter's alone: outside presenter mode ui/step_screens shares it)."""
    revealed = phase(text.id) == REVEALED
    draw_chart(text, chart(text, view, number, True, revealed, projected), present=True)


def projected(step: LessonStep, scenario: Scenario) -> tuple[go.Figure, str] | None:
    """The presenter's own figure of the step and its setting, if it has one (drawing
    its control here)."""
    return None if step.presenter is None else step.presenter(scenario)


def by_hand(step: LessonStep, scenario: Scenario) -> None:
    """The step's view to move by hand, once the step is revealed, if it has one."""
    if step.by_hand is not None and phase(step.text.id) == REVEALED:
        step.by_hand(control_value(step, scenario))
