"""Shared fixtures: a served app and a headless Chromium for the browser tests.

Without /usr/bin/chromium the browser tests skip, except when CI is set: then a
missing browser fails the run, so CI cannot pass without having looked."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import settings

from harness.browser import CHROMIUM, CHROMIUM_ARGS, start_app, watch_settling
from serving.launch import free_port

# CI runs the property tests on the same examples every time (Hypothesis' derandomize), so
# a run is reproducible; outside CI the random search stays on.
settings.register_profile("ci", derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(autouse=True)
def _class_screens_made_within_the_test():
    """A student's page starts making the class's screens in a background thread
    (ui.live.shared_screens.warm_screens): it ends within the test that started it, so it never
    fills the shared caches while a later test counts on them."""
    yield
    for thread in threading.enumerate():
        if thread.name == "warm-class":
            thread.join()


def _need_browser() -> None:
    if Path(CHROMIUM).exists():
        return
    message = f"{CHROMIUM} is missing (install Debian's chromium: scripts/ensure-chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def app_url():
    """Base URL of the app served by `streamlit run main.py` (app.py inside st.App with
    the live class routes) for the whole session."""
    _need_browser()
    proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except Exception:
        proc.kill()


@pytest.fixture(scope="session")
def chromium():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    """A fresh browser page at a projector-like size, watched for wait_until_settled."""
    context = chromium.new_context(viewport={"width": 1600, "height": 1000})
    watch_settling(context)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def nginx() -> str:
    """Debian's nginx binary; without it the test skips (fails when CI is set)."""
    from serving.nginx import NginxMissingError, nginx_binary

    try:
        return nginx_binary()
    except NginxMissingError as error:
        if os.environ.get("CI"):
            pytest.fail(str(error))
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A redis-server of our own on a free loopback port; without Debian's redis-server
    the test skips (fails when CI is set)."""
    from harness.redis_server import RedisServer, redis_server_installed

    if not redis_server_installed():
        message = "redis-server is missing (install Debian's redis-server: scripts/ensure-redis)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()
