""" "Why several heads?" §4: four layouts trained on the same batches, with live loss
curves, the results table, the trained heads' maps and the spread across seeds; hands
what it trained to §5 as a Trained."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from attention.experiments.training.summary import layout_facts
from attention.experiments.training.task import TASK_TEXTS
from attention.experiments.training.train import Comparison, TrainingConfig, seed_summary
from attention.figures import tables
from attention.figures.why_heads_training import head_maps, loss_curves, seed_spread
from attention.teaching.markdown import literal
from attention.teaching.narration import why_heads as narration
from ui.charts import show_chart
from ui.jobs import progress_bar
from ui.why_heads import experiments as exp
from view_state import url_params

SEEDS_ACROSS = 5
_REQUESTED = "why_trained"  # (settings, seed) pairs the user asked to train this session


@dataclass(frozen=True)
class Trained:
    """What §4 trained, for §5: one seed's four variants, and the summary across seeds
    once those are trained too."""

    seed: int
    labels: dict[str, str]  # variant key → label
    comparison: Comparison
    summary: dict[str, dict[str, np.ndarray]] | None


def train_live(config: TrainingConfig, seed: int, title: str) -> Comparison:
    """Train (or fetch) one seed with a progress bar and live loss curves."""
    total = config.steps * len(config.variants())
    losses_so_far: dict[str, np.ndarray] = {}
    with progress_bar(title) as show_progress:
        live = st.empty()  # under the bar

        def show(label: str, done: int, losses: np.ndarray) -> None:
            losses_so_far[label] = losses
            finished = sum(len(c) for c in losses_so_far.values())
            show_progress(finished / total, f"{title}: {label}, step {done} of {config.steps}")
            show_chart(loss_curves(losses_so_far, config.steps), key=None, container=live)

        comparison = exp.train(config, seed, show)
        live.empty()
    return comparison


def _training_config() -> TrainingConfig:
    """The six training knobs in one row, bound to the URL; their defaults and bounds
    are the URL table's."""
    cols = st.columns(6)
    d_model = cols[0].select_slider(
        "d_model", **url_params.bounds("wh_d_model"), key="wh_d_model", bind="query-params"
    )
    heads = cols[1].select_slider(
        "heads h", **url_params.bounds("wh_heads"), key="wh_heads", bind="query-params"
    )
    symbols = cols[2].slider(
        "symbols", **url_params.bounds("wh_symbols"), key="wh_symbols", bind="query-params"
    )
    seq_len = cols[3].slider(
        f"tokens before {TASK_TEXTS.query}",
        **url_params.bounds("wh_seq_len"),
        key="wh_seq_len",
        bind="query-params",
    )
    noise = cols[4].slider(
        "noise",
        **url_params.bounds("wh_noise"),
        key="wh_noise",
        bind="query-params",
        help="Std of fresh Gaussian noise added to every coordinate of every token vector.",
    )
    steps = cols[5].select_slider(
        "steps", **url_params.bounds("wh_steps"), key="wh_steps", bind="query-params"
    )
    return TrainingConfig(
        d_model=d_model, n_heads=heads, n_symbols=symbols, seq_len=seq_len, noise=noise, steps=steps
    )


def train_and_compare(seed: int) -> Trained | None:
    """§4: four layouts trained on the same batches; None until the user trains them."""
    st.header("4. Train a small model and watch heads specialise")
    st.markdown(narration.task_description(TASK_TEXTS.marks, TASK_TEXTS.query))
    st.latex(
        r"{\text{(a) } 1\times d} \quad\allowbreak {\text{(b) } h \times \tfrac{d}{h}} \quad"
        r"\allowbreak {\text{(c) } h \times d} \\ {\text{(d) } h \times \tfrac{d}{h}"
        r"\text{, head } i} \allowbreak {\text{ reads only } x_{[i d/h,\,(i+1) d/h)}}"
    )
    st.caption(narration.noise_caption(TASK_TEXTS.marks))
    config = _training_config()
    labels = {v.key: v.label for v in config.variants()}
    requested: set = st.session_state.setdefault(_REQUESTED, set())
    key = (exp.settings_of(config), seed)
    # The click is recorded in a callback, which runs before the script and so survives
    # any rerun the script makes on the way.
    st.button(
        narration.train_label(seed),
        key="wh_train",
        type="primary",
        on_click=requested.add,
        args=(key,),
    )

    if key not in requested:
        st.info(
            "Press the button to train: it takes seconds, and a progress bar shows the live loss."
        )
        return None
    comparison = train_live(config, seed, f"Training seed {seed}")
    losses = {labels[k]: r.losses for k, r in comparison.results.items()}
    show_chart(
        loss_curves(losses, config.steps),
        "wh_loss",
        name="Training loss of each variant",
        summary=narration.loss_summary(losses),
        table=tables.series_rows("step", range(1, config.steps + 1), losses),
    )
    st.dataframe(
        pd.DataFrame(tables.comparison_table(comparison)), hide_index=True, key="wh_results"
    )
    st.caption(
        "Head diversity: the mean Jensen–Shannon divergence between the query's weights "
        "in every pair of heads, over 2000 held-out sequences (0 = all heads look at the "
        "same tokens, 1 = no overlap). Times are wall clock on this server."
    )
    st.markdown(narration.projection_answer(layout_facts(comparison), TASK_TEXTS.marks))
    weights = {k: comparison.example_weights(k) for k in comparison.results}
    show_chart(
        head_maps(comparison),
        "wh_head_maps",
        name="Each trained head's weights for the query",
        summary=narration.head_maps_summary(labels, weights, comparison.example_tokens),
        table=tables.variant_weight_rows(labels, weights, comparison.example_tokens),
    )
    st.caption(
        f"Each trained head's weights for the query {literal(TASK_TEXTS.query)} on one "
        "held-out sequence."
    )

    st.subheader(f"Across {SEEDS_ACROSS} seeds")
    seeds = list(range(seed, seed + SEEDS_ACROSS))
    across = (exp.settings_of(config), tuple(seeds))
    st.button(narration.seeds_label(seeds), key="wh_seeds", on_click=requested.add, args=(across,))
    if across not in requested:
        st.caption("One seed can be lucky or unlucky: train five to see the spread.")
        return Trained(seed, labels, comparison, None)
    summary = seed_summary([train_live(config, s, f"Seed {s}") for s in seeds])
    st.dataframe(
        pd.DataFrame(tables.seed_table(summary, labels)), hide_index=True, key="wh_seed_table"
    )
    show_chart(
        seed_spread(summary, labels, seeds, config.n_symbols),
        "wh_seed_spread",
        name="Accuracy of every seed, per variant",
        summary=narration.seed_spread_summary(summary, labels),
        table=tables.seed_accuracy_rows(summary, labels, seeds),
    )
    return Trained(seed, labels, comparison, summary)
