"""The live class's store, one suite over both backends (SQLite in a tmp dir, Redis on a
redis-server of our own): who may do what, one vote per device per round with the latest
answer winning, concurrent votes racing the lecturer's Reveal, bad input refused with
nothing changed, the rate limit, state that survives reopening, each step's right answer
kept for the lecturer's results, and a public state that holds no secret and no device id."""

from __future__ import annotations

import json
import signal
import sqlite3
import string
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from classroom import STORE_SETTING, open_store
from classroom.redis_store import RedisClassStore
from classroom.sqlite_store import SQLiteClassStore
from classroom.store import (
    MAX_QUESTION_CHARS,
    ClassClosedError,
    ClassStore,
    MalformedRequestError,
    NotAllowedError,
    RateLimitedError,
    StoreUnavailableError,
    UnknownClassError,
    VoteRefusedError,
    hash_secret,
    new_device_id,
)

OPTIONS = ["head 1", "head 2", "both"]
LOOK_ALIKES = set("0O1IL")


class FakeClock:
    """Time for the rate limit, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Backend:
    """A store under test and how to reopen it as a restarted app (or server) would."""

    def __init__(self, open_: Callable[[], ClassStore], restart: Callable[[], None]) -> None:
        self._open, self._restart = open_, restart
        self.store = open_()

    def reopen(self) -> ClassStore:
        self.store.close()
        self._restart()
        self.store = self._open()
        return self.store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path: Path, clock: FakeClock):
    if request.param == "sqlite":
        path = tmp_path / "data" / "classes.sqlite3"
        backend = Backend(lambda: SQLiteClassStore(path, clock), lambda: None)
    else:
        server = request.getfixturevalue("redis_server")
        with redis.Redis.from_url(server.url) as client:
            client.flushdb()
        backend = Backend(lambda: RedisClassStore.from_url(server.url, clock), server.restart)
    yield backend
    backend.store.close()


@pytest.fixture
def store(backend: Backend) -> ClassStore:
    return backend.store


def _class_with_students(store: ClassStore, students: int = 3, steps: int = 5):
    opened = store.open_class(steps, OPTIONS)
    devices = [new_device_id() for _ in range(students)]
    for device in devices:
        store.join(opened.code, device)
    return opened, devices


def test_a_code_is_short_has_no_look_alikes_and_is_not_the_secret(store):
    codes = set()
    for _ in range(40):
        opened = store.open_class(3)
        assert 4 <= len(opened.code) <= 8
        assert set(opened.code) <= set(string.ascii_uppercase + string.digits) - LOOK_ALIKES
        assert opened.code not in opened.secret and len(opened.secret) >= 32
        assert opened.secret not in repr(opened)
        codes.add(opened.code)
    assert len(codes) == 40


def test_a_new_class_asks_step_one_with_nobody_joined(store):
    opened = store.open_class(7, OPTIONS)
    state = store.state(opened.code)
    assert state.to_json() == {
        "code": opened.code,
        "step": 1,
        "steps": 7,
        "phase": "asking",
        "round": 1,
        "joined": 0,
        "detached": 0,
        "answered": 0,
        "votes": {"head 1": 0, "head 2": 0, "both": 0},
        "question": "",
    }
    assert store.state(opened.code.lower()) == state  # typed in small letters on a phone


def test_the_lecturer_drives_the_class(store):
    opened, [device] = _class_with_students(store, 1)
    store.vote(opened.code, device, 1, 1, "both")
    assert store.reveal(opened.code, opened.secret).phase == "revealed"
    second = store.open_second_round(opened.code, opened.secret)
    assert (second.round, second.phase, second.answered) == (2, "asking", 0)
    moved = store.set_step(opened.code, opened.secret, 3, ["yes", "no"])
    assert (moved.step, moved.round, moved.phase, moved.votes) == (
        3,
        1,
        "asking",
        {"yes": 0, "no": 0},
    )
    with pytest.raises(MalformedRequestError):
        store.set_step(opened.code, opened.secret, 6)  # the class has 5 steps
    store.close_class(opened.code, opened.secret)
    with pytest.raises(ClassClosedError):
        store.state(opened.code)


@pytest.mark.parametrize(
    "who", ["a student's device id", "another class's secret", "empty", "none"]
)
def test_only_the_secret_drives_the_class(store, who):
    opened, [device] = _class_with_students(store, 1)
    other = store.open_class(5)
    wrong = {
        "a student's device id": device,
        "another class's secret": other.secret,
        "empty": "",
        "none": None,
    }[who]
    before = store.state(opened.code)
    for action in (
        lambda: store.set_step(opened.code, wrong, 2, ["x"]),
        lambda: store.reveal(opened.code, wrong),
        lambda: store.open_second_round(opened.code, wrong),
        lambda: store.close_class(opened.code, wrong),
        lambda: store.results(opened.code, wrong),
        lambda: store.check_lecturer(opened.code, wrong),
    ):
        with pytest.raises(NotAllowedError):
            action()
    assert store.state(opened.code) == before


def test_checking_the_lecturer_changes_nothing_and_refuses_a_closed_class(store):
    opened, [device] = _class_with_students(store, 1)
    store.vote(opened.code, device, 1, 1, OPTIONS[0])
    store.reveal(opened.code, opened.secret)
    before = store.state(opened.code)
    assert store.check_lecturer(opened.code, opened.secret) == before
    assert store.state(opened.code) == before
    store.close_class(opened.code, opened.secret)
    with pytest.raises(ClassClosedError):
        store.check_lecturer(opened.code, opened.secret)


def test_one_vote_per_device_per_round_and_the_latest_answer_wins(store):
    opened, [ana, ben, cy] = _class_with_students(store)
    store.join(opened.code, ana)  # a refresh or a second tab joins again: still one student
    store.vote(opened.code, ana, 1, 1, "head 1")
    store.vote(opened.code, ben, 1, 1, "head 1")
    store.vote(opened.code, ana, 1, 1, "both")  # ana changes her mind
    state = store.state(opened.code)
    assert (state.joined, state.answered) == (3, 2)
    assert state.votes == {"head 1": 1, "head 2": 0, "both": 1}
    store.open_second_round(opened.code, opened.secret)
    store.vote(opened.code, ana, 1, 2, "head 2")
    store.vote(opened.code, cy, 1, 2, "head 2")
    assert store.state(opened.code).votes == {"head 1": 0, "head 2": 2, "both": 0}
    store.set_step(opened.code, opened.secret, 2, ["a", "b"])
    store.vote(opened.code, cy, 2, 1, "b")
    results = {
        (r.step, r.round): (r.votes, r.answered) for r in store.results(opened.code, opened.secret)
    }
    assert results == {
        (1, 1): ({"head 1": 1, "both": 1}, 2),
        (1, 2): ({"head 2": 2}, 2),
        (2, 1): ({"b": 1}, 1),
    }


def test_results_stay_with_the_lecturer_after_closing(store):
    opened, [device] = _class_with_students(store, 1)
    store.vote(opened.code, device, 1, 1, "both")
    store.close_class(opened.code, opened.secret)
    [result] = store.results(opened.code, opened.secret)
    assert (result.step, result.round, result.votes) == (1, 1, {"both": 1})
    for action in (
        lambda: store.join(opened.code, new_device_id()),
        lambda: store.vote(opened.code, device, 1, 1, "head 1"),
        lambda: store.reveal(opened.code, opened.secret),
    ):
        with pytest.raises(ClassClosedError):
            action()


@pytest.mark.parametrize(
    ("step", "round", "option", "error"),
    [
        (2, 1, "both", VoteRefusedError),  # not the current step
        (1, 2, "both", VoteRefusedError),  # round 2 is not open
        (1, 1, "neither", VoteRefusedError),  # not an option of this step
        (1, 1, "x" * 10_000, MalformedRequestError),
        ("1", 1, "both", MalformedRequestError),
        (True, 1, "both", MalformedRequestError),
        (1, 3, "both", MalformedRequestError),
    ],
)
def test_a_bad_vote_is_refused_and_changes_nothing(store, step, round, option, error):
    opened, [device] = _class_with_students(store, 1)
    store.vote(opened.code, device, 1, 1, "head 1")
    before = store.state(opened.code)
    with pytest.raises(error):
        store.vote(opened.code, device, step, round, option)
    assert store.state(opened.code) == before


def test_a_vote_after_reveal_or_for_the_first_round_in_the_second_is_refused(store):
    opened, [ana, ben] = _class_with_students(store, 2)
    store.vote(opened.code, ana, 1, 1, "head 1")
    store.reveal(opened.code, opened.secret)
    with pytest.raises(VoteRefusedError):
        store.vote(opened.code, ben, 1, 1, "head 1")
    store.open_second_round(opened.code, opened.secret)
    with pytest.raises(VoteRefusedError):
        store.vote(opened.code, ben, 1, 1, "head 2")
    with pytest.raises(VoteRefusedError):
        store.open_second_round(opened.code, opened.secret)  # one second round per step
    [result] = store.results(opened.code, opened.secret)
    assert (result.round, result.votes) == (1, {"head 1": 1})


def test_a_device_that_has_not_joined_cannot_vote(store):
    opened, _ = _class_with_students(store, 1)
    with pytest.raises(VoteRefusedError):
        store.vote(opened.code, new_device_id(), 1, 1, "both")
    assert store.state(opened.code).answered == 0


@pytest.mark.parametrize(
    "code", ["A" * 10_000, "", "ABC", "ABCDEFGHJ", "AB0CD", "ABLCD", "AB CD", None, 1234]
)
def test_a_malformed_code_is_refused_everywhere(store, code):
    opened, [device] = _class_with_students(store, 1)
    for action in (
        lambda: store.state(code),
        lambda: store.join(code, device),
        lambda: store.vote(code, device, 1, 1, "both"),
        lambda: store.reveal(code, opened.secret),
        lambda: store.results(code, opened.secret),
    ):
        with pytest.raises(MalformedRequestError):
            action()


def test_an_unknown_code_is_told_as_such(store):
    with pytest.raises(UnknownClassError):
        store.state("ZZZZZZ")
    with pytest.raises(UnknownClassError):
        store.join("ZZZZZZ", new_device_id())


@pytest.mark.parametrize("device", ["", "short", "x" * 65, "<script>alert(1)</script>", None])
def test_a_malformed_device_id_is_refused(store, device):
    opened = store.open_class(3, OPTIONS)
    with pytest.raises(MalformedRequestError):
        store.join(opened.code, device)
    assert store.state(opened.code).joined == 0


def test_bad_class_settings_are_refused(store):
    for steps, options in [(0, []), (10_000, []), (3, ["a", "a"]), (3, [""]), (3, "ab")]:
        with pytest.raises(MalformedRequestError):
            store.open_class(steps, options)


def test_a_flood_of_votes_from_one_device_is_rate_limited(store, clock):
    opened, [flooder, other] = _class_with_students(store, 2)
    for option in ["head 1", "head 2", "both", "head 1", "head 2"]:
        store.vote(opened.code, flooder, 1, 1, option)
    with pytest.raises(RateLimitedError):
        store.vote(opened.code, flooder, 1, 1, "both")
    assert store.state(opened.code).votes == {"head 1": 0, "head 2": 1, "both": 0}
    store.vote(opened.code, other, 1, 1, "both")  # other students are not slowed down
    clock.now += 10
    store.vote(opened.code, flooder, 1, 1, "both")
    assert store.state(opened.code).votes == {"head 1": 0, "head 2": 0, "both": 2}


def test_concurrent_votes_racing_reveal_count_every_acknowledged_vote_once(store):
    """8 threads, 5 devices each, each device answering twice: every vote acknowledged
    before the lecturer's Reveal (which lands in the middle) is counted once, the latest
    acknowledged answer per device; every vote after it is refused."""
    opened, devices = _class_with_students(store, 40)
    acknowledged: dict[str, str] = {}
    ack_lock = threading.Lock()
    start = threading.Barrier(9)

    def student_group(group: list[str]) -> None:
        start.wait()
        for answer in ("head 1", "head 2"):
            for device in group:
                option = answer if hash(device) % 2 else "both"
                try:
                    store.vote(opened.code, device, 1, 1, option)
                except VoteRefusedError:
                    continue
                with ack_lock:
                    acknowledged[device] = option

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(student_group, devices[i::8]) for i in range(8)]
        start.wait()
        while len(acknowledged) < 15 and not all(f.done() for f in futures):
            threading.Event().wait(0.001)  # reveal once some have answered
        store.reveal(opened.code, opened.secret)
        for future in futures:
            future.result()
    state = store.state(opened.code)
    assert state.answered == len(acknowledged)
    assert state.votes == {option: Counter(acknowledged.values())[option] for option in OPTIONS}


def test_state_survives_reopening_the_store(backend):
    store = backend.store
    opened, [ana, ben] = _class_with_students(store, 2)
    store.vote(opened.code, ana, 1, 1, "both")
    store.open_second_round(opened.code, opened.secret)
    store.vote(opened.code, ben, 1, 2, "head 2")
    before = store.state(opened.code)
    results_before = store.results(opened.code, opened.secret)
    store = backend.reopen()
    assert store.state(opened.code) == before
    assert store.results(opened.code, opened.secret) == results_before
    assert store.reveal(opened.code, opened.secret).phase == "revealed"  # the secret still works
    with pytest.raises(NotAllowedError):
        store.reveal(opened.code, ben)


def test_the_class_carries_the_projectors_question_as_plain_text(backend):
    store = backend.store
    opened, _ = _class_with_students(store, 1)
    assert store.state(opened.code).question == ""  # not sent yet: nothing made up
    asked = "Which token's <b>vector</b> points like “**the**”'s?"
    store.set_step(opened.code, opened.secret, 2, ["a", "b"], asked)
    assert store.state(opened.code).question == asked  # kept as given, not escaped
    assert store.state(opened.code).to_json()["question"] == asked
    assert backend.reopen().state(opened.code).question == asked
    store = backend.store
    store.set_step(opened.code, opened.secret, 3, ["a", "b"])  # the console's Next: no text
    assert store.state(opened.code).question == ""
    for bad in ("x" * (MAX_QUESTION_CHARS + 1), 42, None):
        with pytest.raises(MalformedRequestError):
            store.set_step(opened.code, opened.secret, 4, ["a"], bad)
    assert store.state(opened.code).step == 3  # a refused step changes nothing
    store.set_step(opened.code, opened.secret, 4, ["a"], "y" * MAX_QUESTION_CHARS)
    assert len(store.state(opened.code).question) == MAX_QUESTION_CHARS


def _rights(store: ClassStore, code: str, secret: str) -> dict[int, str]:
    """Each step's right answer as the results give it."""
    return {r.step: r.right for r in store.results(code, secret)}


