"""The block page's §1: the scenario's heads in one block (concatenation, W_O, the
sublayers' update sizes, the feed-forward network and how it reads each head's block),
then the same measured in MiniLM."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.analysis.update_ratios import block_nudges, median_over_tokens
from attention.core.blocks import FEED_FORWARD
from attention.figures import tables
from attention.figures.block import (
    SUBLAYER_STYLES,
    concat_figure,
    head_reads_figure,
    hidden_figure,
    layer_ratio_figure,
    stream_update_figure,
)
from attention.figures.real_model import layer_path_figure
from attention.geometry.planes import hidden_state_paths
from attention.models.pretrained import ModelError
from attention.teaching.narration import block as narration
from attention.teaching.narration.block import LAYER_NORMS
from attention.teaching.narration.real_model import paths_summary
from ui.block import data as block_data
from ui.charts import drawn_table, show_chart
from ui.data import ScenarioRun
from ui.media import narrow_screen
from ui.pretrained import minilm_reads, pretrained_model, run_real
from view_state import url_params
from view_state.scenario import Scenario

ACTIVATIONS = {"GELU": "gelu", "ReLU": "relu"}


@st.fragment
def what_the_block_does(scenario: Scenario, run: ScenarioRun) -> None:
    """§1: the scenario's heads in one block: concatenation, W_O, norms, FFN."""
    tokens = run.tokens
    st.header("1 · What one block does to each token", anchor="what-one-block-does")
    left, right = st.columns(2)
    norms = url_params.picked("block_norm")
    norm_label = left.radio(
        "Where the LayerNorm sits",
        **norms,
        captions=[LAYER_NORMS[n][1] for n in norms["options"]],
        key="block_norm",
        bind="query-params",
        horizontal=True,
    )
    norm = LAYER_NORMS[norm_label][0]
    activation = ACTIVATIONS[
        right.radio(
            "Feed-forward activation",
            **url_params.picked("block_act"),
            key="block_act",
            bind="query-params",
            horizontal=True,
        )
    ]
    st.latex(narration.block_equations(norm))
    st.latex(narration.feed_forward_equation(activation))

    trace = block_data.block_trace(scenario, norm, activation)
    attention_step = trace.sublayers[0]
    st.subheader("The heads, concatenated, feed $W_O$")
    st.markdown(narration.concat_sentence(run.mha.n_heads, run.mha.d_head, run.mha.d_model))
    concat, update = attention_step.detail.concat, attention_step.update
    concat_chart = concat_figure(
        tokens, concat, update, run.mha.n_heads, columns=1 if narrow_screen() else 2
    )
    show_chart(
        concat_chart,
        key="block_concat",
        name="Each token's concatenated head outputs and the update W_O makes of them",
        summary=narration.concat_summary(concat, update, run.mha.n_heads),
        **drawn_table(concat_chart),
    )

    what_the_feed_forward_reads(scenario, norm, activation)

    norms, hidden = st.columns(2)
    nudges = block_nudges(trace)
    with norms:
        st.subheader("How big a nudge does each sublayer give?")
        st.markdown(narration.nudge_sentence(nudges.names, nudges.median_ratios))
        show_chart(
            stream_update_figure(
                tokens, nudges.names, nudges.stream_norms, nudges.update_norms, nudges.ratios
            ),
            key="block_norms",
            name="Each token's stream length beside each sublayer's update",
            summary=narration.stream_update_summary(nudges.names, nudges.ratios),
            table=tables.stream_update_rows(
                nudges.names, tokens, nudges.stream_norms, nudges.update_norms, nudges.ratios
            ),
        )
    with hidden:
        st.subheader("Inside the feed-forward network")
        st.markdown(
            "Every token goes through the same two matrices on its own: no token sees another "
            "here. The hidden layer is 4 × wider than the stream; each column is one hidden unit."
        )
        hidden_units = trace.sublayer(FEED_FORWARD).detail.hidden
        hidden_chart = hidden_figure(tokens, hidden_units, activation)
        show_chart(
            hidden_chart,
            key="block_hidden",
            name="The feed-forward network's hidden units for each token",
            summary=narration.hidden_summary(hidden_units, activation),
            **drawn_table(hidden_chart),
        )


def what_the_feed_forward_reads(scenario: Scenario, norm: str, activation: str) -> None:
    """How each feed-forward unit reads every head's block, random beside trained."""
    st.subheader("The feed-forward layer reads every head's block")
    toy = block_data.block_reads(scenario, norm, activation)
    try:
        layers = pretrained_model().config.layers
    except ModelError:
        layers = 0
    layer, real = 0, None
    if layers:
        limits = url_params.bounds("block_reads_layer")  # the loaded model's layers bound it
        layer = st.select_slider(
            "MiniLM layer to compare",
            range(limits["min_value"], min(limits["max_value"], layers) + 1),
            value=limits["value"],
            key="block_reads_layer",
            bind="query-params",
        )
        real = minilm_reads(layer)
    st.markdown(narration.reads_sentence(toy, real, layer))
    panels = narration.reads_panels(toy, real, layer)
    reads_chart = head_reads_figure(panels)
    show_chart(
        reads_chart,
        key="block_reads",
        name="How much each feed-forward unit reads from each head's block",
        summary=narration.reads_summary(panels),
        **drawn_table(reads_chart),
    )


def in_a_trained_model(text: str) -> None:
    """§1 measured in MiniLM: the nudges layer by layer and the tokens' path."""
    st.subheader("The same, measured in a trained model")
    try:
        real = run_real(text).trace
    except ModelError as error:
        st.info(narration.model_missing(str(error)))
        return
    medians = median_over_tokens(real.update_ratios)
    st.markdown(narration.trained_model_sentence(len(real.tokens), medians))
    ratios = real.update_ratios  # (layers, sublayers, n)
    low, middle, high = np.percentile(ratios, [10, 50, 90], axis=2)  # the band and the line
    show_chart(
        layer_ratio_figure(ratios),
        key="block_real_ratios",
        name="MiniLM's update sizes, layer by layer",
        summary=narration.layer_ratio_summary(ratios),
        table=tables.series_rows(
            "layer",
            range(1, len(ratios) + 1),
            {
                f"{name}: {part}": values[:, i]
                for i, (name, *_) in enumerate(SUBLAYER_STYLES)
                for part, values in (
                    ("10th percentile", low),
                    ("median", middle),
                    ("90th percentile", high),
                )
            },
        ),
    )
    st.markdown(narration.layer_path_sentence(len(real.hidden_states)))
    paths = hidden_state_paths(real.hidden_states)
    show_chart(
        layer_path_figure(paths, real.tokens),
        key="block_real_paths",
        name="Each token's path through MiniLM's layers",
        summary=paths_summary(real.tokens, paths.coords),
        table=tables.panel_point_rows(
            list(enumerate(paths.coords)), real.tokens, "after layer (0: embeddings)"
        ),
    )
