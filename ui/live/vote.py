"""A student's vote on the step's answers (acknowledged only once the store has it) and
the answer after the lecturer's Reveal."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.content import fill
from attention.teaching.lesson.steps import StepView
from attention.teaching.markdown import literal
from attention.teaching.narration import live_class as words
from classroom.store import ClassStoreError, PublicState
from ui.lesson import quiz
from ui.lesson.step import LessonStep
from ui.live.joining import DEVICE
from ui.live.projector import class_store

_RECEIPTS = "live_receipts"  # session: (code, step, round) → the acknowledged answer
_ERROR = "live_vote_error"


def vote(code: str, state: PublicState) -> None:
    """The step's answers as the class votes on them; the receipt once the store has it."""
    options = list(state.votes)
    if not options:
        return
    key = f"live_vote_{state.step}_{state.round}"
    st.radio(
        "Your answer",  # the group's accessible name as written: no markdown
        options,
        index=None,
        key=key,
        format_func=literal,
        on_change=_send_vote,
        args=(code, state.step, state.round, key),
        disabled=state.phase != "asking",
    )
    if error := st.session_state.pop(_ERROR, None):
        st.warning(error, icon=":material/block:")
    receipt = st.session_state.get(_RECEIPTS, {}).get((code, state.step, state.round))
    if receipt is not None:
        vote_open = state.phase == "asking"
        st.success(words.acknowledged(receipt, vote_open), icon=":material/check_circle:")


def _send_vote(code: str, step: int, round: int, key: str) -> None:
    """Callback of the vote: the receipt is written only after the store has the vote."""
    choice = st.session_state.get(key)
    if choice is None:
        return
    try:
        class_store().vote(code, st.session_state.get(DEVICE, ""), step, round, choice)
    except ClassStoreError as error:
        st.session_state[_ERROR] = f"Not counted: {error}"
        return
    st.session_state.setdefault(_RECEIPTS, {})[(code, step, round)] = choice


def revealed(step: LessonStep, view: StepView, state: PublicState) -> None:
    """After the lecturer's Reveal: the right answer and what to notice, computed from
    this screen's view when it asked the same question as the class."""
    if state.phase != "revealed":
        return
    if list(view.quiz.options) != list(state.votes):
        st.info("The answer is shown on the projector.")
        return
    right = view.quiz.right
    because = fill(step.text.because, {**view.facts, "answer": right}, literal)
    st.info(f"The answer: “{literal(right)}”. {because}", icon=":material/visibility:")
    for line in quiz.sentences(step.text, view):
        st.markdown(line)
