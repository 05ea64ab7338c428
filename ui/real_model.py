"""The sections of "Inside a real model": all 72 heads at a glance with their role scores,
one head close up, and the links that carry a head to the other pages."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.analysis.head_metrics import describe_head
from attention.analysis.head_roles import ENTROPY, ROLES
from attention.figures.real_model import (
    GRID_BLOCKS,
    MAX_NAMED_TOKENS,
    head_figure,
    head_grid_figure,
    layer_path_figure,
)
from attention.figures.tables import head_score_rows, maps_table, role_table
from attention.geometry.planes import hidden_state_paths
from attention.geometry.pooling import pool_attention
from attention.models.pretrained import ModelConfig, ModelTrace
from attention.teaching.narration import real_model as narration
from attention.teaching.narration.charts import map_summary
from ui.charts import drawn_table, show_chart
from ui.media import narrow_screen
from ui.pretrained import pretrained_model
from view_state import url_params


def _open_table_row() -> None:
    """A row clicked in the role table opens that head."""
    rows = st.session_state["real_table"].selection.rows
    if rows:
        layer, head = divmod(rows[0], pretrained_model().config.heads)
        st.session_state["real_layer"], st.session_state["real_head"] = layer + 1, head + 1


def _send_layer_to_head_spaces() -> None:
    st.session_state["source"] = "real"
    st.session_state["layer"] = st.session_state["real_layer"]
    st.session_state["_real_go"] = True


@st.fragment
def heads_view(trace: ModelTrace, roles: dict[str, np.ndarray], cfg: ModelConfig) -> None:
    """The grid, the opened head up close and the way to Head spaces: their controls
    (role colouring, layer, head, stretch) rerun only this part of the page."""
    st.header(narration.all_heads_title(cfg.layers, cfg.heads))
    pick_role, pick_layer, pick_head = st.columns([2, 1, 1])
    role = pick_role.selectbox(
        "Colour the grid by a role",
        url_params.options("real_role"),
        key="real_role",
        bind="query-params",
    )
    layer = pick_layer.selectbox(
        "Open layer", url_params.whole_range("real_layer"), key="real_layer", bind="query-params"
    )
    head = pick_head.selectbox(
        "Open head", url_params.whole_range("real_head"), key="real_head", bind="query-params"
    )
    role = None if role == url_params.NO_ROLE else role
    # Named in the text and table: the role the grid is coloured by, else how focused.
    score_name = role or ENTROPY
    show_chart(
        head_grid_figure(
            pool_attention(trace.attentions, GRID_BLOCKS),
            trace.tokens,
            selected=(layer - 1, head - 1),
            role=role,
            role_values=None if role is None else roles[role],
            narrow=narrow_screen(),
        ),
        key="real_grid",
        name=narration.all_heads_title(cfg.layers, cfg.heads),
        summary=narration.head_grid_summary(
            score_name, roles[score_name], highest=role is not None
        ),
        table=head_score_rows(roles[score_name], score_name),
    )
    st.caption(
        narration.grid_note(len(trace.tokens), role, GRID_BLOCKS, numbers=not narrow_screen())
    )
    close_up(trace, roles, layer, head)
    st.header("Look inside one layer")
    st.markdown(narration.head_spaces_link(layer, cfg.heads))
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
        "Colours up to its top weight",  # short: a third of the page wide, never cut
        **url_params.bounds("real_stretch"),
        key="real_stretch",
        bind="query-params",
        help="Stretch the colour scale to this head's largest weight instead of 1. Long "
        "texts spread attention thin: on the shared 0–1 scale most cells look white.",
    )
    title = f"layer {layer} · head {head}"
    show_chart(
        head_figure(weights, trace.tokens, layer - 1, head - 1, stretch=stretch),
        key="real_head_map",
        container=big,
        name=f"Attention map of {title}",
        summary=map_summary(title, trace.tokens, trace.tokens, weights),
        table=maps_table([title], trace.tokens, trace.tokens, weights[None]),
    )
    facts.markdown(f"**Pattern:** {describe_head(weights)}")
    scores = {name: values[layer - 1, head - 1] for name, values in roles.items()}
    facts.markdown(narration.role_scores({r: scores[r] for r in ROLES}, scores[ENTROPY], n))


def role_table_section(roles: dict[str, np.ndarray]) -> None:
    """Every head's role scores in one sortable table; a row opens that head."""
    st.header("What each head does")
    st.caption(
        "Role scores as in studies of BERT's heads (Clark et al., 2019, “What Does BERT Look "
        "At?”): the average share of a query's attention on the previous token, the next "
        "token, itself, [CLS], [SEP] and punctuation, and the entropy of its weights "
        "(0 bits = each query looks at one token). Click a column to sort, a row to open "
        "that head."
    )
    st.caption(narration.roles_overlap(roles))
    share = {"format": "percent", "min_value": 0.0, "max_value": 1.0}
    SHORT_HEADERS = {"previous token": "previous", "next token": "next", "punctuation": "punct."}
    st.dataframe(
        role_table(roles),
        hide_index=True,
        height=420,
        key="real_table",
        on_select=_open_table_row,
        selection_mode="single-row",
        column_config={  # narrow columns: all of them fit beside the sidebar at 1280 px
            "layer": st.column_config.NumberColumn("layer", width=48),
            "head": st.column_config.NumberColumn("head", width=48),
            "strongest role": st.column_config.TextColumn("strongest role", width=110),
            **{
                name: st.column_config.ProgressColumn(
                    SHORT_HEADERS.get(name, name), width=76, help=f"Share on: {name}", **share
                )
                for name in ROLES
            },
            ENTROPY: st.column_config.NumberColumn(
                "entropy",
                format="%.2f",
                width=70,
                help=f"{ENTROPY}: 0 = each query looks at one token",
            ),
        },
    )


def layer_paths_section(trace: ModelTrace) -> None:
    """The tokens' path through the layers, in the 2-D plane that keeps most of it."""
    n = len(trace.tokens)
    st.header("How each layer moves the tokens")
    paths = hidden_state_paths(trace.hidden_states)
    paths_chart = layer_path_figure(paths, trace.tokens)
    show_chart(
        paths_chart,
        key="real_paths",
        name="How each layer moves the tokens",
        summary=narration.paths_summary(trace.tokens, paths.coords),
        **drawn_table(paths_chart),
    )
    st.caption(narration.paths_caption(n, MAX_NAMED_TOKENS))
