"""A student's screen in a live class: a device id kept by the browser, the lecturer's
step and phase (pushed: the browser listens to the class's server-sent events and reruns
the class screen, a fragment, when they differ from what it draws), the vote on the
step's answers (acknowledged only once the store has it), the reveal, and "Explore alone"
/ "Follow the lecturer". No lecturer control is drawn here. A Next reruns every screen at
once, so what they share is made once per process: the class's state per pushed screen,
the step's view and chart per scenario. The step after is drawn too, hidden: when the
push announces it, the browser shows it at once, before its screen's rerun."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Iterator

import streamlit as st

from attention.teaching.lesson.content import fill
from attention.teaching.lesson.steps import StepView
from attention.teaching.markdown import literal
from attention.teaching.narration import live_class as words
from classroom.events import screen_of
from classroom.store import ClassStoreError, PublicState, StoreUnavailableError
from ui.js_component import mounted_component
from ui.lesson import screens as step_screens
from ui.lesson import walk as lesson
from ui.lesson.walk import LessonStep
from ui.live.projector import CLASS_PARAM, class_store, unreachable
from ui.media import narrow_screen, screen_assumed
from view_state import url_params
from view_state.scenario import Scenario

DEVICE = "live_device_id"  # session: this browser's device id, once the browser said it
DETACHED = "live_detached"  # session: the student explores alone
_COMPONENT = "live_device"
_JOINED = "live_joined"  # session: the code this session has joined
_RECEIPTS = "live_receipts"  # session: (code, step, round) → the acknowledged answer
_ERROR = "live_vote_error"
_TYPED_ERROR = "live_typed_code_error"
_PUSHED = "live_pushed"  # session: the screen the last push announced, until drawn
_UNTOLD = "live_untold"  # session: exploring alone or not, as the class has not heard yet
_PUSH_KEY = "live_push"
NOW = "class_step_"  # + the step: the container of the class's step on this screen
AHEAD = "class_ahead_"  # + the step: the container of the step after, drawn hidden
# A Next reruns every student's screen at once: the first rerun in this process reads the
# class, the others, pushed the same screen within REUSE_SECONDS, draw that read.
REUSE_SECONDS = 2.0
_latest: dict[str, tuple[float, PublicState]] = {}  # process: code → (when read, state)
_latest_lock = threading.Lock()
_reading = threading.Lock()  # held while this process reads a class's state from the store
# A Next reruns every screen of a worker at once. Drawn together, ~80 script threads
# share the GIL with the event loop that sends their messages, and all of them are late;
# drawn one at a time (with main.py's short switch interval) a Next to 160 students was
# p95 0.78-1.07 s in bench_live_class against 1.09-1.29 s drawn together. A plain lock:
# a Semaphore's Python-level Condition.notify took 14 % of a screen's samples (py-spy).
_drawing = threading.Lock()
TURN_SECONDS = 2.0
OTHER_VIEW = (
    "This screen computes the step for its own sentence and settings, which differ from "
    "the projector's, so its picture may differ too."
)
_push_component = mounted_component("head_spaces_class_push", "class_push.js")
_device_component = mounted_component("head_spaces_class_device", "device_id.js")


def device_id() -> str | None:
    """The browser's device id (None until its first answer arrives)."""
    device = st.session_state.get(DEVICE)
    _device_component(key=_COMPONENT, data={"device": device}, on_device_change=_keep_device)
    if device is None:  # a socket reconnected to another worker: a new session, whose
        _keep_device()  # first run already has the browser's id (no change, no callback)
        device = st.session_state.get(DEVICE)
    return device


def _keep_device() -> None:
    st.session_state[DEVICE] = (st.session_state.get(_COMPONENT) or {}).get("device")


def joined_state(code: str) -> PublicState | None:
    """Join the class once per session and return its state; None (with the reason on the
    page) when the browser has not said its id yet or the class refuses."""
    device = device_id()
    if device is None:
        st.info(f"Joining class {code}…")
        return None
    store = class_store()
    try:
        if st.session_state.get(_JOINED) != code:
            state = store.join(code, device)
            st.session_state[_JOINED] = code
            return state
        return store.state(code)
    except ClassStoreError as error:
        if isinstance(error, StoreUnavailableError):
            unreachable(code, error)
        else:
            st.error(f"Class {code}: {error}", icon=":material/block:")
        st.button("Leave and use the Lesson alone", on_click=leave, key="live_leave")
        return None


def leave() -> None:
    """Drop the class from the URL and the session: the Lesson alone."""
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]
    for key in (_JOINED, DETACHED, _UNTOLD):
        st.session_state.pop(key, None)


def follow_button(state: PublicState) -> None:
    """While exploring alone: one tap back to the lecturer's step."""
    st.button(
        f"Follow the lecturer (step {state.step})",
        on_click=_follow,
        args=(state.code, state.step),
        key="live_follow",
        type="primary",
    )


def _follow(code: str, step: int) -> None:
    st.session_state[DETACHED] = False
    st.session_state[lesson.STEP_KEY] = step
    _tell_the_class(code, detached=False)


def _explore(code: str) -> None:
    st.session_state[DETACHED] = True
    _tell_the_class(code, detached=True)


def _tell_the_class(code: str, detached: bool) -> None:
    """Let the projector count who explores alone."""
    st.session_state[_UNTOLD] = detached
    _tell_untold(code)


