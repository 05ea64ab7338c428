"""Showing Plotly figures the same way on every page: full width, a toolbar whose PNG
button exports at slide quality, and the page's shared font."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

CHART_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["lasso2d"],
}


def show_chart(fig: go.Figure, key: str, **kwargs) -> object:
    """Draw `fig` across the container; returns Streamlit's selection event, if any."""
    return st.plotly_chart(fig, key=key, width="stretch", config=CHART_CONFIG, **kwargs)
