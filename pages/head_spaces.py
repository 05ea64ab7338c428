"""Head spaces (placeholder until its issue lands)."""

import streamlit as st

from ui.sidebar import scenario_sidebar

scenario_sidebar()
st.title("Head spaces")
st.info(
    "Coming next: "
    "The token points before and after each head's projection, with the attention "
    "heatmaps beside them."
)
