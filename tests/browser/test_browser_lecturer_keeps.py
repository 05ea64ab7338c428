"""The lecturer keeps control when its worker dies (issue 26's faults), in real headless
Chromium on two workers behind nginx sharing an SQLite store: the lecturer starts a class
and opens its console, a student votes, the lecturer's OWN worker is SIGKILLed; the page
reconnects to the other worker, takes the class back from its tab's sessionStorage and its
Next moves the class, the console (same browser, same dead worker) drives again too, and
the acknowledged vote is still counted; a reload of the projector's tab keeps the class as
well. Then the whole app restarts (every worker stopped and started again on the same
store file): the tab reconnects and drives again, and the votes acknowledged before are in
GET /api/classes/CODE. The secret is in no URL, no page text and no markup."""

from __future__ import annotations

import os
import signal
import time
import urllib.error

import pytest

from attention.teaching.lesson.content import lesson_text
from classroom import open_store
from classroom.store import new_device_id
from serving.cluster import Cluster, logged_upstreams
from serving.launch import free_port
from serving.nginx import ROUTE_COOKIE
from tests.browser.test_browser_live_class import (
    phone_screen,
    public_state,
    shows,
    start_class,
    vote,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
STEPS = len(lesson_text())
KEPT = "headspaces_lecturer_tab_lecturer"  # the tab's sessionStorage key (lecturer_tab.js)


@pytest.fixture
def cluster(nginx, tmp_path, monkeypatch):
    """`make serve WORKERS=2` with an SQLite file of its own (this test kills workers)."""
    setting = f"sqlite://{tmp_path / 'classes.sqlite3'}"
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", setting)
    cluster = Cluster(2, free_port(), tmp_path / "run")
    cluster.start()
    yield cluster, setting
    cluster.stop()


def lecturers_worker(page, cluster: Cluster):
    """The worker that holds the page's session: its route cookie, looked up in nginx's log
    (as benchmarks/bench_live_class.py finds it), without leaving the page."""
    route = next(c["value"] for c in page.context.cookies() if c["name"] == ROUTE_COOKIE)
    answered_by = logged_upstreams(cluster.access_log)[route]
    return next(w for w in cluster.workers if answered_by.endswith(f":{w.port}"))


def press_until(page, name: str, reached, timeout_s: float = 30) -> float:
    """Press the button `name` until `reached()` (a click sent into the dead socket before
    the page noticed is lost, so press again); the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        page.get_by_role("button", name=name).click(timeout=timeout_s * 1000)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if reached():
                return time.monotonic() - start
            time.sleep(0.1)
    shown = page.evaluate("() => document.body?.innerText ?? ''")[:600]
    raise AssertionError(f"{name} did not change the class in {timeout_s} s; the page: {shown}")


def press_next_until(page, app_url: str, code: str, step: int, timeout_s: float = 30) -> float:
    """The lecturer's Next ▶ until the store's step is `step`."""
    return press_until(
        page, "Next ▶", lambda: public_state(app_url, code)["step"] >= step, timeout_s
    )


def answered_again(app_url: str, code: str, timeout_s: float = 30) -> dict:
    """The class's public state once nginx routes again: after every worker was down it
    answers 502 until a worker's fail_timeout (10 s) has passed."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return public_state(app_url, code)
        except urllib.error.HTTPError as error:
            if error.code != 502 or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_the_lecturer_keeps_the_class_when_its_worker_dies_and_the_app_restarts(chromium, cluster):
    cluster, setting = cluster
    projector = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
    phone = phone_screen(chromium)
    code = start_class(projector, cluster.url)
    projector.wait_for_function("() => document.documentElement.dataset.lecturerTab === 'kept'")
    kept = projector.evaluate(f"() => JSON.parse(sessionStorage.getItem('{KEPT}'))")
    assert kept["code"] == code and len(kept["secret"]) >= 40

    with projector.context.expect_page() as opened:  # the console, in the same browser
        projector.get_by_role("link", name="Open the lecturer's console").click()
    console = opened.value
    shows(console, f"Class {code} · Step 1 of {STEPS}", 30_000)
    console.wait_for_function("() => document.documentElement.dataset.lecturerTab === 'kept'")

    phone.goto(f"{cluster.url}/lesson?class={code}")
    shows(phone, f"Class {code} · Step 1 of {STEPS}", 60_000)
    options = list(public_state(cluster.url, code)["votes"])
    vote(phone, options[0])  # acknowledged: "Your answer is in"
    assert phone.evaluate(f"() => sessionStorage.getItem('{KEPT}')") is None  # a student's tab

    victim = lecturers_worker(projector, cluster)
    os.kill(victim.pid, signal.SIGKILL)
    state = public_state(cluster.url, code)  # the other worker answers from the store
    assert (state["step"], state["answered"], state["votes"][options[0]]) == (1, 1, 1)
    took = press_next_until(projector, cluster.url, code, 2)
    print(f"after SIGKILL of the lecturer's worker, its Next moved the class in {took:.1f} s")
    assert public_state(cluster.url, code)["step"] == 2
    shows(phone, f"Step 2 of {STEPS}", 30_000)  # the student follows the retaken class
    assert lecturers_worker(projector, cluster) is not victim
    # The console was on the same dead worker: once its socket is back (Streamlit's
    # reconnect backs off, 30 s and more on a loaded machine) it shows the class's step.
    shows(console, f"Class {code} · Step 2 of {STEPS}", 90_000)
    took = press_until(  # the console (same browser, same dead worker) drives again too
        console, "Reveal the answer", lambda: public_state(cluster.url, code)["phase"] == "revealed"
    )
    print(f"after the kill, the console's Reveal reached the class in {took:.1f} s")

    projector.reload()  # a reload of the tab: a new session with no widget state at all
    took = press_next_until(projector, cluster.url, code, 3)
    print(f"after a reload of the lecturer's tab, its Next moved the class in {took:.1f} s")
    assert public_state(cluster.url, code)["joined"] == 1  # it did not join as a student

    # A second student's vote on step 3, acknowledged by the store (protocol level).
    store = open_store(setting)
    device = new_device_id()
    store.join(code, device)
    second = list(store.state(code).votes)
    store.vote(code, device, 3, 1, second[-1])
    store.close()
    for worker in cluster.workers:  # the whole app stops, then starts on the same file
        if worker.pid is not None:
            worker.stop()
    for worker in cluster.workers:
        worker.start()
    for worker in cluster.workers:
        worker.wait_healthy()
    state = answered_again(cluster.url, code)
    assert (state["step"], state["answered"], state["votes"][second[-1]]) == (3, 1, 1)
    took = press_next_until(projector, cluster.url, code, 4, timeout_s=60)
    print(f"after the whole app restarted, the lecturer's Next moved the class in {took:.1f} s")
    assert public_state(cluster.url, code)["step"] == 4

    for page in (projector, console, phone):
        assert kept["secret"] not in page.url
        assert kept["secret"] not in page.content()  # neither text nor markup
        assert kept["secret"] not in page.inner_text("body")
        assert page.locator('[data-testid="stException"]').count() == 0
    projector.context.close()
    phone.context.close()
