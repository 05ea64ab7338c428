"""The whole Lesson as one offline HTML file, built only when the download is clicked."""

from __future__ import annotations

import functools

import streamlit as st

from attention.teaching.lesson.export import ExportedStep, lesson_html
from ui.lesson.step import LessonStep
from ui.lesson.walk import control_value
from view_state.scenario import Scenario


def export_section(steps: list[LessonStep], scenario: Scenario) -> None:
    """Offer the whole lesson as one file, built only when the button is clicked: the
    ~5 MB document is never kept in the session."""
    with st.expander("Take the lesson home: one HTML file that works offline"):
        st.caption(
            "Every step's words, numbers and interactive figure for your sentence and "
            "settings, in one file that opens from disk with no server and no network. "
            "It is computed when you click, which takes a few seconds."
        )
        values = [control_value(step, scenario) for step in steps]  # needs the session
        st.download_button(
            "Download the lesson (HTML)",
            functools.partial(lesson_file, steps, scenario, values),
            file_name="head-spaces-lesson.html",
            mime="text/html",
            on_click="ignore",
            key="lesson_download",
        )


def lesson_file(steps: list[LessonStep], scenario: Scenario, values: list[object]) -> bytes:
    """The lesson as one offline HTML file, each step computed for `scenario` with its own
    control at `values[i]`. Streamlit runs it on its own thread when the download button
    is clicked, so it reads nothing from the session."""
    exported = [
        ExportedStep(step.text, step.view(scenario, value))
        for step, value in zip(steps, values, strict=True)
    ]
    document = lesson_html(exported, "Head Spaces: the lesson", export_subtitle(scenario))
    return document.encode("utf-8")


def export_subtitle(scenario: Scenario) -> str:
    return (
        f"Computed by Head Spaces for the sentence “{scenario.text.strip() or 'the default'}”. "
        "Each figure is interactive: hover for the numbers."
    )
