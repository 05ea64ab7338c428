""" "Why several heads?" §1: h heads of d_model/h cost what one head of d_model costs (parameters
and multiply-adds, measured for the sidebar's sizes); only the number of distributions grows."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention import MultiHeadAttention
from attention.experiments.equal_cost import compare_layouts, cost_by_length, lengths_around
from attention.figures import tables
from attention.figures.base.grid import HALF_PAGE_TITLE_CHARS
from attention.figures.why_heads_cost import cost_bars, cost_by_length_chart
from attention.teaching.narration import why_heads as narration
from ui.charts import show_chart
from ui.media import narrow_screen


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
