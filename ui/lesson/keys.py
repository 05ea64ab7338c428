"""The Lesson's keyboard and presentation-clicker keys: → / PageDown / Space for the next
step, ← / PageUp for the previous one, A to reveal the answer.

Streamlit has no key-binding API for pages, so an empty bidirectional component listens to
the page's keydown events and sends each action as a trigger. Keys pressed while a text
box, slider, radio or select box has the focus stay with that widget; Streamlit's own
shortcuts (R reruns, C clears the cache) are left alone."""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from ui.js_component import mounted_component

KEY = "lesson_keys"
REVEAL_KEY_NAME = "A"
KEYS_HELP = (
    "Keyboard and presentation clicker: → , PageDown or Space for the next step, ← or "
    f"PageUp for the previous one, {REVEAL_KEY_NAME} to reveal the answer."
)
_listener = mounted_component("head_spaces_lesson_keys", "lesson_keys.js")


def keyboard(on_action: Callable[[str], None]) -> None:
    """Listen to the keys; each press calls `on_action` with "next", "back" or "reveal"
    before the script reruns."""
    _listener(key=KEY, on_action_change=functools.partial(_dispatch, on_action))


def _dispatch(on_action: Callable[[str], None]) -> None:
    action = (st.session_state.get(KEY) or {}).get("action")
    if action in ("next", "back", "reveal"):
        on_action(action)
