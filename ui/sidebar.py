"""The shared sidebar: one function every page calls first. It draws the scenario's
widgets, keeps them in the URL (so a link reopens the exact view) and returns the
scenario; a page that draws the scenario's points asks for its run with `scenario_run`.

The widgets whose URL form is their value are bound with Streamlit's public
`bind="query-params"`; `persist_state="session"` keeps them across pages. A browser that
reconnects to a new session (a restarted server, another worker) sends its widgets'
values, which Streamlit puts before the address bar. The source and the focus show labels
(a bound widget would write the label into the link) and the switches are 1/0 in links
(a bound toggle reads only true/false), so these widgets start from the link's value
and the link is written here; all read and word junk through view_state.url_params."""

from __future__ import annotations

import streamlit as st

from attention.experiments.training.train import TrainingConfig
from attention.models.pretrained import ModelConfig, ModelError
from attention.teaching.markdown import literal
from ui import data
from ui.charts import loading_plotly_meanwhile
from ui.navigation import ensure_entry
from ui.pretrained import pretrained_model
from view_state import url_params
from view_state.scenario import SCENARIO_NAMES, SOURCES, Scenario, carry_focus, parse_query

# Written by hand: labelled widgets (a bound one writes its label into the link) and
# switches (a bound toggle reads only true/false; the app's links say 1/0).
WRITTEN_HERE = ("source", "focus", "full", "causal", "positions")
_URL_READ = "_scenario_url_read"
_JUNK = "_scenario_url_junk"  # bound fields whose link value was junk: drawn unbound once
_NOTICES = "_scenario_notices"
_URL_SCENARIO = "_scenario_from_url"
_FOCUS_BASIS = "_focus_basis"  # (text, token kind, seed) the focus index last referred to
TEXT_ONLY_NOTE = (
    "This page runs MiniLM exactly as trained on your sentence: the other settings "
    "(source, sizes, temperature, mask) apply on the other pages."
)


def _read_url_once() -> None:
    """On a session's first run, read the link's scenario through the table: its notices,
    the scenario itself (the value of a field whose widget is not drawn yet), and which
    fields were junk. Nothing is written into the widgets' state, so the values a
    reconnecting browser sends win over its address bar."""
    if st.session_state.get(_URL_READ):
        return
    params = st.query_params.to_dict()
    scenario, notices = parse_query(params)
    st.session_state[_URL_SCENARIO] = scenario
    st.session_state[_NOTICES] = notices
    st.session_state[_JUNK] = {
        name
        for name in SCENARIO_NAMES
        if name in params
        and name not in WRITTEN_HERE
        and url_params.row(name).read(params[name])[1]
    }
    st.session_state[_URL_READ] = True


def _value(name: str) -> object:
    """A scenario field's current value: its widget's, or the link's while its widget is
    not drawn yet in this session."""
    if name in st.session_state:
        return st.session_state[name]
    return getattr(st.session_state[_URL_SCENARIO], name)


def _by_hand(name: str) -> dict:
    """Keyword arguments of a switch written to the URL here: it starts from the link's
    value (a value a reconnecting browser sends wins) and persists across pages."""
    return {"value": _value(name), "key": name, "persist_state": "session"}


def _bound(name: str) -> dict:
    """Keyword arguments of a sidebar widget bound to the URL: the table's bounds and
    default, the binding, and session-long persistence across pages. A field whose link
    value was junk is drawn once unbound at its default (a bound widget would clamp the
    junk instead), with the junk taken out of the link."""
    arguments = {**url_params.bounds(name), "key": name, "persist_state": "session"}
    junk = st.session_state.get(_JUNK, set())
    if name in junk:
        junk.discard(name)
        st.session_state[name] = getattr(st.session_state[_URL_SCENARIO], name)
        if name in st.query_params:
            del st.query_params[name]
        arguments.pop("value", None)
    else:
        arguments["bind"] = "query-params"
    return arguments


def _real_config() -> ModelConfig | None:
    """The loaded model's sizes, or None when it is not installed (the page says why)."""
    try:
        return pretrained_model().config
    except ModelError:
        return None


def _fixed_knobs(d_model: int, heads: int, d_head: int, why: str) -> None:
    """Show the engine knobs a source fixes, disabled, so nothing seems to vanish."""
    st.caption(why)
    st.select_slider("d_model", [d_model], value=d_model, key="_fixed_d_model", disabled=True)
    st.slider("Heads", 1, max(heads, 2), value=heads, key="_fixed_heads", disabled=True)
    st.select_slider("d_head", [d_head], value=d_head, key="_fixed_d_head", disabled=True)


def _real_knobs() -> None:
    config = _real_config()
    if config is None:
        return
    if _value("layer") > config.layers:
        st.info(f"{config.name} has {config.layers} layers: showing layer {config.layers}.")
        st.session_state["layer"] = config.layers
    st.slider(
        "Layer",
        **{**_bound("layer"), "max_value": config.layers},
        help=f"Points = this layer's input; heads = its {config.heads} trained heads.",
    )
    _fixed_knobs(
        config.d_model, config.heads, config.d_head, "MiniLM's sizes are fixed by training:"
    )


def _trained_knobs() -> None:
    config = TrainingConfig()
    d_head = config.d_model // config.n_heads
    _fixed_knobs(config.d_model, config.n_heads, d_head, "Sizes of page 3's small model:")
    st.number_input("Seed (training run)", step=1, **_bound("seed"))


