"""The live class's Streamlit side shared by the lecturer and the students: the shared
store, the join code from the URL, who this session is in the class, and the lecturer's
projector panel (start, code, link, QR, joined, the histogram, Vote again, Close).
The lecturer's secret lives in this session's state and in its browser tab's sessionStorage
(ui/live/lecturer_tab.py): never in the URL or the page."""

from __future__ import annotations

import functools
import io
import os
import time
from collections.abc import Sequence

import segno
import streamlit as st

from attention.figures.live_class import vote_bars
from attention.teaching.lesson.content import lesson_text
from attention.teaching.narration import live_class as words
from classroom import STORE_SETTING, open_store
from classroom.results_csv import results_csv
from classroom.store import (
    ClassStore,
    ClassStoreError,
    OpenedClass,
    PublicState,
    StoreUnavailableError,
)
from ui.charts import show_chart
from ui.lesson import walk
from ui.live import lecturer_tab
from ui.live.watch import rerun_on_change
from view_state import url_params
from view_state.url_params import CLASS_PARAM

LECTURER = "live_class_lecturer"  # session: the OpenedClass this session drives
CLOSED = "live_class_closed"  # session: the class this session closed (for its results)
_NOTICE = "live_class_notice"  # session: a message for the next run (a refused action)
_SEEN = "live_class_seen"  # session: the class's (step, round, phase) at this page's last sync
RETRY_SECONDS = 2.0  # how often a page asks a store it could not reach
_WAITING_SINCE = "live_class_waiting_since"  # session: when a page last found no store
RETRY_NOTE = (
    f"Nothing to do: this screen asks again every {RETRY_SECONDS:g} s and shows the class "
    "once it answers."
)


def _close(store: ClassStore) -> None:
    store.close()


# One store per setting (a process has one; a test may point at several): bounded, and a
# store dropped from the cache closes its connections. No ttl: it is the process's store.
@st.cache_resource(max_entries=4, on_release=_close)
def _store(url: str) -> ClassStore:
    return open_store(url or None)


def class_store() -> ClassStore:
    """This process's class store, as $HEADSPACES_CLASS_STORE says (one per setting)."""
    return _store(os.environ.get(STORE_SETTING, ""))


def unreachable(code: str, error: StoreUnavailableError) -> None:
    """A class's screen while the store cannot be reached: say so and that the screen asks
    again, and rerun the page once the store answers. Nothing is dropped (the lecturer's
    class, the student's place): nothing was changed meanwhile."""
    st.warning(f"Class {code}: {error}" if code else str(error), icon=":material/cloud_off:")
    st.caption(RETRY_NOTE)
    st.session_state[_WAITING_SINCE] = time.monotonic()
    _retry_until_reachable()


@st.fragment(run_every=RETRY_SECONDS)
def _retry_until_reachable() -> None:
    """Ask the store every RETRY_SECONDS, only while this page waits for it (no push or
    poll reaches a page that is not showing the class), and rerun the page once it answers
    (the page then shows the class, or says why not, e.g. it ended). Not in its first run,
    part of the page's that was just refused: a store that answers a read but refuses the
    page's write (SQLite's file locked) would rerun it at once."""
    if time.monotonic() - st.session_state.get(_WAITING_SINCE, 0.0) < RETRY_SECONDS / 2:
        return
    try:
        class_store().ping()
    except StoreUnavailableError:
        return
    st.rerun(scope="app")


def class_from_url() -> tuple[str, str | None]:
    """The URL's join code ("" for none) and a notice when the link's code is junk."""
    values, notices = url_params.read(st.query_params.to_dict(), (CLASS_PARAM,))
    return values.get(CLASS_PARAM, ""), " ".join(notices) or None


def lecturing(code: str) -> OpenedClass | None:
    """The class this session drives, if it is the URL's (or the URL has none)."""
    opened = st.session_state.get(LECTURER)
    if opened is not None and code in ("", opened.code):
        return opened
    return None


