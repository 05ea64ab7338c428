"""The "Why several heads?" page through AppTest, with its experiments at a small size:
numbers are read back from the figures' JSON and checked against independent counts."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from attention import MultiHeadAttention
from attention.experiments.two_targets import ONE_HEAD_FLOOR
from attention.wording import percent
from tests.support import apptest
from tests.support.apptest import array, chart, grid_maps, train_small


def open_page(**query: str) -> AppTest:
    at = apptest.open_page("pages/why_heads.py", **query)
    assert not at.exception, at.exception
    return at


def table(at: AppTest, column: str, index: int = 0):
    """The index-th dataframe on the page that has `column` (tables carry no key here)."""
    frames = [d.value for d in at.dataframe if column in d.value.columns]
    return frames[index]


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


@pytest.fixture(scope="module")
def trained() -> AppTest:
    return train_small(open_page(), seeds=True)


def test_page_has_its_five_sections(page):
    headers = [h.value for h in page.header]
    assert [h.split(".")[0] for h in headers] == ["1", "2", "3", "4", "5"]
    assert len(page.get("latex")) >= 5


def test_cost_bars_match_the_engines_array_sizes(page):
    spec = chart(page, "wh_cost_bars")
    params = dict(zip(spec["data"][0]["y"], array(spec["data"][0]["x"]), strict=True))
    for label, d_head, heads in (("4 heads × 16", 16, 4), ("1 head × 64", 64, 1)):
        mha = MultiHeadAttention(64, heads, d_head, seed=0)
        arrays = (mha.w_q, mha.w_k, mha.w_v, mha.b_q, mha.b_k, mha.b_v, mha.w_o, mha.b_o)
        assert params[label] == sum(a.size for a in arrays)
    full = MultiHeadAttention(64, 4, 64, seed=0)
    assert (
        params["4 full-size heads × 64"]
        == sum(a.size for a in (full.w_q, full.w_k, full.w_v, full.b_q, full.b_k, full.b_v))
        + full.w_o.size
        + full.b_o.size
    )
    # Multiply-adds of the scores for n = 11 tokens: h · n² · d_head (q·k) twice (· v).
    scores = dict(zip(spec["data"][2]["y"], array(spec["data"][2]["x"]), strict=True))
    assert scores["4 heads × 16"] == scores["1 head × 64"] == 2 * 11 * 11 * 64
    assert scores["4 full-size heads × 64"] == 4 * scores["1 head × 64"]
    costs = table(page, "parameters")
    assert costs["parameters"].tolist() == [params[label] for label in costs["layout"]]


def test_one_head_splits_its_weight_and_two_heads_fetch_both(page):
    spec = chart(page, "wh_two_targets")
    one, head1, head2 = (array(t["y"]) for t in spec["data"])
    n = len(one)
    assert one.sum() == pytest.approx(1.0, abs=1e-3)
    assert one[0] + one[n - 1] <= 1.0 + 1e-3  # targets: first and last token by default
    assert one[0] == pytest.approx(0.5, abs=0.05) and one[n - 1] == pytest.approx(0.5, abs=0.05)
    assert head1[0] > 0.95 and head2[n - 1] > 0.95
    # The sentences beside the curves say the drawn weights, rounded as percentages.
    said = " ".join(m.value for m in page.markdown) + " ".join(c.value for c in page.caption)
    assert f"**One head** puts **{one[0]:.0%}**" in said and f"**{one[n - 1]:.0%}** on the" in said
    assert f"head 1 puts **{percent(head1[0])}**" in said
    assert f"head 2 **{percent(head2[n - 1])}**" in said
    floor = int(100 * min(head1[0], head2[n - 1]))
    assert f"at least {floor}% of their weight" in said
    curves = chart(page, "wh_two_curves")
    one_loss, two_loss = (array(t["y"]) for t in curves["data"])
    assert one_loss[-1] >= ONE_HEAD_FLOOR - 1e-9 > two_loss[-1]


def test_rank_error_falls_to_near_zero_at_d_head_n(page):
    spec = chart(page, "wh_rank_error")
    error = array(spec["data"][0]["y"])
    assert len(error) == 8  # d_head = 1 … n with n = 8
    assert np.diff(error).max() <= 0.02
    assert error[0] > 0.5 and error[-1] < 0.05
    staircase = array(chart(page, "wh_rank_sv")["data"][0]["z"])
    for row, d_head in zip(staircase, range(1, 9), strict=True):
        assert np.isfinite(row[:d_head]).all() and not np.isfinite(row[d_head:]).any()


def test_without_a_score_limit_the_page_explains_the_circle_trick():
    at = open_page()
    at.selectbox(key="wh_penalty").select(0.0).run()
    assert not at.exception
    error = array(chart(at, "wh_rank_error")["data"][0]["y"])
    assert error[-1] < 1e-3
    assert any("circle" in c.value for c in at.caption)


def test_slicing_figure_shows_the_engines_w_q_and_its_block_diagonal(page):
    spec = chart(page, "wh_slicing")
    whole, cut = (array(t["z"]) for t in spec["data"])
    w_q = MultiHeadAttention(64, 4, seed=0, dtype=np.float64).w_q
    np.testing.assert_allclose(whole, np.concatenate(list(w_q), axis=1), atol=1e-3)
    for head in range(4):
        rows, cols = slice(16 * head, 16 * head + 16), slice(16 * head, 16 * head + 16)
        np.testing.assert_allclose(cut[rows, cols], whole[rows, cols])
        outside = np.ones(64, dtype=bool)
        outside[rows] = False
        assert not cut[outside, cols].any()
    shares = array(chart(page, "wh_slice_share")["data"][0]["y"])
    assert np.all((shares > 10) & (shares < 45)), "random heads read all slices, ~1/h each"


@pytest.mark.slow  # trains page 3's models (the module's `trained` fixture)
def test_training_draws_curves_maps_and_tables(trained):
    loss = chart(trained, "wh_loss")
    smooth = [t for t in loss["data"] if t.get("showlegend", True) is not False]
    assert [t["name"] for t in smooth] == [
        "(a) 1 head × 16",
        "(b) 2 heads × 8",
        "(c) 2 heads × 16",
        "(d) 2 heads × 8, sliced input",
    ]
    assert all(len(array(t["y"])) == 300 for t in smooth)
    maps = [array(t["z"]) for t in chart(trained, "wh_head_maps")["data"]]
    assert [m.shape for m in maps] == [(1, 5), (2, 5), (2, 5), (2, 5)]
    for m in maps:
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-3)
    results = table(trained, "training time (s)")
    assert len(results) == 4
    split = results[results["variant"] == "(b) 2 heads × 8"].iloc[0]
    assert float(split["accuracy (both right)"].rstrip("%")) > 6.25 * 4, "4× chance at least"
    assert results.loc[0, "head diversity (JSD, bits)"] == "—"


@pytest.mark.slow  # trains page 3's models (the module's `trained` fixture)
def test_across_seeds_shows_every_seed(trained):
    seeds = table(trained, "accuracy mean ± sd")
    assert len(seeds) == 4
    assert all(row.endswith("of 5") for row in seeds["seeds reaching 95 %"])
    dots = chart(trained, "wh_seed_spread")["data"]
    assert [len(array(t["x"])) for t in dots] == [5, 5, 5, 5]
    assert all(((array(t["x"]) >= 0) & (array(t["x"]) <= 100)).all() for t in dots)
    pair = table(trained, "accuracy mean ± sd", index=1)
    assert pair["variant"].tolist() == ["(b) 2 heads × 8", "(d) 2 heads × 8, sliced input"]
    assert len(chart(trained, "wh_slice_share")["data"]) == 2


@pytest.mark.slow  # trains page 3's models (the module's `trained` fixture)
def test_same_seed_gives_the_same_curves(trained):
    st.cache_data.clear()  # retrain from scratch rather than read the cached run
    again = train_small(open_page())
    first = [array(t["y"]) for t in chart(trained, "wh_loss")["data"]]
    second = [array(t["y"]) for t in chart(again, "wh_loss")["data"]]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


def test_equal_targets_get_a_message_not_a_traceback():
    at = open_page()
    at.selectbox(key="wh_target_b").select(0).run()
    assert not at.exception
    assert any("two different target" in w.value for w in at.warning)


def test_short_sentence_and_too_many_heads_get_messages():
    at = open_page(text="Hi there", d_model="2", heads="16")
    assert not at.exception
    assert any("at least three tokens" in i.value for i in at.info)
    warnings = " ".join(w.value for w in at.warning)
    assert "n_heads must be at most d_model" in warnings
    assert "no slices to draw" in warnings


def test_markup_in_the_sentence_stays_text_in_the_charts():
    at = open_page(text="<b>bold</b> is here")
    labels = chart(at, "wh_two_targets")["data"][0]["x"]
    assert "&lt;" in labels[0] and "<b>" not in "".join(labels)


def test_a_drawn_pattern_starts_from_previous_token_and_fits():
    at = open_page()
    at.selectbox(key="wh_pattern").select("drawn").run()
    assert not at.exception
    error = array(chart(at, "wh_rank_error")["data"][0]["y"])
    assert len(error) == 8 and error[-1] < 0.05
    target = grid_maps(chart(at, "wh_rank_patterns"))[0]
    np.testing.assert_allclose(target.argmax(axis=1), [0, 0, 1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize(
    "query", [{"full": "1"}, {"heads": "3"}, {"d_head": "5"}, {"d_model": "8"}]
)
def test_other_sidebar_scenarios_draw_every_section(query):
    at = open_page(**query)
    assert not at.warning, [w.value for w in at.warning]
    keys = ("wh_cost_bars", "wh_two_targets", "wh_rank_error", "wh_slicing", "wh_slice_share")
    for key in keys:
        assert chart(at, key)["data"]


def test_same_vector_warning_shows_the_tokens_literally():
    at = open_page(text="*a* x *a*", positions="0")
    at.selectbox(key="wh_target_a").select(0)
    at.selectbox(key="wh_target_b").select(4).run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "same vector" in warning and r"\*" in warning


def test_a_shared_link_keeps_every_section_control():
    at = apptest.open_page(
        "pages/why_heads.py",
        wh_query="2 · sat",
        wh_target_b="5 · mat",
        wh_pattern="previous token",
        wh_rank_n="5",
        wh_penalty="no limit on score size",
        wh_heads="8",
        wh_noise="0.3",
        wh_steps="600",
    )
    assert not at.exception
    assert at.selectbox(key="wh_query").value == 2
    assert at.selectbox(key="wh_target_b").value == 5
    assert at.selectbox(key="wh_pattern").value == "previous"
    assert at.slider(key="wh_rank_n").value == 5
    assert at.selectbox(key="wh_penalty").value == 0.0
    assert at.select_slider(key="wh_heads").value == 8
    assert at.slider(key="wh_noise").value == pytest.approx(0.3)
    assert at.select_slider(key="wh_steps").value == 600


@pytest.mark.slow  # trains page 3's models (the module's `trained` fixture)
def test_the_projection_answer_is_read_off_the_trained_table(trained):
    results = table(trained, "training time (s)")
    answer = next(m.value for m in trained.markdown if "projection to d_model/h" in m.value)
    rows = results.set_index("variant")
    for label in ("(b) 2 heads × 8", "(c) 2 heads × 16"):
        on_a, on_b = (int(v) for v in rows.loc[label, "heads mostly on A / on B"].split(" / "))
        assert f"{on_a} / {on_b}" in answer
    on_a, on_b = (
        int(v) for v in rows.loc["(c) 2 heads × 16", "heads mostly on A / on B"].split(" / ")
    )
    assert ("divided the two lookups between them too" in answer) == (min(on_a, on_b) > 0)
    d, h = 16, 2  # the fixture's small model
    assert f"{4 * d * d:,} attention parameters" in answer  # (b): W_Q, W_K, W_V, W_O
    assert f"need {4 * d * h * d:,}" in answer  # (c): h full-size heads
