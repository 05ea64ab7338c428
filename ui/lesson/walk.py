"""The Lesson page's Streamlit side: which step is shown (and its place in the URL),
presenter mode, the quiz score kept in the session, and drawing one step.

The steps' computations are in attention.teaching.lesson.steps, their words in assets/lesson.toml;
`LESSON_STEPS` below pairs each step's words with the function that gathers its
(cached) inputs here and computes its view there.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from attention.figures.base.phone import for_phone
from attention.figures.drawn_tables import MAX_COLUMNS, MAX_ROWS, figure_rows
from attention.figures.lesson import CAPTION_CHARS, PHONE_CAPTION_CHARS, for_slides
from attention.teaching.lesson.content import StepText, fill, lesson_text, slide_count
from attention.teaching.lesson.export import ExportedStep, lesson_html
from attention.teaching.lesson.steps import StepView
from attention.teaching.markdown import literal
from attention.teaching.narration.lesson import chart_outline
from ui.charts import show_chart
from ui.lesson.keys import REVEAL_KEY_NAME
from ui.media import narrow_screen, report_small_window, small_window
from view_state import url_params
from view_state.scenario import Scenario

STEP_KEY = "lesson_step"
PRESENT_KEY = "present"
_ANSWERS = "lesson_answers"  # step id → whether the first answer was right
# step id → its phase, "asking" until the quiz is answered or Reveal is pressed, then
# "revealed": the one place a step's phase lives (a live class can later drive it).
_PHASES = "lesson_phases"
ASKING, REVEALED = "asking", "revealed"
# The sidebar's engine settings the Reset button puts back (the sentence and the focus
# token stay: they are the class's own).
LESSON_SETTINGS = ("source", "d_model", "heads", "d_head", "full", "seed", "temp", "causal")
_URL_NOTICE = "_lesson_url_notice"


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


def step_count() -> int:
    """The slides: every step, then the last slide (results, where to go next)."""
    return slide_count()


def read_step_from_url() -> None:
    """Once per session: the URL's step (1-based) and presenter mode into the session,
    read and worded through the URL table (junk step → step 1 with a notice)."""
    if STEP_KEY in st.session_state:
        return
    values, notices = url_params.read(st.query_params.to_dict(), ("step", PRESENT_KEY))
    if notices:
        st.session_state[_URL_NOTICE] = " ".join(notices)
    st.session_state[STEP_KEY] = values.get("step", url_params.row("step").default)
    st.session_state[PRESENT_KEY] = values.get(PRESENT_KEY, url_params.row(PRESENT_KEY).default)


def write_url(step: int, present: bool) -> None:
    """The step and presenter mode into the URL (the scenario is written by the sidebar);
    a default stays out, as the URL table says."""
    url_params.write(st.query_params, "step", step)
    url_params.write(st.query_params, PRESENT_KEY, present)


def url_notice() -> str | None:
    return st.session_state.pop(_URL_NOTICE, None)


def go_to(step: int) -> None:
    """Callback of Back / Next: move within 1 … N."""
    st.session_state[STEP_KEY] = min(max(step, 1), step_count())


def phase(step_id: str) -> str:
    """The step's phase in this session: ASKING or REVEALED."""
    return st.session_state.get(_PHASES, {}).get(step_id, ASKING)


def reveal(step_id: str) -> None:
    """Show the step's answer and the sentences that state it (Reveal, or an answer)."""
    st.session_state.setdefault(_PHASES, {})[step_id] = REVEALED


def ask_again(step_id: str) -> None:
    """The step asks again (a live class's second round): its answer hidden until the next
    reveal."""
    st.session_state.get(_PHASES, {}).pop(step_id, None)


def current_step_id() -> str | None:
    """The shown step's id; None on the last slide, which has no question."""
    number = st.session_state[STEP_KEY]
    return lesson_text()[number - 1].id if number <= len(lesson_text()) else None


def on_key(action: str) -> None:
    """A key of the presenter's keyboard or clicker: "next", "back" or "reveal"."""
    number = st.session_state[STEP_KEY]
    if action == "reveal":
        if (step_id := current_step_id()) is not None:
            reveal(step_id)
    elif action in ("next", "back"):
        go_to(number + (1 if action == "next" else -1))


def record_answer(step_id: str, key: str, right: str) -> None:
    """Callback of a quiz: the first answer to a question is the one that counts; any
    answer reveals the step."""
    answers = st.session_state.setdefault(_ANSWERS, {})
    if step_id not in answers:
        answers[step_id] = st.session_state[key] == right
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
    st.session_state[_PHASES] = {}
    for key in [k for k in st.session_state if str(k).startswith("quiz_")]:
        del st.session_state[key]


