"""Start one `streamlit run` of the app on a loopback port and wait for its health check:
the one launcher behind `make serve`'s workers, the benchmarks and the browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "main.py"  # app.py inside st.App with the live class routes
HEALTH = "/_stcore/health"
# A worker's 80 script threads allocating at once left Python's small-object allocator and
# glibc's per-thread arenas holding freed memory: in a class's first 20 minutes RSS grew
# 13 % while the live Python objects stayed flat (tracemalloc); with glibc's malloc for
# every object and two arenas, 2-5 % (README, "A lecture-length soak"). The Dockerfile sets
# the same; a value already in the environment wins.
MEMORY_ENV = {"PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}


def free_port() -> int:
    """A loopback port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float = 5.0) -> bool:
    """True when `url`/_stcore/health answers "ok"."""
    try:
        with urllib.request.urlopen(url + HEALTH, timeout=timeout) as response:
            return response.read().decode().strip() == "ok"
    except OSError:
        return False


def start_streamlit(
    port: int,
    app: Path = APP,
    output: int | IO[bytes] = subprocess.PIPE,
    cookie_secret: str = "",
) -> subprocess.Popen:
    """Start `streamlit run <app>` headless on 127.0.0.1:`port`, its output (stdout and
    stderr together) to `output`; `cookie_secret` shared by several workers makes a cookie
    signed by one valid on all. Does not wait: see wait_healthy."""
    command = [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.headless", "true",
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--server.fileWatcherType", "none",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    env = {**MEMORY_ENV, **os.environ, "PYTHONUNBUFFERED": "1"}
    if cookie_secret:
        env["STREAMLIT_SERVER_COOKIE_SECRET"] = cookie_secret
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)


def wait_healthy(proc: subprocess.Popen, port: int, timeout: float = 90.0) -> None:
    """Poll the process's health check until it answers; RuntimeError when the process
    exits first or `timeout` seconds pass (the process is left running then)."""
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit on port {port} exited ({proc.returncode})")
        if healthy(url, timeout=2.0):
            return
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not answer {url}{HEALTH} within {timeout} s")
