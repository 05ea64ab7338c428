"""The charts' text alternatives, called directly with small hand-made arrays: every
weight, count and score a summary states is recomputed here from the arrays, and the
tables behind the "Show as table" switches hold those arrays' numbers."""

from __future__ import annotations

import re

import numpy as np

from attention.analysis.head_roles import ENTROPY
from attention.figures.tables import (
    focus_weight_rows,
    head_score_rows,
    point_rows,
    top_weight_rows,
)
from attention.geometry.planes import Layout2D
from attention.teaching.narration import attention_maps, head_spaces, real_model
from attention.teaching.narration.charts import map_summary, per_head_shares

TOKENS = ["the", "cat", "sat", "on", "mat"]
# Two heads' weights from the focus token "cat" (rows sum to 1), heaviest keys chosen
# by hand: head 1 → mat 0.50, sat 0.30; head 2 → the 0.40, cat 0.35.
FOCUS_ROWS = np.array([[0.05, 0.10, 0.30, 0.05, 0.50], [0.40, 0.35, 0.10, 0.10, 0.05]])


def _shares(text: str) -> list[tuple[int, str]]:
    """The (percent, token) pairs a summary states, in order."""
    return [(int(p), t) for p, t in re.findall(r"(\d+)% on “([^”]+)”", text)]


def test_per_head_shares_names_each_heads_two_heaviest_keys():
    text = per_head_shares(TOKENS, FOCUS_ROWS, ["head 1", "head 2"])
    assert text == "head 1: 50% on “mat”, 30% on “sat”; head 2: 40% on “the”, 35% on “cat”"


def test_head_spaces_summaries_state_the_focus_rows_weights():
    for summary in (
        head_spaces.head_space_summary(TOKENS, FOCUS_ROWS, 1),
        head_spaces.heatmap_summary(TOKENS, FOCUS_ROWS, 1),
        head_spaces.values_summary(TOKENS, FOCUS_ROWS, 1),
    ):
        expected = []
        for row in FOCUS_ROWS:
            top = np.argsort(-row)[:2]
            expected += [(round(100 * row[j]), TOKENS[j]) for j in top]
        assert _shares(summary) == expected
        assert "“cat”" in summary
    assert head_spaces.heatmap_summary(TOKENS, FOCUS_ROWS[:1], 1).startswith("1 attention map,")


def test_before_summary_counts_tokens_and_names_the_nearest_in_the_picture():
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [1.1, 0.2], [5.0, 5.0], [0.8, -0.1]])
    text = head_spaces.before_summary(TOKENS, Layout2D(coords, 0.625), focus=1)
    distance = np.linalg.norm(coords - coords[1], axis=1)
    nearest = [TOKENS[j] for j in np.argsort(distance)[1:4]]  # [0] is "cat" itself
    assert "the 5 token vectors" in text and "keeping 62% of their variance" in text
    assert text.endswith("in the picture: " + ", ".join(f"“{t}”" for t in nearest) + ".")
    alone = head_spaces.before_summary(["a"], Layout2D(np.zeros((1, 2)), 1.0), 0)
    assert "1 token vector" in alone and "Nearest" not in alone


def test_motion_summary_lists_every_heads_variance_kept():
    text = head_spaces.motion_summary(5, [0.414, 0.5, 0.996])
    assert "the 5 tokens" in text and "each of 3 heads" in text
    assert text.endswith("head 1 41%, head 2 50%, head 3 >99%.")


