"""What the student's browser says about its screen, for layouts the server chooses: the
server cannot see a CSS media query (prefers-reduced-motion, a phone's width), so a tiny
bidirectional component per query evaluates it and sends it back only when it differs
from what the page already assumes (no match; on a class's join link, a phone's width),
and again whenever it changes. The reporters are drawn once per run by app.py; pages
only read the answers (the assumption until the browser has said otherwise, and in
AppTest, which runs a page alone)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ui.js_component import mounted_component

# A phone held upright: Streamlit stacks columns below 640 px, and so do the pages.
NARROW_QUERY = "(max-width: 640px)"
# An old projector's 1024×768 (or a window as narrow): the presenter's figures there keep
# their type at its normal size, as a 1024-px picture is projected as large as a 1280-px
# one (ui/lesson/walk.py), and 1.3× titles of side-by-side panels ran into each other. Asked
# in presenter mode only, and not at a phone's width: every other page, and a class's
# phones or tablets joining, would each rerun once more for it.
SMALL_WINDOW_QUERY = "(min-width: 641px) and (max-width: 1100px)"
REDUCED_MOTION_QUERY = "(prefers-reduced-motion: reduce)"
_NARROW_FIRST = "narrow_screen_first"  # session: a phone's width assumed until told
_report = mounted_component("head_spaces_media_query", "media_query.js")


_NARROW = "narrow_screen"
_QUERIES = {"motion_preference": REDUCED_MOTION_QUERY, _NARROW: NARROW_QUERY}
_SMALL_WINDOW = "small_window"
# the reporters' keys (ui/page_style.py keeps them out of the flow)
REPORTERS = (*_QUERIES, _SMALL_WINDOW)
_assumed = threading.local()  # a thread drawing for no browser: the width it assumes


def report_media(narrow_first: bool = False) -> None:
    """Draw the reporters, once per run (app.py): each sends its query's answer into the
    session state under its key; a change reruns the app. `narrow_first`, as said at a
    session's first run: assume a phone's width until the browser says otherwise (a
    class's join link, opened on phones: a phone then joins without that one rerun)."""
    st.session_state.setdefault(_NARROW_FIRST, narrow_first)
    for key, query in _QUERIES.items():
        _report_query(key, query)


def report_small_window() -> None:
    """Draw the small-window reporter (the presenter's page, ui/lesson.presenter_style)."""
    _report_query(_SMALL_WINDOW, SMALL_WINDOW_QUERY)


def _report_query(key: str, query: str) -> None:
    _report(key=key, data={"query": query, "matches": _matches(key)}, on_matches_change=_keep)


def _matches(key: str) -> bool:
    said = st.session_state.get(key, {}).get("matches")
    if said is None:  # the browser has not said: what the page assumes
        return key == _NARROW and st.session_state.get(_NARROW_FIRST, False)
    return bool(said)


def prefers_reduced_motion() -> bool:
    """True when the browser asks for reduced motion: animations then step, not glide."""
    return _matches("motion_preference")


def narrow_screen() -> bool:
    """True on a screen 640 px wide or less (a phone): grids of panels go one per row."""
    assumed = getattr(_assumed, "narrow", None)
    return _matches(_NARROW) if assumed is None else assumed


def small_window() -> bool:
    """True in a window 641 to 1100 px wide (a 1024×768 projector, a tablet), once the
    presenter's page has asked (report_small_window)."""
    return _matches(_SMALL_WINDOW)


@contextmanager
def screen_assumed(narrow: bool) -> Iterator[None]:
    """Within it, narrow_screen() answers `narrow` on this thread: for screens made ahead
    of any browser (a class's step screens, made before its students reach them)."""
    _assumed.narrow = narrow
    try:
        yield
    finally:
        _assumed.narrow = None


def _keep() -> None:
    """on_matches_change: the new value is in the component's state; the rerun it
    starts lays the page out accordingly."""
