"""The Attention maps page's cross-attention: the second sentence's queries on the
sentence's keys, with the sidebar source's heads or the block page's hand-built
translation heads, and a caption saying what the weights are."""

from __future__ import annotations

import streamlit as st

from attention.teaching.narration import attention_maps as narration
from ui import data
from ui.attention_maps.shown import ShownMaps
from ui.translation import translation_cross
from view_state import url_params
from view_state.scenario import Scenario

CROSS_SIDES = ("query side: second sentence", "key side: the sentence")
TRANSLATION_CAPTION = (
    "Weights: the hand-built English → German model of “The block around attention” "
    "(§3); the sidebar's knobs do not change its fixed heads. The second sentence asks, "
    "after the decoder's start token `<s>`; the sentence answers through the encoder. "
    "These heads were built to align the translation: the block page lists what each "
    "one does to every word."
)


def cross_attention(scenario: Scenario, second: str) -> ShownMaps:
    """Cross-attention from the second sentence to the sentence: with the translation
    heads when chosen and both sentences are in their vocabulary, else with the sidebar
    source's heads."""
    choice = st.segmented_control(
        "Weights",
        url_params.options("maps_cross_weights"),
        default=url_params.default("maps_cross_weights"),
        key="maps_cross_weights",
        bind="query-params",
    )
    if choice == narration.TRANSLATION_WEIGHTS:
        try:
            crossed = translation_cross(data.shown_text(scenario.text), second)
        except ValueError as error:
            st.warning(narration.translation_fallback(str(error)))
        else:
            st.caption(TRANSLATION_CAPTION)
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
    st.caption(
        narration.cross_weights_caption(
            scenario.source, scenario.seed, scenario.layer, scenario.causal
        )
    )
    return ShownMaps(cross.trace, cross.query_tokens, cross.key_tokens, None, *CROSS_SIDES)
