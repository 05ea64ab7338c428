"""Showing Plotly figures the same way on every page: full width, a toolbar whose PNG
button exports at slide quality, and the page's shared font."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention.figures.base.grid import figure

CHART_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["lasso2d"],
}


# Set once a session has been sent a chart: its browser has loaded Plotly's code.
_CHART_SENT = "_chart_sent"


def show_chart(
    fig: go.Figure, key: str | None, container: DeltaGenerator | None = None, **kwargs
) -> object:
    """Draw `fig` across `container` (a column, or an st.empty() placeholder redrawn in
    place; the page itself by default); returns Streamlit's selection event, if any.
    A chart redrawn several times in one run, as a live placeholder is, takes no key.
    No Streamlit theme: the figures carry the look themselves (attention/figures/base/theme.py)."""
    target = st if container is None else container
    st.session_state[_CHART_SENT] = True
    return target.plotly_chart(
        fig, key=key, width="stretch", config=CHART_CONFIG, theme=None, **kwargs
    )


@contextmanager
def loading_plotly_meanwhile() -> Iterator[None]:
    """Around a page's computation: in a session's first run, a blank chart stands in
    a slot until the computation ends. Streamlit's browser code loads Plotly (4.7 MB,
    ~2 s to start in headless Chromium here) only once a first chart arrives; this
    starts it alongside the computation instead of after it. Later runs leave the slot
    empty, so every run leaves the page the same elements."""
    slot = st.empty()
    if st.session_state.get(_CHART_SENT):
        yield
        return
    show_chart(figure([], {"height": 10, "margin": {"t": 0, "b": 0}}), None, container=slot)
    try:
        yield
    finally:
        slot.empty()
