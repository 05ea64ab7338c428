"""The attention-maps page through AppTest, read back from the figures and the table."""

from __future__ import annotations

import numpy as np
import pytest

from attention.figures.attention_maps import LARGE_MAP_CELLS, MAX_GRID_CELLS
from attention.geometry.pooling import pool_attention, pool_blocks
from attention.models.toy import toy_inputs
from tests.support.apptest import array, chart, grid_maps, open_page
from ui import data
from view_state.scenario import Scenario

PAGE = "pages/attention_maps.py"
SENTENCE = "The cat sat on the mat because it was tired."


def _maps(at, key: str) -> list[np.ndarray]:
    return list(grid_maps(chart(at, key)))


def test_grid_holds_every_head_with_rows_summing_to_one():
    at = open_page(PAGE, heads="8")
    assert not at.exception
    n = len(toy_inputs(SENTENCE, 64).tokens)
    maps = _maps(at, "grid_chart")
    assert len(maps) == 8 and all(m.shape == (n, n) for m in maps)
    for m in maps:
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-4)


def test_enlarged_head_and_mean_match_the_grid():
    at = open_page(PAGE)
    grid = _maps(at, "grid_chart")
    np.testing.assert_allclose(_maps(at, "big_chart")[0], grid[0], atol=1e-9)
    np.testing.assert_allclose(_maps(at, "mean_chart")[0], np.mean(grid, axis=0), atol=1e-4)
    at.select_slider(key="maps_head_4").set_value(3).run()
    np.testing.assert_allclose(_maps(at, "big_chart")[0], grid[2], atol=1e-9)


def test_causal_cells_are_blocked():
    at = open_page(PAGE, causal="1")
    for m in _maps(at, "grid_chart"):
        assert np.isnan(m[np.triu_indices_from(m, k=1)]).all()
        assert not np.isnan(m[np.tril_indices_from(m)]).any()
    assert any("causal mask" in c.value for c in at.caption)


def test_cross_attention_maps_are_rectangular_and_labelled():
    at = open_page(PAGE)
    at.segmented_control(key="maps_kind").set_value("cross").run()
    at.text_input(key="maps_second").input("Du bist müde").run()
    assert not at.exception
    n_k = len(toy_inputs(SENTENCE, 64).tokens)
    fig = chart(at, "grid_chart")
    for m in _maps(at, "grid_chart"):
        assert m.shape == (3, n_k)
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-4)
    titles = {
        ax.get("title", {}).get("text")
        for name, ax in fig["layout"].items()
        if name.startswith(("xaxis", "yaxis"))
    }
    assert "query side: second sentence" in titles and "key side: the sentence" in titles


def test_lines_start_with_one_head_and_the_focus_token_then_follow_the_controls():
    """Not a hairball at first: one head, the focus token's lines only."""
    at = open_page(PAGE)
    lines = [t for t in chart(at, "lines_chart")["data"] if t.get("mode") == "lines"]
    assert {t["name"] for t in lines} == {"head 1"}
    assert at.toggle(key="maps_only_focus").value is True
    at.pills(key="maps_line_heads_4").set_value([2]).run()
    lines = [t for t in chart(at, "lines_chart")["data"] if t.get("mode") == "lines"]
    assert {t["name"] for t in lines} == {"head 2"}
    segments_focus = sum(np.isnan(array(t["x"])).sum() for t in lines)
    at.toggle(key="maps_only_focus").set_value(False).run()
    lines = [t for t in chart(at, "lines_chart")["data"] if t.get("mode") == "lines"]
    segments_all = sum(np.isnan(array(t["x"])).sum() for t in lines)
    assert 0 < segments_focus <= len(toy_inputs(SENTENCE, 64).tokens) < segments_all


def test_table_entropy_matches_the_drawn_weights():
    at = open_page(PAGE)
    table = at.dataframe[0].value
    for h, m in enumerate(_maps(at, "grid_chart")):
        p = np.clip(m, 1e-300, 1)
        entropy = -(m * np.log2(p)).sum(axis=1).mean()
        assert abs(table["entropy (bits)"].iloc[h] - entropy) < 1e-3
        assert abs(table["largest weight"].iloc[h] - m.max()) < 1e-4