def test_map_summary_names_the_three_strongest_cells_and_the_mean_row_maximum():
    weights = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.25, 0.5, 0.25]])
    text = map_summary("head 2", ["a", "b", "c"], ["x", "y", "z"], weights)
    cells = re.findall(r"“(\w)” → “(\w)” (\d+)%", text)
    order = np.argsort(-weights.ravel())[:3]
    expected = [("abc"[i // 3], "xyz"[i % 3], str(round(100 * weights.flat[i]))) for i in order]
    assert cells == expected
    assert text.startswith("head 2: 3 queries (rows) × 3 keys (columns).")
    assert f"takes {weights.max(axis=1).mean():.0%} of its weight" in text
    one = map_summary("head 1", ["a"], ["x"], np.ones((1, 1)))
    assert "1 query (rows) × 1 key (columns)" in one


def test_attention_maps_summaries_state_the_focus_rows_weights():
    names = ["head 3", "head 5"]
    for text in (
        attention_maps.grid_summary(TOKENS, FOCUS_ROWS, "cat", names),
        attention_maps.lines_summary(TOKENS, FOCUS_ROWS, "cat", names),
    ):
        assert "head 3: 50% on “mat”, 30% on “sat”; head 5: 40% on “the”, 35% on “cat”" in text
    assert "for head 3, head 5," in attention_maps.lines_summary(TOKENS, FOCUS_ROWS, "c", names)


def test_head_grid_summary_names_the_top_heads_of_a_score():
    scores = np.array([[0.1, 0.9, 0.2], [0.7, 0.05, 0.8]])  # 2 layers × 3 heads
    text = real_model.head_grid_summary("self", scores)
    assert text.startswith("6 small attention maps, 2 layers (rows) × 3 heads (columns).")
    named = re.findall(r"layer (\d) head (\d) \((\d+)%\)", text)
    expected = [(1, 2), (2, 3), (2, 1)]  # 0.9, 0.8, 0.7
    assert [(int(a), int(b)) for a, b, _ in named] == expected
    assert [int(p) for *_, p in named] == [round(100 * scores[a - 1, b - 1]) for a, b in expected]
    low = real_model.head_grid_summary(ENTROPY, scores * 3, highest=False)
    assert "lowest entropy (bits): layer 2 head 2 (0.15 bits), layer 1 head 1 (0.30 bits)" in low


def test_chart_tables_hold_the_arrays_numbers():
    rows = focus_weight_rows(TOKENS, FOCUS_ROWS)
    assert [r["key"] for r in rows] == TOKENS
    np.testing.assert_allclose([[r["head 1"], r["head 2"]] for r in rows], FOCUS_ROWS.T)
    coords = np.array([[0.1234, -2.0], [3.0, 4.5]])
    points = point_rows(["a", "b"], coords)
    np.testing.assert_allclose([[p["x (PC 1)"], p["y (PC 2)"]] for p in points], coords, atol=5e-4)
    weights = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    top = top_weight_rows(["q1", "q2"], ["a", "b", "c"], weights, top=2)
    assert [(r["query"], r["rank"], r["key"], r["weight"]) for r in top] == [
        ("q1", 1, "b", 0.5),
        ("q1", 2, "c", 0.3),
        ("q2", 1, "a", 0.6),
        ("q2", 2, "c", 0.3),
    ]
    scored = head_score_rows(np.array([[0.1, 0.2], [0.3, 0.4]]), "self")
    assert [(r["layer"], r["head"], r["self"]) for r in scored][1:3] == [(1, 2, 0.2), (2, 1, 0.3)]


def test_tokens_are_escaped_in_summaries():
    text = head_spaces.heatmap_summary(["*a*", "<b>"], np.array([[0.6, 0.4]]), 0)
    assert "<b>" not in text and "“\\*a\\*”" in text


def test_paths_summary_names_the_token_with_the_longest_drawn_path():
    coords = np.zeros((3, 2, 2))  # embeddings + 2 layers, 2 tokens
    coords[1:, 1] = [[3.0, 4.0], [3.0, 5.0]]  # "b" moves 5 then 1; "a" stays
    text = real_model.paths_summary(["a", "b"], coords)
    assert "2 tokens drawn after the embeddings and after each of 2 layers" in text
    assert text.endswith("The longest path: “b”, 6.00 units in the picture.")
