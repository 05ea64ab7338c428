"""All 72 heads on screen: the "Inside a real model" page in headless Chromium, timed from
navigation start to every chart drawn, for sentences of 16 to 512 tokens, beside the
published BertViz 1.4.1 model-view figures (PRODUCT.md, "Speed targets").

The server is warm (model loaded once, as in use); each timed sentence is new, so the
forward pass, role scores and figures are computed, not taken from the cache.

Run: python -m benchmarks.bench_browser_real_model
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from urllib.parse import quote

from attention.pretrained import load_pretrained
from benchmarks.common import print_table
from harness.browser import CHROMIUM, CHROMIUM_ARGS, free_port, start_app, wait_until_drawn

TOKEN_COUNTS = (16, 64, 128, 512)
REPEATS = 3
CHARTS_ON_PAGE = 3  # grid, large head, layer paths
BERTVIZ_SECONDS = {16: "0.7", 64: "5.3", 128: "20", 256: "~120", 512: "nothing in 120"}
TARGET_SECONDS = {128: "≤ 2", 512: "< 5"}
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

# The framework's own floor: a bare Streamlit page with three tiny Plotly charts.
FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st

st.title("floor")
for i in range(3):
    st.plotly_chart(go.Figure(go.Heatmap(z=[[0, 1], [1, 0]])), key=f"c{i}")
"""

# True once Streamlit has finished and every chart holds a drawn Plotly plot.
ALL_DRAWN = f"""() => {{
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    if (charts.length < {CHARTS_ON_PAGE}) return false;
    if (!Array.from(charts).every(c => c.querySelector('.js-plotly-plot .plot-container')))
        return false;
    return performance.now();
}}"""


def sentence(n_tokens: int, variant: int) -> str:
    """A new sentence (per `variant`) of n_tokens - 2 one-piece words: n_tokens tokens."""
    return " ".join(WORDS[(i + variant) % len(WORDS)] for i in range(n_tokens - 2))


def seconds_to_all_drawn(browser, url: str) -> float:
    """Navigation start → every chart drawn, in seconds, in a fresh browser page."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    try:
        page.goto(url, wait_until="commit")
        handle = page.wait_for_function(ALL_DRAWN, timeout=180_000, polling="raf")
        if page.locator('[data-testid="stException"]').count():
            raise RuntimeError(f"the page raised an exception for {url[:80]}…")
        return handle.json_value() / 1000.0
    finally:
        page.close()


def served(script: Path | None = None):
    """Start a Streamlit server (the app, or `script`) and return (process, base URL)."""
    proc = start_app(free_port()) if script is None else start_app(free_port(), script=script)
    return proc, f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"


def floor_seconds(browser) -> list[float]:
    """Navigation start → all drawn for the bare three-chart page, REPEATS times."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "floor.py"
        script.write_text(FLOOR_APP)
        proc, base = served(script)
        try:
            seconds_to_all_drawn(browser, base)  # warm-up
            return [seconds_to_all_drawn(browser, base) for _ in range(REPEATS)]
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main() -> None:
    from playwright.sync_api import sync_playwright

    model = load_pretrained()
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        floor = floor_seconds(browser)
        proc, base = served()
        try:
            warm = browser.new_page()
            warm.goto(f"{base}/real_model")  # loads the model once, as any first visitor
            wait_until_drawn(warm, timeout_ms=180_000, min_charts=CHARTS_ON_PAGE)
            warm.close()
            for n in TOKEN_COUNTS:
                times = []
                for variant in range(REPEATS):
                    text = sentence(n, variant)
                    assert len(model.run(text).tokens) == n
                    url = f"{base}/real_model?text={quote(text)}"
                    times.append(seconds_to_all_drawn(browser, url))
                rows.append(
                    [
                        n,
                        statistics.median(times),
                        f"{min(times):.2f}–{max(times):.2f}",
                        TARGET_SECONDS.get(n, ""),
                        BERTVIZ_SECONDS.get(n, ""),
                    ]
                )
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        browser.close()
    rows.append(["floor*", statistics.median(floor), f"{min(floor):.2f}–{max(floor):.2f}", "", ""])
    print(f"headless Chromium ({CHROMIUM}), 1600×1000, warm server, new sentence per run")
    print_table(
        ["tokens", "ours s (median)", f"range of {REPEATS}", "target s", "BertViz 1.4.1 s"], rows
    )
    print("* floor: a bare Streamlit page with three 2×2 Plotly heatmaps, timed the same way")


if __name__ == "__main__":
    main()
