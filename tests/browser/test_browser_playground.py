"""The playground in a real headless Chromium: the query dragged with the mouse, moved
with the arrow keys and dragged by touch on a phone; after each, the weights, ★ and
sentence on screen equal the engine's for the points on screen (within 1e-6), and a
finished drag reaches the server (link and challenge). Each challenge is met by
scripted drags and refused by a wrong one, the page's verdict agreeing with the check on
the engine's weights for the points on screen. Screenshots at 1280×720, 1920×1080 and
390×844 go to artifacts/screenshots/."""

from __future__ import annotations

import numpy as np
import pytest

from attention.teaching.challenges import check
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


def drag_to(page, locator, xy: tuple[float, float], head: int = 1) -> None:
    """Drag a point to the head's coordinates `xy` and wait for the server's answer (the
    link changes when the drag's positions arrive) and the page redrawn."""
    before = page.evaluate("() => location.search")
    mouse_drag(page, locator, screen_xy(page, *xy, head=head))
    page.wait_for_function("(s) => location.search !== s", arg=before)
    wait_until_drawn(page)


def assert_verdict(page, number: int, heads: int, met: bool, said: str) -> None:
    """The challenge checked on the engine's weights for the points on screen has the
    expected outcome, and the page's verdict says so."""
    weights = []
    for head in range(1, heads + 1):
        now = shown(page, head)
        weights.append(head_trace(now["query"], now["keys"], now["values"]).weights[0, 0])
    assert check(number, model_playground().tokens, weights).met is met
    assert page.locator(VERDICT, has_text=said).count() == 1


# Per challenge: the link that opens it, then (point, head, target) drags, the first
# refused (wrong), the rest meeting it; what the met verdict says. Positions chosen so a
# drop a pixel off still lands well inside (or outside) the challenge's bounds.
CHALLENGE_DRAGS = {
    2: (
        "?pg_challenge=2",
        [("query", None, 1, (-2.0, -4.0))],  # all towards "tea": 76 % / 21 %
        [("query", None, 1, (-3.5, -2.5))],  # between the two keys: 50 % / 49 %
        "Met",
    ),
    3: (
        "?pg_challenge=3&pg_keys=1",
        [("key", "for", 1, (3.0, 3.0))],  # "for" further away from the query
        [("key", "it's", 1, (3.5, 3.5)), ("key", "for", 1, (-3.0, -1.0))],  # beside "tea"
        "as close as one head can",
    ),
    4: (
        "?pg_challenge=4&pg_heads=2&pg_keys=1",
        [("query", None, 1, (-2.0, -4.0)), ("query", None, 2, (3.0, -3.0))],  # "for" boxed in
        [("key", "for", 2, (3.5, -3.5))],  # "for" dragged out of the other keys' box
        "Met",
    ),
}


@pytest.mark.parametrize("number", sorted(CHALLENGE_DRAGS))
def test_each_challenge_is_met_by_a_drag_and_refused_by_a_wrong_one(chromium, app_url, number):
    link, wrong, right, met_said = CHALLENGE_DRAGS[number]
    heads = 2 if number == 4 else 1
    ctx, page, errors = open_playground(
        chromium, app_url, link, viewport={"width": 1600, "height": 1000}
    )
    for kind, token, head, xy in wrong:
        drag_to(page, point(page, kind, head, token), xy, head)
    assert_verdict(page, number, heads, met=False, said="Not yet")
    for kind, token, head, xy in right:
        drag_to(page, point(page, kind, head, token), xy, head)
    assert_verdict(page, number, heads, met=True, said=met_said)
    for head in range(1, heads + 1):
        assert_screen_is_the_engines(page, head)
    assert not errors
    ctx.close()


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
            "() => document.querySelector("
            "'.st-key-playground [data-testid=\"stBidiComponentIsolated\"]')"
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
