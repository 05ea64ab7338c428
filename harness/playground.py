"""Drive the playground's component in a real browser, for its browser test and its
benchmark: where a point of a head's plot is on screen, mouse and touch drags to a
point, and the numbers the page shows read back with the points they belong to."""

from __future__ import annotations

POINT = '[data-kind="{kind}"][data-head="{head}"]{extra}'


def point(page, kind: str = "query", head: int = 1, token: str | None = None):
    """The locator of a draggable point (CSS selectors pierce the component's shadow root)."""
    extra = f'[data-token="{token}"]' if token else ""
    return page.locator(POINT.format(kind=kind, head=head, extra=extra))


def screen_xy(page, x: float, y: float, head: int = 1) -> tuple[float, float]:
    """Where the head's query/key coordinates (x, y) are in the window's pixels."""
    return point(page, head=head).evaluate(
        """(g, [x, y]) => {
            const p = new DOMPoint(x, -y).matrixTransform(g.ownerSVGElement.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def mouse_drag(page, locator, target: tuple[float, float], steps: int = 20) -> None:
    """Press on the point, move to `target` (window pixels) in `steps` moves, release."""
    locator.scroll_into_view_if_needed()
    start = centre(locator)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*target, steps=steps)
    page.mouse.up()


def touch_drag(page, locator, target: tuple[float, float], steps: int = 10) -> None:
    """A one-finger drag through Chromium's touch input (pointer events of type touch)."""
    locator.scroll_into_view_if_needed()
    (x0, y0), (x1, y1) = centre(locator), target
    cdp = page.context.new_cdp_session(page)
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for i in range(1, steps + 1):
        at = {"x": x0 + (x1 - x0) * i / steps, "y": y0 + (y1 - y0) * i / steps}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [at]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def shown(page, head: int = 1) -> dict:
    """The points and numbers on screen for one head: the query, the keys and values by
    token, each bar's weight and score, the ★ and the sentence."""
    return page.locator(f'.head[data-head="{head}"]').evaluate(
        """(row) => {
            const xy = (e) => [Number(e.dataset.x), Number(e.dataset.y)];
            const all = (sel) => Array.from(row.querySelectorAll(sel));
            return {
                query: xy(row.querySelector('[data-kind="query"]')),
                keys: all('[data-kind="key"]').map(xy),
                values: all('[data-kind="value"]').map(xy),
                weights: all('[data-weight-token]').map((b) => Number(b.dataset.weight)),
                scores: all('[data-weight-token]').map((b) => Number(b.dataset.score)),
                star: xy(row.querySelector('[data-kind="output"]')),
                sentence: row.querySelector('.sentence').textContent,
            };
        }"""
    )
