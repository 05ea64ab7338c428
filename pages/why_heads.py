"""Why several heads? Five questions, each answered by something computed live: cost (§1),
one distribution per head (§2), the rank limit (§3), a model trained here (§4), and
whether heads slice the embedding (§5). Each section is drawn by ui/why_heads/; §4 hands what
it trained to §5; every computed sentence comes from attention/teaching/narration."""

from __future__ import annotations

import streamlit as st

from attention.teaching.narration import why_heads as narration
from ui.sidebar import scenario_run, scenario_sidebar
from ui.why_heads.cost import same_cost
from ui.why_heads.rank_limit import rank_limit
from ui.why_heads.slicing import heads_read_the_whole_vector
from ui.why_heads.training import train_and_compare
from ui.why_heads.two_targets import one_distribution_per_head

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
