"""The live class's endpoints over real HTTP on `streamlit run main.py` (the entry every
launcher starts): the public state follows the store, results.csv answers only the
lecturer's secret sent in the Authorization header (with share_right from the store),
never one in the URL, the events
stream answers and ends when the server stops, and the Streamlit app itself still answers
beside the routes."""

from __future__ import annotations

import csv
import io
import json
import os
import time
import urllib.error
import urllib.request
from unittest import mock

import pytest

from classroom.sqlite_store import SQLiteClassStore
from classroom.store import new_device_id
from harness.browser import start_app
from serving.launch import free_port

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, the SQLite store the server uses) for a server of our own."""
    path = tmp_path_factory.mktemp("class") / "classes.sqlite3"
    with mock.patch.dict(os.environ, {"HEADSPACES_CLASS_STORE": f"sqlite://{path}"}):
        proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    store = SQLiteClassStore(path)
    yield f"http://127.0.0.1:{port}", store
    store.close()
    proc.terminate()
    proc.wait(timeout=10)


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    """(status, content type, body) of a GET, errors included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers["content-type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read().decode()


def test_the_public_state_follows_the_store(served):
    url, store = served
    opened = store.open_class(5, ["yes", "no"])
    device = new_device_id()
    store.join(opened.code, device)
    store.vote(opened.code, device, 1, 1, "no")
    status, kind, body = _get(f"{url}/api/classes/{opened.code}")
    assert (status, kind) == (200, "application/json")
    state = json.loads(body)
    assert (state["step"], state["steps"], state["phase"], state["round"]) == (1, 5, "asking", 1)
    assert (state["joined"], state["answered"], state["votes"]) == (1, 1, {"yes": 0, "no": 1})
    assert opened.secret not in body and device not in body
    store.set_step(opened.code, opened.secret, 2, ["a", "b"])
    assert json.loads(_get(f"{url}/api/classes/{opened.code}")[2])["step"] == 2


@pytest.mark.parametrize(("code", "status"), [("ABCDEF", 404), ("no!", 400), ("A" * 10_000, 400)])
def test_a_bad_code_gets_a_json_error(served, code, status):
    got, kind, body = _get(f"{served[0]}/api/classes/{code}")
    assert (got, kind) == (status, "application/json")
    assert json.loads(body)["error"]


def test_results_answer_only_the_lecturers_header(served):
    url, store = served
    opened = store.open_class(3, ["yes", "no"])
    store.set_step(opened.code, opened.secret, 1, ["yes", "no"], "Is it?", "no")  # as sync does
    devices = [new_device_id() for _ in range(3)]
    for device, answer in zip(devices, ["yes", "no", "no"], strict=True):
        store.join(opened.code, device)
        store.vote(opened.code, device, 1, 1, answer)
    store.reveal(opened.code, opened.secret)
    store.open_second_round(opened.code, opened.secret)
    store.vote(opened.code, devices[0], 1, 2, "no")
    results = f"{url}/api/classes/{opened.code}/results.csv"

    assert _get(results)[0] == 403
    assert _get(f"{results}?secret={opened.secret}")[0] == 403
    assert _get(results, {"Authorization": "Bearer not-the-secret"})[0] == 403
    status, kind, body = _get(results, {"Authorization": f"Bearer {opened.secret}"})
    assert status == 200 and kind.startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    table = {
        (r["step"], r["round"], r["option"]): (r["votes"], r["answered"], r["share_right"])
        for r in rows
    }
    assert table == {  # the right answer "no": 2 of 3 in round 1, 1 of 1 in round 2
        ("1", "1", "yes"): ("1", "3", "0.667"),
        ("1", "1", "no"): ("2", "3", "0.667"),
        ("1", "2", "no"): ("1", "1", "1.000"),
    }
    assert not any(device in body for device in devices)
    # Results stay the lecturer's after the class closes.
    store.close_class(opened.code, opened.secret)
    assert _get(f"{url}/api/classes/{opened.code}")[0] == 410
    assert _get(results, {"Authorization": f"Bearer {opened.secret}"})[2] == body


def test_the_app_still_answers_beside_the_routes(served):
    status, kind, body = _get(f"{served[0]}/")
    assert status == 200 and kind.startswith("text/html") and "<noscript>" in body


def test_events_stream_over_http_and_end_when_the_server_stops(tmp_path, monkeypatch):
    """A student's stream answers through main.py; a worker told to stop ends its open
    streams at once instead of waiting for them (uvicorn waits for open responses)."""
    path = tmp_path / "classes.sqlite3"
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", f"sqlite://{path}")
    proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    store = SQLiteClassStore(path)
    opened = store.open_class(3, ["yes", "no"])
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/classes/{opened.code}/events", timeout=10
        ) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.readline() == b"retry: 1000\n" and stream.readline() == b"\n"
            first = json.loads(stream.readline().decode().removeprefix("data: "))
            assert first == {"step": 1, "phase": "asking", "round": 1, "options": ["yes", "no"]}
            stopped = time.monotonic()
            proc.terminate()
            proc.wait(timeout=10)
            assert time.monotonic() - stopped < 5
    finally:
        if proc.poll() is None:
            proc.kill()
        store.close()
