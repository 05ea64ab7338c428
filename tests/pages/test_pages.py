"""Every page through Streamlit's AppTest: opens without an exception or an error message
at the default scenario, and the shared sidebar keeps the scenario in the URL."""

from __future__ import annotations

import json

import pytest

from attention.experiments.training.train import TrainingConfig
from tests.support.apptest import chart, grid_maps, open_page
from ui.data import EMPTY_TEXT_NOTICE
from ui.navigation import PAGES


def assert_no_failure(at) -> None:
    """Neither an exception nor an st.error anywhere on the page (main or sidebar)."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


# The playground moves its own points: it has no sentence in its sidebar.
NO_SENTENCE = {"pages/playground.py"}


@pytest.mark.parametrize("path", [page.path for page in PAGES])
def test_every_page_opens_without_exception(path):
    at = open_page(path)
    assert_no_failure(at)
    assert at.title or at.header, "each page names itself in a heading"
    if path not in NO_SENTENCE:
        assert at.sidebar.text_area(key="text").value


def test_changed_knobs_go_into_the_url_and_defaults_stay_out():
    """A bound widget's move reaches the URL in the browser's frontend, which AppTest
    lacks: here the slider is bound under its own name and the default stays out;
    tests/browser/test_browser_reconnect.py sees the moved value in the address bar."""
    at = open_page()
    assert "heads" not in at.query_params
    at.sidebar.slider(key="heads").set_value(8).run()
    assert at.sidebar.slider(key="heads").proto.query_param_key == "heads"
    at.sidebar.radio(key="source").set_value("real").run()  # a field written by the sidebar
    assert at.query_params["source"] in ("real", ["real"])


def test_url_scenario_is_loaded_into_the_widgets():
    at = open_page(None, heads="2", d_model="16", seed="7", causal="1", text="one two three")
    assert_no_failure(at)
    assert at.sidebar.slider(key="heads").value == 2
    assert at.sidebar.select_slider(key="d_model").value == 16
    assert at.sidebar.number_input(key="seed").value == 7
    assert at.sidebar.toggle(key="causal").value is True
    assert at.sidebar.text_area(key="text").value == "one two three"


@pytest.mark.parametrize(
    ("name", "junk"), [("heads", "99"), ("d_model", "65"), ("temp", "nan"), ("source", "x")]
)
def test_junk_url_values_become_defaults_with_a_notice(name, junk):
    at = open_page(**{name: junk})
    assert_no_failure(at)
    notices = " ".join(i.value for i in at.info)
    assert f"{name}='{junk}'" in notices and "using the default" in notices


@pytest.mark.parametrize("path", [p.path for p in PAGES if p.path not in NO_SENTENCE])
def test_empty_sentence_falls_back_to_the_default_with_one_message_on_every_page(path):
    at = open_page(path)
    at.sidebar.text_area(key="text").input("   ").run()
    assert_no_failure(at)
    assert [i.value for i in at.info].count(EMPTY_TEXT_NOTICE) == 1, [i.value for i in at.info]


ODD_TEXTS = [
    "😀 emoji 🚀 everywhere 👩‍🔬",
    "Café naïve façade — déjà vu",
    "مرحبا بالعالم hello שלום",
    "zero\u200bwidth\u200cjoin\u200dand\u2060word",
    "<b>bold</b> <script>alert(1)</script> [link](http://x) $x^2$ **strong**",
    "a",
    "…",
]


@pytest.mark.parametrize("text", ODD_TEXTS)
@pytest.mark.parametrize("path", ["pages/head_spaces.py", "pages/attention_maps.py"])
def test_odd_sentences_give_a_picture_not_an_exception(path, text):
    at = open_page(path, text=text)
    assert_no_failure(at)
    assert at.get("plotly_chart"), "every odd sentence still gets its charts"
    for block in at.markdown:
        assert "<script>" not in block.value and "<b>" not in block.value


@pytest.mark.parametrize(
    "knobs",
    [
        {"d_model": "2", "heads": "16"},
        {"d_model": "2", "heads": "1", "full": "1"},
        {"d_model": "384", "heads": "16", "full": "1"},
        {"d_model": "12", "heads": "5", "d_head": "12"},
        {"d_model": "8", "heads": "3", "temp": "0.1", "causal": "1"},
        {"d_model": "16", "heads": "2", "temp": "5.0", "positions": "0"},
    ],
)
@pytest.mark.parametrize("path", ["pages/head_spaces.py", "pages/attention_maps.py"])
def test_extreme_knob_combinations_draw(path, knobs):
    at = open_page(path, **knobs)
    assert_no_failure(at)
    assert len(at.get("plotly_chart")) >= 4
    assert not any("nan" in c.value.lower() for c in at.caption)


def test_long_text_is_cut_to_64_tokens_with_a_notice():
    at = open_page("pages/attention_maps.py", text=" ".join(f"w{i}" for i in range(100)))
    assert_no_failure(at)
    assert any("at most 64 tokens" in i.value and "has 100" in i.value for i in at.info)


@pytest.mark.slow  # trains page 3's model
def test_trained_source_shows_page_3s_heads_focused_on_the_question_mark():
    config = TrainingConfig()
    at = open_page("pages/head_spaces.py")
    at.sidebar.radio(key="source").set_value("trained").run()
    assert_no_failure(at)
    assert at.sidebar.selectbox(key="focus").value == config.seq_len  # the last token, "?"
    assert at.sidebar.text_area(key="text").disabled
    assert any("Trained source" in i.value for i in at.info)
    assert len(grid_maps(chart(at, "heatmap_chart"))) == config.n_heads


@pytest.mark.slow  # the trained source trains page 3's model first
def test_cross_attention_is_refused_with_a_message_for_the_trained_source():
    at = open_page("pages/attention_maps.py", source="trained")
    at.segmented_control(key="maps_kind").set_value("cross").run()
    assert_no_failure(at)
    assert any("Cross-attention needs a second sentence" in i.value for i in at.info)
    assert len(grid_maps(chart(at, "grid_chart"))) == TrainingConfig().n_heads


def test_the_start_page_path_lists_every_page():
    """The Start page's path through the ideas links every page, the Lesson first."""
    at = open_page("pages/home.py")
    numbered = [e.proto for e in at.get("page_link") if e.proto.label[:1].isdigit()]
    titles = {page.title: page.path for page in PAGES}
    linked = [
        next(t for t in titles if link.label.split(". ", 1)[1].startswith(t)) for link in numbered
    ]
    assert linked[0] == "Lesson"
    assert sorted(linked) == sorted(t for t, path in titles.items() if path != "pages/home.py")


