"""A live class's phone holds the step after the lecturer's, drawn hidden, and shows it
the moment the push announces it, before the phone's rerun (ui/live/student.ahead_css,
ui/components/class_push.js), in real headless Chromium on a 390×844 phone. The phone's
Streamlit socket is held (nothing from the server reaches the page) while the lecturer
goes Next: the step that then shows came from the push alone."""

from __future__ import annotations

import pytest

from harness.browser import wait_until_drawn
from tests.browser.test_browser_live_class import STEPS, phone_screen, shows, start_class

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

# The screen's two step containers: [key, height, seen, parts one can focus].
CONTAINERS = """() => [...document.querySelectorAll(
    '[class*="st-key-class_step_"], [class*="st-key-class_ahead_"]')].map((block) => {
    const key = [...block.classList].find((name) => name.startsWith('st-key-'));
    const box = block.parentElement.getBoundingClientRect();
    const focusable = [...block.querySelectorAll('input, button, [tabindex]')].filter(
        (el) => el.checkVisibility({visibilityProperty: true}));
    return [key, box.height, block.checkVisibility({visibilityProperty: true}),
            focusable.length];
})"""


class HeldSocket:
    """The page's Streamlit websocket through Playwright: the page's messages go on to
    the server; the server's wait while `held`, and go on when released."""

    def __init__(self, page) -> None:
        self.held = False
        self.waiting: list[object] = []
        self.page_side = None
        page.route_web_socket("**/_stcore/stream", self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        ws.on_message(server.send)
        server.on_message(self._from_server)

    def _from_server(self, message) -> None:
        if self.held:
            self.waiting.append(message)
        else:
            self.page_side.send(message)

    def release(self) -> None:
        self.held = False
        for message in self.waiting:
            self.page_side.send(message)
        self.waiting.clear()


def test_a_phone_shows_the_next_step_from_the_push_before_its_rerun(chromium, app_url):
    projector = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
    phone = phone_screen(chromium)
    try:
        socket = HeldSocket(phone)
        code = start_class(projector, app_url)
        phone.goto(f"{app_url}/lesson?class={code}")
        shows(phone, f"Class {code} · Step 1 of {STEPS}", 60_000)
        phone.wait_for_function("() => document.documentElement.dataset.classPush")
        wait_until_drawn(phone, min_charts=2)  # step 1's chart and step 2's, drawn ahead
        now, ahead = phone.evaluate(CONTAINERS)
        assert now[0] == "st-key-class_step_1" and now[1] > 300 and now[3] > 0, now
        # Drawn ahead: no room, nothing seen (nor read: visibility), nothing to focus.
        assert ahead == ["st-key-class_ahead_2", 0, False, 0], ahead
        assert f"Step 2 of {STEPS}" not in phone.inner_text("body")

        socket.held = True
        projector.get_by_role("button", name="Next ▶").click()
        shows(phone, f"Class {code} · Step 2 of {STEPS}")
        for _ in range(200):  # the rerun the push asked for has answered, and waits
            if socket.waiting:
                break
            phone.wait_for_timeout(50)
        assert socket.waiting, "the phone's rerun never answered"
        assert phone.evaluate("document.documentElement.dataset.classShown") == "2"
        shown = phone.inner_text("body")
        assert f"Step 1 of {STEPS}" not in shown
        assert "The question:" in shown and "Your answer" in shown
        before, after = phone.evaluate(CONTAINERS)
        assert before == ["st-key-class_step_1", 0, False, 0], before
        assert after[0] == "st-key-class_ahead_2" and after[1] > 300 and after[3] > 0, after

        socket.release()  # the rerun draws step 2 as the class's, and step 3 ahead
        phone.wait_for_function(
            "() => document.querySelector('.st-key-class_ahead_3')"
            " && !document.documentElement.dataset.classShown",
            timeout=30_000,
        )
        wait_until_drawn(phone, min_charts=2)
        now, ahead = phone.evaluate(CONTAINERS)
        assert now[0] == "st-key-class_step_2" and now[1] > 300, now
        assert ahead == ["st-key-class_ahead_3", 0, False, 0], ahead
        assert phone.inner_text("body").count(f"Step 2 of {STEPS}") == 1
    finally:
        projector.context.close()
        phone.context.close()
