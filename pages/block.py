"""The block around attention (placeholder until its issue lands)."""

import streamlit as st

from ui.sidebar import scenario_sidebar

scenario_sidebar()
st.title("The block around attention")
st.info(
    "Coming next: "
    "The residual stream, W_O, the feed-forward layer, layer norm, and self / causal "
    "/ cross attention in a translation."
)
