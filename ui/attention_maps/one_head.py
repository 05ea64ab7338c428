"""One head's attention map drawn large beside the mean of all heads (Attention maps)."""

from __future__ import annotations

import streamlit as st

from attention.analysis.head_metrics import head_mean
from attention.figures.attention_maps import LARGE_MAP_CELLS, attention_grid
from attention.figures.tables import maps_table
from attention.teaching.narration import attention_maps as narration
from attention.teaching.narration.charts import map_summary
from ui.attention_maps.shown import ShownMaps
from ui.charts import show_chart
from ui.media import narrow_screen
from ui.pooled_maps import maps_to_draw

SQUARE = {
    "columns": 1,
    "panel_px": 400,  # a square map is as wide as its half column allows
    "square_cells": True,
}


@st.fragment
def one_head_large(maps: ShownMaps) -> None:
    """One head large beside the mean of all heads; a fragment, so picking another head
    reruns this section alone."""
    n_heads, trace = maps.n_heads, maps.trace
    st.subheader("One head large, beside the mean of all heads")
    head = (
        st.select_slider(
            "Head to enlarge",
            range(1, n_heads + 1),
            key=f"maps_head_{n_heads}",
            bind="query-params",
        )
        - 1
    )
    large = {
        "key_tokens": maps.key_tokens,
        "allowed": trace.mask,
        "self_attention": maps.is_self,
        "max_cells": LARGE_MAP_CELLS,
    }
    sides = {
        "query_side": maps.query_side,
        "key_side": maps.key_side,
        "colorbar_below": narrow_screen(),  # on a phone the map takes the whole width
        **SQUARE,
    }
    title = maps.head_names[head]
    mean_weights = head_mean(trace.weights)
    big, mean = st.columns(2)
    with big:
        show_chart(
            attention_grid(
                **maps_to_draw(
                    trace.weights[head : head + 1],
                    maps.query_tokens,
                    scores=trace.scores[head : head + 1],
                    **large,
                ),
                titles=[title],
                **sides,
            ),
            key="big_chart",
            name=f"Attention map of {title}",
            summary=map_summary(title, maps.query_tokens, maps.key_tokens, trace.weights[head]),
            table=maps_table(
                [title],
                maps.query_tokens,
                maps.key_tokens,
                trace.weights[head : head + 1],
                allowed=trace.mask,
            ),
        )
    with mean:
        show_chart(
            attention_grid(
                **maps_to_draw(mean_weights, maps.query_tokens, **large),
                titles=["mean of all heads"],
                head_colors=False,
                **sides,
            ),
            key="mean_chart",
            name="Mean attention map of all heads",
            summary=map_summary(
                "mean of all heads", maps.query_tokens, maps.key_tokens, mean_weights[0]
            ),
            table=maps_table(
                ["mean of all heads"],
                maps.query_tokens,
                maps.key_tokens,
                mean_weights,
                allowed=trace.mask,
            ),
        )
    note = narration.large_pooled_note(len(maps.query_tokens), maps.is_self, LARGE_MAP_CELLS)
    if note:
        st.caption(note)
