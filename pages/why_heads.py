"""Why several heads? Five questions, each answered by something computed live: cost (§1),
one distribution per head (§2), the rank limit (§3), a model trained here (§4), and
whether heads slice the embedding (§5). §2–§4 are drawn by ui/sections; §4 hands what
it trained to §5; every computed sentence comes from attention/teaching/narration."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention import MultiHeadAttention
from attention.experiments.equal_cost import compare_layouts, cost_by_length, lengths_around
from attention.experiments.slicing import own_slice_share, slicing_matrices
from attention.figures import tables
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS, PHONE_TITLE_CHARS
from attention.figures.why_heads_cost import cost_bars, cost_by_length_chart
from attention.figures.why_heads_slicing import slice_share_chart, slicing_figure
from attention.teaching.narration import why_heads as narration
from ui.charts import drawn_table, show_chart
from ui.media import narrow_screen
from ui.sidebar import scenario_run, scenario_sidebar
from ui.why_heads.rank_limit import rank_limit
from ui.why_heads.training import SEEDS_ACROSS, Trained, train_and_compare
from ui.why_heads.two_targets import one_distribution_per_head


def same_cost(mha: MultiHeadAttention, n_tokens: int) -> None:
    """§1: h small heads cost what one big head costs; only the distributions grow."""
    st.header("1. Same cost, more questions")
    st.markdown(
        "Splitting d_model into h heads of d_model/h keeps the parameter count and the work "
        "the same as one big head; what grows is the number of attention distributions each "
        "query gets."
    )
    st.latex(
        r"{\text{params} = 4\,d_{\text{model}}\,(h\,d_{\text{head}})}\quad\allowbreak"
        r"{\text{scores: } h\,n^2 d_{\text{head}}} \\"
        r"{\xrightarrow{\;d_{\text{head}} = d_{\text{model}}/h\;}}\quad\allowbreak"
        r"{4\,d_{\text{model}}^2 \text{ and } n^2 d_{\text{model}}\text{ for every } h}"
    )
    try:
        layouts = compare_layouts(mha.d_model, mha.n_heads, n_tokens, bias=mha.bias)
    except ValueError as error:
        st.warning(f"No cost table for these knobs: {error}")
        return
    rows = tables.cost_table(layouts)
    numbers = {name: st.column_config.NumberColumn(format="localized") for name in rows[0]}
    del numbers["layout"]
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=numbers, key="wh_cost_table")
    lengths = lengths_around(n_tokens)
    left, right = st.columns(2)
    with left:
        show_chart(
            cost_bars(layouts, n_tokens, HALF_PAGE_TITLE_CHARS, upright=narrow_screen()),
            "wh_cost_bars",
            name="Parameters and multiply-adds of each layout",
            summary=narration.cost_summary(layouts, n_tokens),
            table=rows,
        )
    with right:
        table = cost_by_length(mha.d_model, mha.n_heads, lengths, bias=mha.bias)
        show_chart(
            cost_by_length_chart(table, lengths, n_tokens),
            "wh_cost_length",
            name="Multiply-adds against the sequence length",
            summary=narration.cost_length_summary(table, lengths, n_tokens),
            table=tables.series_rows(
                "n",
                lengths,
                {
                    f"{label}: {part}": values
                    for label, parts in table.items()
                    for part, values in (
                        ("total", parts["projection"] + parts["score"]),
                        ("scores", parts["score"]),
                    )
                },
            ),
        )
    st.caption(
        "MACs = multiply-adds. The score part (hatched) is the same for h heads × "
        "d_model/h and for one head × d_model (their lines lie on top of each other), and "
        "h times larger for h full-size heads; only the softmax exponentials (h·n²) grow "
        "with h."
    )


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


scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("Why several heads?")
st.caption(
    narration.scenario_caption(run.mha.d_model, run.mha.n_heads, run.mha.d_head, len(run.tokens))
)
same_cost(run.mha, len(run.tokens))
one_distribution_per_head(scenario, run)
rank_limit(scenario.seed, run.mha)
heads_read_the_whole_vector(run.mha, train_and_compare(scenario.seed))
