"""The Lesson: the discussion as a guided walk, one question per step, the view that
answers it, the measured numbers, and a question to check yourself."""

import streamlit as st

from attention.teaching.markdown import literal
from ui import lesson
from ui.lesson_keys import KEYS_HELP, keyboard
from ui.lesson_steps import LESSON_STEPS
from ui.sidebar import scenario_sidebar

scenario = scenario_sidebar()
lesson.read_step_from_url()
present = st.session_state[lesson.PRESENT_KEY]
if present:
    st.set_page_config(initial_sidebar_state="collapsed")
    lesson.presenter_style()
if notice := lesson.url_notice():
    st.info(notice)

n = len(LESSON_STEPS)
number = st.session_state[lesson.STEP_KEY]
step = LESSON_STEPS[number - 1]
lesson.write_url(number, present)


def navigation() -> None:
    """Step k of N, Back / Next, the step picker and the presenter switch (two lines on
    a phone: lesson.PHONE_NAVIGATION_CSS)."""
    lesson.phone_navigation_style()
    row = st.container(key=lesson.NAVIGATION_KEY)
    here, back, forward, picker, mode = row.columns([3, 2, 2, 6, 3], vertical_alignment="center")
    here.markdown(f"**Step {number} of {n}**", help=KEYS_HELP)
    with here:
        keyboard(lesson.on_key)
    back.button("◀ Back", on_click=lesson.go_to, args=(number - 1,), disabled=number == 1)
    forward.button("Next ▶", on_click=lesson.go_to, args=(number + 1,), disabled=number == n)
    picker.selectbox(
        "Step",
        range(1, n + 1),
        key=lesson.STEP_KEY,
        format_func=lambda k: f"{k}. {LESSON_STEPS[k - 1].text.title}",
        label_visibility="collapsed",
    )
    mode.toggle(
        "Presenter",
        key=lesson.PRESENT_KEY,
        help=f"Larger type; every step fits the screen. {KEYS_HELP}",
    )


def words_and_controls():
    """The question and the step's own control; after the reveal, what to notice.
    Returns the step's view."""
    st.header(step.text.title)
    control = step.control(scenario)
    value = None
    if control is not None:
        value = lesson.control(control, f"Try this: {step.text.try_label}", scenario)
    try:
        view = step.view(scenario, value)
    except ValueError as error:  # e.g. a one-word sentence for a step that compares tokens
        st.info(
            f"This step cannot use your sentence: {literal(str(error))} Type a longer "
            "sentence in the sidebar, or go on with ◀ Back / Next ▶."
        )
        st.stop()
    if lesson.phase(step.text.id) == lesson.REVEALED:
        for line in lesson.sentences(step.text, view):
            st.markdown(line)
    return view


def reset_button() -> None:
    keys = tuple(c.key for s in LESSON_STEPS if (c := s.control(scenario)) is not None)
    st.button(
        "Reset to the lesson's defaults",
        on_click=lesson.reset_to_defaults,
        args=(keys,),
        key="lesson_defaults",
        help="The sidebar's sizes, seed, temperature and source, and every step's own "
        "control, as the lesson starts (your sentence stays).",
    )


navigation()
if present:
    words, picture = st.columns([2, 3])
    with words:
        view = words_and_controls()
        lesson.quiz(step.text, view)
        lesson.reveal_button(step.text.id)
    with picture:
        lesson.figure(step.text, view, number, present=True)
else:
    view = words_and_controls()
    lesson.details(step.text, view)
    lesson.figure(step.text, view, number, present=False)
    lesson.quiz(step.text, view)
    lesson.by_hand(step, scenario)
    lesson.score_line(final=number == n, questions=n)
    lesson.export_section(LESSON_STEPS, scenario)
    reset_button()
