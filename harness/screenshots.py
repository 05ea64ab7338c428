"""Screenshots of app pages as a user sees them, for looking at with an image viewer.

    python -m harness.screenshots head_spaces "attention_maps?heads=8" --size 1440x900
    python -m harness.screenshots --every-page --size 1440x900 --size 390x844   # make screenshots

serves the app once, opens each page (a path with its query string), waits until every
chart is drawn and saves two pictures per page under artifacts/screenshots/: the first
screen at the window size, and the whole page (the window stretched to the height of
Streamlit's scrolling main area, which a plain full-page screenshot does not capture).
"""

from __future__ import annotations

import argparse
import hashlib
import re
from pathlib import Path

from harness.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    start_app,
    wait_until_settled,
    watch_settling,
)
from serving.launch import free_port
from ui.navigation import PAGES

MAX_PAGE_PX = 16_000


def _name(page: str, size: str) -> str:
    """A file name for the page and size; a long query (a whole text) is cut and hashed."""
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", page or "home").strip("_")
    if len(name) > 80:
        name = name[:60] + "_" + hashlib.sha256(page.encode()).hexdigest()[:10]
    return f"{name}_{size}"


def capture(pages: list[str], width: int, height: int, out: Path = SCREENSHOTS) -> list[Path]:
    """Serve the app, screenshot each page at width × height; returns the saved paths."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    saved = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for page_path in pages:
                context = browser.new_context(viewport={"width": width, "height": height})
                watch_settling(context)  # a first load may rerun once more (its width)
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{port}/{page_path}")
                wait_until_settled(page, timeout_ms=120_000)
                name = _name(page_path, f"{width}x{height}")
                first = out / f"{name}_screen.png"
                page.screenshot(path=str(first))
                full_height = page.evaluate(
                    "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
                )
                page.set_viewport_size({"width": width, "height": min(full_height, MAX_PAGE_PX)})
                wait_until_settled(page, timeout_ms=120_000)  # charts resized, drawn
                whole = out / f"{name}_full.png"
                page.screenshot(path=str(whole))
                saved += [first, whole]
                context.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", default=[""], help="page paths with query strings")
    parser.add_argument("--every-page", action="store_true", help="every page of the navigation")
    parser.add_argument("--size", action="append", help="WIDTHxHEIGHT (repeatable)")
    args = parser.parse_args()
    if args.every_page:
        args.pages = ["" if i == 0 else Path(page.path).stem for i, page in enumerate(PAGES)]
    for size in args.size or ["1440x900"]:
        width, height = (int(v) for v in size.lower().split("x"))
        for path in capture(args.pages, width, height):
            print(path)


if __name__ == "__main__":
    main()
