"""Head Spaces: the Streamlit entry point — page navigation and theme, nothing else.
Every page draws the shared sidebar itself (ui.sidebar.scenario_sidebar)."""

import streamlit as st

from attention.runtime import tune_process

PAGES = [
    st.Page("pages/home.py", title="Start here", icon=":material/school:", default=True),
    st.Page("pages/head_spaces.py", title="Head spaces", icon=":material/scatter_plot:"),
    st.Page("pages/attention_maps.py", title="Attention maps", icon=":material/grid_on:"),
    st.Page("pages/why_heads.py", title="Why several heads?", icon=":material/functions:"),
    st.Page("pages/real_model.py", title="Inside a real model", icon=":material/neurology:"),
    st.Page("pages/block.py", title="The block around attention", icon=":material/stacks:"),
]


@st.cache_resource
def _tune_process() -> dict[str, bool]:
    return tune_process(blas_threads=1)


st.set_page_config(page_title="Head Spaces", page_icon=":material/scatter_plot:", layout="wide")
_tune_process()
st.navigation(PAGES).run()
