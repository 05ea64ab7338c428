"""Inside a real model: MiniLM's trained heads on the user's sentence — all heads as one
grid, one head large, role scores per head, and the tokens' path through the layers."""

import streamlit as st

from attention.figures.attention_maps import MAX_GRID_CELLS
from attention.teaching.narration import real_model as narration
from ui import data
from ui.charts import loading_plotly_meanwhile
from ui.pretrained import model_or_stop, reading_notice, run_real
from ui.real_model import heads_view, layer_paths_section, role_table_section
from ui.sidebar import scenario_sidebar

scenario = scenario_sidebar(text_only=True)
st.title("Inside a real model")
text = data.text_shown(scenario.text)

model = model_or_stop()
cfg = model.config
st.markdown(narration.model_sentence(cfg.name, cfg.layers, cfg.heads, cfg.d_model, cfg.d_head))
if model.files.is_default:
    st.caption("Weights and tokenizer checked against the official release's SHA-256.")

try:
    with loading_plotly_meanwhile():
        result = run_real(text)
except ValueError as error:
    st.error(str(error))
    st.stop()
trace, roles = result.trace, result.roles
n = len(trace.tokens)
if trace.notice:
    st.warning(trace.notice)
if reading := reading_notice(text, trace.tokens):
    st.info(reading)
token_list = narration.tokens_label(n)
if narration.tokens_folded(n, MAX_GRID_CELLS):
    with st.expander(token_list):
        st.text(" · ".join(trace.tokens))
else:
    st.markdown(token_list + ":")
    st.text(" · ".join(trace.tokens))

heads_view(trace, roles, cfg)

role_table_section(roles)
layer_paths_section(trace)
