"""GET /api/classes/CODE/events (classroom.events) through Starlette's TestClient on an
SQLite store: the stream starts with what a student's screen draws, sends each change the
lecturer makes within a fraction of a second, is not woken by votes or joins (they must
not redraw every phone), never tells which option is right, ends with the reason when the
class closes, keeps quiet streams alive, outlives its Redis server restarting, and
refuses a bad, unknown or closed code with a JSON error."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest
import redis
from starlette.applications import Starlette
from starlette.testclient import TestClient

from classroom import events
from classroom.api import class_routes
from classroom.redis_store import RedisClassStore
from classroom.sqlite_store import SQLiteClassStore
from classroom.store import new_device_id


@pytest.fixture
def store(tmp_path):
    store = SQLiteClassStore(tmp_path / "classes.sqlite3")
    yield store
    store.close()


def read_stream(store, code: str, seconds: float, actions) -> list[tuple[float, str]]:
    """(seconds since the stream opened, line) of every non-empty line of a stream that
    lasts `seconds`, while `actions` [(at seconds, callable)] run on another thread."""
    app = Starlette(routes=class_routes(store, stream_seconds=seconds))

    def act() -> None:
        for at, action in actions:
            time.sleep(max(0.0, at - (time.monotonic() - start)))
            action()

    lines = []
    with TestClient(app) as client, client.stream("GET", f"/api/classes/{code}/events") as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["x-accel-buffering"] == "no"
        start = time.monotonic()
        threading.Thread(target=act, daemon=True).start()
        for line in r.iter_lines():
            if line:
                lines.append((time.monotonic() - start, line))
    return lines


def data(lines) -> list[tuple[float, dict]]:
    return [
        (t, json.loads(line.removeprefix("data: "))) for t, line in lines if line[:5] == "data:"
    ]


def test_the_stream_sends_the_screen_then_each_lecturer_change(store):
    opened = store.open_class(5, ["yes", "no"])
    device = new_device_id()
    actions = [
        (0.3, lambda: store.join(opened.code, device)),
        (0.4, lambda: store.vote(opened.code, device, 1, 1, "no")),
        (0.8, lambda: store.set_step(opened.code, opened.secret, 2, ["a", "b"])),
        (1.4, lambda: store.reveal(opened.code, opened.secret)),
    ]
    lines = read_stream(store, opened.code, 2.2, actions)
    assert lines[0][1] == f"retry: {events.RETRY_MS}"
    sent = data(lines)
    assert [screen for _, screen in sent] == [
        {"step": 1, "phase": "asking", "round": 1, "options": ["yes", "no"]},
        {"step": 2, "phase": "asking", "round": 1, "options": ["a", "b"]},
        {"step": 2, "phase": "revealed", "round": 1, "options": ["a", "b"]},
    ]  # the join and the vote sent nothing
    assert 0.8 < sent[1][0] < 0.8 + 2 * events.WATCH_SECONDS + 0.3
    assert 1.4 < sent[2][0] < 1.4 + 2 * events.WATCH_SECONDS + 0.3
    assert all(device not in line and opened.secret not in line for _, line in lines)


def test_the_stream_never_tells_which_option_is_right(store):
    """The same events, before and after the reveal, whichever option the lecturer's page
    sent as right: each option's text only as an option."""
    right_one, wrong_one = "the right one: Q7-zeta", "a wrong one: K2-eta"
    options = [right_one, wrong_one]

    def screens(right: str) -> list[dict]:
        """What a class's stream sends as its step 2 is asked, with `right`, and revealed."""
        opened = store.open_class(5, ["yes"])
        actions = [
            (0.3, lambda: store.set_step(opened.code, opened.secret, 2, options, "Which?", right)),
            (0.8, lambda: store.reveal(opened.code, opened.secret)),
        ]
        lines = read_stream(store, opened.code, 1.4, actions)
        assert all(line.count(right_one) == line.count(wrong_one) for _, line in lines)
        return [screen for _, screen in data(lines)]

    seen = {right: screens(right) for right in options}
    assert seen[right_one] == seen[wrong_one]
    assert seen[right_one][1:] == [
        {"step": 2, "phase": phase, "round": 1, "options": options}
        for phase in ("asking", "revealed")
    ]


def test_the_stream_ends_when_the_class_closes(store):
    opened = store.open_class(5, ["yes"])
    lines = read_stream(
        store, opened.code, 5.0, [(0.3, lambda: store.close_class(opened.code, opened.secret))]
    )
    assert data(lines)[-1][1] == {"ended": "This class has ended."}
    assert lines[-1][0] < 2.0  # ended at the close, not at the stream's end


def test_a_quiet_stream_is_kept_alive(store, monkeypatch):
    monkeypatch.setattr(events, "KEEPALIVE_SECONDS", 0.3)
    opened = store.open_class(5, ["yes"])
    lines = read_stream(store, opened.code, 1.0, [])
    assert [line for _, line in lines].count(": keep-alive") >= 2
    assert len(data(lines)) == 1


def test_a_stream_outlives_its_redis_server_restarting(redis_server):
    """Redis killed and started again under an open stream (its watcher reads the store
    meanwhile): the class has not ended, so the stream says nothing while the store cannot
    be reached, and the lecturer's next step reaches it as any change does."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushdb()
    store = RedisClassStore.from_url(redis_server.url)
    opened = store.open_class(5, ["yes", "no"])

    def outage() -> None:
        redis_server.stop(signal.SIGKILL)
        time.sleep(5 * events.WATCH_SECONDS)
        redis_server.start()

    actions = [
        (0.3, outage),
        (2.0, lambda: store.set_step(opened.code, opened.secret, 2, ["a", "b"])),
    ]
    try:
        sent = data(read_stream(store, opened.code, 3.5, actions))
    finally:
        store.close()
    assert [screen for _, screen in sent] == [
        {"step": 1, "phase": "asking", "round": 1, "options": ["yes", "no"]},
        {"step": 2, "phase": "asking", "round": 1, "options": ["a", "b"]},
    ]


@pytest.mark.parametrize(("code", "status"), [("ZZZZZZ", 404), ("A" * 10_000, 400)])
def test_a_bad_code_gets_a_json_error(store, code, status):
    with TestClient(Starlette(routes=class_routes(store))) as client:
        response = client.get(f"/api/classes/{code}/events")
    assert response.status_code == status and response.json()["error"]


def test_a_closed_class_gets_410(store):
    opened = store.open_class(5, ["yes"])
    store.close_class(opened.code, opened.secret)
    with TestClient(Starlette(routes=class_routes(store))) as client:
        assert client.get(f"/api/classes/{opened.code}/events").status_code == 410
