"""The shared sidebar: one function every page calls first. It draws the scenario's
widgets, keeps them in the URL (so a link reopens the exact view) and returns the
scenario with its computed run."""

from __future__ import annotations

import dataclasses

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from attention.experiments.training.train import TrainingConfig
from ui import data
from ui.scenario import (
    D_MODEL_CHOICES,
    MAX_FOCUS,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    REAL_LAYERS,
    SOURCES,
    TEMPERATURE_RANGE,
    Scenario,
    parse_query,
    to_query,
)

FIELDS = [f.name for f in dataclasses.fields(Scenario)]
_URL_READ = "_scenario_url_read"
_NOTICES = "_scenario_notices"


def _run_through_app_entry() -> None:
    """Make sure app.py (navigation, wide layout, theme) runs around this page.

    While no session has called st.navigation yet, Streamlit treats a `pages/` folder
    the legacy way: a first request for /head_spaces on a fresh server would run the
    page file alone. Leaving that mode and rerunning sends the request through app.py.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def _focus_last_token_when_trained() -> None:
    """The trained model only ever answers at its last token: focus there."""
    if st.session_state["source"] == "trained":
        st.session_state["focus"] = MAX_FOCUS


def _read_url_once() -> None:
    """On a session's first run, load the URL's scenario into the widgets' state."""
    if st.session_state.get(_URL_READ):
        return
    scenario, notices = parse_query(st.query_params.to_dict())
    for name in FIELDS:
        st.session_state[name] = getattr(scenario, name)
    st.session_state[_NOTICES] = notices
    st.session_state[_URL_READ] = True


def _keep_state_across_pages() -> None:
    """Re-assign widget values so Streamlit keeps them when the page changes."""
    for name in FIELDS:
        if name in st.session_state:
            st.session_state[name] = st.session_state[name]


def _fixed_knobs(d_model: int, heads: int, d_head: int, why: str) -> None:
    """Show the engine knobs a source fixes, disabled, so nothing seems to vanish."""
    st.caption(why)
    st.select_slider("d_model", [d_model], value=d_model, key="_fixed_d_model", disabled=True)
    st.slider("Heads", 1, max(heads, 2), value=heads, key="_fixed_heads", disabled=True)
    st.select_slider("d_head", [d_head], value=d_head, key="_fixed_d_head", disabled=True)


def _engine_knobs(source: str) -> None:
    if source == "real":
        _fixed_knobs(384, 12, 32, "MiniLM's sizes are fixed by its training:")
        return
    if source == "trained":
        config = TrainingConfig()
        d_head = config.d_model // config.n_heads
        _fixed_knobs(config.d_model, config.n_heads, d_head, "Sizes of page 3's small model:")
        st.number_input("Seed (training run)", 0, MAX_SEED, step=1, key="seed")
        return
    st.select_slider(
        "d_model (embedding width)",
        D_MODEL_CHOICES,
        key="d_model",
        help="Width of every token vector entering attention.",
    )
    st.slider("Heads", 1, MAX_HEADS, key="heads")
    st.toggle("Full-size heads (d_head = d_model)", key="full")
    d_model = st.session_state["d_model"]
    if st.session_state["d_head"] > d_model:
        st.session_state["d_head"] = 0
    st.select_slider(
        "d_head (per head)",
        options=range(d_model + 1),
        key="d_head",
        format_func=lambda v: "auto" if v == 0 else str(v),
        disabled=st.session_state["full"],
        help="auto = d_model / heads, rounded down when it does not divide.",
    )
    st.number_input("Seed (random weights)", 0, MAX_SEED, step=1, key="seed")
    st.toggle(
        "Add position vectors",
        key="positions",
        help="Toy points = word vector + ½ · sinusoidal position vector.",
    )


def _write_url(scenario: Scenario) -> None:
    """Put the scenario's non-default values in the URL, leaving other parameters (page
    widgets bound to the URL) alone."""
    query = to_query(scenario)
    for name in FIELDS:
        if name in query:
            if st.query_params.get(name) != query[name]:
                st.query_params[name] = query[name]
        elif name in st.query_params:
            del st.query_params[name]


def _knobs(uses_source: bool) -> Scenario:
    """The scenario's widgets, top to bottom; returns the scenario they set (focus aside)."""
    source = st.session_state["source"]
    st.text_area(
        "Sentence",
        key="text",
        max_chars=MAX_TEXT_CHARS,
        height=90,
        disabled=uses_source and source == "trained",
        help="The trained source shows its own task's sequence instead.",
    )
    st.radio(
        "Points and weights",
        list(SOURCES),
        format_func=SOURCES.get,
        key="source",
        on_change=_focus_last_token_when_trained,
    )
    if source == "real":
        st.slider(
            "Layer",
            1,
            REAL_LAYERS,
            key="layer",
            help="Points = this layer's input; heads = its 12 trained heads.",
        )
    _engine_knobs(source)
    st.slider(
        "Temperature",
        *TEMPERATURE_RANGE,
        step=0.05,
        key="temp",
        help="Scores are divided by it: below 1 sharpens, above 1 flattens.",
    )
    st.toggle("Causal mask (no looking ahead)", key="causal")
    scenario = Scenario(**{name: st.session_state[name] for name in FIELDS})
    if source == "toy" and (note := scenario.d_head_note()):
        st.caption(note)
    return scenario


def _focus_picker(tokens: list[str]) -> int:
    """The focus token's select box; a focus past the end falls back to the last token."""
    if st.session_state["focus"] >= len(tokens):
        st.session_state["focus"] = len(tokens) - 1
    return st.selectbox(
        "Focus token (query)",
        range(len(tokens)),
        key="focus",
        format_func=lambda i: f"{i} · {tokens[i]}",
    )


def scenario_sidebar(uses_source: bool = True) -> tuple[Scenario, data.ScenarioRun]:
    """Draw the sidebar, sync the URL, and return the scenario and its computed run.
    A page that only takes the sentence (the real-model page) passes uses_source=False:
    the sentence box then stays editable and the run's notices stay off its page.
    When the chosen source cannot run here, the page says why and stops; the sidebar
    stays usable, so another source is one click away."""
    _run_through_app_entry()
    _read_url_once()
    _keep_state_across_pages()
    unavailable = None
    with st.sidebar:
        scenario = _knobs(uses_source)
        try:
            result = data.run(scenario)
        except data.SourceUnavailableError as error:
            unavailable = str(error)
        else:
            scenario = dataclasses.replace(scenario, focus=_focus_picker(result.tokens))
        st.caption("The address bar holds this whole view: copy it to share or bookmark.")
    _write_url(scenario)
    for notice in st.session_state.pop(_NOTICES, []):
        st.info(notice)
    if unavailable:
        st.error(unavailable)
        st.stop()
    for notice in result.notices if uses_source else ():
        st.info(notice)
    return scenario, result
