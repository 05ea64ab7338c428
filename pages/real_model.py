"""Inside a real model: MiniLM's trained heads on the user's sentence — all heads as one
grid, one head large, role scores per head, and the tokens' path through the layers."""

import numpy as np
import streamlit as st

from attention.analysis.head_metrics import describe_head, uniform_entropy_bits
from attention.analysis.head_roles import ENTROPY, ROLES
from attention.figures.attention_maps import MAX_GRID_CELLS
from attention.figures.real_model import (
    GRID_BLOCKS,
    MAX_NAMED_TOKENS,
    head_figure,
    head_grid_figure,
    layer_path_figure,
)
from attention.figures.tables import role_table
from attention.geometry.planes import hidden_state_paths
from attention.geometry.pooling import pool_attention
from attention.models.pretrained import ModelConfig, ModelTrace
from attention.teaching.wording import blocks_note
from ui.charts import loading_plotly_meanwhile, show_chart
from ui.real_model import model_or_stop, pretrained_model, run_real
from ui.sidebar import scenario_sidebar

NO_ROLE = "nothing (weights only)"


def _open_table_row() -> None:
    """A row clicked in the role table opens that head."""
    rows = st.session_state["real_table"].selection.rows
    if rows:
        layer, head = divmod(rows[0], pretrained_model().config.heads)
        st.session_state["real_layer"], st.session_state["real_head"] = layer + 1, head + 1


def grid_note(n: int, role: str | None) -> str:
    """The caption under the grid: how to read it, the pooling and the role frames."""
    note = (
        "Each small map: rows are queries, columns are keys, darker means more weight; "
        "hover for tokens and numbers. The framed map is the head opened below."
    )
    if n > GRID_BLOCKS:
        note += (
            f" Your text has {n} tokens, so each small map is simplified to "
            f"{blocks_note(n, GRID_BLOCKS)}; the large map below is full size."
        )
    if role is not None:
        note += (
            f" Frames and numbers above the maps: each head's “{role}” score; the frame "
            "colours run from 0 to the largest head's score."
        )
    return note


def _send_layer_to_head_spaces() -> None:
    st.session_state["source"] = "real"
    st.session_state["layer"] = st.session_state["real_layer"]
    st.session_state["_real_go"] = True


@st.fragment
def heads_view(trace: ModelTrace, roles: dict[str, np.ndarray], cfg: ModelConfig) -> None:
    """The grid, the opened head up close and the way to Head spaces: their controls
    (role colouring, layer, head, stretch) rerun only this part of the page."""
    st.header(f"All {cfg.layers * cfg.heads} heads at once")
    pick_role, pick_layer, pick_head = st.columns([2, 1, 1])
    role = pick_role.selectbox(
        "Colour the grid by a role",
        [NO_ROLE, *ROLES, ENTROPY],
        key="real_role",
        bind="query-params",
    )
    layer = pick_layer.selectbox(
        "Open layer", range(1, cfg.layers + 1), key="real_layer", bind="query-params"
    )
    head = pick_head.selectbox(
        "Open head", range(1, cfg.heads + 1), key="real_head", bind="query-params"
    )
    role = None if role == NO_ROLE else role
    show_chart(
        head_grid_figure(
            pool_attention(trace.attentions, GRID_BLOCKS),
            trace.tokens,
            selected=(layer - 1, head - 1),
            role=role,
            role_values=None if role is None else roles[role],
        ),
        key="real_grid",
    )
    st.caption(grid_note(len(trace.tokens), role))
    close_up(trace, roles, layer, head)
    st.header("Look inside one layer")
    st.markdown(
        f"The **Head spaces** page can show layer {layer}'s {cfg.heads} trained heads: its "
        "input vectors projected into each head's query/key space."
    )
    st.button(
        f"Open layer {layer} in Head spaces",
        key="real_to_head_spaces",
        on_click=_send_layer_to_head_spaces,
    )
    if st.session_state.pop("_real_go", False):
        st.switch_page("pages/head_spaces.py", query_params={"source": "real", "layer": str(layer)})


