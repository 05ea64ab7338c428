"""A step's question and this session's answers: the quiz, its feedback, the score, and
the sentences a step states once revealed."""

from __future__ import annotations

import hashlib

import streamlit as st

from attention.teaching.lesson.content import StepText, fill
from attention.teaching.lesson.steps import StepView
from attention.teaching.markdown import literal
from ui.lesson.walk import REVEALED, forget_phases, phase, reveal

_ANSWERS = "lesson_answers"  # step id → whether the first answer was right
_CHECKED = "lesson_checked"  # quiz key → the option checked (a new sentence: a new key)
_UNCHOSEN = "lesson_unchosen"  # the quiz key whose Check was pressed with nothing chosen


def record_answer(step_id: str, key: str, right: str) -> None:
    """Callback of a quiz's Check button: the checked option is this question's answer
    (the first checked answer of a step is the one its score counts) and the step is
    revealed. Choosing an option alone does nothing (WCAG 3.2.2): a keyboard user walks
    the options with the arrow keys before checking one."""
    choice = st.session_state.get(key)
    if choice is None:
        st.session_state[_UNCHOSEN] = key
        return
    st.session_state.setdefault(_CHECKED, {})[key] = choice
    st.session_state.setdefault(_ANSWERS, {}).setdefault(step_id, choice == right)
    reveal(step_id)


def answers() -> dict[str, bool]:
    """Step id → whether the first answer to its question was right, in this session."""
    return dict(st.session_state.get(_ANSWERS, {}))


def score() -> tuple[int, int]:
    """(right first answers, questions answered) in this session."""
    answers = st.session_state.get(_ANSWERS, {})
    return sum(answers.values()), len(answers)


def score_line(questions: int) -> None:
    """The session's score so far (first answers) and a reset; the last slide lists
    every question's result."""
    right, answered = score()
    text, reset = st.columns([4, 1], vertical_alignment="center")
    text.caption(f"Score so far: {right} right of {answered} answered ({questions} questions).")
    reset.button("Reset the score", on_click=reset_score, key="lesson_reset", disabled=not answered)


def reset_score() -> None:
    """Forget the answers; every step asks again."""
    st.session_state[_ANSWERS] = {}
    st.session_state[_CHECKED] = {}
    forget_phases()
    for key in [k for k in st.session_state if str(k).startswith("quiz_")]:
        del st.session_state[key]


def sentences(text: StepText, view: StepView) -> list[str]:
    """The step's notice sentences as markdown, user words escaped."""
    return [fill(line, view.facts, literal) for line in text.notice]


def details(text: StepText, view: StepView) -> None:
    """The step's longer account, folded away, when it has one (after the reveal: it
    states the answer too)."""
    if text.details and phase(text.id) == REVEALED:
        with st.expander("More about this view"):
            st.markdown(fill(text.details, view.facts, literal))


def _key(text: StepText, view: StepView) -> str:
    """The quiz's widget key: a new sentence (new options or question) is a new question."""
    question = fill(text.question, view.facts, literal)
    digest = hashlib.sha1(("|".join(view.quiz.options) + question).encode()).hexdigest()[:10]
    return f"quiz_{text.id}_{digest}"


def _checked(key: str) -> str | None:
    """The option checked for the quiz `key`, if any."""
    return st.session_state.get(_CHECKED, {}).get(key)


def ask(text: StepText, view: StepView, check_here: bool = True) -> None:
    """The step's question, answered by choosing an option and pressing Check (choosing
    alone answers nothing); with `check_here` False the page draws check_button() in a
    row of its own (a presenter's). Once checked, the options are fixed and the answer is
    marked with the reason, so the feedback is always about the answer the score counts;
    revealed without an answer, the right one is stated and can still be checked. The
    answer is never in the URL."""
    key, right = _key(text, view), view.quiz.right
    checked = _checked(key)
    # The label is the radio group's accessible name as written (no markdown, which a
    # screen reader would read out); the question shows as markdown above it.
    st.markdown(f"**Check yourself:** {fill(text.question, view.facts, literal)}")
    st.radio(
        f"Check yourself: {fill(text.question, view.facts, str)}",
        list(view.quiz.options),
        index=None,
        key=key,
        format_func=literal,
        horizontal=True,
        label_visibility="collapsed",
        disabled=checked is not None,
    )
    if check_here:
        check_button(text, view)
    if st.session_state.get(_UNCHOSEN) == key:
        del st.session_state[_UNCHOSEN]
        st.info("Choose an answer first, then press Check.", icon=":material/info:")
    if phase(text.id) != REVEALED:
        return
    because = fill(text.because, {**view.facts, "answer": right}, literal)
    if checked is None:
        st.info(f"The answer: “{literal(right)}”. {because}", icon=":material/visibility:")
    elif checked == right:
        st.success(f"Right. {because}", icon=":material/check_circle:")
    else:
        st.warning(f"Not quite: it is “{literal(right)}”. {because}", icon=":material/info:")


def check_button(text: StepText, view: StepView) -> None:
    """The quiz's Check: the chosen option becomes this question's answer."""
    key = _key(text, view)
    st.button(
        "Check",
        on_click=record_answer,
        args=(text.id, key, view.quiz.right),
        disabled=_checked(key) is not None,
        key=f"{key}_check",
    )
