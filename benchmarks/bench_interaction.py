"""A move of a page's main controls → every chart redrawn, in headless Chromium, beside a
framework floor measured in the same run (the README's target: p50 ≤ 500 ms after the key
press, or ≤ 1.5× the floor where the floor exceeds that).

Each page is opened once; each control is moved --moves times (10) by keyboard on the
focused widget (sliders: ArrowRight × n/2 then ArrowLeft × n/2, so half the moves are
new values and half are values the cache has seen), the focus token by its select box
(ArrowDown or ArrowUp, Enter), the Lesson by its Next (then Back) button. A move is
timed from the key (or pointer) press to the last change inside any Plotly chart or the
script's end, whichever is later (harness/redraw.py records both on the page's clock; no
fixed sleep). The floor is a bare Streamlit page with the same number of 11×11 Plotly
heatmaps that follow a sidebar slider, moved the same way. Breakdown per move: the
server's turn (websocket frame sent → last frame received: script, figure JSON,
protobuf), the bytes received, and the browser (the rest), with the renderer's main-thread
time in scripts, layout + style and in all (busy) from CDP's
Performance.getMetrics, and the server process's CPU time per move (the figures that
carry over to a quieter machine). `--before DIR` times a checkout of an earlier version
alongside, control by control. One move per page is traced (CDP tracing) and the
renderer main thread's self time is summed by event.

What the traces and records showed (December 2026, this 2-core machine shared with other
agents' work at load average 12–24, so wall times are several times the CPU they hold):
- Streamlit redraws only charts whose spec changed (its PlotlyChart memoises on the JSON
  string): a page-local control that changes one chart redraws one chart, a sidebar move
  that changes every chart redraws them all.
- A changed chart was drawn three to six times, counted by hooking Plotly's
  start-of-drawing flag (tests/browser/test_browser_draws.py does the same). Streamlit mounts it
  anew (its element id hashes the spec) and draws it; Plotly's automargin then measured
  the labels, widened the margins and drew it again (five times for Attention maps'
  square-celled maps, whose axes move with the margins); and Streamlit's react after
  storing the chart's width drew it once more, because Streamlit's chart theme rebuilds
  its template each time and Plotly.react compares templates by identity. The pages now
  send charts with theme=None, the look in the layout (attention/figures/base/theme.py) and a
  datarevision, so that react draws nothing, and reserve the margins up front
  (attention/figures/base/margins.py), so automargin has nothing to do: one draw per chart on
  Head spaces; charts with a long legend at the right or one below are still fitted by
  automargin (a second draw). Same run, 10 moves, before → after the first of the two: Head spaces
  d_model 1109 → 847 ms (floor 600), Heads 2353 → 1824, focus token 1068 → 800; Attention
  maps d_model 1279 → 1182 (floor 519). The floor's charts keep Streamlit's theme and
  are drawn three times each.
- On the renderer's main thread a sidebar move on Head spaces (5 charts) spent about
  450 ms in JavaScript (FunctionCall: Plotly building SVG), 230 ms recalculating style
  (UpdateLayoutTree) and 90 ms in layout, much of it Plotly measuring every text
  (titles, tick labels, token labels), then GC, layerising and painting (40 ms each).
  Key press → drawn took 3–4× that script + layout + style time, while the main thread's
  task time ("busy") spanned nearly the whole move: under this load its tasks wait for a
  core, so the floor's wall time grows just as much.
- On the server, writing a figure's JSON was dominated by Plotly's per-array check and
  copy of NumPy arrays (narwhals' dataframe check, base64) — 3–10× the time of the same
  JSON from lists — so the figure builders now hand Plotly lists (attention/figures/base/grid.py).
- Levers used: fragments for page-local controls (Head spaces' stage picker, Attention
  maps' one-head-large and lines sections; the block page had them), so they rerun their
  own section only; lists instead of arrays in figures; every grid of attention maps as
  ONE heatmap trace on one pair of axes instead of a subplot per head (3 Dec 2026, quiet
  machine, before and now in the same run, p50: Head spaces d_model 1453 → 1294 ms, heads
  2022 → 2052 ms; Attention maps d_model 1371 → 1198 ms, heads 1269 → 1143 ms; floors 542
  and 526 ms). Head spaces' two scatter grids became tiles on one pair of axes too
  (attention/figures/base/plane_tiles.py): drawn alone 167 → 90 and 142 → 85 ms at 8 heads,
  but on the page (4 heads, 20 moves, same run) d_model stayed at 1227 → 1231 ms p50 and
  Heads went 2297 → 2065 ms. A CDP Profiler run over eight d_model moves showed Plotly's
  JavaScript at 775 → 684 ms per move: the pictures were a small part; the rest is five
  charts each drawn three to six times (above) plus Plotly's DOM work (text measuring,
  attributes ~170 ms).
  A heads move across 2 re-lays out the page (up to 2 heads the maps sit beside the
  pictures), so its charts are mounted again.

Run: python -m benchmarks.bench_interaction [--moves 10] [--pages head_spaces,...]
     [--before DIR]   (DIR: e.g. `git archive <commit> | tar -x -C DIR`)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import print_table
from harness import redraw
from harness.browser import CHROMIUM, CHROMIUM_ARGS, start_app, wait_until_drawn
from serving.launch import free_port

VIEWPORT = {"width": 1440, "height": 900}
FLOOR_APP = """import numpy as np
import plotly.graph_objects as go
import streamlit as st