def test_each_steps_right_answer_stays_with_the_lecturers_results(backend):
    store = backend.store
    opened, [ana, ben] = _class_with_students(store, 2)
    store.set_step(opened.code, opened.secret, 2, ["a", "b"], "Which?", "b")
    store.vote(opened.code, ana, 2, 1, "b")
    store.set_step(opened.code, opened.secret, 3, ["x", "y", "z"], "And?", "z")
    store.vote(opened.code, ana, 3, 1, "x")
    store.vote(opened.code, ben, 3, 1, "z")
    assert _rights(store, opened.code, opened.secret) == {2: "b", 3: "z"}
    store.set_step(opened.code, opened.secret, 2)  # the console's Back sends no right answer
    store.set_step(opened.code, opened.secret, 2, ["a", "b"], "Which?")
    assert _rights(store, opened.code, opened.secret) == {2: "b", 3: "z"}  # kept
    store.set_step(opened.code, opened.secret, 4, ["p", "q"], "Then?", "q")
    store.vote(opened.code, ben, 4, 1, "p")  # the current step's too
    expected = {2: "b", 3: "z", 4: "q"}
    assert _rights(store, opened.code, opened.secret) == expected
    store = backend.reopen()  # a new store object on the same file / the same Redis
    assert _rights(store, opened.code, opened.secret) == expected
    store.close_class(opened.code, opened.secret)
    assert _rights(store, opened.code, opened.secret) == expected  # also after closing
    for wrong in (ana, store.open_class(3).secret, ""):
        with pytest.raises(NotAllowedError):
            store.results(opened.code, wrong)


