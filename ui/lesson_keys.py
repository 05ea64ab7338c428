"""The Lesson's keyboard and presentation-clicker keys: → / PageDown / Space for the next
step, ← / PageUp for the previous one, A to reveal the answer.

Streamlit has no key-binding API for pages, so a zero-height custom component listens to
the page's keydown events. Its script is a file the app serves from its own origin
(`components.v1.declare_component(path=...)`), not inline JavaScript: the site's
Content-Security-Policy (serving/headers.py) allows script-src 'self' only, which blocks
`st.components.v2`'s inline scripts (loaded from blob: URLs). Keys pressed while a text
box, slider, radio or select box has the focus stay with that widget; Streamlit's own
shortcuts (R reruns, C clears the cache) are left alone."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

KEY = "lesson_keys"
REVEAL_KEY_NAME = "A"
KEYS_HELP = (
    "Keyboard and presentation clicker: → , PageDown or Space for the next step, ← or "
    f"PageUp for the previous one, {REVEAL_KEY_NAME} to reveal the answer."
)
_listener = components.declare_component(
    "lesson_keys", path=str(Path(__file__).parent / "keyboard_frontend")
)


def keyboard(on_action: Callable[[str], None]) -> None:
    """Listen to the keys; each press calls `on_action` with "next", "back" or "reveal"
    before the script reruns."""
    _listener(
        key=KEY, default=None, on_change=functools.partial(_dispatch, on_action), tab_index=-1
    )


def _dispatch(on_action: Callable[[str], None]) -> None:
    pressed = st.session_state.get(KEY)
    if isinstance(pressed, dict) and pressed.get("action") in ("next", "back", "reveal"):
        on_action(pressed["action"])