def close_up(trace: ModelTrace, roles: dict[str, np.ndarray], layer: int, head: int) -> None:
    """One head's full-size map (1-based layer and head) beside its pattern and scores."""
    n = len(trace.tokens)
    st.header(f"Layer {layer} · head {head} up close")
    big, facts = st.columns([2, 1])
    weights = trace.attentions[layer - 1, head - 1]
    stretch = facts.toggle(
        "Stretch the colours to this head's largest weight",
        key="real_stretch",
        bind="query-params",
        help="Long texts spread attention thin: on the shared 0–1 scale most cells look white.",
    )
    show_chart(
        head_figure(weights, trace.tokens, layer - 1, head - 1, stretch=stretch),
        key="real_head_map",
        container=big,
    )
    facts.markdown(f"**Pattern:** {describe_head(weights)}")
    scores = {name: values[layer - 1, head - 1] for name, values in roles.items()}
    facts.markdown(
        "\n".join(f"- {name}: **{scores[name]:.0%}** of its attention" for name in ROLES)
        + f"\n- entropy: **{scores[ENTROPY]:.2f} bits** (spread evenly over all {n} tokens "
        f"it would be {uniform_entropy_bits(n):.2f} bits)"
    )


scenario = scenario_sidebar(text_only=True)
st.title("Inside a real model")

model = model_or_stop()
cfg = model.config
st.markdown(
    f"**{cfg.name}** is a trained BERT encoder: {cfg.layers} layers × {cfg.heads} heads, "
    f"d_model = {cfg.d_model}, d_head = {cfg.d_head}. Every map below is computed in NumPy "
    "by the same attention engine as the other pages, with the model's real weights."
)
if model.files.is_default:
    st.caption("Weights and tokenizer checked against the official release's SHA-256.")

try:
    with loading_plotly_meanwhile():
        result = run_real(scenario.text)
except ValueError as error:
    st.error(str(error))
    st.stop()
trace, roles = result.trace, result.roles
n = len(trace.tokens)
if trace.notice:
    st.warning(trace.notice)
token_list = f"**{n} WordPiece tokens** (the model's own pieces, with `[CLS]` and `[SEP]`)"
if n <= MAX_GRID_CELLS:
    st.markdown(token_list + ":")
    st.text(" · ".join(trace.tokens))
else:
    with st.expander(token_list):
        st.text(" · ".join(trace.tokens))

heads_view(trace, roles, cfg)

st.header("What each head does")
st.caption(
    "Role scores as in studies of BERT's heads (Clark et al., 2019, “What Does BERT Look "
    "At?”): the average share of a query's attention on the previous token, the next "
    "token, itself, [CLS], [SEP] and punctuation, and the entropy of its weights "
    "(0 bits = each query looks at one token). Click a column to sort, a row to open "
    "that head."
)
share = {"format": "percent", "min_value": 0.0, "max_value": 1.0}
st.dataframe(
    role_table(roles),
    hide_index=True,
    height=420,
    key="real_table",
    on_select=_open_table_row,
    selection_mode="single-row",
    column_config={
        **{name: st.column_config.ProgressColumn(name, **share) for name in ROLES},
        ENTROPY: st.column_config.NumberColumn(ENTROPY, format="%.2f"),
    },
)

st.header("How each layer moves the tokens")
show_chart(
    layer_path_figure(hidden_state_paths(trace.hidden_states), trace.tokens), key="real_paths"
)
st.caption(
    "Every token's vector after the embeddings and after each layer, all projected by one "
    "PCA so the moves are comparable; the grey line joins one token's positions. "
    + (
        "Tokens are named at their embedding point."
        if n <= MAX_NAMED_TOKENS
        else "Hover for the token."
    )
)
