"""Attention maps: every head at a glance, one head large beside the mean of all heads,
BertViz-style lines, and a few numbers per head that say what kind of head it is."""

import streamlit as st

from attention.analysis.head_metrics import head_mean, summarise_heads
from attention.figures.attention_maps import (
    LARGE_MAP_CELLS,
    MAX_GRID_CELLS,
    attention_grid,
    attention_lines,
)
from attention.figures.tables import head_kind_table
from attention.teaching.sentences import DEFAULT_SECOND_TEXT
from attention.teaching.wording import blocks_note
from ui import data
from ui.charts import show_chart
from ui.markdown import literal
from ui.scenario import Scenario
from ui.shown_maps import ShownMaps
from ui.sidebar import scenario_run, scenario_sidebar
from ui.translation import translation_cross

MAX_ALL_LINES_TOKENS = 64  # past this, every query's lines would be an unreadable mesh

SOURCE_WEIGHTS = "the sidebar source's heads"
TRANSLATION_WEIGHTS = "hand-built translation heads"


CROSS_SIDES = ("query side: second sentence", "key side: the sentence")


def _cross_attention(scenario: Scenario, second: str) -> ShownMaps:
    """Cross-attention from the second sentence to the sentence: with the sidebar source's
    heads, or with the hand-built translation heads of the block page when chosen and both
    sentences are in their vocabulary. A caption says what the weights are and whether to
    expect alignment."""
    choice = st.segmented_control(
        "Weights",
        [SOURCE_WEIGHTS, TRANSLATION_WEIGHTS],
        default=SOURCE_WEIGHTS,
        key="maps_cross_weights",
        bind="query-params",
    )
    if choice == TRANSLATION_WEIGHTS:
        english = data.shown_text(scenario.text)
        try:
            crossed = translation_cross(english, second)
        except ValueError as error:
            st.warning(f"{literal(str(error))} Showing {SOURCE_WEIGHTS} instead.")
        else:
            st.caption(
                "Weights: the hand-built English → German model of “The block around "
                "attention” (§3); the sidebar's knobs do not change its fixed heads. The "
                "second sentence asks, after the decoder's start token `<s>`; the sentence "
                "answers through the encoder. These heads were built to align the "
                "translation: the block page lists what each one does to every word."
            )
            return ShownMaps(
                crossed.trace,
                crossed.query_tokens,
                crossed.key_tokens,
                crossed.titles,
                *CROSS_SIDES,
            )
    cross = data.cross_run(scenario, second)
    for notice in cross.notices:
        st.info(notice)
    weights_are = (
        f"random (seed {scenario.seed})"
        if scenario.source == "toy"
        else f"MiniLM layer {scenario.layer}'s, trained for self-attention within one text"
    )
    st.caption(
        "Rows are the second sentence's tokens asking; columns are the first sentence's "
        f"tokens answering. The weights are {weights_are}: nothing in them pairs a word "
        "with its translation, so no alignment is expected; choose the "
        f"{TRANSLATION_WEIGHTS} for heads built to align. "
        + (
            "The causal mask is off here: it only makes sense within one sequence."
            if scenario.causal
            else ""
        )
    )
    return ShownMaps(cross.trace, cross.query_tokens, cross.key_tokens, None, *CROSS_SIDES)


@st.fragment
def one_head_large(maps: ShownMaps) -> None:
    """One head large beside the mean of all heads; a fragment, so picking
    another head reruns this section alone."""
    n_heads, trace = maps.n_heads, maps.trace
    st.subheader("One head large, beside the mean of all heads")
    head = (
        st.select_slider(
            "Head to enlarge",
            range(1, n_heads + 1),
            key=f"maps_head_{n_heads}",
            bind="query-params",
        )
        - 1
    )
    square = {
        "columns": 1,
        "query_side": maps.query_side,
        "key_side": maps.key_side,
        "panel_px": 400,  # a square map is as wide as its half column allows
        "max_cells": LARGE_MAP_CELLS,
        "square_cells": True,
        "self_attention": maps.is_self,
    }
    big, mean = st.columns(2)
    with big:
        show_chart(
            attention_grid(
                trace.weights[head : head + 1],
                maps.query_tokens,
                maps.key_tokens,
                scores=trace.scores[head : head + 1],
                allowed=trace.mask,
                titles=[maps.head_titles[head] if maps.head_titles else f"head {head + 1}"],
                **square,
            ),
            key="big_chart",
        )
    with mean:
        show_chart(
            attention_grid(
                head_mean(trace.weights),
                maps.query_tokens,
                maps.key_tokens,
                allowed=trace.mask,
                titles=["mean of all heads"],
                head_colors=False,
                **square,
            ),
            key="mean_chart",
        )
    n = len(maps.query_tokens)
    if maps.is_self and n > LARGE_MAP_CELLS:
        st.caption(
            f"Your text has {n} tokens: both maps are drawn in "
            f"{blocks_note(n, LARGE_MAP_CELLS)}; hover names each block's tokens."
        )


