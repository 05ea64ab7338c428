""" "Why several heads?" §3: the best fit of one head to a target pattern for every d_head
from 1 to n, with the pattern chosen or drawn by the user."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import MultiHeadAttention
from attention.experiments.rank_limit import PATTERNS, pattern_from_choices, target_pattern
from attention.figures import tables
from attention.figures.why_heads_rank_limit import (
    pattern_maps,
    rank_error_chart,
    rank_patterns,
    singular_value_chart,
)
from attention.teaching.narration import why_heads as narration
from ui.charts import show_chart
from ui.media import narrow_screen
from ui.why_heads import experiments as exp
from view_state import url_params


def drawn_pattern(n: int) -> np.ndarray | None:
    """Let the user tick, per query row, the keys it should attend to."""
    default = tables.pattern_checkboxes(target_pattern("previous", n))
    grid = st.data_editor(default, key=f"wh_drawn_{n}", width="content")
    try:
        return pattern_from_choices(grid.to_numpy(dtype=bool))
    except ValueError as error:
        st.warning(f"Cannot use this pattern: {error}")
        return None


@st.fragment
def rank_limit(seed: int, mha: MultiHeadAttention) -> None:
    """§3: the best fit of one head to a pattern, for every d_head from 1 to n."""
    st.header("3. The rank limit of a head")
    st.markdown(
        "A head's score matrix is a product through d_head dimensions, so its rank is at "
        "most d_head; softmax then only subtracts one number per row (Bhojanapalli et "
        "al., 2020). We fit one head's W_Q, W_K to a target pattern over n tokens for "
        "every d_head from 1 to n and keep the best of two starts."
    )
    st.latex(
        r"{S = \frac{X W_Q W_K^{\top} X^{\top}}{\sqrt{d_{\text{head}}}},}\quad\allowbreak"
        r"{\operatorname{rank} S \le \min(d_{\text{head}}, d_{\text{model}})} \\"
        r"{\log A = S - c\,\mathbf 1^{\top}}"
    )
    cols = st.columns([2, 1, 2])
    kinds = {**PATTERNS, "drawn": "drawn by you: tick the keys each query attends to"}
    kind = cols[0].selectbox(
        "Target pattern",
        **url_params.bounds("wh_pattern"),
        key="wh_pattern",
        bind="query-params",
    )
    n = cols[1].slider(
        "Tokens n", **url_params.bounds("wh_rank_n"), key="wh_rank_n", bind="query-params"
    )
    penalty = cols[2].selectbox(
        "Score size",
        **url_params.bounds("wh_penalty"),
        key="wh_penalty",
        bind="query-params",
    )
    st.caption(f"Target: {kinds[kind]}.")
    if kind == "drawn":
        target = drawn_pattern(n)
        if target is None:
            return
    else:
        target = target_pattern(kind, n, seed=seed)
    with st.spinner("Fitting one head for every d_head …"):
        result = exp.rank_limit(target, mha.d_model, penalty, seed)
    today = mha.d_head
    left, right = st.columns([3, 2])
    with left:
        show_chart(
            rank_error_chart(result, narration.rank_marks(today, n)),
            "wh_rank_error",
            name="One head's best error against d_head",
            summary=narration.rank_error_summary(result),
            table=tables.series_rows(
                "d_head",
                result.d_heads,
                {"error (nats)": result.error, "misplaced (%)": 100 * result.misplaced},
            ),
        )
    with right:
        show_chart(
            singular_value_chart(result),
            "wh_rank_sv",
            name="Singular values of each fitted score matrix",
            summary=narration.singular_value_summary(result),
            table=tables.series_rows(
                "d_head",
                result.d_heads,
                {
                    "rank": narration.visible_ranks(result.singular_values),
                    **{f"σ_{i + 1}": sigma for i, sigma in enumerate(result.singular_values.T)},
                },
            ),
        )
    for note in narration.rank_limit_notes(today, n, mha.d_model, penalty, kind):
        st.caption("Note: " + note)
    st.caption(
        "Singular values of each fitted S (right): blank cells are zero, so the staircase "
        "is the rank limit. Below: the target and the fitted patterns at a few d_head."
    )
    shown = narration.shown_d_heads(today, n)
    titles, tokens, maps = pattern_maps(result, shown)
    show_chart(
        rank_patterns(result, shown, columns=1 if narrow_screen() else None),
        "wh_rank_patterns",
        name="The target pattern beside one head's fitted patterns",
        summary=narration.rank_patterns_summary(result, shown),
        table=tables.matrix_rows(titles, tokens, tokens, maps),
    )
