"""Showing Plotly figures the same way on every page: full width, a toolbar whose PNG
button exports at slide quality, and the page's shared font."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

CHART_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["lasso2d"],
}


def show_chart(
    fig: go.Figure, key: str | None, container: DeltaGenerator | None = None, **kwargs
) -> object:
    """Draw `fig` across `container` (a column, or an st.empty() placeholder redrawn in
    place; the page itself by default); returns Streamlit's selection event, if any.
    A chart redrawn several times in one run, as a live placeholder is, takes no key.
    No Streamlit theme: the figures carry the look themselves (attention/figures/theme.py)."""
    target = st if container is None else container
    return target.plotly_chart(
        fig, key=key, width="stretch", config=CHART_CONFIG, theme=None, **kwargs
    )
