"""The lecturer's console in real headless Chromium on the served main.py: the lecturer
starts a class on the 1280×720 projector and opens the console from it (a new window in
the same browser, paired by the handover); the console's Next moves the projector and a
student's phone, its Reveal reaches the phone; a fresh browser opening the console's link
is not paired and has no button. The secret is in no page's URL and in no page's text.
Screenshots of the console at 1280×720 and 1440×900 are saved to look at."""

from __future__ import annotations

import json
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

from attention.teaching.lesson.content import lesson_text
from harness.browser import SCREENSHOTS, wait_until_drawn, wait_until_settled, watch_settling
from tests.browser.test_browser_live_class import (
    COUNT_LISTENERS,
    phone_screen,
    shows,
    start_class,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
STEPS = lesson_text()
# What any page of the lecturer's browser may ask on the console's channel: the test asks
# like the console does, to learn the secret it then looks for in every page.
ASK = """() => new Promise((resolve) => {
    const channel = new BroadcastChannel("headspaces-lecturer-console");
    channel.onmessage = (event) => {
        if (event.data && event.data.kind === "class") { channel.close(); resolve(event.data); }
    };
    channel.postMessage({ kind: "ask" });
})"""
# How many times a page asked on the console's channel (ui/components/console_pairing.js
# asks at once, then every second until answered).
COUNT_ASKS = """(() => {
    window.headSpacesAsks = 0;
    const post = BroadcastChannel.prototype.postMessage;
    BroadcastChannel.prototype.postMessage = function (message) {
        if (message && message.kind === "ask") window.headSpacesAsks += 1;
        return post.call(this, message);
    };
})()"""


def class_state(app_url: str, code: str) -> dict:
    with urllib.request.urlopen(f"{app_url}/api/classes/{code}", timeout=10) as response:
        return json.loads(response.read())


def until(check, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_console_drives_the_class_from_the_lecturers_browser_only(chromium, app_url):
    lecturer = chromium.new_context(viewport={"width": 1280, "height": 720})
    lecturer.add_init_script(COUNT_LISTENERS)  # the projector's polls
    watch_settling(lecturer)
    stranger = chromium.new_context(viewport={"width": 1280, "height": 800})
    stranger.add_init_script(COUNT_ASKS)
    watch_settling(stranger)
    projector, student = lecturer.new_page(), phone_screen(chromium)
    try:
        code = start_class(projector, app_url)
        student.goto(f"{app_url}/lesson?class={code}")
        shows(student, f"Class {code} · Step 1 of {len(STEPS)}", 60_000)
        student.wait_for_function("() => document.documentElement.dataset.classPush")

        with lecturer.expect_page() as opened:
            projector.get_by_role("link", name="Open the lecturer's console").click()
        console = opened.value
        assert urlsplit(console.url).query == "console=1"
        shows(console, f"Class {code} · Step 1 of {len(STEPS)}", 30_000)
        shows(console, STEPS[0].notes)
        shows(console, f"Next: 2. {STEPS[1].title}")
        shows(console, "1 student joined")
        shows(console, "none yet")  # no one has answered: the answers in words, no chart
        wait_until_drawn(console)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        console.screenshot(path=str(SCREENSHOTS / "live_console_1280x720.png"))
        projector.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        projector.screenshot(path=str(SCREENSHOTS / "live_console_projector_1280x720.png"))

        clicked = time.monotonic()
        console.get_by_role("button", name="Next ▶").click()
        shows(projector, f"Step 2 of {len(STEPS)}")  # the projector follows the console
        shows(student, f"Step 2 of {len(STEPS)}")  # and so does the student
        followed = time.monotonic() - clicked
        until(lambda: class_state(app_url, code)["votes"])  # the projector sent the answers
        assert class_state(app_url, code)["step"] == 2
        shows(console, f"Now: 2. {STEPS[1].title}")
        options = list(class_state(app_url, code)["votes"])
        shows(console, f"“{options[0]}”")

        console.get_by_role("button", name="Reveal the answer").click()
        shows(student, "answer shown")
        until(lambda: class_state(app_url, code)["phase"] == "revealed")
        # The projector's poll runs and its panel reruns on what it read: it must not
        # take the reveal back. A poll begins once the one before has been answered, so
        # two more polls than now mean one that read the revealed class has been handled.
        polls = projector.evaluate("window.headSpacesPolls")
        projector.wait_for_function(f"() => window.headSpacesPolls >= {polls + 2}")
        wait_until_settled(projector)
        assert class_state(app_url, code)["phase"] == "revealed"
        assert projector.get_by_role("button", name="Reveal the answer").is_disabled()
        console.set_viewport_size({"width": 1440, "height": 900})
        wait_until_drawn(console)
        console.screenshot(path=str(SCREENSHOTS / "live_console_1440x900.png"))

        handed = console.evaluate(ASK)
        assert handed["code"] == code and len(handed["secret"]) >= 32
        secret = handed["secret"]
        alone = stranger.new_page()
        alone.goto(f"{app_url}/lesson?console=1")
        shows(alone, "This console is not paired", 30_000)
        alone.wait_for_function("() => document.documentElement.dataset.consolePairing")
        # It has asked three times, a second apart; nobody in this browser answers (an
        # answer would rerun the page: settled, none is on its way).
        alone.wait_for_function("() => window.headSpacesAsks >= 3")
        wait_until_settled(alone)
        assert "This console is not paired" in alone.inner_text("body")
        assert alone.get_by_role("button", name="Next ▶").count() == 0
        alone.screenshot(path=str(SCREENSHOTS / "live_console_unpaired_1280x800.png"))
        for page in (projector, console, student, alone):
            assert secret not in page.url
            assert secret not in page.evaluate("() => document.body.innerText")
            assert secret not in page.content()  # nor in the light DOM's markup
            assert page.locator('[data-testid="stException"]').count() == 0
        assert class_state(app_url, code)["step"] == 2  # the stranger changed nothing
        print(f"console Next → projector and student on step 2 in {followed:.2f} s")
    finally:
        lecturer.close()
        stranger.close()
        student.context.close()
