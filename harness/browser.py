"""Serve the app and open pages in headless Chromium, the helpers that the real-browser
tests and the browser benchmarks share: start `streamlit run`, wait until Streamlit has
finished and every chart is drawn, take screenshots."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

from serving.launch import APP, ROOT, start_streamlit, wait_healthy

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'
RUN_SEEN_MS = 10_000  # wait_for_rerun: how long a started run may take to show


def start_app(port: int, timeout: float = 60.0, script: Path = APP) -> subprocess.Popen:
    """Start `streamlit run <script>` (the app by default) headless on `port` and wait
    for its health check; its output is kept in a pipe and shown if it fails to start."""
    proc = start_streamlit(port, script)
    try:
        wait_healthy(proc, port, timeout)
    except RuntimeError as error:
        if proc.poll() is None:
            proc.kill()
            raise
        raise RuntimeError(f"{error}:\n{proc.stdout.read().decode()}") from None
    return proc


def wait_until_drawn(page, timeout_ms: int = 60_000, min_charts: int = 0) -> None:
    """Wait for the script to finish, skeletons to go, at least `min_charts` charts to
    exist (a fresh server's first load reruns once through app.py, so "finished" alone
    can come early) and every Plotly chart to render."""
    page.wait_for_selector(READY, timeout=timeout_ms)
    page.wait_for_function(
        """(minCharts) => {
            const app = document.querySelector('[data-testid="stApp"]');
            if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
            if (document.querySelector('[data-testid="stSkeleton"]')) return false;
            const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
            if (charts.length < minCharts) return false;
            return Array.from(charts).every(c => c.querySelector('.main-svg'));
        }""",
        arg=min_charts,
        timeout=timeout_ms,
    )


def count_script_runs(page) -> None:
    """From now on count the page's script-state changes in `window.__scriptStates` (a
    MutationObserver sees every change, however short the run), so wait_for_rerun can
    tell a rerun that has not started yet from one already over."""
    page.evaluate(
        """() => {
            window.__scriptStates = 0;
            const app = document.querySelector('[data-testid="stApp"]');
            new MutationObserver(changes => { window.__scriptStates += changes.length; })
                .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
        }"""
    )


def wait_for_rerun(page, timeout_ms: int = 60_000, min_charts: int = 0) -> None:
    """After count_script_runs and an action: wait until a script run has started and
    ended (instead of a fixed sleep for it to start), then until every chart is drawn.
    A run answered from caches can go from running to notRunning within one React
    render, leaving no attribute change to count: after RUN_SEEN_MS with none seen, the
    run is taken as over and the page must be idle and drawn as usual."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            "() => window.__scriptStates > 0", timeout=min(timeout_ms, RUN_SEEN_MS)
        )
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stApp"]')
            .getAttribute('data-test-script-state') === 'notRunning'""",
        timeout=timeout_ms,
    )
    wait_until_drawn(page, timeout_ms, min_charts)


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
