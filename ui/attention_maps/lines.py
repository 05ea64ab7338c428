"""BertViz-style lines for the heads a user picks (Attention maps)."""

from __future__ import annotations

import streamlit as st

from attention.figures.attention_maps import attention_lines
from attention.figures.tables import focus_weight_rows
from attention.teaching.narration import attention_maps as narration
from ui.attention_maps.shown import ShownMaps
from ui.charts import show_chart
from view_state import url_params

FIRST_HEADS_DRAWN = 1  # heads drawn before the user picks (four at once were a hairball)


@st.fragment
def lines_section(maps: ShownMaps, focus: int) -> None:
    """BertViz-style lines for the chosen heads; a fragment, so choosing heads reruns
    this section alone."""
    n_heads, q_tokens = maps.n_heads, maps.query_tokens
    n = len(q_tokens)
    st.subheader("Lines, as in BertViz")
    st.caption(
        "One colour per head; a line's width and opacity are its weight "
        "(lines under 0.02 are left out)."
    )
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    with left:
        shown = st.pills(
            "Heads drawn (click to add or remove)",
            range(1, n_heads + 1),
            selection_mode="multi",
            default=list(range(1, min(n_heads, FIRST_HEADS_DRAWN) + 1)),
            key=f"maps_line_heads_{n_heads}",
            bind="query-params",
        )
    forced = narration.only_focus_forced(n)
    with right:
        only_focus = (
            st.toggle(
                narration.only_focus_label(q_tokens[focus]),
                value=url_params.default("maps_only_focus"),
                key="maps_only_focus",
                bind="query-params",
                disabled=forced,
                help=narration.only_focus_help(n),
            )
            or forced
        )
    with st.columns([1, 4, 1])[1]:
        if not shown:
            st.info("Pick at least one head to draw its lines.")
            return
        drawn = [h - 1 for h in shown]
        focus_rows = maps.trace.weights[drawn, focus]  # (drawn heads, n_keys)
        names = [maps.head_names[h] for h in drawn]
        show_chart(
            attention_lines(
                maps.trace.weights,
                q_tokens,
                maps.key_tokens,
                drawn,
                focus=focus if only_focus else None,
                query_side=maps.query_side.split(":")[0],
                key_side=maps.key_side.split(":")[0],
            ),
            key="lines_chart",
            name="Lines from queries to keys, one colour per head",
            summary=narration.lines_summary(maps.key_tokens, focus_rows, q_tokens[focus], names),
            table=focus_weight_rows(maps.key_tokens, focus_rows, names),
        )
