"""Raw attention against rollout (Abnar & Zuidema, 2020) for the sidebar's focus token,
layer by layer, every head on."""

from __future__ import annotations

import streamlit as st

from attention.analysis.heads_needed import focus_rows, rollout_contrast
from attention.analysis.rollout import attention_rollout
from attention.figures.base.grid import PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.heads_needed import rollout_figure
from attention.figures.tables import rollout_rows
from attention.models.pretrained import ModelTrace
from attention.teaching.markdown import literal
from attention.teaching.narration import heads_needed as narration
from ui.charts import show_chart
from ui.media import narrow_screen


def rollout_section(trace: ModelTrace, focus_token: int) -> None:
    """The focus token's raw attention and rollout in every layer, and what differs."""
    st.header("Raw attention or rollout?")
    focus = min(focus_token, len(trace.tokens) - 1)
    rows = focus_rows(trace.attentions, attention_rollout(trace.attentions), focus)
    st.caption(
        "Raw attention in a layer mixes vectors that earlier layers already mixed. Rollout "
        "(Abnar & Zuidema, 2020) follows the mixing from the input up: each layer as its "
        "head-mean attention plus the residual path (½ · A + ½ · I), multiplied layer by layer. "
        "Pick the token in the sidebar's focus box; every head on."
    )
    show_chart(
        rollout_figure(
            rows,
            trace.tokens,
            focus,
            PHONE_TITLE_CHARS if narrow_screen() else PAGE_TITLE_CHARS,
            cell_text=not narrow_screen(),
        ),
        key="heads_rollout",
        name="Raw attention and rollout of the focus token, layer by layer",
        summary=narration.rollout_sentence(
            rollout_contrast(rows, trace.tokens, focus), trace.tokens, focus, literal
        ),
        table=rollout_rows(rows, trace.tokens),
    )
