"""Whether the student's system asks for reduced motion ("prefers-reduced-motion"): the
server cannot see that browser setting, so a tiny bidirectional component reads it and
sends it back only when it differs from what the page already assumes (motion allowed),
and again whenever the setting changes."""

from __future__ import annotations

import streamlit as st

COMPONENT_KEY = "motion_preference"
_JS = """
export default function ({ data, setStateValue }) {
  const query = window.matchMedia("(prefers-reduced-motion: reduce)");
  const report = () => {
    if (query.matches !== data.reduced) setStateValue("reduced", query.matches);
  };
  report();
  query.addEventListener("change", report);
  return () => query.removeEventListener("change", report);
}
"""
_report = st.components.v2.component("head_spaces_motion_preference", html="", js=_JS)


def prefers_reduced_motion() -> bool:
    """True when the browser asks for reduced motion (False until it has said so)."""
    reduced = bool(st.session_state.get(COMPONENT_KEY, {}).get("reduced"))
    _report(key=COMPONENT_KEY, data={"reduced": reduced}, on_reduced_change=_keep)
    return reduced


def _keep() -> None:
    """on_reduced_change: the new value is in the component's state; the rerun it
    starts draws the animation accordingly."""
