"""The playground in a real headless Chromium: the query dragged with the mouse, moved
with the arrow keys and dragged by touch on a phone; after each, the weights, ★ and
sentence on screen equal the engine's for the points on screen (within 1e-6), and a
finished drag reaches the server (link and challenge). A challenge is met by one
scripted drag and refused by a wrong one. Screenshots at 1280×720, 1920×1080 and
390×844 go to artifacts/screenshots/."""

from __future__ import annotations

import numpy as np
import pytest

from attention.teaching.narration.playground import weight_sentence
from attention.teaching.playground import format_points, head_trace
from harness.browser import SCREENSHOTS, wait_until_drawn
from harness.playground import mouse_drag, point, screen_xy, shown, touch_drag
from ui.playground import model_playground

pytestmark = pytest.mark.browser
VERDICT = '[data-testid="stAlertContainer"]'


def open_playground(chromium, app_url, query: str = "", **context):
    ctx = chromium.new_context(**context)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{app_url}/playground{query}")
    wait_until_drawn(page)
    point(page).wait_for()
    return ctx, page, errors


def assert_screen_is_the_engines(page, head: int = 1, temperature: float = 1.0) -> dict:
    now = shown(page, head)
    trace = head_trace(now["query"], now["keys"], now["values"], temperature)
    np.testing.assert_allclose(now["weights"], trace.weights[0, 0], atol=1e-6)
    np.testing.assert_allclose(now["scores"], trace.scores[0, 0], atol=1e-6)
    np.testing.assert_allclose(now["star"], trace.heads[0, 0], atol=1e-6)
    model = model_playground()
    assert now["sentence"] == weight_sentence(model.tokens, model.query_index, trace.weights[0, 0])
    return now


def wait_for_link(page, fragment: str) -> None:
    page.wait_for_function("(f) => decodeURIComponent(location.search).includes(f)", arg=fragment)
    wait_until_drawn(page)


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_mouse_drag_meets_a_challenge_and_a_wrong_one_is_refused(chromium, app_url, size):
    ctx, page, errors = open_playground(
        chromium, app_url, viewport={"width": size[0], "height": size[1]}
    )
    before = assert_screen_is_the_engines(page)
    shot(page, f"playground_{size[0]}_start")
    mouse_drag(page, point(page), screen_xy(page, 2.0, 2.0))  # away from "tea": refused
    wait_for_link(page, "pg_q1=")
    after = assert_screen_is_the_engines(page)
    assert np.allclose(after["query"], [2.0, 2.0], atol=0.05) and after["query"] != before["query"]
    assert page.locator(VERDICT, has_text="Not yet").count() == 1
    mouse_drag(page, point(page), screen_xy(page, -2.0, -4.0))  # towards "tea": met
    wait_for_link(page, "pg_q1=-")
    page.locator(VERDICT, has_text="Met").wait_for()
    assert_screen_is_the_engines(page)
    shot(page, f"playground_{size[0]}_met")
    mouse_drag(page, point(page), screen_xy(page, -5.0, -1.0))  # off the plot: clamped
    wait_for_link(page, "pg_q1=-4.0000,")
    x, y = assert_screen_is_the_engines(page)["query"]
    assert x == -4.0 and abs(y + 1.0) < 0.05
    assert not errors
    ctx.close()


def test_arrow_keys_move_the_focused_query_and_keys_in_the_second_mode(chromium, app_url):
    ctx, page, errors = open_playground(
        chromium, app_url, "?pg_keys=1&pg_temp=0.5", viewport={"width": 1600, "height": 1000}
    )
    query = point(page)
    start = shown(page)["query"]
    query.focus()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("Shift+ArrowUp")  # five presses faster than the server's reruns
    expected = np.array([start[0] - 0.2, start[1] + 0.25])
    wait_for_link(page, "pg_q1=" + format_points(expected))
    now = assert_screen_is_the_engines(page, temperature=0.5)
    np.testing.assert_allclose(now["query"], expected, atol=1e-4)
    label = query.get_attribute("aria-label")
    assert label.startswith("query of “du” in head 1") and "arrow keys" in label
    assert (
        page.evaluate(  # focus survives the rerun the key press caused
            "() => document.querySelector('[data-testid=\"stBidiComponentIsolated\"]')"
            ".shadowRoot.activeElement?.dataset.kind"
        )
        == "query"
    )
    key = point(page, "key", token="for")
    key_start = shown(page)["keys"][model_playground().tokens.index("for")]
    key.focus()
    page.keyboard.press("ArrowDown")
    wait_for_link(page, "pg_k1=")
    wait_until_drawn(page)
    now = assert_screen_is_the_engines(page, temperature=0.5)
    moved = now["keys"][model_playground().tokens.index("for")]
    np.testing.assert_allclose(moved, [key_start[0], key_start[1] - 0.05], atol=1e-4)
    assert not errors
    ctx.close()


def test_touch_drag_on_a_phone(chromium, app_url):
    ctx, page, errors = open_playground(
        chromium,
        app_url,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    touch_drag(page, point(page), screen_xy(page, -2.0, -4.0))
    wait_for_link(page, "pg_q1=-")
    now = assert_screen_is_the_engines(page)
    assert np.allclose(now["query"], [-2.0, -4.0], atol=0.1)
    page.locator(VERDICT, has_text="Met").wait_for()
    point(page).scroll_into_view_if_needed()
    shot(page, "playground_390_touch")
    assert not errors
    ctx.close()
