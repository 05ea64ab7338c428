"""The Lesson: the discussion as a guided walk, one question per step, the view that
answers it, the measured numbers, and a question to check yourself. In presenter mode it
can run a live class (ui/live/projector.py); a link with a class code makes it a student's
screen that follows the lecturer (ui/live/student.py)."""

import streamlit as st

from ui.lesson import drawing, export, parts, presenter, quiz, screens, walk
from ui.lesson.end import final_slide
from ui.lesson.steps import LESSON_STEPS, sentence_notices
from ui.live import console as live_console
from ui.live import joining, panel
from ui.live import projector as live_class
from ui.live import student as student_screen
from ui.sidebar import scenario_sidebar

if live_console.requested():  # the lecturer's second window: its own page
    live_console.console_page()
    st.stop()
scenario = scenario_sidebar()
walk.read_step_from_url()
code, class_notice = live_class.class_from_url()
live_class.take_back(code)  # a lecturer whose worker died keeps the class
lecturer = live_class.lecturing(code)
if lecturer is not None:
    live_class.follow_the_console(lecturer)  # the console may have moved the class
student = bool(code) and lecturer is None  # a student never gets presenter controls
present = st.session_state[walk.PRESENT_KEY] and not student
if present:
    st.set_page_config(initial_sidebar_state="collapsed")
    presenter.presenter_style()
for notice in (walk.url_notice(), class_notice, live_class.notice(), *sentence_notices(scenario)):
    if notice:
        st.info(notice)

n = len(LESSON_STEPS)
if student:
    student_screen.follow_the_class(code, scenario, LESSON_STEPS)  # stops unless exploring
number = st.session_state[walk.STEP_KEY]
step = LESSON_STEPS[number - 1] if number <= n else None
walk.write_url(number, present)
parts.navigation(number, LESSON_STEPS, student)
if not present and not student and lecturer is None:
    joining.join_by_code()
    if error := joining.typed_code_error():
        st.warning(error)
if step is None:
    final_slide(LESSON_STEPS, scenario)
    if not present:
        parts.reset_button(LESSON_STEPS, scenario)
elif present:
    # After the reveal the words take half the width (what to notice, the answer) and
    # the figure the rest: the step still fits the window with no scroll.
    revealed = walk.phase(step.text.id) == walk.REVEALED
    words, picture = st.columns([5, 6] if revealed else [2, 3])
    with words.container(key="lesson_words"):
        view, _ = parts.words_and_controls(step, scenario)
        projected = drawing.projected(step, scenario)
        quiz.ask(step.text, view, check_here=False)  # Check goes in the panel's row
        panel.class_panel(lecturer, number, LESSON_STEPS, view)
    with picture:
        drawing.presenter_figure(step.text, view, number, projected)
else:
    view, value = parts.words_and_controls(step, scenario, notice_here=False)
    if lecturer is not None and panel.sync_class(lecturer, number, step, view) is not None:
        st.caption(f"Class {lecturer.code} follows this page; Presenter shows its code and votes.")
    revealed = walk.phase(step.text.id) == walk.REVEALED
    _, prepared = screens.step_chart(step, scenario, value, number, revealed)
    drawing.draw_chart(step.text, prepared, present=False)
    quiz.ask(step.text, view)  # the explanation comes under the answer, where the eye is
    parts.notice(step, view)
    quiz.details(step.text, view)
    drawing.by_hand(step, scenario)
    parts.back_and_next(number)
    quiz.score_line(questions=n)
    export.export_section(LESSON_STEPS, scenario)
    parts.reset_button(LESSON_STEPS, scenario)
