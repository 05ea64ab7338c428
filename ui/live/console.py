"""The lecturer's console: a second window for the lecturer's laptop (not the projector)
with the class's current and next step, the speaker notes, this step's answers in both
rounds and the joined / answered / exploring-alone counts, live, and Back / Next / Reveal
/ Vote again, which drive the class (the projector and every student follow).
The right to drive reaches it from the lecturer's own window in the same browser (a
BroadcastChannel between two small components), never through a URL; the console checks
it with the store before using it and keeps it in its session's state and its tab's
sessionStorage (ui/live/lecturer_tab.py: a new session after its worker died re-pairs)."""

from __future__ import annotations

import streamlit as st

from attention.teaching.lesson.content import lesson_end, lesson_text
from attention.teaching.markdown import literal
from attention.teaching.narration import live_class as words
from classroom.store import ClassStoreError, OpenedClass, PublicState, StoreUnavailableError
from ui.js_component import mounted_component
from ui.live import lecturer_tab
from ui.live.lecturer_tab import checked_handover
from ui.live.projector import class_store, show_answers, unreachable
from ui.live.watch import rerun_on_change
from ui.navigation import ensure_entry
from view_state import url_params

CONSOLE_PARAM = "console"
PAIRED = "live_console_class"  # session: the OpenedClass this console drives
_PAIRING = "live_console_pairing"  # the pairing component's key
_REFUSED = "live_console_refused"  # session: why it is unpaired (refused, or the class ended)
_TRIES = "live_console_tries"  # session: refused handovers so far (restarts the asking)
_NOTICE = "live_console_notice"  # session: a refused button's message
NOT_PAIRED = (
    "This console is not paired with a class, so it can change nothing. To pair it: on "
    "the lecturer's computer, start a class on the Lesson in presenter mode and press "
    "**Open the lecturer's console** there. The console pairs only in the same browser "
    "as the lecturer's window, while its class runs: in another browser or on a phone it "
    "is never paired."
)
_handover = mounted_component("head_spaces_console_handover", "console_handover.js")
_pairing = mounted_component("head_spaces_console_pairing", "console_pairing.js")


def requested() -> bool:
    """Whether the link asks for the console (`?console=1`)."""
    values, _ = url_params.read(st.query_params.to_dict(), (CONSOLE_PARAM,))
    return bool(values.get(CONSOLE_PARAM, False))


def console_link() -> str:
    """This page with only `console=1`: no code, no secret."""
    page = (st.context.url or "/lesson").split("?")[0]
    return f"{page}?{CONSOLE_PARAM}=1"


def open_console_button() -> None:
    """On the lecturer's projector: the link that opens the console in a new window."""
    st.link_button(
        "Open the lecturer's console",
        console_link(),
        icon=":material/open_in_new:",
        help="A second window for your laptop: the current and next step, speaker notes, "
        "the answers, and buttons that drive the class. Open it in this browser.",
    )


def hand_over(opened: OpenedClass) -> None:
    """On the lecturer's projector: answers a console's request in this browser with the
    class (nothing drawn; the secret goes to no URL and no page text)."""
    _handover(key="live_console_handover", data={"code": opened.code, "secret": opened.secret})


def console_page() -> None:
    """The console's whole page: paired, the live console; else how to pair it."""
    ensure_entry()
    st.set_page_config(
        page_title="Lecturer's console · Head Spaces", initial_sidebar_state="collapsed"
    )
    try:
        opened = lecturer_tab.kept_class("console", st.session_state.get(PAIRED), class_store())
    except StoreUnavailableError as error:  # the tab keeps the pairing until it answers
        st.header("Lecturer's console", anchor=False)
        unreachable("", error)
        return
    if opened is not None:  # a new session on this tab takes back the tab's class
        st.session_state[PAIRED] = opened
    _pairing(
        key=_PAIRING,
        data={"paired": opened is not None, "tries": st.session_state.get(_TRIES, 0)},
        on_handed_change=_take_handover,
    )
    if opened is None:
        st.header("Lecturer's console", anchor=False)
        if refused := st.session_state.get(_REFUSED):
            st.warning(refused, icon=":material/block:")
        st.info(NOT_PAIRED, icon=":material/link_off:")
        return
    console_panel(opened)


def _take_handover() -> None:
    """on_handed_change: the lecturer's window answered; its class is this console's only
    if the store says the secret drives that open class."""
    try:
        opened = checked_handover(
            class_store(), (st.session_state.get(_PAIRING) or {}).get("handed")
        )
    except ClassStoreError as error:
        if isinstance(error, StoreUnavailableError):  # not a refusal of the class
            refused = f"{error} This console asks the lecturer's window again every second."
        else:
            refused = f"The lecturer's window offered a class this console cannot drive: {error}"
        st.session_state[_REFUSED] = refused
        st.session_state[_TRIES] = st.session_state.get(_TRIES, 0) + 1
        return
    st.session_state.pop(_REFUSED, None)
    st.session_state[PAIRED] = opened


