"""GET /api/classes/CODE (classroom.api) through Starlette's TestClient on an SQLite
store: the contract's fields for a live class, JSON errors for a malformed (400), unknown
(404) or closed (410) code, never a secret or a device id, and nothing to write."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from classroom.api import class_routes
from classroom.sqlite_store import SQLiteClassStore
from classroom.store import new_device_id


@pytest.fixture
def store(tmp_path):
    store = SQLiteClassStore(tmp_path / "classes.sqlite3")
    yield store
    store.close()


@pytest.fixture
def client(store):
    with TestClient(Starlette(routes=class_routes(store))) as client:
        yield client


def test_a_live_class_answers_the_contract(store, client):
    opened = store.open_class(6, ["head 1", "head 2"])
    devices = [new_device_id() for _ in range(3)]
    for device in devices:
        store.join(opened.code, device)
    store.vote(opened.code, devices[0], 1, 1, "head 2")
    store.vote(opened.code, devices[1], 1, 1, "head 2")
    response = client.get(f"/api/classes/{opened.code}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert {key: body[key] for key in ("step", "steps", "phase", "round")} == {
        "step": 1,
        "steps": 6,
        "phase": "asking",
        "round": 1,
    }
    assert (body["joined"], body["answered"]) == (3, 2)
    assert body["votes"] == {"head 1": 0, "head 2": 2}
    assert opened.secret not in response.text
    assert not any(device in response.text for device in devices)


def test_the_endpoint_follows_the_lecturer(store, client):
    opened = store.open_class(6, ["a"])
    store.set_step(opened.code, opened.secret, 4, ["yes", "no"])
    store.reveal(opened.code, opened.secret)
    body = client.get(f"/api/classes/{opened.code.lower()}").json()
    assert (body["step"], body["phase"], body["votes"]) == (4, "revealed", {"yes": 0, "no": 0})


@pytest.mark.parametrize(
    ("code", "status"),
    [("A" * 10_000, 400), ("AB0CD", 400), ("%3Cscript%3E", 400), ("ZZZZZZ", 404)],
)
def test_a_bad_code_gets_a_json_error(client, code, status):
    response = client.get(f"/api/classes/{code}")
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]
    assert "<script>" not in response.text


def test_a_closed_class_says_so(store, client):
    opened = store.open_class(3)
    store.close_class(opened.code, opened.secret)
    response = client.get(f"/api/classes/{opened.code}")
    assert response.status_code == 410
    assert "ended" in response.json()["error"]


def test_the_endpoint_changes_nothing(store, client):
    opened = store.open_class(3, ["a"])
    for method in ("post", "put", "delete"):
        assert getattr(client, method)(f"/api/classes/{opened.code}").status_code == 405
    assert store.state(opened.code).step == 1
