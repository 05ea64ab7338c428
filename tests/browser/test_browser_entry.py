"""A shared link opened first on a fresh server: Streamlit starts in its legacy `pages/`
mode until some session calls st.navigation, so the very first request for a page must
still come out through app.py (the app's navigation titles, wide layout, the page's own
URL parameters). This guards ui/navigation.py, which relies only on documented
behaviour (once any session calls st.navigation, the app ignores `pages/`)."""

from __future__ import annotations

import pytest

from harness.browser import start_app, wait_until_drawn
from serving.launch import free_port

pytestmark = pytest.mark.browser


@pytest.fixture
def fresh_server():
    proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=15)


def test_a_deep_link_as_the_first_request_runs_through_app_py(fresh_server, page):
    page.goto(f"{fresh_server}/attention_maps?heads=2&maps_kind=self")
    wait_until_drawn(page, min_charts=1)
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Start here" in nav and "The block around attention" in nav  # app.py's titles
    assert "app" not in nav.lower().split()  # the legacy mode lists the entry file as "app"
    assert page.locator("h1").first.inner_text() == "Attention maps"
    assert "heads=2" in page.url
    width = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
        ".getBoundingClientRect().width"
    )
    assert width > 1000, "app.py's wide layout applies (a centred page is ~730 px wide)"
    assert page.locator('[data-testid="stException"]').count() == 0


# Every sidebar navigation link the page ever showed, recorded as the DOM changes.
RECORD_NAV_LINKS = """
window.__navLinks = new Set();
new MutationObserver(() => document.querySelectorAll('[data-testid="stSidebarNavLink"]')
    .forEach(link => window.__navLinks.add(link.textContent.trim())))
    .observe(document, {childList: true, subtree: true, characterData: true});
"""


def test_a_fresh_servers_first_page_never_lists_the_page_files(fresh_server, page):
    """The legacy `pages/` mode of a fresh server's first run would list the files in the
    sidebar ("app", "home", "lesson", ...) until the rerun through app.py: not even for
    a moment (.streamlit/config.toml hides it, app.py shows its own)."""
    page.add_init_script(RECORD_NAV_LINKS)
    page.goto(f"{fresh_server}/lesson?step=2")
    wait_until_drawn(page, min_charts=1)
    seen = set(page.evaluate("() => Array.from(window.__navLinks)"))
    assert any("Lesson" in link for link in seen), seen  # the app's own navigation shows
    files = {"app", "home", "lesson", "head spaces", "attention maps", "block"}
    assert not seen & files, seen & files
