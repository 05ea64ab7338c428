"""Why several heads? (placeholder until its issue lands)."""

import streamlit as st

from ui.sidebar import scenario_sidebar

scenario_sidebar()
st.title("Why several heads?")
st.info(
    "Coming next: "
    "Equal cost of h small heads and one big head, the rank limit of a head, and a "
    "small model trained here."
)
