"""Where a session is in the Lesson: the step shown and its phase (asking or revealed),
both kept in the session and the step in the URL, presenter mode, the keys' actions,
and a step's own "Try this" control."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.content import lesson_text, slide_count
from ui.lesson.keys import REVEAL_KEY_NAME
from ui.lesson.step import Control, LessonStep
from view_state import url_params
from view_state.scenario import Scenario

STEP_KEY = "lesson_step"
PRESENT_KEY = "present"


# step id → its phase, "asking" until the quiz is answered or Reveal is pressed, then
# "revealed": the one place a step's phase lives (a live class can later drive it).
_PHASES = "lesson_phases"
ASKING, REVEALED = "asking", "revealed"


# The sidebar's engine settings the Reset button puts back (the sentence and the focus
# token stay: they are the class's own).
LESSON_SETTINGS = ("source", "d_model", "heads", "d_head", "full", "seed", "temp", "causal")
_URL_NOTICE = "_lesson_url_notice"


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


def forget_phases() -> None:
    """Every step asks again (the score was reset)."""
    st.session_state[_PHASES] = {}


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
