"""The pruning section of "Do we need all these heads?": heads switched off least
important first against random orders, computed once per server on request."""

from __future__ import annotations

import streamlit as st

from attention.analysis.heads_needed import (
    PRUNING_MEASURE_EVERY,
    PRUNING_RESCORE_EVERY,
    PRUNING_SEEDS,
    summarise_pruning,
)
from attention.analysis.pruning import curve_band
from attention.figures.heads_needed import pruning_figure
from attention.teaching.narration.heads_needed import (
    pruning_caption,
    pruning_sentence,
    pruning_summary,
)
from ui.charts import drawn_table, show_chart
from ui.heads_needed import switches
from ui.jobs import progress_bar, run_with_progress

DROP = 0.05  # "before accuracy drops by 5 points"
ASKED = "_heads_pruning_asked"
STAGES = ("least important first", "random orders")


def _ask() -> None:
    """Button callback: remember in the session that the curves were asked for."""
    st.session_state.setdefault(ASKED, set()).add(PRUNING_SEEDS)


def pruning_section(total_heads: int) -> None:
    """The curves and their sentence once asked for; until then, why they wait."""
    st.header("Pruning: how many heads can go?")
    st.caption(pruning_caption(PRUNING_RESCORE_EVERY, len(PRUNING_SEEDS), PRUNING_MEASURE_EVERY))
    st.button("Compute the pruning curves", key="heads_pruning_go", type="primary", on_click=_ask)
    if PRUNING_SEEDS not in st.session_state.get(ASKED, set()):
        st.info(
            "Pruning runs the task again for every head it ranks and every point it "
            "measures: it waits for the button."
        )
        return
    with progress_bar() as show:
        curve, random_curves = run_with_progress(
            switches.pruning_curves,
            PRUNING_RESCORE_EVERY,
            PRUNING_SEEDS,
            PRUNING_MEASURE_EVERY,
            on_progress=lambda stage, done, total: show(
                done / total, f"Pruning, {STAGES[stage]} ({stage + 1} of 2)…"
            ),
        )
    summary = summarise_pruning(curve, random_curves, total_heads, DROP)
    curves = pruning_figure(
        curve, curve_band(random_curves), len(random_curves), summary.by_importance, DROP
    )
    show_chart(
        curves,
        key="heads_pruning",
        name="Paraphrase accuracy as heads are switched off",
        summary=pruning_summary(summary, len(random_curves)),
        **drawn_table(curves),
    )
    st.markdown(pruning_sentence(summary))
