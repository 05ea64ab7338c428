"""Start here: what the app shows, in a few sentences, with the lesson's sentence."""

import streamlit as st

from attention.teaching.wording import plural
from ui import data
from ui.geometry_text import nearness_sentence
from ui.sidebar import scenario_run, scenario_sidebar

scenario = scenario_sidebar()
run = scenario_run(scenario)

st.title("Head Spaces")
st.markdown(
    "Every attention head takes **the same token vectors** and moves them with its own "
    "three matrices, $W_Q$, $W_K$ and $W_V$, into a space of its own — here "
    f"{run.mha.d_head} {plural(run.mha.d_head, 'dimension')} per head. A query's weight on "
    "a key grows with their score $q\\cdot k$, so heads that move the points differently "
    "end up looking at different tokens. "
    + nearness_sentence(data.spaces(scenario), run.mha.d_head)
    + " This app lets you see it happen and measure it."
)
st.page_link("pages/lesson.py", label="Start the lesson", icon=":material/play_circle:")
st.subheader("The lesson's sentence")
st.text(" · ".join(run.tokens))
st.markdown(
    f"{len(run.tokens)} {plural(len(run.tokens), 'token')}, each a vector of "
    f"**{run.x.shape[1]}** numbers, going through **{run.mha.n_heads}** "
    f"{plural(run.mha.n_heads, 'head')} of **{run.mha.d_head}** "
    f"{plural(run.mha.d_head, 'dimension')}. "
    "Change the sentence and the knobs in the sidebar; every page follows them."
)
st.subheader("A path through the ideas")
st.page_link("pages/head_spaces.py", label="1. Head spaces — where each head moves the points")
st.page_link("pages/attention_maps.py", label="2. Attention maps — where each head looks")
st.page_link("pages/why_heads.py", label="3. Why several heads? — the maths and experiments")
st.page_link("pages/real_model.py", label="4. Inside a real model — MiniLM's 72 trained heads")
st.page_link("pages/block.py", label="5. The block around attention — residual, FFN, translation")
