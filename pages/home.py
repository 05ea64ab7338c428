"""Start here: what the app shows, in plain words and one picture of two heads; the
notation waits in an expander."""

from dataclasses import replace

import streamlit as st

from attention.figures.head_spaces import head_space_figure
from attention.figures.tables import focus_weight_rows
from attention.geometry.head_spaces import agreement_range
from attention.teaching.narration import head_spaces as narration
from ui import data
from ui.charts import show_chart
from ui.media import narrow_screen
from ui.navigation import PAGES
from ui.sidebar import scenario_run, scenario_sidebar

scenario = scenario_sidebar()
run = scenario_run(scenario)

st.title("Head Spaces")
spaces = data.spaces(scenario)
shown = list(range(min(2, run.mha.n_heads)))  # a picture of two heads, side by side
focus = min(scenario.focus, len(run.tokens) - 1)
weights = run.trace.weights[shown]
st.markdown(narration.start_page_plain(run.tokens, focus, weights))
show_chart(
    head_space_figure(
        replace(spaces, heads=spaces.heads[: len(shown)]),
        run.tokens,
        weights,
        focus,
        columns=1 if narrow_screen() else len(shown),  # one per row on a phone
        heads=shown,
        tile_px=300,
        measured_titles=False,  # the measures and their notation wait for the pages
    ),
    key="home_heads",
    name="The same words, as " + " and ".join(f"head {h + 1}" for h in shown) + " move them",
    summary=narration.head_space_summary(run.tokens, weights[:, focus], focus),
    table=focus_weight_rows(run.tokens, weights[:, focus]),
)
st.page_link("pages/lesson.py", label="Start the lesson", icon=":material/play_circle:")
with st.expander("The same in symbols"):
    st.markdown(narration.start_page_sentence(run.mha.d_head, agreement_range(spaces)))
st.subheader("The lesson's sentence")
st.text(" · ".join(run.tokens))
st.markdown(
    narration.start_page_sizes(len(run.tokens), run.x.shape[1], run.mha.n_heads, run.mha.d_head)
)
st.subheader("A path through the ideas")
for number, page in enumerate(PAGES[1:], 1):
    st.page_link(page.path, label=f"{number}. {page.title} — {page.shows}")
