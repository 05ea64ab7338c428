""" "Why several heads?" §5: every head's W_Q reads the whole vector (it has a row for every
coordinate), what slicing the embedding would look like, and what it costs in §4's training."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention import MultiHeadAttention
from attention.experiments.slicing import own_slice_share, slicing_matrices
from attention.figures import tables
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.why_heads_slicing import slice_share_chart, slicing_figure
from attention.teaching.narration import why_heads as narration
from ui.charts import drawn_table, show_chart
from ui.media import narrow_screen
from ui.why_heads.training import SEEDS_ACROSS, Trained


def heads_read_the_whole_vector(mha: MultiHeadAttention, trained: Trained | None) -> None:
    """§5: every head's W_Q has a row for every coordinate; what slicing would cost."""
    st.header("5. Heads read the whole vector")
    st.markdown(
        "A common picture is that head i reads its own slice of the embedding. It does not: "
        "W_Q (like W_K and W_V) has a row for every input coordinate in every head's block "
        "of columns, so each head projects the **whole** vector."
    )
    st.latex(
        r"\begin{gathered}q^{(i)} = x\,W_Q^{(i)} = \sum_{j=1}^{d_{\text{model}}} x_j\,"
        r" W_Q^{(i)}[j,:] \\ \text{slicing would zero every row } j \notin \text{slice } i"
        r"\end{gathered}"
    )
    if not narration.slices_drawable(mha.n_heads, mha.d_model):
        st.warning("With more heads than d_model coordinates there are no slices to draw.")
    else:
        # Full width, but its two panels are narrower than half the page each (the axis
        # labels and colour bar take the rest): half the page's title characters fit them.
        matrices = slicing_matrices(mha.w_q)
        slicing = slicing_figure(
            *matrices,
            mha.n_heads,
            PHONE_TITLE_CHARS if narrow_screen() else HALF_PAGE_TITLE_CHARS,
            columns=1 if narrow_screen() else 2,
        )
        show_chart(
            slicing,
            "wh_slicing",
            name="W_Q as it is beside W_Q if heads sliced the embedding",
            summary=narration.slicing_summary(*matrices, mha.n_heads),
            **drawn_table(slicing),
        )
        shares = {"W_Q of the sidebar's heads": mha.w_q}
        if trained is not None:
            split = trained.comparison.results["split"].model.attention.w_q
            shares["W_Q of §4's trained (b) heads"] = split
        shares = {name: own_slice_share(w_q) for name, w_q in shares.items()}
        show_chart(
            slice_share_chart(shares),
            "wh_slice_share",
            name="Share of each head's W_Q weight in its own slice",
            summary=narration.slice_share_summary(shares),
            table=tables.slice_share_rows(shares),
        )
    if trained is None:
        st.caption("Train the variants in §4 to see what reading only a slice costs.")
        return
    if trained.summary is not None:
        rows = tables.seed_table(trained.summary, trained.labels)
    else:
        rows = tables.comparison_table(trained.comparison)
    across = SEEDS_ACROSS if trained.summary is not None else None
    st.markdown(narration.slice_cost_intro(trained.seed, across))
    st.dataframe(
        pd.DataFrame(tables.slice_rows(rows, trained.labels)),
        hide_index=True,
        key="wh_slice_numbers",
    )