n = int(st.query_params.get("n", "1"))
v = st.sidebar.slider("Value", 0, 100, 50, key="value")
for i in range(n):
    z = np.add.outer(np.arange(11), np.arange(11)) * (v + i) % 7
    st.plotly_chart(go.Figure(go.Heatmap(z=z)), key=f"c{i}")
"""


@dataclass(frozen=True)
class Control:
    """A control on a page: its name in the table and how to move it (step k of n)."""

    name: str
    prepare: Callable[[object], None]
    move: Callable[[object, int, int], None]


def slider(label: str) -> Control:
    """A slider (or select slider) found by its label, moved by arrow keys while focused."""
    selector = f'input[type="range"][aria-label="{label}"]'

    def move(page, k: int, n: int) -> None:
        page.keyboard.press("ArrowRight" if k < n // 2 else "ArrowLeft")

    return Control(label.split(" (")[0], lambda page: page.locator(selector).focus(), move)


def focus_token() -> Control:
    """The sidebar's focus select box: open it, one option down (or up), Enter."""

    def move(page, k: int, n: int) -> None:
        page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(
            has_text="Focus token"
        ).click()
        page.keyboard.press("ArrowDown" if k < n // 2 else "ArrowUp")
        page.keyboard.press("Enter")

    return Control("focus token", lambda page: None, move)


def segmented(key: str, label_of_step: Callable[[int], str]) -> Control:
    """The segmented control with widget key `key`, clicked on option `label_of_step(k)`."""

    def move(page, k: int, n: int) -> None:
        page.locator(f".st-key-{key}").get_by_text(label_of_step(k), exact=True).click()

    return Control("stage (segmented)", lambda page: None, move)


def next_button() -> Control:
    """The Lesson's Next button (Back for the second half, so every step is one move)."""

    def move(page, k: int, n: int) -> None:
        name = "Next ▶" if k < n // 2 else "◀ Back"
        page.get_by_role("button", name=name).click()

    return Control("Next / Back", lambda page: None, move)


SIDEBAR = [slider("d_model (embedding width)"), slider("Heads"), focus_token()]
PAGES = {
    "head_spaces": [
        *SIDEBAR,
        segmented("hs_stage", lambda k: ["head 1", "head 2", "head 3", "before"][k % 4]),
    ],
    "attention_maps": [*SIDEBAR, slider("Head to enlarge")],
    "block": [*SIDEBAR, slider("Depth for the picture below")],
    "lesson": [next_button()],
}


def open_page(context, url: str):
    """A new tab on `url`, drawn (a fresh session's first load reruns once more)."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(url)
    wait_until_drawn(page, timeout_ms=120_000, min_charts=1)
    page.wait_for_timeout(1000)
    wait_until_drawn(page, timeout_ms=120_000, min_charts=1)
    return page, cdp


def moves(page, cdp, control: Control, count: int, pid: int) -> list[redraw.Move]:
    """`count` timed moves of one control on a page served by process `pid`."""
    control.prepare(page)
    return [
        redraw.timed_move(page, cdp, lambda k=k: control.move(page, k, count), pid)
        for k in range(count)
    ]


def traced_move(browser, page, cdp, control: Control, pid: int) -> dict[str, float]:
    """The renderer main thread's self time by event name during one move."""
    control.prepare(page)
    browser.start_tracing(page=page, categories=["devtools.timeline"])
    redraw.timed_move(page, cdp, lambda: control.move(page, 0, 2), pid)
    trace = json.loads(browser.stop_tracing())
    redraw.timed_move(page, cdp, lambda: control.move(page, 1, 2), pid)  # back where it was
    return redraw.main_thread_self_times(trace)


def summary(done: list[redraw.Move]) -> list:
    """p50, p95 and the median breakdown of a control's moves."""
    totals = [m.total for m in done]
    return [
        round(statistics.median(totals)),
        round(redraw.percentile(totals, 95)),
        round(redraw.median_of(done, "server")),
        round(redraw.median_of(done, "bytes") / 1000),
        round(redraw.median_of(done, "browser")),
        round(redraw.median_of(done, "script_ms")),
        round(redraw.median_of(done, "layout_ms")),
        round(redraw.median_of(done, "busy_ms")),
        round(redraw.median_of(done, "server_cpu_ms")),
        f"{max(m.charts for m in done)}/{done[-1].on_page}",
    ]


def measure_page(context, apps: dict, name: str, count: int) -> tuple[list[list], object]:
    """Rows for one page: its floor, then each control on every app (interleaved, so
    the same load falls on all); returns them with the last app's open tab."""
    tabs = {
        label: open_page(context, _url(proc, name))
        for label, proc in apps.items()
        if label != "floor"
    }
    page, cdp = tabs["now"]
    charts = page.locator('[data-testid="stPlotlyChart"]').count()
    floor_page, floor_cdp = open_page(context, _url(apps["floor"], f"?n={charts}"))
    floor = moves(floor_page, floor_cdp, slider("Value"), count, apps["floor"].pid)
    floor_page.close()
    floor_p50 = statistics.median(m.total for m in floor)
    rows = [[name, f"floor: {charts} heatmaps", "", *summary(floor)]]
    for control in PAGES[name]:
        for label, (tab, tab_cdp) in tabs.items():
            tab.bring_to_front()
            done = summary(moves(tab, tab_cdp, control, count, apps[label].pid))
            rows.append([name, f"{control.name} ({label})", f"{done[0] / floor_p50:.1f}×", *done])
    for label, (tab, _) in tabs.items():
        if label != "now":
            tab.close()
    page.bring_to_front()
    return rows, (page, cdp)


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument(
        "--before", type=Path, help="a checkout of an earlier version to time alongside"
    )
    args = parser.parse_args()
    started, load = time.monotonic(), os.getloadavg()[0]
    rows, traces = [], {}
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "floor.py"
        script.write_text(FLOOR_APP)
        apps = {"floor": start_app(free_port(), script=script)}
        if args.before:
            apps["before"] = start_app(free_port(), script=args.before / "app.py")
        apps["now"] = start_app(free_port())
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport=VIEWPORT)
                redraw.install(context)
                for name in args.pages.split(","):
                    page_rows, (page, cdp) = measure_page(context, apps, name, args.moves)
                    rows += page_rows
                    print(*page_rows, sep="\n", flush=True)  # progress; the table follows
                    heads_or_next = PAGES[name][1 if len(PAGES[name]) > 1 else 0]
                    traces[name] = traced_move(browser, page, cdp, heads_or_next, apps["now"].pid)
                    page.close()
                browser.close()
        finally:
            for proc in apps.values():
                proc.terminate()
                proc.wait(timeout=15)
    print(
        f"headless Chromium, {VIEWPORT['width']}×{VIEWPORT['height']}, {args.moves} moves each, ms "
        f"from the key press; load average {load:.1f} → {os.getloadavg()[0]:.1f}; "
        f"{time.monotonic() - started:.0f} s in all"
    )
    print_table(
        [
            "page",
            "control (app)",
            "p50 ÷ floor",
            "p50",
            "p95",
            "server",
            "kB",
            "browser",
            "JS",
            "layout+style",
            "busy",
            "server CPU",
            "charts redrawn",
        ],
        rows,
    )
    print("\nrenderer main thread during one traced move (self ms, largest events):")
    for name, times in traces.items():
        top = sorted(times.items(), key=lambda item: -item[1])[:6]
        print(f"  {name}: " + ", ".join(f"{event} {ms:.0f}" for event, ms in top))


def _url(proc, path: str) -> str:
    return f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}/{path}"


if __name__ == "__main__":
    main()
