"""All 72 heads on screen: the "Inside a real model" page in headless Chromium, timed from
navigation start to every chart drawn, for sentences of 16 to 512 tokens, beside the
BertViz 1.4.1 model-view figures (measured once; the README's speed section) and a floor
measured in the same run: a bare Streamlit page with the same number of trivial charts.
Then, at 128 tokens, typing a new sentence (Ctrl+Enter in the sidebar) → every chart
redrawn with the new data, and Head spaces / Attention maps with the real source
(`?source=real`) at 512 tokens from a fresh tab, each beside its floor.

The server is warm (model loaded once, as in use); each timed sentence is new, so the
forward pass, role scores and figures are computed, not taken from the cache. Per case the
websocket is watched from the page (bytes received, time of the last frame), so a time
splits into the server's turn (up to the last frame: script, JSON, protobuf, transfer) and
the browser's tail after it.

What the profiles showed (3 Dec 2026, 2 cores at load average 10–16 from other work, so
only same-run ratios carry over; cProfile and in-process timings on the server, the
websocket watched from the page, CDP CPU profiles of the renderer):
- Browser: the grid was 72 subplots (144 axes, 72 heatmap images, text measured for
  each). It is now ONE heatmap trace: maps tiled into one matrix with NaN gutters, hover
  from category labels ("layer 3 · query: …", "head 5 · key: …"), the maps' grey edges
  one path shape. Streamlit's chart turns every figure back into JSON text in the
  browser (JSON.stringify, ten colour replaceAll passes, JSON.parse: ~2.5 s of ~14 s of
  renderer CPU at 512 tokens under that load), so its cost grows with the count of
  numbers and their digits: a float32 array prints up to 17 significant digits a number
  (its float64 value), a float64 rounded to 5 decimals at most 7 characters. A long
  text's 72 small maps are pooled to 32 blocks a side (each map is ~80 px wide: 64
  blocks were more cells than pixels). Creating a WebGL context in SwiftShader took ~1 s
  of renderer CPU under that load: the layer paths are SVG up to 128 tokens (896
  points), WebGL only past it (at 512 tokens WebGL was still the faster).
- Websocket: before 2.2 MB at 128 tokens, 5.8 MB at 512 (of which the full-size 512 ×
  512 map is ~3.5 MB of figure JSON); after 1.7 / 5.2 MB. Bytes on loopback are not the cost; the
  browser's handling of them is.
- Server: the forward pass dominates; at 512 tokens the role scores took ~7 % and the
  layer-path PCA ~11 % of its time. Role, layer, head and stretch now rerun only their
  fragment (grid, close-up), not the table or the layer paths.
- Head spaces with the real source at 512 tokens: the server's head_spaces() spends most
  of its time in the rank agreement ρ (48 row-wise argsorts of 512 × 512 per layer), and
  the browser draws 12 panels of 1,024 SVG points plus the animation's frames. Attention
  maps at 512 tokens sent 11.4 MB: the large map and the mean map at 512 × 512, the
  large one with every score as customdata; they are now pooled to 256 × 256 blocks
  above 256 tokens: 4.0 MB, 9.5 s from a fresh tab against a 3.9 s floor (3 Dec 2026,
  machine otherwise quiet; Head spaces 17.5 s against 4.1 s).

Where a fresh tab's time goes (3 Dec 2026, evening; resource timing, the websocket watched
from the page, CDP traces and CPU profiles of the renderer):
- The floor's ~3.9 s is Streamlit's own JavaScript: its main bundle is parsed and run by
  ~1.2 s (DOMContentLoaded), the websocket opens at ~1.4 s, and Plotly (Streamlit's
  PlotlyChart chunk, 4.7 MB) is fetched only when the first chart arrives; evaluating it
  is ONE ~2 s task on the renderer's main thread, then the charts are drawn. A second
  tab with the scripts in the HTTP cache took 3.2–3.8 s: running, not fetching, costs.
- The pages now send a blank chart before their computation on a session's first run
  (ui.charts.loading_plotly_meanwhile), so Plotly loads while the model runs. Real
  model, base and new in one run, median of 3: 128 tokens 6.28 → 5.15 s, 512 tokens
  8.57 → 7.48 s (first chart 7.54 → 4.49 s). On this one machine the browser's 2 s
  then competes with the server for the two cores; on a student's own computer it
  does not.
- The close-up map was written as float32 values rounded in float32, ~19 characters a
  number: 5.7 MB at 512 tokens, now ~2 MB (the page 6.85 → 3.04 MB; fresh tab 9.2 →
  7.4 s in one run).
- Tried and left out: sending large arrays as plotly.js typed arrays (base64). A lone
  512 × 512 heatmap drew in 0.3–0.5 s against 1.2 s as JSON numbers, but Plotly.react
  counts a typed array as changed whatever the datarevision, so Streamlit's second react
  draws the chart again; for the 72-head grid that lost more than the parsing saved
  (a new sentence at 128 tokens 1.18 → 1.35 s in one run).
- A new sentence at 128 tokens (~1.0–1.3 s): the first frame leaves ~60 ms after the
  key, the page's elements after the forward pass at ~320 ms, the grid's figure at
  ~390 ms, the close-up at ~410 ms, the rest at ~620 ms (queued behind the grid's
  drawing). Under the CPU profiler (4 moves) the renderer was busy 1.4 s a move:
  Plotly's drawing ~450 ms (the layer paths' 896 SVG points styled one by one ~150 ms
  of it), React ~300 ms, ~500 ms outside JavaScript (style, layout, paint).

Run: python -m benchmarks.bench_browser_real_model [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from attention.models.pretrained import load_pretrained
from benchmarks.common import print_table
from harness.browser import CHROMIUM, CHROMIUM_ARGS, start_app, wait_until_drawn
from serving.launch import free_port

TOKEN_COUNTS = (16, 64, 128, 512)
CHARTS_ON_PAGE = 3  # grid, large head, layer paths
BERTVIZ_SECONDS = {16: "0.7", 64: "5.3", 128: "20", 256: "~120", 512: "nothing in 120"}
TARGET_SECONDS = {128: "≤ 2", 512: "≤ 3"}
REAL_SOURCE_PAGES = ("head_spaces", "attention_maps")
VIEWPORT = {"width": 1600, "height": 1000}
WORDS = [
    "every",
    "head",
    "of",
    "the",
    "model",
    "looks",
    "at",
    "the",
    "sentence",
    "in",
    "its",
    "own",
    "way",
    "so",
    "we",
    "draw",
]

# The framework's own floor: a bare Streamlit page with ?charts=N tiny Plotly charts whose
# data follow the sidebar text, so a new sentence redraws them all.
FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st

text = st.sidebar.text_area("Sentence", key="text")
st.title("floor")
for i in range(int(st.query_params.get("charts", "3"))):
    v = hash((text, i)) % 1000
    st.plotly_chart(go.Figure(go.Heatmap(z=[[0, v], [v, 0]])), key=f"c{i}")
"""

