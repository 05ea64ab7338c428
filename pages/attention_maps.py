"""Attention maps: every head at a glance, one head large beside the mean of all heads,
BertViz-style lines, and a few numbers per head that say what kind of head it is. The
cross-attention, the large maps and the lines are drawn by ui/attention_maps/; every computed
sentence comes from attention/teaching/narration."""

import streamlit as st

from attention.analysis.head_metrics import summarise_heads
from attention.figures.attention_maps import MAX_GRID_CELLS, attention_grid
from attention.figures.tables import head_kind_table, maps_table
from attention.teaching.narration import attention_maps as narration
from ui.attention_maps.cross import cross_attention
from ui.attention_maps.lines import lines_section
from ui.attention_maps.one_head import one_head_large
from ui.attention_maps.shown import ShownMaps
from ui.charts import show_chart
from ui.media import narrow_screen
from ui.pooled_maps import maps_to_draw
from ui.sidebar import scenario_run, scenario_sidebar
from view_state import url_params

scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("Attention maps")
st.caption(run.source)

asked = st.segmented_control(
    "Attention: self (one sentence looks at itself) or cross (a second "
    "sentence's queries look at this one)",
    url_params.options("maps_kind"),
    default=url_params.default("maps_kind"),
    key="maps_kind",
    bind="query-params",
)
kind, why_not = narration.kind_shown(asked or url_params.default("maps_kind"), scenario.source)
if why_not:
    st.info(why_not)
if kind == "cross":
    second = st.text_input(
        "Second sentence (it asks the queries)",
        **url_params.bounds("maps_second"),
        key="maps_second",
        bind="query-params",
    )
    if not second.strip():
        st.info("The second sentence is empty: using the example until you type one.")
        second = url_params.default("maps_second")
    maps = cross_attention(scenario, second)
    # The sidebar's focus picks a token of the sentence; here the queries are the second
    # sentence's, so they get their own picker.
    focus = st.selectbox(
        "Focus query (a token of the second sentence; the sidebar's focus applies to "
        "self-attention)",
        range(len(maps.query_tokens)),
        format_func=lambda i: f"{i} · {maps.query_tokens[i]}",
        key="maps_cross_focus",
    )
else:
    maps = ShownMaps(run.trace, run.tokens, run.tokens, None, "query (row)", "key (column)")
    focus = min(scenario.focus, len(run.tokens) - 1)
    if scenario.causal:
        st.caption(
            "Grey cells are blocked by the causal mask: a token may not look at tokens "
            "after it, as in a decoder that has not produced them yet."
        )

st.subheader("All heads")
focus_rows = maps.trace.weights[:, focus]  # (heads, n_keys): the focus query's weights
show_chart(
    attention_grid(
        **maps_to_draw(
            maps.trace.weights,
            maps.query_tokens,
            maps.key_tokens,
            scores=maps.trace.scores,
            allowed=maps.trace.mask,
            self_attention=maps.is_self,
        ),
        titles=maps.head_titles,
        # panels wide enough for 16 token labels and titles; on a phone one per row
        columns=1 if narrow_screen() else min(maps.n_heads, 4),
        query_side=maps.query_side,
        key_side=maps.key_side,
        panel_px=280,
        colorbar_below=narrow_screen(),  # on a phone the maps take the whole width
    ),
    key="grid_chart",
    name="Attention maps of every head",
    summary=narration.grid_summary(
        maps.key_tokens, focus_rows, maps.query_tokens[focus], maps.head_names
    ),
    table=maps_table(
        maps.head_names,
        maps.query_tokens,
        maps.key_tokens,
        maps.trace.weights,
        focus,
        allowed=maps.trace.mask,
    ),
)
if note := narration.grid_pooled_note(len(maps.query_tokens), maps.is_self, MAX_GRID_CELLS):
    st.caption(note)

one_head_large(maps)
lines_section(maps, focus)

st.subheader("What kind of head is it?")
summary = summarise_heads(maps.trace.weights, focus, maps.trace.mask, square=maps.is_self)
st.dataframe(
    head_kind_table(summary, maps.query_tokens, maps.key_tokens, focus, maps.head_titles),
    width="stretch",
)
st.caption(
    "Entropy is 0 bits when every query looks at one key and log₂(number of keys) when "
    "it spreads evenly. The pattern names a positional habit (self, previous token, next "
    "token, first token) when it takes over half the weight, else says how spread the "
    "head is (focused, mixed, broad)."
)
