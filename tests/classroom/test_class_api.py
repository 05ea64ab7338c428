"""GET /api/classes/CODE (classroom.api) through Starlette's TestClient on an SQLite
store: the contract's fields for a live class, JSON errors for a malformed (400), unknown
(404) or closed (410) code, never a secret, a device id or which option is right, and
nothing to write; results.csv answers the lecturer's Bearer secret with share_right."""

from __future__ import annotations

import csv
import io

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from classroom.api import class_routes
from classroom.sqlite_store import SQLiteClassStore
from classroom.store import new_device_id

# Two options as distinctive texts: the right answer's is public only as an option.
RIGHT, WRONG = "the right one: Q7-zeta", "a wrong one: K2-eta"


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


def test_the_public_state_never_tells_which_option_is_right(store, client):
    """The same JSON, before and after the reveal, whichever option the lecturer's page
    sent as right (or none): each option's text once, as a count of its votes."""
    bodies = {}
    for right in (RIGHT, WRONG, ""):
        opened = store.open_class(6)
        store.set_step(opened.code, opened.secret, 2, [RIGHT, WRONG], "Which one?", right)
        before = client.get(f"/api/classes/{opened.code}").text
        store.reveal(opened.code, opened.secret)
        after = client.get(f"/api/classes/{opened.code}").text
        for text in (before, after):
            assert text.count(RIGHT) == text.count(WRONG) == 1
        bodies[right] = [text.replace(opened.code, "CODE") for text in (before, after)]
    assert bodies[RIGHT] == bodies[WRONG] == bodies[""]


def test_results_csv_gives_the_lecturer_each_rounds_share_right(store, client):
    """Hand counts: step 2 round 1, 1 of 3 chose the right answer; round 2, 2 of 2."""
    opened = store.open_class(6)
    store.set_step(opened.code, opened.secret, 2, [RIGHT, WRONG], "Which one?", RIGHT)
    devices = [new_device_id() for _ in range(3)]
    for device, answer in zip(devices, [RIGHT, WRONG, WRONG], strict=True):
        store.join(opened.code, device)
        store.vote(opened.code, device, 2, 1, answer)
    store.reveal(opened.code, opened.secret)
    store.open_second_round(opened.code, opened.secret)
    for device in devices[:2]:
        store.vote(opened.code, device, 2, 2, RIGHT)
    url = f"/api/classes/{opened.code}/results.csv"
    assert client.get(url, headers={"Authorization": "Bearer not-the-secret"}).status_code == 403
    response = client.get(url, headers={"Authorization": f"Bearer {opened.secret}"})
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert {(r["round"], r["option"]): (r["votes"], r["share_right"]) for r in rows} == {
        ("1", RIGHT): ("1", "0.333"),
        ("1", WRONG): ("2", "0.333"),
        ("2", RIGHT): ("2", "1.000"),
    }
