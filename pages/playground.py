"""Move the query yourself: the lecture's heads with 2-D query/key spaces, where the
student drags du's query (and, in a second mode, any key) and the browser redraws the
weights, the output ★ and the sentence at every frame; a finished drag reaches the server,
which checks the chosen challenge with the engine and keeps the positions in the link."""

import streamlit as st

from attention.teaching.challenges import CHALLENGES, check
from attention.teaching.narration.playground import verdict, weight_sentence
from attention.teaching.playground import head_trace
from ui.navigation import ensure_entry
from ui.playground import (
    current_heads,
    draw_page,
    model_playground,
    read_link,
    reset_positions,
    write_link,
)
from view_state import url_params

ensure_entry()
notices = read_link()
playground = model_playground()
st.title("Move the query yourself")
st.caption(
    "The lecture's heads in their own 2-D query/key spaces: every point is the model's "
    "number. Drag the query ● of “du”, or Tab to it and use the arrow keys (Shift: bigger "
    "steps); weights, ★ and sentence follow at every frame, the challenge is checked when "
    "you let go."
)
for notice in notices:
    st.info(notice)

with st.sidebar:
    # Each sidebar widget's default is the session's value: on a phone (the sidebar
    # collapsed), a loaded browser sometimes sent a widget's default back as its value at
    # the next rerun (the temperature dropped to its minimum under a touch drag).
    head_counts = list(url_params.whole_range("pg_heads"))
    st.radio(
        "Heads",
        head_counts,
        head_counts.index(st.session_state["pg_heads"]),
        key="pg_heads",
        horizontal=True,
    )
    st.slider(
        "Temperature T",
        **{**url_params.bounds("pg_temp"), "value": st.session_state["pg_temp"]},
        key="pg_temp",
        help="Scores are divided by T: below 1 sharpens the weights, above 1 flattens them.",
    )
    st.toggle("Drag the keys too", st.session_state["pg_keys"], key="pg_keys")
    st.button("Back to the model's positions", on_click=reset_positions)
    st.caption("The address bar holds this whole view: copy it to share or bookmark.")

picker, said = st.columns([2, 3])
picker.selectbox(
    "Challenge",
    [c.number for c in CHALLENGES],
    key="pg_challenge",
    format_func=lambda number: f"{number}. {CHALLENGES[number - 1].prompt}",
)
heads = current_heads(playground)
temperature = st.session_state["pg_temp"]
weights = [head_trace(h.query, h.keys, h.values, temperature).weights[0, 0] for h in heads]
outcome = check(st.session_state["pg_challenge"], playground.tokens, weights)
(said.success if outcome.met else said.info)(verdict(outcome))
draw_page(playground, heads)
st.caption(
    "As the server computed it after the last move: "
    + "; ".join(
        f"head {h}: {weight_sentence(playground.tokens, playground.query_index, w)}"
        for h, w in enumerate(weights, 1)
    )
    + "."
)
write_link()
