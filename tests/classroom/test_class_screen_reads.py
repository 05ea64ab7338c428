"""A Next reruns every student's screen at once: the class state is read once per process
and pushed screen (ui.live.shared_screens.screen_state), never drawing less than the push said;
and the app's st.Page objects are made once per session (ui.navigation.app_pages)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import streamlit as st

from attention.figures.base.phone import for_phone
from classroom.events import screen_of
from classroom.sqlite_store import SQLiteClassStore
from shared_work.made_once import MadeOnce
from tests.support.apptest import open_page
from ui import charts, media
from ui.lesson import drawing
from ui.lesson import screens as step_screens
from ui.lesson.step import LessonStep
from ui.lesson.steps import LESSON_STEPS
from ui.live import shared_screens
from ui.navigation import PAGES
from view_state.scenario import Scenario


class CountingStore:
    """The real store, counting reads of the class state."""

    def __init__(self, store: SQLiteClassStore) -> None:
        self.store, self.reads = store, 0

    def state(self, code: str):
        self.reads += 1
        return self.store.state(code)


@pytest.fixture
def class_in_store(tmp_path, monkeypatch):
    store = SQLiteClassStore(tmp_path / "classes.sqlite3")
    counting = CountingStore(store)
    monkeypatch.setattr(shared_screens, "class_store", lambda: counting)
    monkeypatch.setattr(shared_screens, "_latest", {})
    opened = store.open_class(5, ["yes", "no"])
    yield store, opened, counting
    store.close()


def test_screens_pushed_the_same_step_share_one_read(class_in_store):
    store, opened, counting = class_in_store
    store.set_step(opened.code, opened.secret, 2, ["left", "right"])
    pushed = screen_of(store.state(opened.code))
    states = [shared_screens.screen_state(opened.code, pushed) for _ in range(40)]
    assert counting.reads == 1
    assert {(s.step, tuple(s.votes)) for s in states} == {(2, ("left", "right"))}


def test_screens_pushed_at_once_wait_for_one_read(class_in_store):
    """A Next's reruns arrive together: one reads the store, the others draw its read."""
    store, opened, counting = class_in_store
    store.set_step(opened.code, opened.secret, 4, ["on", "off"])
    pushed = screen_of(store.state(opened.code))
    read = counting.state

    def slow_read(code: str):
        time.sleep(0.2)  # a store under a class's load
        return read(code)

    counting.state = slow_read
    with ThreadPoolExecutor(8) as pool:
        states = list(
            pool.map(lambda _: shared_screens.screen_state(opened.code, pushed), range(8))
        )
    assert counting.reads == 1
    assert all(state is states[0] for state in states) and states[0].step == 4


def test_a_screen_never_draws_less_than_its_push(class_in_store):
    store, opened, counting = class_in_store
    shared_screens.screen_state(opened.code, None)  # step 1, now the process's latest
    store.set_step(opened.code, opened.secret, 3, ["up", "down"])
    pushed = screen_of(store.state(opened.code))
    assert shared_screens.screen_state(opened.code, pushed).step == 3
    assert counting.reads == 2
    store.reveal(opened.code, opened.secret)
    revealed = screen_of(store.state(opened.code))
    assert shared_screens.screen_state(opened.code, revealed).phase == "revealed"
    assert counting.reads == 3


def test_a_run_without_a_push_or_an_old_read_reads_the_store(class_in_store, monkeypatch):
    _, opened, counting = class_in_store
    first = shared_screens.screen_state(opened.code, None)
    shared_screens.screen_state(opened.code, None)  # a vote's or a full run: no push
    assert counting.reads == 2
    monkeypatch.setattr(shared_screens, "REUSE_SECONDS", 0.0)
    shared_screens.screen_state(opened.code, screen_of(first))
    assert counting.reads == 3


def test_the_pages_are_made_once_per_session(monkeypatch):
    made: list[str] = []
    page = st.Page

    def counted(*args, **kwargs):
        made.append(str(args[0]))
        return page(*args, **kwargs)

    monkeypatch.setattr(st, "Page", counted)
    at = open_page()
    at.run()
    at.run()
    assert not at.exception
    assert len(made) == len(set(made)) == len(PAGES)  # every page once, not once per run
    open_page()
    assert len(made) == 2 * len(PAGES)  # a new session makes its own


