"""Head spaces' own section: the points moving from the embedding into each head's space, one
head at a time, as Plotly frames the browser plays with no server round trip."""

from __future__ import annotations

import streamlit as st

from attention.figures.head_motion import motion_figure
from attention.geometry.head_spaces import HeadSpaces
from attention.teaching.narration import head_spaces as narration
from ui.charts import drawn_table, show_chart
from ui.media import prefers_reduced_motion
from view_state import url_params


@st.fragment
def stepped_motion(spaces: HeadSpaces, tokens: list[str], n_heads: int) -> None:
    """The before → after animation and its stage picker; a fragment, so stepping
    through the heads reruns (and redraws) this chart alone."""
    stages = url_params.options("hs_stage")[: n_heads + 1]  # before, then each head
    before = url_params.default("hs_stage")
    stage = st.segmented_control(
        "Step through the heads (or press ▶ Play in the chart)",
        stages,
        default=before,
        key="hs_stage",
        bind="query-params",
    )
    start = stages.index(stage or before)
    figure = motion_figure(spaces, tokens, start=start, reduced_motion=prefers_reduced_motion())
    kept = [head.variance_kept for head in spaces.heads]
    show_chart(
        figure,
        key="motion_chart",
        name="Animation: the tokens before and after each head",
        summary=narration.motion_summary(len(tokens), kept),
        **drawn_table(figure),
    )
    st.caption(
        "Press ▶ Play: the tokens split into a query (●) and a key (◇) in every head, "
        "resting on each head before moving on."
    )
