"""Start here: what the app shows, in a few sentences, with the lesson's sentence."""

import streamlit as st

from attention.geometry.head_spaces import agreement_range
from attention.teaching.narration import head_spaces as narration
from ui import data
from ui.sidebar import scenario_run, scenario_sidebar

scenario = scenario_sidebar()
run = scenario_run(scenario)

st.title("Head Spaces")
rho = agreement_range(data.spaces(scenario))
st.markdown(narration.start_page_sentence(run.mha.d_head, rho))
st.page_link("pages/lesson.py", label="Start the lesson", icon=":material/play_circle:")
st.subheader("The lesson's sentence")
st.text(" · ".join(run.tokens))
st.markdown(
    narration.start_page_sizes(len(run.tokens), run.x.shape[1], run.mha.n_heads, run.mha.d_head)
)
st.subheader("A path through the ideas")
st.page_link("pages/lesson.py", label="1. Lesson — the questions, one step at a time")
st.page_link("pages/head_spaces.py", label="2. Head spaces — where each head moves the points")
st.page_link("pages/playground.py", label="3. Move the query yourself — drag a head's query")
st.page_link("pages/attention_maps.py", label="4. Attention maps — where each head looks")
st.page_link("pages/why_heads.py", label="5. Why several heads? — the maths and experiments")
st.page_link("pages/real_model.py", label="6. Inside a real model — MiniLM's 72 trained heads")
st.page_link("pages/heads_needed.py", label="7. Do we need all these heads? — switch heads off")
st.page_link("pages/block.py", label="8. The block around attention — residual, FFN, translation")