def test_a_right_answer_from_the_wrong_secret_is_refused(store):
    opened, [device] = _class_with_students(store, 1)
    store.set_step(opened.code, opened.secret, 2, ["a", "b"], "Which?", "a")
    store.vote(opened.code, device, 2, 1, "a")
    before = store.state(opened.code)
    for wrong in (device, store.open_class(3).secret, "", None):
        with pytest.raises(NotAllowedError):
            store.set_step(opened.code, wrong, 2, ["a", "b"], "Which?", "b")
    assert store.state(opened.code) == before
    assert _rights(store, opened.code, opened.secret) == {2: "a"}


@pytest.mark.parametrize(
    "right", ["c", "A", "a ", "x" * (MAX_QUESTION_CHARS + 1), 1, None, ["a"], {"a": 1}]
)
def test_a_right_answer_that_is_not_an_option_is_refused_and_changes_nothing(store, right):
    opened, [device] = _class_with_students(store, 1)
    store.set_step(opened.code, opened.secret, 2, ["a", "b"], "Which?", "a")
    store.vote(opened.code, device, 2, 1, "a")
    before = store.state(opened.code)
    with pytest.raises(MalformedRequestError, match="right answer must be one of the step's"):
        store.set_step(opened.code, opened.secret, 2, ["a", "b"], "Which?", right)
    with pytest.raises(MalformedRequestError):
        store.set_step(opened.code, opened.secret, 3, [], "", "a")  # a step without options
    assert store.state(opened.code) == before
    assert _rights(store, opened.code, opened.secret) == {2: "a"}


