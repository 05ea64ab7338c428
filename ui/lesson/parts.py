"""The Lesson page's rows: the navigation (step k of N, Back / Next, the step picker, the
presenter switch), a step's question with its own control and view, and the reset to the
lesson's defaults."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.content import lesson_end
from attention.teaching.lesson.steps import StepView
from attention.teaching.markdown import literal
from ui.lesson import presenter, quiz, screens, walk
from ui.lesson.keys import KEYS_HELP, keyboard
from ui.lesson.step import LessonStep
from view_state.scenario import Scenario


def navigation(number: int, steps: list[LessonStep], student: bool) -> None:
    """Step k of N, Back / Next, the step picker and the presenter switch (two lines on
    a phone: presenter.PHONE_NAVIGATION_CSS); a student gets no presenter switch."""
    n = len(steps)
    slides = walk.step_count()  # the steps, then the last slide
    end_title = f"{n + 1}. {lesson_end().short_title}"
    presenter.phone_navigation_style()
    row = st.container(key=presenter.NAVIGATION_KEY)
    here, back, forward, picker, mode = row.columns([3, 2, 2, 6, 3], vertical_alignment="center")
    here.markdown(f"**Step {number} of {n}**" if number <= n else "**The end**", help=KEYS_HELP)
    with here:
        keyboard(walk.on_key)
    back.button("◀ Back", on_click=walk.go_to, args=(number - 1,), disabled=number == 1)
    forward.button("Next ▶", on_click=walk.go_to, args=(number + 1,), disabled=number == slides)
    picker.selectbox(
        "Step",
        range(1, slides + 1),
        key=walk.STEP_KEY,
        format_func=lambda k: f"{k}. {steps[k - 1].text.short_title}" if k <= n else end_title,
        label_visibility="collapsed",
    )
    if student:
        return  # presenter mode is the lecturer's
    mode.toggle(
        "Presenter",
        key=walk.PRESENT_KEY,
        help=f"Larger type; every step fits the screen. {KEYS_HELP}",
    )


def words_and_controls(
    step: LessonStep, scenario: Scenario, notice_here: bool = True
) -> tuple[StepView, object]:
    """The question and the step's own control; after the reveal, what to notice (here,
    or with `notice_here` False where the page calls notice(), beside the quiz). Returns
    the step's view (shared with every session showing the same) and the control's
    value."""
    st.header(step.text.title)
    control = step.control(scenario)
    value = None
    if control is not None:
        value = walk.control(control, f"Try this: {step.text.try_label}", scenario)
    try:
        view = screens.step_view(step, scenario, value)
    except ValueError as error:  # e.g. a one-word sentence for a step that compares tokens
        st.info(
            f"This step cannot use your sentence: {literal(str(error))} Type a longer "
            "sentence in the sidebar, or go on with ◀ Back / Next ▶."
        )
        st.stop()
    revealed = walk.phase(step.text.id) == walk.REVEALED
    if notice_here:
        notice(step, view)
    if step.evidence is not None:
        step.evidence(scenario, revealed)
    return view, value


def notice(step: LessonStep, view: StepView) -> None:
    """Once the step is revealed, what to notice in its view."""
    if walk.phase(step.text.id) == walk.REVEALED:
        with st.container(key="lesson_notice"):  # compact in presenter mode
            for line in quiz.sentences(step.text, view):
                st.markdown(line)


def back_and_next(number: int) -> None:
    """Back and Next again under a step, where a student who has read it down to the quiz
    and its explanation is (the keys ← and → work anywhere)."""
    back, forward, _ = st.columns([3, 3, 6])
    back.button(  # named apart from the row above: a screen reader lists both
        "◀ Previous step",
        on_click=walk.go_to,
        args=(number - 1,),
        disabled=number == 1,
        key="lesson_back_below",
    )
    forward.button(
        "Next step ▶",
        on_click=walk.go_to,
        args=(number + 1,),
        disabled=number == walk.step_count(),
        key="lesson_next_below",
    )


def reset_button(steps: list[LessonStep], scenario: Scenario) -> None:
    """Put the sidebar's settings and every step's own control back to the lesson's start."""
    keys = tuple(c.key for s in steps if (c := s.control(scenario)) is not None)
    st.button(
        "Reset to the lesson's defaults",
        on_click=walk.reset_to_defaults,
        args=(keys,),
        key="lesson_defaults",
        help="The sidebar's sizes, seed, temperature and source, and every step's own "
        "control, as the lesson starts (your sentence stays).",
    )
