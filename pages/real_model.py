"""Inside a real model (placeholder until its issue lands)."""

import streamlit as st

from ui.sidebar import scenario_sidebar

scenario_sidebar()
st.title("Inside a real model")
st.info("Coming next: MiniLM's 72 trained heads (6 layers × 12 heads) on your sentence.")
