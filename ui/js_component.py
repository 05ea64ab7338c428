"""This app's script-only bidirectional components (st.components.v2), made one way: the
JS in ui/components/ defines `mount(args)` and returns the cleanup of what it keeps
running (a stream, a timer, a listener), if anything. Streamlit 1.67 runs a component's
function again at every change of its data without calling the cleanup the run before
returned (only the last one, at unmount): a phone following a class opened one more event
stream at every step. components/one_mount.js, appended here, stops the previous mount
in the same element before mounting again."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.components.v2.types import ComponentRenderer

COMPONENTS = Path(__file__).parent / "components"
_ONE_MOUNT = (COMPONENTS / "one_mount.js").read_text(encoding="utf-8")


def mounted_component(name: str, js_file: str) -> ComponentRenderer:
    """The component `name` running ui/components/`js_file` (which defines mount(args)),
    never with two mounts alive in one element; it draws nothing of its own."""
    js = (COMPONENTS / js_file).read_text(encoding="utf-8")
    return st.components.v2.component(name, html="", js=js + _ONE_MOUNT)
