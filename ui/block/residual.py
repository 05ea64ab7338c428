"""The block page's §2: the sentence through 24 stacked random layers with and without the
residual stream (and LayerNorm), the distance from rank 1 against depth, and the tokens in
2-D at one depth."""

from __future__ import annotations

import streamlit as st

from attention.figures.block_rank_collapse import collapse_pca_figure, rank_collapse_figure
from attention.figures.tables import panel_point_rows, series_rows
from attention.teaching.narration import block as narration
from attention.teaching.narration.block import LAYER_NORMS
from ui.block import data as block_data
from ui.charts import show_chart
from ui.data import ScenarioRun
from ui.media import narrow_screen
from view_state import url_params
from view_state.scenario import Scenario


@st.fragment
def why_the_residual_matters(scenario: Scenario, run: ScenarioRun) -> None:
    """§2: 24 stacked layers with and without the residual; PCA at one depth."""
    st.header("2 · Why the residual stream matters", anchor="residual")
    st.markdown(
        "Every attention output is a weighted **average** of value vectors, so stacking "
        "attention pulls the tokens together. Here the sentence goes through 24 random "
        "layers (same weights in all four runs), and we measure how far the token matrix "
        "$X$ ($n$ tokens × $d$) is from having every token equal:"
    )
    st.latex(
        r"\text{distance from rank 1} = \frac{\lVert X - \mathbf{1}\bar{x}^{\top}\rVert_F}"
        r"{\lVert X\rVert_F}, \qquad\allowbreak {\bar{x} = \text{mean token}}"
    )
    left, right = st.columns([3, 2])
    stack_norms = url_params.picked("block_stack_norm")
    stack_label = left.radio(
        "LayerNorm in the stack",
        **stack_norms,
        captions=[LAYER_NORMS[n][1] for n in stack_norms["options"]],
        key="block_stack_norm",
        bind="query-params",
        horizontal=True,
    )
    depth = right.slider(
        "Depth for the picture below",
        **url_params.bounds("block_depth"),
        key="block_depth",
        bind="query-params",
    )
    collapse = block_data.rank_collapse(scenario, LAYER_NORMS[stack_label][0])
    for column, label, distances in zip(
        st.columns(len(collapse.labels)), collapse.labels, collapse.distances, strict=True
    ):
        value, help_text = narration.depth_metric(distances, depth)
        column.metric(label, value, help=help_text)
    curves, remark = st.columns(2)
    with curves:
        runs = zip(
            collapse.labels,
            collapse.residual,
            collapse.feed_forward,
            collapse.distances,
            strict=True,
        )
        show_chart(
            rank_collapse_figure(list(runs), depth),
            key="block_collapse",
            name="Distance from rank 1 against depth, for each stack",
            summary=narration.collapse_summary(collapse.labels, collapse.distances, depth),
            table=series_rows(
                "depth",
                range(len(collapse.distances[0])),
                dict(zip(collapse.labels, collapse.distances, strict=True)),
            ),
        )
    remark.markdown(
        narration.collapse_sentences(collapse.distances, collapse.residual, stack_label)
    )
    pictures = collapse.pictures(depth)
    show_chart(
        collapse_pca_figure(run.tokens, pictures, depth, columns=1 if narrow_screen() else 4),
        key="block_collapse_pca",
        name=f"The tokens after {depth} layers of each stack, in 2-D",
        summary=narration.collapse_pca_summary(pictures, depth),
        table=panel_point_rows(pictures, run.tokens, "stack"),
    )
    st.caption(
        "PCA of the tokens at the chosen depth, in units of their average length, on the "
        "same axes in all four panels. Dong et al. use an ℓ1/ℓ∞ norm without dividing by "
        "‖X‖; the ratio here is scale-free, because the residual stream grows with depth."
    )
