"""Do we need all these heads? Switch MiniLM's heads off and watch the sentence embedding
and a paraphrase task, rank the heads by importance, prune them against random orders,
and follow attention through the layers with rollout."""

import streamlit as st

from attention.teaching.markdown import literal
from attention.teaching.narration import heads_needed as narration
from ui import data
from ui.heads_needed import switches
from ui.heads_needed.effect import effect_section
from ui.heads_needed.importance import importance_section
from ui.heads_needed.pruning import pruning_section
from ui.heads_needed.rollout import rollout_section
from ui.heads_needed.switch_board import switch_board
from ui.pretrained import model_or_stop, reading_notice, run_real
from ui.sidebar import scenario_sidebar

scenario = scenario_sidebar(text_only=True)
st.title("Do we need all these heads?")
text = data.text_shown(scenario.text)
model = model_or_stop()
cfg = model.config
total = cfg.layers * cfg.heads
st.markdown(narration.intro_sentence(cfg.name, total))
try:
    result = run_real(text)
except ValueError as error:
    st.error(literal(str(error)))
    st.stop()
trace = result.trace
if trace.notice:
    st.warning(trace.notice)
if reading := reading_notice(text, trace.tokens):
    st.info(reading)

mask = switches.current_mask()
if notice := switches.url_notice():
    st.warning(notice)
switches.write_url(mask)
switch_board(mask, cfg)

effect_section(text, trace.tokens, mask)
importance_section(text, mask, result.roles)
pruning_section(total)
rollout_section(trace, scenario.focus)