def test_an_sqlite_file_from_before_questions_and_right_answers_still_opens(tmp_path, clock):
    path = tmp_path / "classes.sqlite3"
    with sqlite3.connect(path) as db:  # the classes table as it was before questions
        db.execute(
            "CREATE TABLE classes (code TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, steps "
            "INTEGER NOT NULL, step INTEGER NOT NULL, round INTEGER NOT NULL, phase TEXT "
            "NOT NULL, options TEXT NOT NULL, closed TEXT NOT NULL)"
        )
        db.execute(
            "INSERT INTO classes VALUES ('K7QX9P', ?, 5, 2, 1, 'asking', '[\"a\"]', '0')",
            (hash_secret("s" * 43),),
        )
    db.close()
    store = SQLiteClassStore(path, clock)
    try:
        assert (store.state("K7QX9P").step, store.state("K7QX9P").question) == (2, "")
        store.set_step("K7QX9P", "s" * 43, 3, ["a"], "Which?", "a")
        assert store.state("K7QX9P").question == "Which?"
        device = new_device_id()
        store.join("K7QX9P", device)
        store.vote("K7QX9P", device, 3, 1, "a")
        assert _rights(store, "K7QX9P", "s" * 43) == {3: "a"}
    finally:
        store.close()


def test_the_public_state_has_no_secret_and_no_device_id(store):
    opened, devices = _class_with_students(store, 3)
    for device in devices:
        store.vote(opened.code, device, 1, 1, "both")
    body = json.dumps(store.state(opened.code).to_json())
    assert opened.secret not in body
    assert not any(device in body for device in devices)
    assert set(json.loads(body)) == {
        "code",
        "step",
        "steps",
        "phase",
        "round",
        "joined",
        "detached",
        "answered",
        "votes",
        "question",
    }