def take_back(code: str) -> None:
    """The tab keeps the class this session drives; a new session on the lecturer's tab
    (its worker died, the app restarted, the page reloaded) drives it again when the
    store says the tab's secret drives that open class and the URL names it (or none)."""
    held = st.session_state.get(LECTURER)
    try:
        kept = lecturer_tab.kept_class("lecturer", held, class_store())
    except StoreUnavailableError as error:  # the tab keeps the class until it answers
        unreachable(code, error)
        st.stop()
    if held is None and kept is not None and code in ("", kept.code):
        st.session_state[LECTURER] = kept
        url_params.write(st.query_params, CLASS_PARAM, kept.code)


def notice() -> str | None:
    """A refused action's message, once."""
    return st.session_state.pop(_NOTICE, None)


def refused(error: ClassStoreError) -> None:
    st.session_state[_NOTICE] = str(error)


def join_link(code: str) -> str:
    """The student's link: this page with only the class code (no step, no presenter
    mode, never the secret)."""
    page = (st.context.url or "/lesson").split("?")[0]
    return f"{page}?{CLASS_PARAM}={code}"


def qr_png(link: str) -> bytes:
    """The join link as a QR code (PNG, black on white, a quiet zone of 2 modules)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


def start_button(steps: int, options: Sequence[str]) -> None:
    """The presenter's "Start a class": opens a class with this step's answers."""
    st.button(
        "Start a class",
        on_click=_start,
        args=(steps, tuple(options)),
        key="live_start",
        help="Students join on their phones with the code or the QR code; their screens "
        "follow your steps and they vote on each question.",
    )


def _start(steps: int, options: tuple[str, ...]) -> None:
    """Open the class; this run's sync() then moves it to the page's step. If that move is
    refused, the class is still this session's: never an open class that no one drives."""
    try:
        opened = class_store().open_class(steps, options)
    except ClassStoreError as error:
        refused(error)
        return
    st.session_state[LECTURER] = opened
    st.query_params[CLASS_PARAM] = opened.code


def moment(state: PublicState) -> tuple[int, int, str]:
    """Where the class is: step, round, phase."""
    return state.step, state.round, state.phase


def follow_the_console(opened: OpenedClass) -> None:
    """When the class moved since this page last synced it (the lecturer's console drove
    it), the page takes the class's step and phase before drawing: the projector follows."""
    seen = st.session_state.get(_SEEN)
    try:
        state = class_store().state(opened.code)
    except ClassStoreError:
        return  # sync() says why and stops driving
    if seen is None or moment(state) == seen:
        return
    st.session_state[walk.STEP_KEY] = state.step
    step_id = lesson_text()[min(state.step, len(lesson_text())) - 1].id
    if state.phase == "revealed":
        walk.reveal(step_id)
    else:
        walk.ask_again(step_id)
    st.session_state[_SEEN] = moment(state)


def sync(
    opened: OpenedClass,
    step: int,
    options: Sequence[str],
    right: str,
    revealed: bool,
    question: str = "",
) -> PublicState | None:
    """Bring the class to the lecturer's page: its step, answers, question (as this page
    filled it) and right answer, and the reveal. The store keeps each step's right answer
    for the results' share right (lecturer only), so a new session on this tab loses none.
    The step's options in their order settle its right answer (a quiz shuffles them by the
    step's own seed), so unchanged options need no new set_step.
    None (and this session no longer drives it) when the store refuses, e.g. the class
    was closed from another window; None and a wait while the store cannot be reached."""
    store = class_store()
    try:
        state = store.state(opened.code)
        if (state.step, list(state.votes), state.question) != (step, list(options), question):
            state = store.set_step(opened.code, opened.secret, step, options, question, right)
        if revealed and state.phase == "asking":
            state = store.reveal(opened.code, opened.secret)
    except StoreUnavailableError as error:
        unreachable(opened.code, error)
        return None
    except ClassStoreError as error:
        del st.session_state[LECTURER]
        lecturer_tab.forget_class("lecturer")
        st.info(f"Class {opened.code}: {error}")
        return None
    url_params.write(st.query_params, CLASS_PARAM, opened.code)
    st.session_state[_SEEN] = moment(state)
    return state


def vote_again_button(opened: OpenedClass, state: PublicState, step_id: str) -> None:
    """Round 2 of this step, once the answer of round 1 is shown (peer instruction)."""
    st.button(
        "Vote again",
        on_click=_vote_again,
        args=(opened, step_id),
        key="live_vote_again",
        disabled=state.round != 1 or state.phase != "revealed",
        help="After the class has discussed: everyone answers once more; the projector "
        "shows both rounds side by side.",
    )


