"""Head spaces: the token points before and after each head's projection, where each
head's queries meet its keys, what each head hands back, and the heatmaps with them."""

import streamlit as st

from attention.figures.attention_maps import attention_grid
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS, PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.head_spaces import (
    before_figure,
    head_space_figure,
    values_figure,
)
from attention.figures.tables import (
    focus_weight_rows,
    maps_table,
    neighbour_table,
    point_rows,
    rank_correlation_table,
)
from attention.geometry.head_spaces import agreement_range, neighbours
from attention.teaching.narration import head_spaces as narration
from ui import data
from ui.charts import show_chart
from ui.head_spaces import stepped_motion
from ui.media import narrow_screen
from ui.pooled_maps import maps_to_draw
from ui.sidebar import FOCUS_CHART, focus_from_click, scenario_run, scenario_sidebar

scenario = scenario_sidebar()
run = scenario_run(scenario)
tokens, trace, focus = run.tokens, run.trace, scenario.focus
spaces = data.spaces(scenario)
n_heads = run.mha.n_heads
# One or two heads: each head's picture beside its map, a row per head. More: the
# pictures across the full width in rows of 4 (head h above head h's map): in a 1024-px
# window beside the sidebar each picture is ~105 px wide and its titles keep their room
# (beside the maps, two to a row, the titles ran into each other).
# On a phone (Streamlit stacks the columns there anyway): one head per row, each picture
# and map as wide as the screen.
phone = narrow_screen()
beside = n_heads <= 2 and not phone
columns = 1 if beside or phone else 4
title_chars = PHONE_TITLE_CHARS if phone else HALF_PAGE_TITLE_CHARS if beside else PAGE_TITLE_CHARS

st.title("Head spaces")
st.caption(run.source)
rho = agreement_range(spaces)
st.markdown(narration.intro_sentence(len(tokens), run.x.shape[1], run.mha.d_head, rho))

left, right = st.columns(2)
with left:
    show_chart(
        before_figure(spaces.before, tokens, focus),
        key=FOCUS_CHART,
        on_select=focus_from_click,
        selection_mode="points",
        name="Before: the token vectors in 2-D",
        summary=narration.before_summary(tokens, spaces.before, focus),
        table=point_rows(tokens, spaces.before.coords),
    )
    st.caption("Click a token to focus on it (or pick it in the sidebar).")
with right:
    stepped_motion(spaces, tokens, n_heads)

st.subheader("After: each head's queries and keys, with where it looks")
st.markdown(
    "Each head asks three questions of every token: its **query** (●) — what am I looking "
    "for? its **key** (◇) — what do I have? its **value** (■, below) — what do I pass on "
    "if chosen? "
    "Keys are shifted to the queries' centre and both scaled to equal size, then each "
    "key gets one balancing coordinate so that nearer means higher score — none of it "
    "changes any attention weight — and the 2-D PCA is taken of that space. Each title "
    "says how faithful the picture is: the **variance kept** by two axes, and **ρ**, "
    "the rank correlation between a query's scores and its nearness to the keys "
    "(+1 = nearer always means higher score): “2-D” in the picture, “own” in the head's "
    "own space without the balancing coordinate."
)
st.caption(narration.cost_sentence(run.mha.d_model, run.mha.n_heads, run.mha.d_head, len(tokens)))
focus_rows = trace.weights[:, focus]  # (heads, n): the focus token's weights, per head
focus_table = focus_weight_rows(tokens, focus_rows)
pictures, maps = st.columns(2) if beside else (st.container(), st.container())
with pictures:
    show_chart(
        head_space_figure(
            spaces, tokens, trace.weights, focus, columns=columns, title_chars=title_chars
        ),
        key="head_space_chart",
        name="Each head's queries and keys in 2-D",
        summary=narration.head_space_summary(tokens, focus_rows, focus),
        table=focus_table,
    )
with maps:
    show_chart(
        attention_grid(
            **maps_to_draw(
                trace.weights, tokens, scores=trace.scores, allowed=trace.mask, self_attention=True
            ),
            columns=columns,
            panel_px=300 if beside else 320,
            title_chars=title_chars,
            colorbar_below=beside or phone,
        ),
        key="heatmap_chart",
        name="Attention maps, one per head",
        summary=narration.heatmap_summary(tokens, focus_rows, focus),
        table=maps_table(
            [f"head {h + 1}" for h in range(n_heads)],
            tokens,
            tokens,
            trace.weights,
            focus,
            allowed=trace.mask,
        ),
    )

st.subheader(narration.answers_title(tokens[focus]))
st.markdown(
    "Each head returns the attention-weighted average of its **values**: "
    "$\\text{out} = \\sum_j w_j v_j$. The star is that average; since the picture is a "
    "linear projection, it sits exactly at the same weighted average of the drawn values."
)
show_chart(
    values_figure(spaces, tokens, trace.weights, focus, columns=1 if phone else 4),
    key="values_chart",
    name="Each head's values and its output for the focus token",
    summary=narration.values_summary(tokens, focus_rows, focus),
    table=focus_table,
)

st.subheader("Distances really change — measured in full dimensions")
near = neighbours(run.x, trace, focus)
st.dataframe(neighbour_table(tokens, near), width="stretch")
st.dataframe(rank_correlation_table(near), width="content")
st.caption(narration.neighbours_caption(tokens[focus], run.x.shape[1], run.mha.d_head))