def test_students_exploring_alone_are_counted_once_until_they_follow_again(store):
    opened, devices = _class_with_students(store, 3)
    assert store.set_detached(opened.code, devices[0], True).detached == 1
    store.set_detached(opened.code, devices[0], True)  # a second tab: still one student
    store.set_detached(opened.code, devices[1], True)
    assert store.state(opened.code).detached == 2
    assert store.set_detached(opened.code, devices[0], False).detached == 1
    store.set_detached(opened.code, devices[0], False)
    state = store.state(opened.code)
    assert (state.detached, state.joined) == (1, 3)
    with pytest.raises(VoteRefusedError):  # only a joined device
        store.set_detached(opened.code, new_device_id(), True)
    with pytest.raises(MalformedRequestError):
        store.set_detached(opened.code, "<b>", True)
    assert store.state(opened.code).detached == 1
    store.close_class(opened.code, opened.secret)
    with pytest.raises(ClassClosedError):
        store.set_detached(opened.code, devices[2], True)


def test_open_store_follows_the_setting(tmp_path, monkeypatch):
    path = tmp_path / "x" / "classes.sqlite3"
    monkeypatch.setenv(STORE_SETTING, f"sqlite://{path}")
    sqlite = open_store()
    assert isinstance(sqlite, SQLiteClassStore) and sqlite.path == path and path.exists()
    sqlite.close()
    for bad in ("postgres://x", "sqlite://relative.db"):
        with pytest.raises(ValueError, match=STORE_SETTING):
            open_store(bad)


def test_open_store_reaches_redis(monkeypatch, redis_server):
    monkeypatch.setenv(STORE_SETTING, redis_server.url)
    store = open_store()
    assert isinstance(store, RedisClassStore)
    opened = store.open_class(2)
    assert store.state(opened.code).steps == 2  # a real server answered
    store.close()


def test_redis_down_is_a_refusal_that_passes(redis_server):
    """While the Redis server is down every request is refused as "unavailable" (503, a
    ClassStoreError that pages and streams handle), not a bare ConnectionError, and
    nothing is lost: once it is back the class answers as before."""
    store = RedisClassStore.from_url(redis_server.url)
    opened, devices = _class_with_students(store)
    store.vote(opened.code, devices[0], 1, 1, OPTIONS[1])
    redis_server.stop(signal.SIGKILL)
    try:
        _refused_as_unavailable(
            lambda: store.state(opened.code),
            lambda: store.vote(opened.code, devices[1], 1, 1, OPTIONS[0]),
            lambda: store.set_step(opened.code, opened.secret, 2, OPTIONS),
            lambda: store.results(opened.code, opened.secret),
            store.ping,
        )
    finally:
        redis_server.start()
    store.ping()
    state = store.state(opened.code)
    assert (state.step, state.joined, state.answered) == (1, 3, 1)
    store.close()