# Counts the websocket's frames and bytes from the page's side (before any page script).
WATCH_WEBSOCKET = """(() => {
    const Native = window.WebSocket;
    window.__ws = {bytes: 0, last: 0};
    window.WebSocket = class extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (event) => {
                const data = event.data;
                window.__ws.bytes += data.byteLength ?? data.size ?? data.length ?? 0;
                window.__ws.last = performance.now();
            });
        }
    };
})()"""

# performance.now() once the first chart (the grid) holds a drawn plot of new data.
FIRST_DRAWN = """() => {
    const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
    if (!gd || !gd.querySelector('.plot-container')) return false;
    if (window.__old && window.__old.includes(gd.data)) return false;
    return performance.now();
}"""

# performance.now() once Streamlit has finished, at least `min` charts exist, every chart
# holds a drawn Plotly plot and (after a new sentence) none still shows the old data.
ALL_DRAWN = """(min) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    if (charts.length < min) return false;
    const plots = Array.from(charts, c => c.querySelector('.js-plotly-plot'));
    if (!plots.every(gd => gd && gd.querySelector('.plot-container'))) return false;
    if (window.__old && plots.some(gd => window.__old.includes(gd.data))) return false;
    return performance.now();
}"""


@dataclass(frozen=True)
class Timing:
    """One timed load or redraw, from its start: seconds to every chart drawn, to the
    first chart (the grid) drawn and to the websocket's last frame; megabytes received."""

    seconds: float
    first_chart: float
    last_frame: float
    megabytes: float


def sentence(n_tokens: int, variant: int) -> str:
    """A sentence of n_tokens - 2 one-piece words (n_tokens tokens), a different one for
    each variant 0–15 (the words rotated)."""
    return " ".join(WORDS[(i + variant) % len(WORDS)] for i in range(n_tokens - 2))


def fresh_tab(browser, url: str, min_charts: int) -> Timing:
    """Navigation start → every chart drawn, in a fresh browser page."""
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(WATCH_WEBSOCKET)
    try:
        page.goto(url, wait_until="commit")
        return _timed(page, url, min_charts, 0.0)
    finally:
        page.close()


def new_sentence(browser, url: str, text: str, min_charts: int) -> Timing:
    """Open `url`, type `text` into the sidebar's sentence box, press Ctrl+Enter: key press
    → every chart redrawn with the new sentence's data."""
    page = browser.new_page(viewport=VIEWPORT)
    page.add_init_script(WATCH_WEBSOCKET)
    try:
        page.goto(url)
        wait_until_drawn(page, timeout_ms=180_000, min_charts=min_charts)
        box = page.locator('[data-testid="stSidebar"] textarea')
        box.fill(text)
        start = page.evaluate(
            """() => {
                window.__old = Array.from(document.querySelectorAll('.js-plotly-plot'),
                                          gd => gd.data);
                window.__ws.bytes = 0;
                return performance.now();
            }"""
        )
        box.press("Control+Enter")
        return _timed(page, url, min_charts, start)
    finally:
        page.close()