def test_the_start_page_opens_with_plain_words_and_a_picture_of_two_heads():
    """Before the symbols (kept in an expander), the page's words have no notation and
    say where each drawn head's focus token looks most."""
    at = open_page("pages/home.py")
    opening = at.markdown[0].value
    assert not any(mark in opening for mark in ("$", "ρ", "W_"))
    spec = chart(at, "home_heads")
    titles = [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith("head")]
    assert titles == ["head 1", "head 2"]
    assert "in head 1, at “" in opening and "in head 2, at “" in opening
    assert at.expander[0].label == "The same in symbols"
    assert "$W_Q$" in at.expander[0].markdown[0].value


def test_the_lesson_says_when_a_long_sentence_is_cut():
    long_text = " ".join(f"word{i}" for i in range(600))  # far past what a step shows
    at = open_page("pages/lesson.py", text=long_text)
    assert_no_failure(at)
    assert any("600" in i.value for i in at.info), [i.value for i in at.info]


def test_every_charts_toolbar_keeps_the_png_export_in_two_tab_stops():
    """Each toolbar button is a Tab stop: a chart keeps the slide-quality PNG and the reset
    of a drag-zoom, not Plotly's eight."""
    at = open_page("pages/head_spaces.py")
    charts = at.get("plotly_chart")
    assert charts
    for element in charts:
        config = json.loads(element.proto.config)
        buttons = [name for group in config["modeBarButtons"] for name in group]
        assert "toImage" in buttons and len(buttons) <= 2, buttons
        assert config["toImageButtonOptions"]["scale"] >= 2