def _tell_untold(code: str) -> None:
    """Tell the class whether this student explores alone, if it has not heard it yet:
    while the store cannot be reached it stays untold, for a later run. Only a count: when
    the store refuses (the class ended), the next run says so anyway."""
    detached = st.session_state.get(_UNTOLD)
    if detached is None:
        return
    try:
        class_store().set_detached(code, st.session_state.get(DEVICE, ""), detached)
    except StoreUnavailableError:
        return
    except ClassStoreError:
        pass
    del st.session_state[_UNTOLD]


def explore_button(code: str) -> None:
    st.button(
        "Explore alone",
        on_click=_explore,
        args=(code,),
        key="live_explore",
        help="Move through the Lesson yourself; one tap brings you back to the class.",
    )


def detached() -> bool:
    return bool(st.session_state.get(DETACHED))


def status(state: PublicState) -> None:
    revealed = state.phase == "revealed"
    st.caption(words.class_status(state.code, state.step, state.steps, state.round, revealed))


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
    for line in lesson.sentences(step.text, view):
        st.markdown(line)


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


def screen_state(code: str, pushed: str | None) -> PublicState:
    """The class's state to draw: this process's latest read when it is the very screen
    the push announced and younger than REUSE_SECONDS (never older than what the student
    was told), else a read of the store (which becomes the latest). One read at a time:
    a Next's reruns arrive together, and the first one's read serves the others (each
    reading its own had cost 80 store transactions per worker at once)."""
    state = _reusable(code, pushed)
    if state is not None:
        return state
    with _reading:
        state = _reusable(code, pushed)  # read while this screen waited
        if state is not None:
            return state
        state = class_store().state(code)
        with _latest_lock:
            if len(_latest) > 64:  # classes long over: forget them
                _latest.clear()
            _latest[code] = (time.monotonic(), state)
    return state


def _reusable(code: str, pushed: str | None) -> PublicState | None:
    with _latest_lock:
        read_at, latest = _latest.get(code, (0.0, None))
    fresh = time.monotonic() - read_at < REUSE_SECONDS
    if latest is not None and fresh and pushed == screen_of(latest):
        return latest
    return None


_warmed: set[Scenario] = set()  # the scenarios whose class screens this process made ahead
_warmed_lock = threading.Lock()


def step_screen(
    step: LessonStep, scenario: Scenario, number: int, revealed: bool
) -> tuple[StepView, lesson.Chart]:
    """The step's view and chart for this screen (its control as this session set it),
    shared with every screen of this process that shows the same (ui/lesson/screens.py)."""
    value = lesson.control_value(step, scenario)
    return step_screens.step_chart(step, scenario, value, number, revealed)


def warm_screens(scenario: Scenario, steps: list[LessonStep]) -> threading.Thread | None:
    """Make every step's screen for `scenario` (both phases, phone and wide, each step's
    default setting) in a background thread, once per process: a Next then finds its
    screen made instead of computing a step no one has shown yet, and the class's memory
    is taken before the class rather than step by step. The thread, or None if it ran."""
    with _warmed_lock:
        if scenario in _warmed:
            return None
        if len(_warmed) > 16:  # classes long over: their screens have been replaced
            _warmed.clear()
        _warmed.add(scenario)
    thread = threading.Thread(
        target=_make_all, args=(scenario, steps), name="warm-class", daemon=True
    )
    thread.start()
    return thread


def _make_all(scenario: Scenario, steps: list[LessonStep]) -> None:
    for narrow in (True, False):
        for number, step in enumerate(steps, 1):
            with contextlib.suppress(ValueError):  # a step this sentence cannot show
                control = step.control(scenario)
                value = None if control is None else lesson.unmoved_value(control, scenario)
                for revealed in (False, True):
                    with screen_assumed(narrow):
                        step_screens.step_chart(step, scenario, value, number, revealed)


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
        lesson.draw_chart(step.text, chart, present=False)


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
    _tell_untold(code)
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
    with _in_turn(), screen_assumed(narrow_screen()):  # the width asked once per screen
        try:
            state = screen_state(code, st.session_state.pop(_PUSHED, None))
        except ClassStoreError:
            st.rerun(scope="app")
        if detached():
            st.rerun(scope="app")
        number = min(state.step, len(steps))
        st.session_state[lesson.STEP_KEY] = number
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


@contextlib.contextmanager
def _in_turn() -> Iterator[None]:
    """Draw this screen when no other screen of this worker is being drawn (at most
    TURN_SECONDS of waiting, so a screen stuck on the store holds up the others no
    longer). Not first come, first served: a screen arriving as one ends may go first."""
    taken = _drawing.acquire(timeout=TURN_SECONDS)
    try:
        yield
    finally:
        if taken:
            _drawing.release()


def join_by_code() -> None:
    """On the Lesson alone: type a class's code to join it."""
    with st.expander("In a class? Join it with its code"):
        st.text_input(
            "The class code on the projector",
            key="live_join_code",
            max_chars=8,
            on_change=_join_typed,
            placeholder="e.g. K7QX9P",
        )


def _join_typed() -> None:
    typed = st.session_state.get("live_join_code", "")
    value, problem = url_params.row(CLASS_PARAM).read(typed.strip())
    if problem or not value:
        st.session_state[_TYPED_ERROR] = (
            "A class code has 4 to 8 letters and digits, with no 0, O, 1, I or L: check it."
        )
        return
    st.query_params[CLASS_PARAM] = value


def typed_code_error() -> str | None:
    return st.session_state.pop(_TYPED_ERROR, None)
