"""The app's pages, in the order a lesson walks them, and the check that a run went
through app.py (the entry point that sets the wide layout and the navigation).

A `pages/` folder next to app.py puts Streamlit in its legacy multipage mode until some
session calls st.navigation; in that mode the very first request for /head_spaces on a
fresh server runs the page file alone. Streamlit documents that once any session calls
st.navigation, the app ignores `pages/` for all sessions; so a page that finds it ran
without app.py calls st.navigation with the app's own pages and reruns, and from then on
every run goes through app.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import streamlit as st

from view_state.url_params import CLASS_PARAM

_ENTERED = "_ran_through_app_py"
_PAGES = "_app_pages"  # session: this session's st.Page objects
CLASS_PAGE = "lesson"  # the page that reads a class code (?class=CODE)


class AppPage(NamedTuple):
    """One page: its script, its title in the navigation, its icon, and what it shows (the
    Start page's path through the ideas)."""

    path: str
    title: str
    icon: str
    shows: str


PAGES = (  # the one list of pages: the navigation, Start here's path and the tests read it
    AppPage("pages/home.py", "Start here", ":material/school:", "the idea in one picture"),
    AppPage(
        "pages/lesson.py", "Lesson", ":material/co_present:", "the questions, one step at a time"
    ),
    AppPage(
        "pages/head_spaces.py",
        "Head spaces",
        ":material/scatter_plot:",
        "where each head moves the points",
    ),
    AppPage(
        "pages/playground.py",
        "Move the query yourself",
        ":material/drag_pan:",
        "drag a head's query",
    ),
    AppPage(
        "pages/attention_maps.py", "Attention maps", ":material/grid_on:", "where each head looks"
    ),
    AppPage(
        "pages/why_heads.py",
        "Why several heads?",
        ":material/functions:",
        "the maths and experiments",
    ),
    AppPage(
        "pages/real_model.py",
        "Inside a real model",
        ":material/neurology:",
        "MiniLM's 72 trained heads",
    ),
    AppPage(
        "pages/heads_needed.py",
        "Do we need all these heads?",
        ":material/toggle_on:",
        "switch heads off",
    ),
    AppPage(
        "pages/block.py",
        "The block around attention",
        ":material/stacks:",
        "residual, FFN, translation",
    ),
)


_ROOT = Path(__file__).resolve().parent.parent


def app_pages() -> list[st.Page]:
    """st.Page objects for st.navigation, the start page first and default. Made once per
    session: st.Page resolves and checks its file each time (a fifth of a light rerun on
    this machine, whose file-system calls are slow), and a Page object cannot be shared
    between sessions (running it marks it as run, which fails a session running it at
    the same time)."""
    pages = st.session_state.get(_PAGES)
    if pages is None:
        pages = st.session_state[_PAGES] = [
            st.Page(_ROOT / page.path, title=page.title, icon=page.icon, default=index == 0)
            for index, page in enumerate(PAGES)
        ]
    return pages


def to_the_class(page: st.Page) -> None:
    """Any other page opened with a class code in its address goes to the Lesson with the
    same address: a join link cut down to the site's root still joins the class (a phone
    reloaded once under load came back on the start page with the code, the Lesson's
    path lost)."""
    if page.url_path != CLASS_PAGE and CLASS_PARAM in st.query_params:
        lesson = next(p for p in app_pages() if p.url_path == CLASS_PAGE)
        st.switch_page(lesson, query_params=st.query_params.to_dict())


def join_link() -> bool:
    """Whether the address is a class's join link and nothing more (`?class=CODE`, as the
    projector and its QR code give it): most who open one are on a phone."""
    return set(st.query_params) == {CLASS_PARAM}


def mark_entry() -> None:
    """Called by app.py on every run, just before it runs the page."""
    st.session_state[_ENTERED] = True


def ensure_entry() -> None:
    """Called by every page first: when this run did not pass through app.py, register
    the app's navigation (which makes Streamlit drop the legacy `pages/` mode) and rerun
    through app.py. Otherwise consume the mark, so the next run checks again."""
    if st.session_state.pop(_ENTERED, False):
        return
    st.navigation(app_pages(), position="hidden")
    st.rerun()
