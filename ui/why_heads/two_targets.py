""" "Why several heads?" §2: one head splits its weight between two targets; two heads
fetch both. The user picks the query and the targets; the fit is cached in ui/why_heads."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.experiments.two_targets import same_vector
from attention.figures.tables import focus_weight_rows, series_rows
from attention.figures.why_heads_two_targets import two_target_curves, two_target_figure
from attention.teaching.narration import why_heads as narration
from ui.charts import show_chart
from ui.data import ScenarioRun
from ui.media import narrow_screen
from ui.why_heads import experiments as exp
from view_state.scenario import Scenario


@st.fragment
def one_distribution_per_head(scenario: Scenario, run: ScenarioRun) -> None:
    """§2: one head splits its weight between two targets; two heads fetch both."""
    tokens = run.tokens
    st.header("2. One distribution per head")
    st.markdown(
        "A head gives each query **one** probability distribution over the keys, so its "
        "output is a weighted average of the values. Weight spent on one target is "
        "missing from the other:"
    )
    st.latex(
        r"{o = \sum_j w_j v_j,}\quad\allowbreak{\sum_j w_j = 1} \;\Rightarrow\;"
        r" {w_a + w_b \le 1} \\ \Rightarrow\; {-\tfrac12(\log w_a + \log w_b) \ge \log 2}"
    )
    n = len(tokens)
    if n < narration.TWO_TARGETS_MIN_TOKENS:
        st.info("Type a sentence with at least three tokens to pick a query and two targets.")
        return
    names = [f"{i} · {t}" for i, t in enumerate(tokens)]
    cols = st.columns(3)
    query = cols[0].selectbox(
        "Query token",
        range(n),
        index=scenario.focus,
        format_func=names.__getitem__,
        key="wh_query",
        bind="query-params",
    )
    a = cols[1].selectbox(
        "First target",
        range(n),
        index=0,
        format_func=names.__getitem__,
        key="wh_target_a",
        bind="query-params",
    )
    b = cols[2].selectbox(
        "Second target",
        range(n),
        index=n - 1,
        format_func=names.__getitem__,
        key="wh_target_b",
        bind="query-params",
    )
    if a == b:
        st.warning("Pick two different target tokens.")
        return
    if same_vector(run.x, a, b):
        st.warning(narration.same_vector_warning(tokens[a], tokens[b]))
    result = exp.two_targets(run.x, query, a, b, scenario.seed)
    st.markdown(narration.two_target_fit_sentence(len(result.one_head_loss), result.d_heads))
    show_chart(
        two_target_figure(tokens, result, columns=1 if narrow_screen() else 2),
        "wh_two_targets",
        name="The query's weights: one head beside two heads",
        summary=narration.two_target_summary(tokens, result),
        table=focus_weight_rows(
            tokens,
            np.vstack([result.one_head, result.two_heads]),
            ["one head", "head 1 of two", "head 2 of two"],
        ),
    )
    left, right = st.columns([3, 2])
    with left:
        show_chart(
            two_target_curves(result),
            "wh_two_curves",
            name="The fit's objective, step by step",
            summary=narration.two_curves_summary(result),
            table=series_rows(
                "step",
                range(1, len(result.one_head_loss) + 1),
                {"one head": result.one_head_loss, "two heads": result.two_heads_loss},
            ),
        )
    with right:
        st.markdown(narration.fetch_sentence(result.one_head_fetch, result.two_heads_fetch))
        st.caption(narration.fetch_caption(result.two_heads_fetch))
