"""A student's screen in a live class: the lecturer's step and phase, pushed (the browser
listens to the class's server-sent events and reruns the class screen, a fragment, when
they differ from what it draws), the vote, the reveal and "Explore alone" / "Follow the
lecturer". No lecturer control is drawn here. The step after is drawn too, hidden: when
the push announces it, the browser shows it at once, before its screen's rerun."""

from __future__ import annotations

import dataclasses

import streamlit as st

from attention.teaching.lesson.content import fill
from attention.teaching.markdown import literal
from attention.teaching.narration import live_class as words
from classroom.events import screen_of
from classroom.store import ClassStoreError, PublicState
from ui.js_component import mounted_component
from ui.lesson import drawing, walk
from ui.lesson.step import LessonStep
from ui.live.joining import detached, explore_button, follow_button, joined_state, tell_untold
from ui.live.shared_screens import in_turn, screen_state, step_screen, warm_screens
from ui.live.vote import revealed, vote
from ui.media import narrow_screen, screen_assumed
from view_state.scenario import Scenario

_PUSHED = "live_pushed"  # session: the screen the last push announced, until drawn
_PUSH_KEY = "live_push"


NOW = "class_step_"  # + the step: the container of the class's step on this screen
AHEAD = "class_ahead_"  # + the step: the container of the step after, drawn hidden


OTHER_VIEW = (
    "This screen computes the step for its own sentence and settings, which differ from "
    "the projector's, so its picture may differ too."
)


_push_component = mounted_component("head_spaces_class_push", "class_push.js")


def status(state: PublicState) -> None:
    revealed = state.phase == "revealed"
    st.caption(words.class_status(state.code, state.step, state.steps, state.round, revealed))


def follow_pushes(state: PublicState, ahead: PublicState | None) -> None:
    """Rerun the class's screen when the pushed screen differs from this one (the trigger
    itself reruns the fragment); when it is the screen drawn `ahead`, show that at once."""
    _push_component(
        key=_PUSH_KEY,
        data={
            "url": f"/api/classes/{state.code}/events",
            "drawn": screen_of(state),
            "ahead": None if ahead is None else screen_of(ahead),
        },
        on_moved_change=_moved,
    )


def _moved() -> None:
    """on_moved_change: keep the announced screen for the rerun the trigger starts."""
    st.session_state[_PUSHED] = (st.session_state.get(_PUSH_KEY) or {}).get("moved")


def show_step(step: LessonStep, scenario: Scenario, state: PublicState) -> None:
    """The lecturer's step on the student's screen, phone first: the question and the
    vote on top, then the reveal, then the step's view. When this screen's view asks
    about other answers than the class's (the projector has another sentence or
    setting), the question is left to the projector rather than shown wrong."""
    st.header(step.text.title)
    try:
        view, chart = step_screen(step, scenario, state.step, state.phase == "revealed")
    except ValueError:
        view = None
    if not state.votes or (view is None and not state.question):  # nothing sent yet
        st.markdown("**The question is on the projector.**")
    elif view is not None and list(view.quiz.options) == list(state.votes):
        st.markdown(f"**The question:** {fill(step.text.question, view.facts, literal)}")
    elif state.question:  # the projector's own words, as it filled them
        st.markdown(words.shown_question(state.question))
        if view is not None:
            st.caption(OTHER_VIEW)
    else:
        st.markdown(f"**The question is on the projector.** {OTHER_VIEW}")
    vote(state.code, state)
    if view is not None:
        revealed(step, view, state)
        drawing.draw_chart(step.text, chart, present=False)


def ahead_css(steps: int) -> str:
    """The page's rules for the steps drawn ahead: each stays out of sight, out of the
    tab order and out of a screen reader's reach until the push component marks it shown
    (`data-class-shown` on the page), which hides the step before it. The container's
    wrapper takes no room (the container itself grows to its content in it) and gives
    back its row gap; a label sets its own visibility, hence the `*` rule. Rules per
    step, named after the containers, so a rerun's new containers are never caught by a
    mark meant for the old ones."""
    rules = []
    for number in range(2, steps + 1):
        hidden = f'html:not([data-class-shown="{number}"])'
        ahead = f".st-key-{AHEAD}{number}"
        rules += [
            f"{hidden} div:has(> {ahead}) {{height: 0; overflow: hidden; margin-top: -1rem;}}",
            f"{hidden} {ahead}, {hidden} {ahead} * {{visibility: hidden !important;}}",
            f'html[data-class-shown="{number}"] .st-key-{NOW}{number - 1} '
            "{display: none !important;}",
        ]
    return "<style>\n" + "\n".join(rules) + "\n</style>"


def follow_the_class(code: str, scenario: Scenario, steps: list[LessonStep]) -> None:
    """A student's page: join, then draw the lecturer's step and stop the script; while
    exploring alone, only the button back, and the Lesson's own page goes on below."""
    state = joined_state(code)
    if state is None:
        st.stop()
    tell_untold(code)
    warm_screens(scenario, steps)
    if detached():
        follow_button(state)
        return
    st.html(ahead_css(len(steps)))
    class_screen(code, scenario, steps)
    st.stop()


def step_ahead(
    state: PublicState, scenario: Scenario, steps: list[LessonStep]
) -> PublicState | None:
    """The class as the lecturer's Next from `state` will push it, with this screen's
    answers (the projector's, when it shows the same sentence and setting); None on the
    last step, or on a step this sentence cannot show."""
    number = state.step + 1
    if number > len(steps):
        return None
    try:
        view, _ = step_screen(steps[number - 1], scenario, number, revealed=False)
    except ValueError:
        return None
    votes = dict.fromkeys(view.quiz.options, 0)
    return dataclasses.replace(
        state, step=number, phase="asking", round=1, answered=0, votes=votes, question=""
    )


@st.fragment
def class_screen(code: str, scenario: Scenario, steps: list[LessonStep]) -> None:
    """The class's step on this screen, and the step after, hidden until the push says
    the lecturer moved there. A fragment: a push or a vote reruns only this, not the
    sidebar and the navigation (a Next reruns every student's screen at once). When the
    class refuses (it ended) or the student chose to explore alone, the whole page runs
    again and says so."""
    with in_turn(), screen_assumed(narrow_screen()):  # the width asked once per screen
        try:
            state = screen_state(code, st.session_state.pop(_PUSHED, None))
        except ClassStoreError:
            st.rerun(scope="app")
        if detached():
            st.rerun(scope="app")
        number = min(state.step, len(steps))
        st.session_state[walk.STEP_KEY] = number
        with st.container(key=f"{NOW}{number}"):
            status(state)
            show_step(steps[number - 1], scenario, state)
        ahead = step_ahead(state, scenario, steps)
        if ahead is not None:
            with st.container(key=f"{AHEAD}{ahead.step}"):
                status(ahead)
                show_step(steps[ahead.step - 1], scenario, ahead)
        explore_button(code)
        follow_pushes(state, ahead)