def _toy_knobs() -> None:
    st.select_slider(
        "d_model (embedding width)",
        **_bound("d_model"),
        help="Width of every token vector entering attention.",
    )
    st.slider("Heads", **_bound("heads"))
    st.toggle("Full-size heads (d_head = d_model)", **_by_hand("full"))
    d_model = _value("d_model")
    if _value("d_head") > d_model:
        st.session_state["d_head"] = 0
    st.select_slider(
        "d_head (per head)",
        options=range(d_model + 1),
        **_bound("d_head"),
        format_func=lambda v: "auto" if v == 0 else str(v),
        disabled=_value("full"),
        help="auto = d_model / heads, rounded down when it does not divide.",
    )
    st.number_input("Seed (random weights)", step=1, **_bound("seed"))
    st.toggle(
        "Add position vectors",
        **_by_hand("positions"),
        help="Toy points = word vector + ½ · sinusoidal position vector.",
    )


_ENGINE_KNOBS = {"toy": _toy_knobs, "real": _real_knobs, "trained": _trained_knobs}


def _write_url(scenario: Scenario) -> None:
    """Put the labelled fields' non-default values in the URL (the bound widgets write
    their own), leaving other parameters alone."""
    for name in WRITTEN_HERE:
        url_params.write(st.query_params, name, getattr(scenario, name))


def _knobs(text_only: bool) -> None:
    """The scenario's widgets, top to bottom."""
    source = _value("source")
    st.text_area(
        "Sentence",
        **_bound("text"),
        height=90,
        disabled=not text_only and source == "trained",
        help="The trained source shows its own task's sequence instead.",
    )
    if text_only:
        st.caption(TEXT_ONLY_NOTE)
        return
    st.radio(
        "Points and weights",
        list(SOURCES),
        index=list(SOURCES).index(source),
        format_func=SOURCES.get,
        key="source",
        persist_state="session",
    )
    _ENGINE_KNOBS[source]()
    st.slider(
        "Temperature",
        **_bound("temp"),
        help="Scores are divided by it: below 1 sharpens, above 1 flattens.",
    )
    st.toggle("Causal mask (no looking ahead)", **_by_hand("causal"))
    if source == "toy" and (note := _current().d_head_note()):
        st.caption(note)


def _current() -> Scenario:
    return Scenario(**{name: _value(name) for name in SCENARIO_NAMES})


def _focus_picker(kind: str) -> None:
    """The focus token's select box over the tokens `kind` makes of the sentence. When
    the tokens change under it (another source, another page), the focus follows the
    same word; the trained task's question sits at its last token."""
    text, seed = _value("text"), _value("seed")
    try:
        now = data.tokens(text, kind, seed)
    except ValueError:  # nothing readable in the text: the page explains, no picker
        return
    if not now.tokens:
        return
    basis = (text, kind, seed if kind == "trained" else 0)
    before = st.session_state.get(_FOCUS_BASIS)
    shown = _value("focus")
    focus = shown
    if before is not None and before != basis:
        if kind == "trained":
            focus = len(now.tokens) - 1
        elif before[0] == text and before[1] != "trained":
            focus = carry_focus(data.tokens(*before).spans, focus, now.spans)
    focus = min(focus, len(now.tokens) - 1)
    if focus != shown or "focus" in st.session_state:  # a sent value stays the browser's
        st.session_state["focus"] = focus
    st.session_state[_FOCUS_BASIS] = basis
    st.selectbox(
        "Focus token (query)",
        range(len(now.tokens)),
        index=focus,
        key="focus",
        persist_state="session",
        format_func=lambda i: f"{i} · {now.tokens[i]}",
    )


FOCUS_CHART = "before_chart"  # key of the chart whose clicked token becomes the focus


def focus_from_click() -> None:
    """on_select of the FOCUS_CHART chart: a click on a token (its first trace) makes it
    the focus token. Defined here, not in the page that draws the chart: Streamlit keeps
    the callback of every chart id a session has drawn (the id changes with the figure)
    and a function defined in a page holds that run's whole namespace, so each new
    figure kept a past run's arrays alive for the session's lifetime."""
    event = st.session_state.get(FOCUS_CHART)
    points = event.selection.points if event else []
    if points and points[0].get("curve_number") == 0:
        st.session_state["focus"] = int(points[0]["point_index"])


def scenario_sidebar(text_only: bool = False) -> Scenario:
    """Draw the sidebar, sync the URL and return the scenario. A page that only takes the
    sentence (the real-model page) passes text_only=True: the other knobs are hidden with
    a line saying why, and the focus picker lists MiniLM's word pieces. When the chosen
    source cannot run here, the page says why and stops; the sidebar stays usable, so
    another source is one click away."""
    ensure_entry()
    _read_url_once()
    unavailable = None
    with st.sidebar:
        _knobs(text_only)
        try:
            _focus_picker("real" if text_only else _value("source"))
        except data.SourceUnavailableError as error:
            unavailable = str(error)
        st.caption("The address bar holds this whole view: copy it to share or bookmark.")
    scenario = _current()
    _write_url(scenario)
    for notice in st.session_state.pop(_NOTICES, []):
        st.info(notice)
    if unavailable:
        st.error(unavailable)
        st.stop()
    return scenario


def scenario_run(scenario: Scenario) -> data.ScenarioRun:
    """The scenario's computed run for a page that draws it, with its notices shown."""
    try:
        with loading_plotly_meanwhile():
            result = data.run(scenario)
    except data.SourceUnavailableError as error:
        st.error(str(error))
        st.stop()
    except ValueError as error:  # a sentence with nothing to show: say so, keep the sidebar
        st.error(literal(str(error)))
        st.stop()
    for notice in result.notices:
        st.info(notice)
    return result