def drawn_pattern(drawn: np.ndarray, square: bool) -> str:
    """The rule the page's caption states, applied in the test's own code to a map as
    drawn (NaN = a blocked cell): a positional habit that takes at least half the
    weight (self, previous, next token only on a square map), else the mean row
    entropy relative to rows spread evenly over their allowed keys: under 0.35
    focused, over 0.8 broad, else mixed."""
    allowed = ~np.isnan(drawn)
    weights = np.where(allowed, drawn, 0.0)
    n_q, n_k = weights.shape
    shares = {"first token": weights[:, 0].mean()}
    if square:
        for name, offset in (("self", 0), ("previous token", -1), ("next token", 1)):
            rows = [i for i in range(n_q) if 0 <= i + offset < n_k]
            shares[name] = np.mean([weights[i, i + offset] for i in rows])
    name = max(shares, key=shares.get)
    if shares[name] >= 0.5 and n_k > 1:
        return name
    logs = np.log2(np.where(weights > 0, weights, 1.0))
    entropy = -(weights * logs).sum(axis=1).mean()
    relative = entropy / np.log2(allowed.sum(axis=1)).mean()
    return "focused" if relative < 0.35 else "broad" if relative > 0.8 else "mixed"


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"source": "real"},
        {"heads": "16", "temp": "0.1", "causal": "1"},
        {"maps_kind": "cross"},
    ],
)
def test_pattern_column_names_what_each_drawn_map_shows(query):
    at = open_page(PAGE, **query)
    assert not at.exception
    patterns = list(at.dataframe[0].value["pattern"])
    maps = _maps(at, "grid_chart")
    assert patterns == [drawn_pattern(m, square="maps_kind" not in query) for m in maps]


def test_hot_causal_heads_are_broad_over_the_keys_they_may_see():
    """At temperature 5 every row is close to even over the keys the causal mask
    leaves it; measured against all keys these heads would read as mixed."""
    at = open_page(PAGE, causal="1", temp="5.0")
    patterns = list(at.dataframe[0].value["pattern"])
    assert patterns == ["broad"] * 4
    for m in _maps(at, "grid_chart"):
        full = np.nan_to_num(m)
        entropy = -(full * np.log2(np.where(full > 0, full, 1.0))).sum(axis=1).mean()
        assert entropy / np.log2(m.shape[1]) < 0.8


def test_cross_attention_says_random_weights_are_random():
    at = open_page(PAGE, maps_kind="cross", seed="7")
    assert not at.exception and not at.warning
    captions = " ".join(c.value for c in at.caption)
    assert "The weights are random (seed 7)" in captions
    assert "no alignment is expected" in captions


def test_translation_heads_align_the_default_pair():
    """With the hand-built translation heads, the default sentence pair's maps align the
    translation: Katze's row peaks at "cat"; the heads are titled by their records."""
    from attention.models.translation import HEADS, split_words
    from attention.teaching.sentences import DEFAULT_SECOND_TEXT, DEFAULT_TEXT

    at = open_page(PAGE, maps_kind="cross", maps_cross_weights="hand-built translation heads")
    assert not at.exception and not at.warning
    fig = chart(at, "grid_chart")
    maps = _maps(at, "grid_chart")
    english = [w.lower() for w in split_words(DEFAULT_TEXT)]
    german = ["<s>", *split_words(DEFAULT_SECOND_TEXT)]
    assert [m.shape for m in maps] == [(len(german), len(english))] * 4
    titles = [a["text"].replace("<br>", " ") for a in fig["layout"]["annotations"]]
    assert titles == [f"{h + 1}. {head.name}" for h, head in enumerate(HEADS["cross"])]
    katze = german.index("Katze")
    assert english[int(np.argmax(maps[0][katze]))] == "cat"  # the "meaning" head
    for g, word in enumerate(german[1:], start=1):  # the "position" head: word k → word k
        assert np.argmax(maps[2][g]) == g - 1, word
    assert "hand-built English → German" in " ".join(c.value for c in at.caption)
    table = at.dataframe[0].value
    assert list(table.index) == titles


