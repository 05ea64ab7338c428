"""`make serve`-style startup end to end: two Streamlit workers behind nginx (serving.Cluster),
on a tiny app whose download belongs to its session. Health through nginx, sessions that
stick to one worker (page, websocket and /media/ download), a page in Chromium through
nginx, and a killed worker's students reconnecting to the live one."""

from __future__ import annotations

import asyncio
import gzip
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.browser import READY
from harness.streamlit_client import StreamlitTab
from serving.cluster import Cluster, logged_upstreams
from serving.launch import MEMORY_ENV, free_port
from serving.nginx import ROUTE_COOKIE
from tests.support.paths import FIXTURES, ROOT

APP = FIXTURES / "serve_probe_app.py"
TABS = 12  # sessions opened through nginx: both workers get some (all on one: p = 2^-11)


@pytest.fixture(scope="module")
def cluster(nginx, tmp_path_factory):
    with Cluster(2, free_port(), tmp_path_factory.mktemp("serve"), app=APP) as running:
        yield running


def test_workers_run_with_the_allocator_settings(cluster):
    """What kept a class's worker memory bounded (serving.launch.MEMORY_ENV) reaches every
    worker's environment."""
    for worker in cluster.workers:
        environ = Path(f"/proc/{worker.pid}/environ").read_bytes().split(b"\0")
        for name, value in MEMORY_ENV.items():
            assert f"{name}={value}".encode() in environ


def test_serving_does_not_import_the_test_harness():
    """serving/ runs a class on its own: `python -m serving` must not need harness/."""
    probe = "import sys, serving.__main__; print(sorted(m for m in sys.modules if 'harness' in m))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"


def _get(cluster: Cluster, path: str, cookie: str = "") -> tuple[int, bytes, str]:
    """GET `path` through nginx: the status, the body and the worker that answered, as
    nginx logged it for the route cookie sent (or set by this response); no response
    header names the worker."""
    logged_before = _log_lines(cluster)
    request = urllib.request.Request(
        cluster.url + path, headers={"Cookie": cookie} if cookie else {}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, body, headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, body, headers = error.code, b"", error.headers
    assert "X-Upstream" not in headers
    route = cookie.partition("=")[2] or re.search(rf"{ROUTE_COOKIE}=(\w+)", str(headers))[1]
    deadline = time.monotonic() + 5  # nginx logs a request just after answering it
    while time.monotonic() < deadline:
        for line in _log_lines(cluster)[len(logged_before) :]:
            if f" route={route} " in line:
                return status, body, re.search(r" upstream=(.*?) time=", line)[1].split(", ")[-1]
        time.sleep(0.02)
    raise AssertionError(f"nginx logged no request for route {route}")


def _log_lines(cluster: Cluster) -> list[str]:
    return cluster.access_log.read_text().splitlines()


def _upstream(cluster: Cluster, tab: StreamlitTab) -> str:
    """The worker nginx logged for the tab's latest request."""
    return logged_upstreams(cluster.access_log)[_route(tab)]


def _run(coroutine: Coroutine):
    """asyncio.run in a thread of its own: Playwright's sync API keeps a loop in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _open_tabs(url: str, n: int) -> list[StreamlitTab]:
    async def run() -> list[StreamlitTab]:
        tabs = [StreamlitTab(url, "") for _ in range(n)]
        runs = await asyncio.gather(*(tab.open() for tab in tabs))
        assert all(r.ok for r in runs), [r.status for r in runs]
        await asyncio.gather(*(tab.close() for tab in tabs))
        return tabs

    return _run(run())


def _route(tab: StreamlitTab) -> str:
    return tab.cookie(ROUTE_COOKIE)


def test_health_answers_through_nginx(cluster):
    status, body, upstream = _get(cluster, "/_stcore/health")
    assert (status, body) == (200, b"ok")
    assert upstream in {f"127.0.0.1:{w.port}" for w in cluster.workers}


def test_every_request_of_a_session_reaches_one_worker(cluster):
    tabs = _open_tabs(cluster.url, TABS)
    log = (cluster.run_dir / "access.log").read_text()
    used = set()
    for tab in tabs:
        route = _route(tab)
        upstreams = set(re.findall(rf"route={route} upstream=(\S+)", log))
        requests = re.findall(rf'"GET (\S+) HTTP/1.1" \d+ \d+ route={route} ', log)
        assert "/_stcore/stream" in requests and "/_stcore/host-config" in requests
        assert upstreams == {_upstream(cluster, tab)}, (route, upstreams)
        used |= upstreams
    assert len(used) == 2, "both workers serve sessions"


def test_a_download_is_served_by_the_worker_holding_the_session(cluster):
    (tab,) = _open_tabs(cluster.url, 1)
    _, button = tab.widget("download")
    cookie = f"{ROUTE_COOKIE}={_route(tab)}"
    holder = _upstream(cluster, tab)
    status, body, upstream = _get(cluster, button.url, cookie)
    assert status == 200 and re.fullmatch(rb"[0-9a-f]{32}", body)
    assert upstream == holder
    # The same URL asked of the other worker: it does not know the session's file.
    for attempt in range(64):
        other = f"{ROUTE_COOKIE}=probe{attempt}"
        if _get(cluster, "/_stcore/health", other)[2] != holder:
            break
    status, _, upstream = _get(cluster, button.url, other)
    assert upstream != holder and status == 404


def test_nginx_gzips_streamlits_scripts_for_a_room_of_first_visits(cluster):
    """Streamlit sends its scripts uncompressed; through nginx a browser that accepts
    gzip gets them compressed, and they unzip to the very bytes the worker sent."""
    _, page, _ = _get(cluster, "/")
    script = re.search(rb'src="\./(static/js/index\.[^"]+\.js)"', page).group(1).decode()
    request = urllib.request.Request(f"{cluster.url}/{script}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        zipped = response.read()
    with urllib.request.urlopen(f"{cluster.workers[0].url}/{script}", timeout=10) as response:
        plain = response.read()
    assert gzip.decompress(zipped) == plain and len(zipped) < len(plain) / 2


@pytest.mark.browser
def test_the_page_and_its_download_work_in_chromium_through_nginx(cluster, page):
    page.goto(cluster.url)
    page.wait_for_selector(READY)
    token = page.get_by_test_id("stCode").inner_text().strip()
    with page.expect_download() as download:
        page.get_by_test_id("stDownloadButton").locator("button").click()
    assert Path(download.value.path()).read_text() == token


def test_a_killed_workers_student_reconnects_to_the_live_one(cluster):
    async def run() -> None:
        tab = StreamlitTab(cluster.url, "")
        assert (await tab.open()).ok
        victim = next(w for w in cluster.workers if w.url.endswith(_upstream(cluster, tab)))
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait()
        for _ in range(100):  # the socket closes when the process dies
            if not tab.connected:
                break
            await asyncio.sleep(0.05)
        await tab.reconnect()
        run = await tab.rerun()
        await tab.close()
        assert run.ok and run.elements.count("download_button") == 1
        assert _upstream(cluster, tab) != f"127.0.0.1:{victim.port}"

    _run(run())
    assert any("exited" in event for event in cluster.check())