def _refused_as_unavailable(*requests: Callable[[], object]) -> None:
    for request in requests:
        with pytest.raises(StoreUnavailableError) as refused:
            request()
        assert refused.value.status == 503 and "try again" in str(refused.value)


def test_an_sqlite_file_locked_past_the_wait_is_a_refusal_that_passes(tmp_path):
    """Another process holds the file's write lock longer than the store waits: every
    change is refused as "unavailable" (503), not a bare OperationalError that would end a
    page's run; reads still answer (WAL), and once the lock is gone nothing was lost."""
    path = tmp_path / "classes.sqlite3"
    store = SQLiteClassStore(path, wait_seconds=0.2)
    opened, devices = _class_with_students(store)
    store.vote(opened.code, devices[0], 1, 1, OPTIONS[1])
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        _refused_as_unavailable(
            lambda: store.vote(opened.code, devices[1], 1, 1, OPTIONS[0]),
            lambda: store.set_step(opened.code, opened.secret, 2, OPTIONS),
            lambda: store.join(opened.code, "a-late-device-id-00000042"),
        )
        assert store.state(opened.code).answered == 1
        store.ping()  # reachable: a read
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    state = store.state(opened.code)
    assert (state.step, state.joined, state.answered) == (1, 3, 1)
    store.vote(opened.code, devices[1], 1, 1, OPTIONS[0])
    assert store.state(opened.code).answered == 2
    store.close()


def test_an_sqlite_disk_full_is_a_refusal_that_passes(tmp_path):
    """The file cannot grow (a full disk: SQLite's page limit stands in for it): joining
    is refused as "unavailable" (503), not a bare OperationalError (SQLite rolls the
    transaction back itself, so a second ROLLBACK had replaced the error), nothing
    half-done stays, and once there is room the same join works."""
    store = SQLiteClassStore(tmp_path / "classes.sqlite3")
    opened = store.open_class(3, OPTIONS)
    with store._connection() as db:  # the pool's one connection, used by every request
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
    joined = 0
    with pytest.raises(StoreUnavailableError) as refused:
        for joined in range(10_000):  # until the file has no page left for the next
            store.join(opened.code, f"device-of-student-{joined:08d}")
    assert refused.value.status == 503
    assert store.state(opened.code).joined == joined  # the refused join left nothing
    with store._connection() as db:
        db.execute(f"PRAGMA max_page_count = {pages * 100}")
    store.join(opened.code, f"device-of-student-{joined:08d}")
    assert store.state(opened.code).joined == joined + 1
    store.close()


def test_sqlite_keeps_no_connection_per_thread(tmp_path):
    """Streamlit runs every script run on a new thread: 40 short-lived threads reading
    the store one after another must not leave 40 open files behind."""
    path = tmp_path / "classes.sqlite3"
    store = SQLiteClassStore(path)
    opened = store.open_class(3, OPTIONS)

    def open_files() -> int:
        fds = Path("/proc/self/fd")
        return sum(1 for fd in fds.iterdir() if str(path) in str(_target(fd)))

    before = open_files()
    for _ in range(40):
        thread = threading.Thread(target=store.state, args=(opened.code,))
        thread.start()
        thread.join()
    assert open_files() <= before + 1
    store.close()
    assert open_files() == 0


def _target(fd: Path) -> str:
    try:
        return str(fd.readlink())
    except OSError:  # the descriptor closed while listing
        return ""


def test_workers_opening_a_fresh_sqlite_file_at_once_all_open_it(tmp_path):
    """A cluster's workers start together on a fresh file: each switches it to WAL, and one
    that was told "database is locked" there died at start (about 1 in 25 such starts of
    six openers here). Six threads with their own connections open each of 150 files."""
    errors: list[str] = []
    for trial in range(150):
        path = tmp_path / f"classes-{trial}.sqlite3"
        start = threading.Barrier(6)

        def open_it(path: Path = path, start: threading.Barrier = start) -> None:
            start.wait()
            try:
                SQLiteClassStore(path).close()
            except sqlite3.OperationalError as error:
                errors.append(str(error))

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