@st.fragment
def console_panel(opened: OpenedClass) -> None:
    """The class as it is now, redrawn when it changes (ui/live/watch.py), with the
    buttons that drive it."""
    try:
        state = class_store().state(opened.code)
    except StoreUnavailableError as error:  # still paired: asks again until it answers
        st.subheader("Lecturer's console", anchor=False)
        unreachable(opened.code, error)
        return
    except ClassStoreError as error:  # e.g. closed: unpaired, and asking again
        st.session_state.pop(PAIRED, None)
        lecturer_tab.forget_class("console")
        st.session_state[_REFUSED] = f"Class {opened.code}: {error} This console is unpaired."
        st.rerun(scope="app")
    revealed = state.phase == "revealed"
    status = words.class_status(state.code, state.step, state.steps, state.round, revealed)
    st.subheader(f"Lecturer's console · {status}", anchor=False)
    st.markdown(words.class_counts(state.joined, state.answered, state.detached, always=True))
    buttons(opened, state)
    if notice := st.session_state.pop(_NOTICE, None):
        st.warning(notice, icon=":material/block:")
    now, answers, later = st.columns([4, 3, 3])
    with now:
        current_step(state)
    with answers:
        answer_counts(opened, state)
    with later:
        next_step(state)
    rerun_on_change(state, key="console_watch")


def answer_counts(opened: OpenedClass, state: PublicState) -> None:
    """This step's answers so far, both rounds side by side once round 2 runs."""
    if not state.votes:
        st.caption("The projector sends this step's answers when it draws the step.")
        return
    show_answers(opened, state, "console_votes", height=200)


def buttons(opened: OpenedClass, state: PublicState) -> None:
    """Back / Next / Reveal / Vote again: each one change of the class in the store."""
    last = min(state.steps, len(lesson_text()))
    back, forward, reveal, again = st.columns(4)
    back.button(
        "◀ Back",
        on_click=_act,
        args=(opened, "back", state.step),
        key="console_back",
        disabled=state.step <= 1,
        width="stretch",
    )
    forward.button(
        "Next ▶",
        on_click=_act,
        args=(opened, "next", state.step),
        key="console_next",
        disabled=state.step >= last,
        help="The last slide has no question: go to it on the projector."
        if state.step >= last
        else None,
        width="stretch",
    )
    reveal.button(
        "Reveal the answer",
        on_click=_act,
        args=(opened, "reveal", state.step),
        key="console_reveal",
        disabled=state.phase == "revealed",
        width="stretch",
    )
    again.button(
        "Vote again",
        on_click=_act,
        args=(opened, "again", state.step),
        key="console_again",
        disabled=state.round != 1 or state.phase != "revealed",
        help="Round 2, after the class has discussed.",
        width="stretch",
    )


def _act(opened: OpenedClass, action: str, step: int) -> None:
    """A button's change of the class; the projector fills in the new step's answers."""
    store = class_store()
    try:
        if action in ("back", "next"):
            store.set_step(opened.code, opened.secret, step + (1 if action == "next" else -1))
        elif action == "reveal":
            store.reveal(opened.code, opened.secret)
        else:
            store.open_second_round(opened.code, opened.secret)
    except ClassStoreError as error:
        st.session_state[_NOTICE] = f"Not done: {error}"


def current_step(state: PublicState) -> None:
    """Now: the step's title, its question as the projector filled it (until the projector
    sends it, with its blanks as "…"), the answers and the notes."""
    text = lesson_text()[min(state.step, len(lesson_text())) - 1]
    st.markdown(f"#### Now: {state.step}. {text.title}")
    if state.question:
        st.markdown(words.shown_question(state.question))
    else:
        st.markdown(f"**The question:** {words.question_outline(text.question)}")
    if state.votes:
        st.markdown("**Answers:** " + " · ".join(f"“{literal(o)}”" for o in state.votes))
    st.markdown(f"**Notes:** {text.notes}")


def next_step(state: PublicState) -> None:
    """Next: the following step's title and notes, or the last slide's."""
    steps = lesson_text()
    if state.step < len(steps):
        following = steps[state.step]
        title, notes = f"{state.step + 1}. {following.title}", following.notes
    else:
        title, notes = f"{len(steps) + 1}. {lesson_end().title}", lesson_end().notes
    st.markdown(f"#### Next: {title}")
    st.markdown(f"**Notes:** {notes}")