def _vote_again(opened: OpenedClass, step_id: str) -> None:
    try:
        class_store().open_second_round(opened.code, opened.secret)
    except ClassStoreError as error:
        refused(error)
        return
    walk.ask_again(step_id)  # the projector asks again too


def close_button(opened: OpenedClass) -> None:
    st.button("Close the class", on_click=_close, args=(opened,), key="live_close")


def closed_class() -> OpenedClass | None:
    """The class this session closed last, whose results it may still download."""
    return st.session_state.get(CLOSED)


def results_button(opened: OpenedClass) -> None:
    """The class's results as CSV (per step and round: counts per option, answered, share
    right), built only when clicked."""
    st.download_button(
        f"Results of class {opened.code} (CSV)",
        functools.partial(results_file, class_store(), opened),
        file_name=f"head-spaces-class-{opened.code}.csv",
        mime="text/csv",
        on_click="ignore",
        key="live_results",
    )


def results_file(store: ClassStore, opened: OpenedClass) -> bytes:
    """The results CSV; Streamlit runs it on its own thread when the button is clicked,
    so it reads nothing from the session."""
    return results_csv(store.results(opened.code, opened.secret)).encode("utf-8")


def _close(opened: OpenedClass) -> None:
    try:
        class_store().close_class(opened.code, opened.secret)
    except ClassStoreError as error:
        refused(error)
        return
    del st.session_state[LECTURER]
    lecturer_tab.forget_class("lecturer")
    st.session_state[CLOSED] = opened
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]
    st.session_state[_NOTICE] = f"Class {opened.code} is closed: its students see that it ended."


def step_rounds(opened: OpenedClass, state: PublicState) -> dict[int, dict[str, int]]:
    """This step's counts per round so far (round 1 from the results once round 2 runs)."""
    rounds = {state.round: dict(state.votes)}
    if state.round > 1:
        earlier = class_store().results(opened.code, opened.secret)
        for result in earlier:
            if result.step == state.step and result.round < state.round:
                rounds[result.round] = dict(result.votes)
        for round in range(1, state.round):
            rounds.setdefault(round, {})
    return rounds


def join_panel(opened: OpenedClass) -> None:
    """The projector's join strip: the code, the link and its QR code."""
    link = join_link(opened.code)
    code_column, qr_column = st.columns([4, 1], vertical_alignment="center")
    code_column.subheader(f"Join the class: {opened.code}", anchor=False)
    code_column.caption(f"Scan the QR code or open {link}")
    qr_column.image(qr_png(link), width=96)


@st.fragment
def live_counts(opened: OpenedClass) -> None:
    """Joined, answered and the histogram of this step's votes, redrawn when they change
    (ui/live/watch.py); the whole page reruns when the console moved the class
    (follow_the_console)."""
    try:
        state = class_store().state(opened.code)
    except StoreUnavailableError as error:
        unreachable(opened.code, error)
        return
    except ClassStoreError as error:
        st.info(str(error))
        return
    if moment(state) != st.session_state.get(_SEEN):
        st.rerun(scope="app")
    st.markdown(words.class_counts(state.joined, state.answered, state.detached))
    if state.votes:
        show_answers(opened, state, "live_votes", height=190)
    rerun_on_change(state, key="live_watch")


def show_answers(opened: OpenedClass, state: PublicState, key: str, height: int) -> None:
    """This step's answers as a histogram (both rounds side by side once round 2 runs),
    with its summary and table: on the projector and on the console; in words until the
    first vote."""
    options = list(state.votes)
    try:
        rounds = step_rounds(opened, state)
    except StoreUnavailableError as error:
        unreachable(opened.code, error)
        return
    except ClassStoreError as error:  # closed meanwhile: the panel's next run says so
        st.info(str(error))
        return
    if not any(sum(counts.values()) for counts in rounds.values()):
        st.markdown(words.NO_ANSWERS_YET)
        return
    show_chart(
        vote_bars(options, rounds, height=height),
        key=key,
        name="The class's answers to this step's question",
        summary=words.vote_summary(options, rounds),
        table=words.vote_rows(options, rounds),
    )
