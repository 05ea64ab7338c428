"""The live class while its store cannot be reached (a redis-server of our own, killed and
started again): every screen says so in plain words and asks again, nothing is dropped
(the lecturer's class, the console's pairing, the tab's copy of the secret), and once the
server is back the next run shows the class as before."""

from __future__ import annotations

import contextlib
import signal

import pytest
import redis

from classroom.redis_store import RedisClassStore
from classroom.sqlite_store import SQLiteClassStore
from classroom.store import PublicState, StoreUnavailableError
from tests.classroom import test_live_class_pages as live
from tests.classroom.test_live_class_pages import (
    DEVICES,
    LECTURER_CONTROLS,
    PAGE,
    STEPS,
    join,
    keys,
    ok,
    press,
    start_class,
    texts,
    vote,
)
from tests.classroom.test_live_console import CONSOLE_BUTTONS, console, tab_keeps
from tests.support.apptest import chart_keys, open_page
from ui.live.console import PAIRED
from ui.live.projector import LECTURER, RETRY_NOTE

UNREACHABLE = "cannot be reached just now"
store = live.store  # the app's sessions and the test share a temporary SQLite store


@pytest.fixture
def server(redis_server, monkeypatch):
    """The app's sessions on an emptied redis-server of our own, which a test may kill."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushdb()
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", redis_server.url)
    return redis_server


@contextlib.contextmanager
def killed(server):
    """The redis-server killed (no goodbye to its clients) for the block, then started."""
    server.stop(signal.SIGKILL)
    try:
        yield
    finally:
        server.start()


def says_it_waits(at) -> bool:
    shown = texts(at)
    return any(UNREACHABLE in text for text in shown) and RETRY_NOTE in shown


def state_of(server, code: str) -> PublicState:
    """The class's public state, read from the server with a client of the test's own."""
    with contextlib.closing(RedisClassStore.from_url(server.url)) as store:
        return store.state(code)


def test_a_student_waits_out_a_redis_restart(server):
    """A student's next run says the class cannot be reached and that the screen asks
    again (no traceback, no lecturer control); once the server is back, the next run
    draws the class's step again."""
    _, code = start_class()
    student = join(code, DEVICES[0])
    assert f"Class {code} · Step 1 of {STEPS} · vote open" in texts(student)
    with killed(server):
        ok(student.run())
        assert says_it_waits(student)
    assert not keys(student) & LECTURER_CONTROLS
    assert f"Class {code} · Step 1 of {STEPS} · vote open" in texts(ok(student.run()))


def test_exploring_alone_during_a_redis_restart_is_counted_once_the_server_is_back(server):
    """ "Explore alone" and "Follow the lecturer" tapped on a page drawn before the store
    went away: the page says it cannot be reached, and its first run that reaches the
    store again tells the class, so the projector counts who explores alone right again.
    A student who leaves the class meanwhile tells it nothing."""
    _, code = start_class()
    student = join(code, DEVICES[0])
    with killed(server):
        ok(student.button(key="live_explore").click().run())
        assert says_it_waits(student)
    ok(student.run())
    assert state_of(server, code).detached == 1
    with killed(server):
        ok(student.button(key="live_follow").click().run())
        assert says_it_waits(student)
    ok(student.run())
    assert state_of(server, code).detached == 0
    assert f"Class {code} · Step 1 of {STEPS} · vote open" in texts(student)
    with killed(server):
        ok(student.button(key="live_explore").click().run())
        ok(student.button(key="live_leave").click().run())
    ok(student.run())
    assert state_of(server, code).detached == 0


def test_a_lecturer_keeps_the_class_through_a_redis_restart(server):
    """Next pressed while Redis is down: the projector says so, changes nothing and keeps
    the class (it used to drop it as if it had been closed); once the server is back, its
    next run moves the class to the step it shows."""
    lecturer, code = start_class()
    with killed(server):
        assert says_it_waits(press(lecturer, "Next ▶"))
    assert lecturer.session_state[LECTURER].code == code
    ok(lecturer.run())
    assert state_of(server, code).step == 2


def test_a_reloaded_lecturer_tab_keeps_its_class_through_a_redis_restart(server):
    """A new session on the lecturer's tab while Redis is down cannot check the tab's
    class: it says so and draws no "Start a class", and the tab keeps the class (it used
    to forget it for good); once the server is back, the session drives the class."""
    lecturer, code = start_class()
    secret = lecturer.session_state[LECTURER].secret
    again = open_page(PAGE, present="1", **{"class": code})
    with killed(server):
        tab_keeps(again, "lecturer", code, secret)
        assert says_it_waits(again)
        assert "live_start" not in keys(again)
        assert "lecturer_tab_forget_lecturer" not in again.session_state
    ok(again.run())
    assert again.session_state[LECTURER].code == code
    ok(press(again, "Next ▶"))
    assert state_of(server, code).step == 2


def test_the_console_stays_paired_through_a_redis_restart(server):
    """The console's panel while Redis is down: it says so and stays paired (it used to
    unpair as for a closed class); once the server is back, it drives the class again."""
    lecturer, code = start_class()
    desk = console(lecturer.session_state[LECTURER])
    assert desk.button(key="console_next")
    with killed(server):
        ok(desk.run())
        assert says_it_waits(desk)
    assert desk.session_state[PAIRED].code == code
    ok(desk.run())
    ok(desk.button(key="console_next").click().run())
    assert state_of(server, code).step == 2


def test_a_reloaded_console_keeps_its_pairing_through_a_redis_restart(server):
    """A new session on the console's tab while Redis is down cannot check the tab's
    class: it says so, and the tab keeps the pairing; once the server is back, the
    session is paired again and drives the class."""
    lecturer, code = start_class()
    secret = lecturer.session_state[LECTURER].secret
    again = open_page(PAGE, console="1")
    with killed(server):
        tab_keeps(again, "console", code, secret)
        assert says_it_waits(again)
        assert not keys(again) & CONSOLE_BUTTONS
        assert "lecturer_tab_forget_console" not in again.session_state
    ok(again.run())
    assert again.session_state[PAIRED].code == code
    ok(again.button(key="console_next").click().run())
    assert state_of(server, code).step == 2


def test_the_projector_in_round_two_says_when_the_first_rounds_counts_cannot_be_read(
    store, monkeypatch
):
    """Round 2 on the projector reads round 1's counts from the results: when that read
    is refused as unavailable (the outage began after the page read the class), the panel
    says so and asks again instead of ending the page in a traceback."""
    lecturer, code = start_class()
    student = join(code, DEVICES[0])
    option = next(iter(store.state(code).votes))
    vote(student, 1, 1, option)
    ok(lecturer.button(key="lesson_reveal").click().run())
    ok(lecturer.button(key="live_vote_again").click().run())

    def unavailable(*_: object) -> None:
        raise StoreUnavailableError()

    with monkeypatch.context() as patch:
        patch.setattr(SQLiteClassStore, "results", unavailable)
        ok(lecturer.run())
        assert says_it_waits(lecturer)
        assert "live_votes" not in chart_keys(lecturer)
    vote(ok(student.run()), 1, 2, option)
    ok(lecturer.run())
    assert "live_votes" in chart_keys(lecturer)
