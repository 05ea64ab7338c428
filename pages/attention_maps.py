"""Attention maps (placeholder until its issue lands)."""

import streamlit as st

from ui.sidebar import scenario_sidebar

scenario_sidebar()
st.title("Attention maps")
st.info(
    "Coming next: "
    "All heads at a glance: small multiples, one head large, BertViz-style lines, "
    "entropy and focus per head."
)
