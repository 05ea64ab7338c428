"""Serve the app and open pages in headless Chromium, the helpers that the real-browser
tests and the browser benchmarks share: start `streamlit run`, wait until Streamlit has
finished and every chart is drawn, take screenshots."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, timeout: float = 60.0, script: Path = ROOT / "app.py") -> subprocess.Popen:
    """Start `streamlit run <script>` (the app by default) headless on `port` and wait
    for its health check."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{port}/_stcore/health"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{proc.stdout.read().decode()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"streamlit did not answer {url} within {timeout} s")


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


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
