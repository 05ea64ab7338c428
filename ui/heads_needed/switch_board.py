"""The switches of "Do we need all these heads?": one row of head pills per layer, and
buttons that switch a whole layer off, keep one head per layer, or turn every head on."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.models.pretrained import ModelConfig
from ui.heads_needed import switches as hn


def switch_board(mask: np.ndarray, cfg: ModelConfig) -> None:
    """Every head's switch (a highlighted number is on) and the shortcuts below them."""
    st.header("Switch heads off")
    st.caption(
        "Each row is a layer; a highlighted number is a head that is on. Click to switch a "
        "head off or on. The address bar keeps the switches, so the link reopens them."
    )
    hn.prepare_pills(mask)
    for layer in range(1, cfg.layers + 1):
        name, switches = st.columns([1, 11], vertical_alignment="center")
        name.markdown(f"**Layer {layer}**")
        switches.pills(
            f"Heads on in layer {layer}",
            list(range(1, cfg.heads + 1)),
            selection_mode="multi",
            key=hn.PILLS.format(layer),
            on_change=hn.read_pills,
            label_visibility="collapsed",
        )
    pick_layer, layer_button, pick_head, head_button, reset_button = st.columns(
        [1, 1.4, 1, 2.2, 1.4], vertical_alignment="bottom"
    )
    layer_k = pick_layer.selectbox("Layer", range(1, cfg.layers + 1), key="heads_pick_layer")
    layer_button.button(
        f"Switch layer {layer_k} off", key="heads_layer_off", on_click=hn.switch_layer_off,
        args=(layer_k,),
    )  # fmt: skip
    head_k = pick_head.selectbox("Head", range(1, cfg.heads + 1), key="heads_pick_head")
    head_button.button(
        f"Keep only head {head_k} of every layer", key="heads_only", on_click=hn.keep_only_head,
        args=(head_k,),
    )  # fmt: skip
    reset_button.button("Every head on", key="heads_reset", on_click=hn.reset)