def test_translation_heads_with_unknown_words_fall_back_with_a_message():
    at = open_page(PAGE, maps_kind="cross", maps_cross_weights="hand-built translation heads")
    at.text_input(key="maps_second").input("Die Katze schläft").run()
    assert not at.exception and not at.error
    assert len(at.warning) == 1
    assert "“schläft”" in at.warning[0].value and "Showing the sidebar" in at.warning[0].value
    assert len(_maps(at, "grid_chart")) == 4
    captions = " ".join(c.value for c in at.caption)
    assert "The weights are random" in captions


def test_a_shared_link_keeps_the_lines_controls():
    at = open_page(PAGE, maps_line_heads_4=["1", "3"], maps_only_focus="false")
    assert not at.exception
    assert at.get("button_group")[-1].value == [1, 3]
    assert at.toggle(key="maps_only_focus").value is False
    lines = chart(at, "lines_chart")
    names = {t["name"] for t in lines["data"] if t.get("mode") == "lines"}
    assert names == {"head 1", "head 3"}


def test_cross_mode_focuses_a_token_of_the_second_sentence():
    from attention.models.toy import split_words
    from attention.teaching.sentences import DEFAULT_SECOND_TEXT

    at = open_page(PAGE, maps_kind="cross", focus="2")
    picker = at.selectbox(key="maps_cross_focus")
    german = split_words(DEFAULT_SECOND_TEXT)[0]
    assert picker.format_func(picker.value) == f"{picker.value} · {german[picker.value]}"
    picker.select(2).run()
    table = at.dataframe[0].value
    assert f"“{german[2]}” looks most at" in table.columns  # the page's focus, not the sidebar's


def test_the_large_maps_have_square_cells():
    at = open_page(PAGE)
    for key in ("big_chart", "mean_chart"):
        yaxis = chart(at, key)["layout"]["yaxis"]
        assert yaxis["scaleanchor"] == "x" and yaxis["scaleratio"] == 1


def test_a_long_text_is_drawn_in_blocks_whose_rows_still_sum_to_one():
    """MiniLM on ~330 word pieces: the grid in 64 × 64 blocks, the large maps in
    256 × 256 (not 330 × 330 cells for a ~520 px chart), each block the share of the
    attention its tokens get (attention.geometry.pooling), and the page says so with the numbers."""
    text = " ".join(["The cat sat on the mat because it was tired."] * 30)
    at = open_page(PAGE, source="real", text=text)
    assert not at.exception
    weights = data.run(Scenario(source="real", text=text)).trace.weights
    n = weights.shape[-1]
    assert n > LARGE_MAP_CELLS
    (big,) = _maps(at, "big_chart")
    np.testing.assert_allclose(big, pool_attention(weights[:1], LARGE_MAP_CELLS)[0], atol=1e-5)
    np.testing.assert_allclose(big.sum(axis=1), 1.0, atol=1e-3)
    assert all(m.shape == (MAX_GRID_CELLS, MAX_GRID_CELLS) for m in _maps(at, "grid_chart"))
    starts = [str(s) for s in pool_blocks(n, LARGE_MAP_CELLS)]
    axis = chart(at, "big_chart")["layout"]["yaxis"]  # a few blocks' first token numbers
    assert axis["ticktext"] == starts[:: LARGE_MAP_CELLS // 8] and "token number" in str(axis)
    captions = [c.value for c in at.caption]
    assert any(
        f"{LARGE_MAP_CELLS} × {LARGE_MAP_CELLS} blocks of about {n / 256:.1f}" in c
        for c in captions
    )
    assert any(
        f"{MAX_GRID_CELLS} × {MAX_GRID_CELLS} blocks of about {n / 64:.1f}" in c for c in captions
    )