def reset_to_defaults(control_keys: tuple[str, ...]) -> None:
    """Callback of "Reset to the lesson's defaults": the sidebar's engine settings and
    the steps' own controls (`control_keys`) back to where the lesson starts."""
    for name in LESSON_SETTINGS:
        st.session_state[name] = url_params.default(name)
    for key in control_keys:
        st.session_state.pop(key, None)
        if key in st.query_params:
            del st.query_params[key]


def control(step_control: Control, label: str, scenario: Scenario) -> object:
    """Draw a step's "Try this" control and return its value. A control that sets a
    sidebar parameter (d_model, heads) shows the sidebar's value and moves the sidebar
    with it, so the page never shows two values of one parameter; the step's other
    controls are kept in the URL."""
    arguments = {"format_func": step_control.format, "key": step_control.key}
    if step_control.sidebar is None:
        return st.select_slider(
            label,
            step_control.options,
            value=step_control.default,
            bind="query-params",
            **arguments,
        )
    shared = getattr(scenario, step_control.sidebar)
    if shared not in step_control.options:
        allowed = ", ".join(map(str, step_control.options))
        st.info(f"This step needs {step_control.sidebar} to be one of {allowed}.")
        st.button(
            f"Use {step_control.options[0]}",
            on_click=_set_sidebar,
            args=(step_control.sidebar, step_control.options[0]),
            key="lesson_fit_sidebar",
        )
        st.stop()
    st.session_state[step_control.key] = shared
    return st.select_slider(
        label,
        step_control.options,
        on_change=_to_sidebar,
        args=(step_control.key, step_control.sidebar),
        help="The same setting as in the sidebar: moving one moves the other.",
        **arguments,
    )


def _to_sidebar(key: str, name: str) -> None:
    _set_sidebar(name, st.session_state[key])


def _set_sidebar(name: str, value: object) -> None:
    st.session_state[name] = value


def sentences(text: StepText, view: StepView) -> list[str]:
    """The step's notice sentences as markdown, user words escaped."""
    return [fill(line, view.facts, literal) for line in text.notice]


def details(text: StepText, view: StepView) -> None:
    """The step's longer account, folded away, when it has one (after the reveal: it
    states the answer too)."""
    if text.details and phase(text.id) == REVEALED:
        with st.expander("More about this view"):
            st.markdown(fill(text.details, view.facts, literal))


def quiz(text: StepText, view: StepView) -> None:
    """The step's question; once answered or revealed, the right answer marked with the
    reason. The answer is never in the URL."""
    question = fill(text.question, view.facts, literal)
    options = list(view.quiz.options)
    digest = hashlib.sha1(("|".join(options) + question).encode()).hexdigest()[:10]
    key = f"quiz_{text.id}_{digest}"  # a new sentence is a new question
    right = view.quiz.right
    # The label is the radio group's accessible name as written (no markdown, which a
    # screen reader would read out); the question shows as markdown above it.
    st.markdown(f"**Check yourself:** {question}")
    choice = st.radio(
        f"Check yourself: {fill(text.question, view.facts, str)}",
        options,
        index=None,
        key=key,
        format_func=literal,
        horizontal=True,
        on_change=record_answer,
        args=(text.id, key, right),
        label_visibility="collapsed",
    )
    if phase(text.id) == ASKING:
        return
    because = fill(text.because, {**view.facts, "answer": right}, literal)
    if choice is None:
        st.info(f"The answer: “{literal(right)}”. {because}", icon=":material/visibility:")
    elif choice == right:
        st.success(f"Right. {because}", icon=":material/check_circle:")
    else:
        st.warning(f"Not quite: it is “{literal(right)}”. {because}", icon=":material/info:")


def reveal_button(step_id: str) -> None:
    """The presenter's Reveal: shows the answer and what to notice before anyone answers."""
    st.button(
        "Reveal the answer",
        on_click=reveal,
        args=(step_id,),
        key="lesson_reveal",
        disabled=phase(step_id) == REVEALED,
        help=f"Or press {REVEAL_KEY_NAME}.",
    )


