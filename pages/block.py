"""The block around attention: what W_O, the residual stream and the feed-forward layer
do to each token; why the residual matters (rank collapse); and self, causal and cross
attention in a small hand-built translation example. Each section is drawn by ui/block/;
every computed sentence comes from attention/teaching/narration."""

import streamlit as st

from ui import data
from ui.block.anatomy import in_a_trained_model, what_the_block_does
from ui.block.residual import why_the_residual_matters
from ui.block.translation import three_attentions
from ui.sidebar import scenario_run, scenario_sidebar

scenario = scenario_sidebar()
run = scenario_run(scenario)
st.title("The block around attention")
st.markdown(
    "Attention never works alone. Its heads' outputs are glued together and mixed by "
    "$W_O$, **added** to a residual stream that carries each token's vector from layer to "
    "layer, and then a feed-forward network works on every token separately."
)
st.markdown(  # the page is long (about 11,000 px): a way to each section
    "On this page: [1 · What one block does](#what-one-block-does) · "
    "[2 · Why the residual stream matters](#residual) · "
    "[3 · Three attentions in a translation](#three-attentions)"
)
what_the_block_does(scenario, run)
in_a_trained_model(data.shown_text(scenario.text))
why_the_residual_matters(scenario, run)
three_attentions()