def _timed(page, url: str, min_charts: int, start: float) -> Timing:
    """Wait for the first chart, then every chart, drawn; times in s since `start` (ms on
    the page's clock)."""
    first = page.wait_for_function(FIRST_DRAWN, timeout=180_000, polling="raf").json_value()
    drawn = page.wait_for_function(
        ALL_DRAWN, arg=min_charts, timeout=180_000, polling="raf"
    ).json_value()
    _check(page, url)
    ws = page.evaluate("() => window.__ws")
    seconds = [(t - start) / 1000 for t in (drawn, first, ws["last"])]
    return Timing(*seconds, ws["bytes"] / 1e6)


def _check(page, url: str) -> None:
    if page.locator('[data-testid="stException"]').count():
        raise RuntimeError(f"the page raised an exception for {url[:80]}…")


def served(script: Path | None = None):
    """Start a Streamlit server (the app, or `script`) and return (process, base URL)."""
    proc = start_app(free_port()) if script is None else start_app(free_port(), script=script)
    return proc, f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"


def chart_count(browser, url: str) -> int:
    """How many charts the page at `url` draws (a warm-up load)."""
    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.goto(url)
        wait_until_drawn(page, timeout_ms=180_000, min_charts=1)
        page.wait_for_timeout(1000)  # a first load may rerun once more
        wait_until_drawn(page, timeout_ms=180_000, min_charts=1)
        return page.locator('[data-testid="stPlotlyChart"]').count()
    finally:
        page.close()


def summary(label: str, timings: list[Timing], target: str = "", reference: str = "") -> list:
    """A table row: median seconds, range, medians of first chart, last frame, megabytes."""
    seconds = [t.seconds for t in timings]
    return [
        label,
        statistics.median(seconds),
        f"{min(seconds):.2f}–{max(seconds):.2f}",
        statistics.median(t.first_chart for t in timings),
        statistics.median(t.last_frame for t in timings),
        statistics.median(t.megabytes for t in timings),
        target,
        reference,
    ]


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, choices=range(1, 8))
    repeats = parser.parse_args().repeats
    model = load_pretrained()
    texts = {n: [sentence(n, v) for v in range(repeats + 1)] for n in TOKEN_COUNTS}
    assert all(len(model.run(t[0]).tokens) == n for n, t in texts.items())
    rows, floors = [], {}
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        script = Path(folder) / "floor.py"
        script.write_text(FLOOR_APP)
        floor_proc, floor_base = served(script)
        proc, base = served()
        try:
            counts = {"real_model": chart_count(browser, f"{base}/real_model")}
            for name in REAL_SOURCE_PAGES:
                counts[name] = chart_count(browser, f"{base}/{name}?source=real")

            def floor(charts: int) -> list[Timing]:
                url = f"{floor_base}/?charts={charts}"
                fresh_tab(browser, url, charts)  # warm-up
                return [fresh_tab(browser, url, charts) for _ in range(repeats)]

            for n in TOKEN_COUNTS:
                timings = [
                    fresh_tab(browser, f"{base}/real_model?text={quote(t)}", CHARTS_ON_PAGE)
                    for t in texts[n][:repeats]
                ]
                rows.append(
                    summary(f"{n} tokens", timings, TARGET_SECONDS.get(n, ""), BERTVIZ_SECONDS[n])
                )
            floors["real_model"] = floor(counts["real_model"])
            rows.append(summary(f"floor, {counts['real_model']} charts", floors["real_model"]))
            text_a = texts[128][repeats]
            typed = [
                new_sentence(
                    browser,
                    f"{base}/real_model?text={quote(text_a)}",
                    sentence(128, repeats + 1 + k),  # none drawn before
                    CHARTS_ON_PAGE,
                )
                for k in range(repeats)
            ]
            rows.append(summary("new sentence, 128 tokens", typed, "≤ 1"))
            typed_floor = [
                new_sentence(browser, f"{floor_base}/?charts=3", sentence(128, 200 + k), 3)
                for k in range(repeats)
            ]
            rows.append(summary("floor: new sentence, 3 charts", typed_floor))
            for name in REAL_SOURCE_PAGES:
                timings = [
                    fresh_tab(browser, f"{base}/{name}?source=real&text={quote(t)}", counts[name])
                    for t in texts[512][:repeats]
                ]
                rows.append(summary(f"{name}, real source, 512 tokens", timings, "usable"))
                rows.append(summary(f"floor, {counts[name]} charts", floor(counts[name])))
        finally:
            for server in (proc, floor_proc):
                server.terminate()
                server.wait(timeout=10)
            browser.close()
    print(
        f"headless Chromium ({CHROMIUM}), {VIEWPORT['width']}×{VIEWPORT['height']}, warm "
        f"server, new sentence per run, {repeats} runs each; times from navigation start "
        "(fresh tab) or from Ctrl+Enter (new sentence)"
    )
    print_table(
        [
            "what",
            "s (median)",
            f"range of {repeats}",
            "first chart s",
            "last ws frame s",
            "ws MB",
            "target s",
            "BertViz 1.4.1 s (measured once)",
        ],
        rows,
    )
    print("floor: a bare Streamlit page with as many 2×2 Plotly heatmaps, timed the same way")


if __name__ == "__main__":
    main()