@st.fragment
def lines_section(maps: ShownMaps, focus: int) -> None:
    """BertViz-style lines for the chosen heads; a fragment, so choosing heads
    reruns this section alone."""
    n_heads, q_tokens = maps.n_heads, maps.query_tokens
    st.subheader("Lines, as in BertViz")
    st.caption(
        "One colour per head; a line's width and opacity are its weight "
        "(lines under 0.02 are left out)."
    )
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    with left:
        shown = st.pills(
            "Heads drawn (click to add or remove)",
            range(1, n_heads + 1),
            selection_mode="multi",
            default=list(range(1, min(n_heads, 4) + 1)),
            key=f"maps_line_heads_{n_heads}",
            bind="query-params",
        )
    many = len(q_tokens) > MAX_ALL_LINES_TOKENS
    with right:
        only_focus = (
            st.toggle(
                f"Only the focus token ({literal(q_tokens[focus])})",
                value=len(q_tokens) > 24,
                key="maps_only_focus",
                bind="query-params",
                disabled=many,
                help=f"Over {MAX_ALL_LINES_TOKENS} tokens only the focus token's lines are drawn."
                if many
                else None,
            )
            or many
        )
    with st.columns([1, 4, 1])[1]:
        if shown:
            show_chart(
                attention_lines(
                    maps.trace.weights,
                    q_tokens,
                    maps.key_tokens,
                    [h - 1 for h in shown],
                    focus=focus if only_focus else None,
                    query_side=maps.query_side.split(":")[0],
                    key_side=maps.key_side.split(":")[0],
                ),
                key="lines_chart",
            )
        else:
            st.info("Pick at least one head to draw its lines.")


scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("Attention maps")
st.caption(run.source)

kind = (
    st.segmented_control(
        "Attention: **self** (one sentence looks at itself) or **cross** (a second "
        "sentence's queries look at this one)",
        ["self", "cross"],
        default="self",
        key="maps_kind",
        bind="query-params",
    )
    or "self"
)
if kind == "cross" and scenario.source == "trained":
    st.info(
        "Cross-attention needs a second sentence in the same space: the trained model only "
        "knows its task's symbols. Showing self-attention; switch the source to toy or real "
        "for cross-attention."
    )
    kind = "self"
if kind == "cross":
    second = st.text_input(
        "Second sentence (it asks the queries)",
        DEFAULT_SECOND_TEXT,
        key="maps_second",
        max_chars=2000,
        bind="query-params",
    )
    if not second.strip():
        st.info("The second sentence is empty: using the example until you type one.")
        second = DEFAULT_SECOND_TEXT
    maps = _cross_attention(scenario, second)
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

n_tokens = len(maps.query_tokens)
st.subheader("All heads")
show_chart(
    attention_grid(
        maps.trace.weights,
        maps.query_tokens,
        maps.key_tokens,
        scores=maps.trace.scores,
        allowed=maps.trace.mask,
        titles=maps.head_titles,
        columns=min(maps.n_heads, 4),  # panels wide enough for 16 token labels and titles
        query_side=maps.query_side,
        key_side=maps.key_side,
        panel_px=280,
        self_attention=maps.is_self,
    ),
    key="grid_chart",
)
if maps.is_self and n_tokens > MAX_GRID_CELLS:
    st.caption(
        f"Your text has {n_tokens} tokens: each map above is drawn in "
        f"{blocks_note(n_tokens, MAX_GRID_CELLS)}; the head enlarged below shows more."
    )

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
