"""The URL-parameter table (view_state/url_params.py): every row's default is a value its link
form reads back, junk gives the default and a notice naming the parameter, the scenario's
defaults are the table's, and every widget key bound to the URL in pages/ or ui/ is a row."""

from __future__ import annotations

import re

import pytest

from tests.support.paths import ROOT
from view_state import url_params
from view_state.scenario import SCENARIO_NAMES, Scenario

JUNK = ["", "junk", "-999999", "1e400", "nan", "x" * 5001]


@pytest.mark.parametrize("row", url_params.ROWS, ids=lambda r: r.name)
def test_every_default_reads_back_from_its_link_form(row):
    shown = str(int(row.default)) if isinstance(row.default, bool) else str(row.default)
    assert row.read(shown) == (row.default, None)
    assert url_params.to_url(row.name, row.default) is None  # defaults stay out of links


@pytest.mark.parametrize("row", url_params.ROWS, ids=lambda r: r.name)
def test_junk_gives_the_default_and_a_notice(row):
    rejected = 0
    for raw in JUNK:
        value, notice = row.read(raw)
        if notice is None:  # e.g. "junk" is a fine sentence for a text row
            continue
        rejected += 1
        assert value == row.default
        assert f"{row.name}=" in notice and "not valid" in notice
    assert rejected >= 2


def test_widget_bounds_hold_the_default():
    for row in url_params.ROWS:
        bounds = row.widget
        if "min_value" in bounds:
            assert bounds["min_value"] <= row.default <= bounds["max_value"], row.name
        if "format_func" in bounds:  # a labelled select box: the link holds the label
            assert bounds["format_func"](bounds["options"][bounds["index"]]) == row.default
        elif "options" in bounds:
            assert row.default in bounds["options"], row.name


@pytest.mark.parametrize(
    ("name", "default", "count"),
    [("wh_pattern", "permutation", 4), ("wh_penalty", 0.001, 3), ("block_cross_head", 0, 4)],
)
def test_a_labelled_select_box_reads_every_label_it_shows(name, default, count):
    """The link holds the label a bound select box shows: each label the page offers
    reads back, the default is the label of the page's default option, and junk (or
    the key instead of its label) gives the default with the table's notice."""
    row, bounds = url_params.row(name), url_params.bounds(name)
    labels = [bounds["format_func"](option) for option in bounds["options"]]
    assert len(set(labels)) == len(bounds["options"]) == count
    assert bounds["options"][bounds["index"]] == default
    for label in labels:
        assert row.read(label) == (label, None)
    value, notice = row.read(str(bounds["options"][-1]))
    assert value == labels[bounds["index"]] and f"{name}=" in notice


def test_a_choice_row_gives_a_radio_its_options_and_default_index():
    assert url_params.picked("block_stack_norm") == {
        "options": ["pre-LN", "post-LN", "no LN"],
        "index": 0,
    }
    assert url_params.picked("block_norm")["index"] == 0  # post-LN first, the default


def test_the_scenario_defaults_are_the_tables():
    for name in SCENARIO_NAMES:
        assert getattr(Scenario(), name) == url_params.row(name).default, name


def test_a_junk_link_keeps_its_good_values():
    values, notices = url_params.read({"heads": "6", "temp": "hot", "other": "x"}, SCENARIO_NAMES)
    assert values == {"heads": 6, "temp": 1.0}
    assert len(notices) == 1 and "temp='hot'" in notices[0]


def test_every_key_bound_to_the_url_is_a_row():
    sources = [*ROOT.glob("pages/*.py"), *ROOT.glob("ui/**/*.py")]
    bound = re.compile(r"key=(f?)[\"']([^\"'{]+)[^\"']*[\"'][^()]*?bind=\"query-params\"", re.S)
    keys = set()
    for path in sources:
        for is_f_string, key in bound.findall(path.read_text()):
            keys.add((key, bool(is_f_string)))
    assert len(keys) >= 30  # the grep finds the pages' bound widgets
    for key, is_prefix in keys:
        if is_prefix:
            assert key.startswith(url_params.PREFIXES), key
        else:
            assert key in url_params.TABLE, key


def test_a_junk_value_is_shown_literally_in_its_notice():
    """The notice is markdown: a link's text must not become emphasis, a link or HTML."""
    _, notices = url_params.read({"temp": "**[x](http://e.x)**<b>"}, SCENARIO_NAMES)
    (notice,) = notices
    assert "<b>" not in notice and "&lt;b&gt;" in notice
    assert "\\*\\*\\[x\\]\\(http\\:" in notice


@pytest.mark.parametrize("name", ["wh_query", "wh_target_a", "wh_target_b"])
def test_token_picks_read_the_label_a_select_box_writes(name):
    row = url_params.row(name)
    assert row.read("2 · sat") == (2, None)
    assert row.read("7") == (7, None)
    value, notice = row.read("sat")
    assert value == row.default and "index · token" in notice


def test_widget_helpers_read_the_rows_choices_default_and_range():
    row = url_params.row("maps_kind")
    assert url_params.options("maps_kind") == list(row.widget["options"]) == ["self", "cross"]
    assert url_params.default("maps_kind") == row.default == "self"
    layers = url_params.whole_range("real_layer")
    assert layers[0] == row_min("real_layer") and layers[-1] == url_params.MINILM_SHAPE[0]
    for value in layers:  # every value the selectbox offers reads back from its link form
        assert url_params.row("real_layer").read(str(value)) == (value, None)
    assert url_params.row("real_layer").read(str(layers[-1] + 1))[1] is not None


def row_min(name: str) -> int:
    return url_params.bounds(name)["min_value"]


def test_the_d_head_note_is_true_when_there_are_more_heads_than_coordinates():
    """16 heads of a 2-wide embedding: 2 / 16 rounds down to 0, so the engine's d_head = 1
    is not "rounded down"; the note says it is the least a head can have."""
    from view_state.scenario import Scenario

    many = Scenario(d_model=2, heads=16)
    assert many.resolved_d_head == 1
    assert "below 1" in many.d_head_note() and "rounded down" not in many.d_head_note()
    uneven = Scenario(d_model=10, heads=4)
    assert uneven.resolved_d_head == 2 and "d_head = 2 (rounded down)" in uneven.d_head_note()
    assert Scenario(d_model=8, heads=4).d_head_note() is None
