"""A live class through a Redis outage in real headless Chromium, on the served main.py
with a redis-server of our own: the projector (1280×720), its console (paired, same
browser) and a student's phone follow the class; the server is killed. Each screen says
in plain words that the class cannot be reached and asks again (the projector's counts
panel learns it by its poll, the console and the phone by their own runs) and keeps the
class; once the server is started again each shows the class where it was, the vote cast
before the kill is still counted, and the console's Next moves the projector and the
phone. Screenshots of the three screens during the outage are saved to look at."""

from __future__ import annotations

import signal
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attention.teaching.lesson.content import lesson_text
from harness.browser import SCREENSHOTS
from serving.cluster import Cluster
from serving.launch import free_port
from tests.browser.test_browser_live_class import (
    phone_screen,
    public_state,
    shows,
    start_class,
    vote,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
STEPS = len(lesson_text())
UNREACHABLE = "cannot be reached just now"
BACK_MS = 20_000  # asked again every 2 s; a fresh run on a loaded 2-core machine gets slack


@pytest.fixture
def served_on_redis(redis_server, tmp_path, monkeypatch):
    """One worker (`python -m serving`) on the session's redis-server."""
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", redis_server.url)
    cluster = Cluster(1, free_port(), tmp_path)
    yield cluster.start()
    cluster.stop()


def says(page, name: str, text: str, timeout_ms: int = BACK_MS) -> None:
    """Wait until the page shows `text`; when it does not, fail with what it shows instead
    (and a screenshot of it), so a failure says which state the screen was left in."""
    try:
        shows(page, text, timeout_ms)
    except PlaywrightTimeoutError:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"store_outage_{name}_not_shown.png"))
        shown = page.evaluate("document.body.innerText")[:800]
        raise AssertionError(f"the {name} did not show {text!r}; it shows: {shown}") from None


def gone(page, text: str, timeout_ms: int = BACK_MS) -> float:
    """Wait until the page's text no longer includes `text`; the seconds it took."""
    start = time.monotonic()
    page.wait_for_function(
        "(text) => !document.body.innerText.includes(text)", arg=text, timeout=timeout_ms
    )
    return time.monotonic() - start


def test_every_screen_waits_out_a_redis_restart(chromium, served_on_redis, redis_server):
    lecturer = chromium.new_context(viewport={"width": 1280, "height": 720})
    projector, phone = lecturer.new_page(), phone_screen(chromium)
    try:
        code = start_class(projector, served_on_redis)
        with lecturer.expect_page() as opened:
            projector.get_by_role("link", name="Open the lecturer's console").click()
        console = opened.value
        shows(console, f"Class {code} · Step 1 of {STEPS}", 30_000)
        phone.goto(f"{served_on_redis}/lesson?class={code}")
        shows(phone, f"Class {code} · Step 1 of {STEPS}", 60_000)
        option = next(iter(public_state(served_on_redis, code)["votes"]))
        vote(phone, option)
        shows(projector, "1 answered")

        redis_server.stop(signal.SIGKILL)
        try:
            says(projector, "projector", UNREACHABLE)  # its counts panel's poll got a 503
            says(console, "console", UNREACHABLE)
            phone.reload()  # a phone whose socket dropped: its new session asks the store
            says(phone, "phone", UNREACHABLE, 60_000)
            for screen in (projector, console, phone):
                shows(screen, "asks again every 2 s")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            projector.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
            for name, screen in (("projector", projector), ("console", console), ("phone", phone)):
                screen.screenshot(path=str(SCREENSHOTS / f"store_outage_{name}.png"))
        finally:
            redis_server.start()

        for screen in (projector, console, phone):
            gone(screen, UNREACHABLE)
        shows(projector, "1 answered")  # the vote cast before the kill is still counted
        shows(phone, f"Class {code} · Step 1 of {STEPS}")
        assert public_state(served_on_redis, code)["answered"] == 1
        console.get_by_role("button", name="Next ▶").click()
        shows(projector, f"Step 2 of {STEPS}")
        shows(phone, f"Class {code} · Step 2 of {STEPS}")
    finally:
        lecturer.close()
        phone.context.close()
