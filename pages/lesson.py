"""The Lesson: the discussion as a guided walk, one question per step, the view that
answers it, the measured numbers, and a question to check yourself. In presenter mode it
can run a live class (ui/live/projector.py); a link with a class code makes it a student's
screen that follows the lecturer (ui/live/student.py)."""

import streamlit as st

from attention.teaching.lesson.content import lesson_end
from attention.teaching.markdown import literal
from attention.teaching.narration import live_class as class_words
from ui.lesson import screens
from ui.lesson import walk as lesson
from ui.lesson.end import final_slide
from ui.lesson.keys import KEYS_HELP, keyboard
from ui.lesson.steps import LESSON_STEPS
from ui.live import console as live_console
from ui.live import projector as live_class
from ui.live import student as live_student
from ui.sidebar import scenario_sidebar

if live_console.requested():  # the lecturer's second window: its own page
    live_console.console_page()
    st.stop()
scenario = scenario_sidebar()
lesson.read_step_from_url()
code, class_notice = live_class.class_from_url()
live_class.take_back(code)  # a lecturer whose worker died keeps the class
lecturer = live_class.lecturing(code)
if lecturer is not None:
    live_class.follow_the_console(lecturer)  # the console may have moved the class
student = bool(code) and lecturer is None  # a student never gets presenter controls
present = st.session_state[lesson.PRESENT_KEY] and not student
if present:
    st.set_page_config(initial_sidebar_state="collapsed")
    lesson.presenter_style()
for notice in (lesson.url_notice(), class_notice, live_class.notice()):
    if notice:
        st.info(notice)

n = len(LESSON_STEPS)
END_TITLE = f"{n + 1}. {lesson_end().short_title}"
slides = lesson.step_count()  # the steps, then the last slide
if student:
    live_student.follow_the_class(code, scenario, LESSON_STEPS)  # stops unless exploring
number = st.session_state[lesson.STEP_KEY]
step = LESSON_STEPS[number - 1] if number <= n else None
lesson.write_url(number, present)


def navigation() -> None:
    """Step k of N, Back / Next, the step picker and the presenter switch (two lines on
    a phone: lesson.PHONE_NAVIGATION_CSS)."""
    lesson.phone_navigation_style()
    row = st.container(key=lesson.NAVIGATION_KEY)
    here, back, forward, picker, mode = row.columns([3, 2, 2, 6, 3], vertical_alignment="center")
    here.markdown(f"**Step {number} of {n}**" if step else "**The end**", help=KEYS_HELP)
    with here:
        keyboard(lesson.on_key)
    back.button("◀ Back", on_click=lesson.go_to, args=(number - 1,), disabled=number == 1)
    forward.button("Next ▶", on_click=lesson.go_to, args=(number + 1,), disabled=number == slides)
    picker.selectbox(
        "Step",
        range(1, slides + 1),
        key=lesson.STEP_KEY,
        format_func=lambda k: (
            f"{k}. {LESSON_STEPS[k - 1].text.short_title}" if k <= n else END_TITLE
        ),
        label_visibility="collapsed",
    )
    if student:
        return  # presenter mode is the lecturer's
    mode.toggle(
        "Presenter",
        key=lesson.PRESENT_KEY,
        help=f"Larger type; every step fits the screen. {KEYS_HELP}",
    )


def words_and_controls():
    """The question and the step's own control; after the reveal, what to notice.
    Returns the step's view (shared with every session showing the same) and the
    control's value."""
    st.header(step.text.title)
    control = step.control(scenario)
    value = None
    if control is not None:
        value = lesson.control(control, f"Try this: {step.text.try_label}", scenario)
    try:
        view = screens.step_view(step, scenario, value)
    except ValueError as error:  # e.g. a one-word sentence for a step that compares tokens
        st.info(
            f"This step cannot use your sentence: {literal(str(error))} Type a longer "
            "sentence in the sidebar, or go on with ◀ Back / Next ▶."
        )
        st.stop()
    revealed = lesson.phase(step.text.id) == lesson.REVEALED
    if revealed:
        with st.container(key="lesson_notice"):  # compact in presenter mode
            for line in lesson.sentences(step.text, view):
                st.markdown(line)
    if step.evidence is not None:
        step.evidence(scenario, revealed)
    return view, value


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


def sync_class(view):
    """The running class follows this page: step, answers and reveal."""
    revealed = lesson.phase(step.text.id) == lesson.REVEALED
    question = class_words.class_question(step.text.question, view.facts)
    options = list(view.quiz.options)
    return live_class.sync(lecturer, number, options, view.quiz.right, revealed, question)


def class_panel(view) -> None:
    """The presenter's Reveal beside Start a class; with a class running, Reveal, Vote
    again and Close, the join code with its QR code, and the live counts."""
    # A row that wraps: in two columns a 1024-px projector cut "Reveal the ans…".
    buttons = st.container(horizontal=True, key="lesson_class_buttons")
    with buttons:
        lesson.reveal_button(step.text.id)
    if lecturer is None:
        with buttons:
            live_class.start_button(n, list(view.quiz.options))
        if closed := live_class.closed_class():
            live_class.results_button(closed)
        return
    state = sync_class(view)
    if state is None:
        return
    with buttons:
        live_class.vote_again_button(lecturer, state, step.text.id)
    live_class.join_panel(lecturer)
    live_class.live_counts(lecturer)
    live_console.hand_over(lecturer)
    with st.container(horizontal=True, key="live_class_actions"):  # wraps, never truncates
        live_class.close_button(lecturer)
        live_class.results_button(lecturer)
        live_console.open_console_button()


navigation()
if not present and not student and lecturer is None:
    live_student.join_by_code()
    if error := live_student.typed_code_error():
        st.warning(error)
if step is None:
    final_slide(LESSON_STEPS, scenario)
    if not present:
        reset_button()
elif present:
    # After the reveal the words take half the width (what to notice, the answer) and
    # the figure the rest: the step still fits the window with no scroll.
    revealed = lesson.phase(step.text.id) == lesson.REVEALED
    words, picture = st.columns([5, 6] if revealed else [2, 3])
    with words.container(key="lesson_words"):
        view, _ = words_and_controls()
        projected = lesson.projected(step, scenario)
        lesson.quiz(step.text, view)
        class_panel(view)
    with picture:
        lesson.presenter_figure(step.text, view, number, projected)
else:
    view, value = words_and_controls()
    if lecturer is not None and sync_class(view) is not None:
        st.caption(f"Class {lecturer.code} follows this page; Presenter shows its code and votes.")
    lesson.details(step.text, view)
    revealed = lesson.phase(step.text.id) == lesson.REVEALED
    _, prepared = screens.step_chart(step, scenario, value, number, revealed)
    lesson.draw_chart(step.text, prepared, present=False)
    lesson.quiz(step.text, view)
    lesson.by_hand(step, scenario)
    lesson.score_line(questions=n)
    lesson.export_section(LESSON_STEPS, scenario)
    reset_button()
