"""The presenter's row under a step's question: Reveal and Start a class; with a class
running, the class kept in step with the page, Vote again, the join code with its QR code,
the live counts, the console's hand-over, Close and the results."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.steps import StepView
from attention.teaching.narration import live_class as class_words
from classroom.store import OpenedClass, PublicState
from ui.lesson import quiz, walk
from ui.lesson.step import LessonStep
from ui.live import console, projector


def sync_class(
    lecturer: OpenedClass, number: int, step: LessonStep, view: StepView
) -> PublicState | None:
    """The running class follows this page: step, answers and reveal."""
    revealed = walk.phase(step.text.id) == walk.REVEALED
    question = class_words.class_question(step.text.question, view.facts)
    options = list(view.quiz.options)
    return projector.sync(lecturer, number, options, view.quiz.right, revealed, question)


def class_panel(
    lecturer: OpenedClass | None, number: int, steps: list[LessonStep], view: StepView
) -> None:
    """The presenter's Reveal beside Start a class; with a class running, Reveal, Vote
    again and Close, the join code with its QR code, and the live counts."""
    step = steps[number - 1]
    # A row that wraps: in two columns a 1024-px projector cut "Reveal the ans…".
    buttons = st.container(horizontal=True, key="lesson_class_buttons")
    with buttons:
        quiz.check_button(step.text, view)  # the quiz's Check, in this row: no row more
        walk.reveal_button(step.text.id)
    if lecturer is None:
        with buttons:
            projector.start_button(len(steps), list(view.quiz.options))
        if closed := projector.closed_class():
            projector.results_button(closed)
        return
    state = sync_class(lecturer, number, step, view)
    if state is None:
        return
    with buttons:
        projector.vote_again_button(lecturer, state, step.text.id)
    projector.join_panel(lecturer)
    projector.live_counts(lecturer)
    console.hand_over(lecturer)
    with st.container(horizontal=True, key="live_class_actions"):  # wraps, never truncates
        projector.close_button(lecturer)
        projector.results_button(lecturer)
        console.open_console_button()