PRESENTER_FONT_SCALE = 1.3
# Presenter mode: bigger type, less padding, and the step's figure as tall as the window
# allows. `.st-key-<key>` is the class Streamlit documents for a keyed container; the
# browser tests check that every step then fits 1280×720 and 1920×1080 without scrolling,
# before and after the reveal. The root size grows with the window (the theme's 17 px
# at 1280×720, 25.5 px at 1920×1080), and every size here is in rem, so a projector's
# larger screen gets larger type and the same layout instead of empty space.
PRESENTER_CSS = """<style>
html {font-size: max(17px, min(1.328125vw, 2.36111vh)) !important;}
[data-testid="stHeader"] {height: 3.75rem;}
[data-testid="stMainBlockContainer"] {padding-top: 3.8rem; padding-bottom: 0;}
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li
{font-size: 1.08rem; line-height: 1.45;}
[data-testid="stMainBlockContainer"] h2 {font-size: 1.65rem; padding: 0.1rem 0 0.3rem 0;}
[data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] {gap: 0.55rem;}
.st-key-lesson_notice {gap: 0.3rem !important;}
.st-key-lesson_notice p {font-size: 0.98rem; line-height: 1.32;}
.st-key-lesson_words [data-testid="stAlert"] > div {padding: 0.45rem 0.7rem;}
.st-key-lesson_words [data-testid="stAlert"] p {font-size: 0.98rem; line-height: 1.32;}
.st-key-lesson_view [data-testid="stElementContainer"],
.st-key-lesson_view [data-testid="stFullScreenFrame"],
.st-key-lesson_view [data-testid="stPlotlyChart"] {height: calc(100dvh - CHART_REMrem) !important;}
.st-key-lesson_view [data-testid="stElementContainer"] {flex: 0 0 auto !important;
  overflow: hidden;}
</style>"""
CHART_REM = 9.2  # the presenter's chart: the window's height less this many rem
PRESENTER_CSS = PRESENTER_CSS.replace("CHART_REM", str(CHART_REM))
# ... 563 px in the smallest window a lesson is laid out for, 1280×720 (17-px rem): the
# gaps between a figure's rows of panels hold their texts there (lesson.for_slides).
LEAST_CHART_PX = int(720 - CHART_REM * 17)


def presenter_style() -> None:
    """The presenter's CSS, and the window's width asked (ui.media.small_window)."""
    st.html(PRESENTER_CSS)
    report_small_window()


NAVIGATION_KEY = "lesson_nav"
# On a phone Streamlit stacks columns one per line: the step, Back, Next, the picker and
# the presenter switch took 280 of 844 px. Under 640 px they wrap instead: the step with
# Back and Next, then the picker across the whole width (beside the switch it cut every
# title), then the switch (beside the picker its label was cut to "Prese…").
PHONE_NAVIGATION_CSS = """<style>
@media (max-width: 640px) {
.st-key-lesson_nav [data-testid="stHorizontalBlock"] {flex-wrap: wrap; row-gap: 0.5rem;}
.st-key-lesson_nav [data-testid="stColumn"] {min-width: 0 !important; width: auto !important;
  flex: 1 1 26% !important;}
.st-key-lesson_nav [data-testid="stColumn"]:nth-child(n+4) {flex-basis: 100% !important;}
}
</style>"""


def phone_navigation_style() -> None:
    """The Lesson's navigation row kept compact on a phone (PHONE_NAVIGATION_CSS)."""
    st.html(PHONE_NAVIGATION_CSS)


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
            summary=prepared.summary,
            table=prepared.table,
            laid_out=True,
        )


def presenter_figure(
    text: StepText, view: StepView, number: int, projected: tuple[go.Figure, str] | None
) -> None:
    """Prepare and draw the step's chart in presenter mode as this session's phase of the
    step says (the presenter's alone: outside presenter mode ui/step_screens shares it)."""
    revealed = phase(text.id) == REVEALED
    draw_chart(text, chart(text, view, number, True, revealed, projected), present=True)


def unmoved_value(control: Control, scenario: Scenario) -> object:
    """A step control's value before a session moves it: the sidebar's value for one that
    sets a sidebar parameter (as control() draws it), else the control's default."""
    return control.default if control.sidebar is None else getattr(scenario, control.sidebar)


def control_value(step: LessonStep, scenario: Scenario) -> object:
    """The value of a step's own control: the sidebar's for one that sets a sidebar
    parameter, else as last set in this session, else its default. A class's screen
    never draws the control, yet must compute the view the projector shows."""
    control = step.control(scenario)
    if control is None:
        return None
    if control.sidebar is not None:
        return unmoved_value(control, scenario)
    return st.session_state.get(control.key, control.default)


def projected(step: LessonStep, scenario: Scenario) -> tuple[go.Figure, str] | None:
    """The presenter's own figure of the step and its setting, if it has one (drawing
    its control here)."""
    return None if step.presenter is None else step.presenter(scenario)


def by_hand(step: LessonStep, scenario: Scenario) -> None:
    """The step's view to move by hand, once the step is revealed, if it has one."""
    if step.by_hand is not None and phase(step.text.id) == REVEALED:
        step.by_hand(control_value(step, scenario))


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