def test_screens_asking_at_once_for_a_new_step_wait_for_one_computation():
    """After a Next, a worker's screens all ask for the new step together: it is computed
    once and the others get that one (each computing it had starved a worker for minutes)."""
    real = LESSON_STEPS[0]
    computed: list[int] = []

    def slow_view(scenario, value):
        computed.append(1)
        time.sleep(0.3)
        return real.view(scenario, value)

    step = LessonStep(real.text, real.control, slow_view)
    scenario = Scenario(seed=7)  # a scenario no other test has drawn
    with ThreadPoolExecutor(8) as pool:
        screens = list(
            pool.map(lambda _: shared_screens.step_screen(step, scenario, 1, False), range(8))
        )
    assert len(computed) == 1
    view, chart = screens[0]
    assert all(screen[0] is view and screen[1] is chart for screen in screens)


def test_a_classs_screens_are_made_ahead_for_every_step_phase_and_width(monkeypatch):
    """The first student in a process starts making every step's screen (both phases,
    phone and wide): a Next then finds its screen made; once per scenario."""
    computed: list[tuple[int, bool]] = []

    def counted(real: LessonStep, number: int) -> LessonStep:
        def view(scenario, value):
            computed.append((number, media.narrow_screen()))
            return real.view(scenario, value)

        return LessonStep(real.text, real.control, view)

    steps = [counted(step, k) for k, step in enumerate(LESSON_STEPS[:2], 1)]
    monkeypatch.setattr(step_screens, "_views", MadeOnce(limit=8))
    monkeypatch.setattr(step_screens, "_charts", MadeOnce(limit=8))
    scenario = Scenario(seed=11)  # a scenario no other test has drawn
    shared_screens.warm_screens(scenario, steps).join()
    # one view per step and width: the asking and the revealed chart are drawn from it
    assert sorted(computed) == sorted((k, narrow) for k in (1, 2) for narrow in (True, False))
    assert shared_screens.warm_screens(scenario, steps) is None  # once per process

    made = len(computed)
    heights = {}
    for narrow in (True, False):
        with media.screen_assumed(narrow):
            _, chart = shared_screens.step_screen(steps[1], scenario, 2, revealed=True)
        heights[narrow] = chart.shown.layout.height
    assert len(computed) == made  # found, not computed
    assert heights[True] > heights[False]  # step 2's tiles: stacked on a phone only


def test_a_phone_screens_chart_is_laid_out_once_for_all_its_screens(monkeypatch):
    """A phone's step chart is laid out for the phone when the screen is made (colour
    bars under the plot), and drawing it copies nothing more: for_phone copies the whole
    figure, up to ~9 ms, which a class's 80 phones per worker paid at every Next."""
    step = LESSON_STEPS[8]  # step 9: a colour bar at the plot's side on a wide screen
    scenario = Scenario(seed=13)  # a scenario no other test has drawn
    screens = {}
    for narrow in (True, False):
        with media.screen_assumed(narrow):
            screens[narrow] = shared_screens.step_screen(step, scenario, 9, revealed=False)
    wide, phone = screens[False][1].shown, screens[True][1].shown
    assert for_phone(wide) is not wide  # the wide chart has a bar to move under the plot
    assert for_phone(phone) is phone  # the phone's has none left at the side

    copies: list[object] = []
    monkeypatch.setattr(charts, "for_phone", lambda fig: copies.append(fig) or fig)
    with media.screen_assumed(True):
        drawing.draw_chart(step.text, screens[True][1], present=False)
    assert copies == []


def test_screens_rerun_at_once_are_drawn_in_turn():
    """A Next's reruns draw one screen at a time (the first is done within milliseconds
    instead of all of them late together)."""
    inside, most = 0, 0
    count = threading.Lock()

    def draw(_):
        nonlocal inside, most
        with shared_screens.in_turn():
            with count:
                inside += 1
                most = max(most, inside)
            time.sleep(0.02)
            with count:
                inside -= 1

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(draw, range(8)))
    assert most == 1


def test_a_screen_stuck_in_its_turn_holds_up_the_others_at_most_turn_seconds(monkeypatch):
    monkeypatch.setattr(shared_screens, "TURN_SECONDS", 0.2)
    release = threading.Event()

    def stuck():
        with shared_screens.in_turn():
            release.wait(10)

    holder = threading.Thread(target=stuck)
    holder.start()
    time.sleep(0.05)
    started = time.perf_counter()
    with shared_screens.in_turn():
        waited = time.perf_counter() - started
    release.set()
    holder.join()
    assert 0.15 < waited < 1.0
    with shared_screens.in_turn():  # the stuck screen's turn was given back
        pass
    assert shared_screens._drawing.acquire(blocking=False)
    shared_screens._drawing.release()
