"""The text alternatives of the charts of "Why several heads?", "Do we need all these
heads?" and "The block around attention", called directly with small hand-made inputs
(one head, ties, short and long runs): every number a summary states is recomputed here
from the arrays, and the tables behind the "Show as table" switches hold those numbers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.analysis.heads_needed import PruningSummary
from attention.core.cost import AttentionCost
from attention.experiments.equal_cost import LayoutCost
from attention.experiments.rank_limit import RankLimitResult
from attention.experiments.two_targets import TwoTargetResult
from attention.figures.tables import (
    matrix_rows,
    panel_point_rows,
    rollout_rows,
    seed_accuracy_rows,
    series_rows,
    shown_number,
    slice_share_rows,
    stream_update_rows,
    variant_weight_rows,
)
from attention.teaching.narration import block, heads_needed, translation, why_heads
from attention.wording import percent

TOKENS = ["the", "cat", "sat", "on", "mat"]


def _percents(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"(\d+)%", text)]


# Why several heads? -----------------------------------------------------------------


def test_cost_summary_states_each_layouts_parameters_and_work():
    cost = AttentionCost(12, 4, 100, 20, 20, 30, 7)
    layouts = [LayoutCost("2 heads × 8", 2, 8, cost), LayoutCost("1 head × 16", 1, 16, cost)]
    text = why_heads.cost_summary(layouts, 1)
    assert "n = 1 token:" in text
    assert text.count(f"{12 + 4} parameters, {100 + 20 + 20 + 30:,} multiply-adds") == 2


def test_cost_length_summary_reads_the_sentences_own_length():
    table = {"one": {"projection": np.array([10, 2000, 30]), "score": np.array([1, 500, 9])}}
    text = why_heads.cost_length_summary(table, [4, 7, 8], 7)
    assert "from 4 to 8" in text and text.endswith(
        "At n = 7: one: 2,500 in total, 500 for the scores."
    )


def _two_targets(one_head, two_heads) -> TwoTargetResult:
    return TwoTargetResult(
        query=1,
        targets=(0, 4),
        one_head=np.array(one_head),
        two_heads=np.array(two_heads),
        one_head_loss=np.array([1.0, 0.7]),
        two_heads_loss=np.array([1.0, 0.02]),
        d_heads=(8, 4),
    )


def test_two_target_summary_names_each_heads_weight_on_its_target():
    result = _two_targets([0.45, 0.05, 0.0, 0.05, 0.45], [[0.9, 0.1, 0, 0, 0], [0, 0, 0.2, 0, 0.8]])
    text = why_heads.two_target_summary(TOKENS, result)
    assert _percents(text) == [45, 45, 90, 80]
    assert "query “cat” over the 5 tokens" in text and "on “mat”" in text


def test_two_curves_summary_states_where_each_fit_ends_and_the_floor():
    text = why_heads.two_curves_summary(_two_targets(np.ones(5) / 5, np.ones((2, 5)) / 5))
    assert "over 2 steps: one head ends at 0.700, two heads at 0.020" in text
    assert f"log 2 = {np.log(2):.3f}" in text


def _rank_limit(sv: np.ndarray) -> RankLimitResult:
    m, n = sv.shape
    return RankLimitResult(
        target=np.eye(n),
        d_heads=np.arange(1, m + 1),
        error=np.linspace(1.0, 0.0, m),
        misplaced=np.linspace(0.5, 0.0, m),
        fitted=np.stack([np.eye(n)] * m),
        singular_values=sv,
        loss_curves=np.zeros((m, 3)),
    )


def test_singular_values_count_only_those_above_a_millionth_of_the_largest():
    sv = np.array([[2.0, 1e-7, 0.0], [2.0, 3e-6, 0.0], [1.0, 1.0, 1.0]])
    result = _rank_limit(sv)
    assert why_heads.visible_ranks(sv).tolist() == [1, 2, 3]  # 1e-7 < 2e-6 < 3e-6
    assert why_heads.singular_value_summary(result).endswith(
        "1 at d_head = 1, 2 at d_head = 2, 3 at d_head = 3."
    )
    text = why_heads.rank_error_summary(result)
    assert "1.000 nats (50% of the attention misplaced) at d_head = 1" in text
    assert "0.000 nats (0% of the attention misplaced) at d_head = 3" in text
    one = why_heads.rank_error_summary(_rank_limit(sv[:1]))  # a single fit: said once
    assert one.count("d_head") == 2 and " and " not in one


def test_rank_patterns_summary_leaves_out_d_heads_not_fitted():
    result = _rank_limit(np.ones((3, 3)))
    text = why_heads.rank_patterns_summary(result, [1, 2, 2, 9])
    assert "best fit at d_head = 1, 2." in text
    assert text.endswith("50% at d_head = 1, 25% at d_head = 2.")


def test_loss_summary_averages_the_last_steps_or_all_of_a_short_run():
    long = np.arange(100.0)
    text = why_heads.loss_summary({"(a)": long, "(b)": long / 2})
    tail = long[-why_heads.SMOOTHING :].mean()
    assert f"(a): {tail:.3f}; (b): {tail / 2:.3f}." in text
    short = why_heads.loss_summary({"(a)": np.array([3.0, 1.0])})
    assert "last 2 steps: (a): 2.000." in short


def test_head_maps_and_seed_spread_summaries():
    weights = {"a": np.array([[0.5, 0.5, 0.0]]), "b": np.array([[0.1, 0.2, 0.7], [1, 0, 0]])}
    text = why_heads.head_maps_summary({"a": "(a)", "b": "(b)"}, weights, ["x", "y", "z"])
    assert "(a) (head 1: 50% on “x”)" in text  # a tie: the first key
    assert "(b) (head 1: 70% on “z”; head 2: 100% on “x”)" in text
    summary = {"a": {"accuracy": np.array([0.25, 0.5, 0.125])}}
    spread = why_heads.seed_spread_summary(summary, {"a": "(a)"})
    assert "for 3 seeds" in spread and "(a): 12.5% to 50.0%" in spread
    rows = seed_accuracy_rows(summary, {"a": "(a)"}, [7, 8, 9])
    assert [(r["seed"], r["accuracy (%)"]) for r in rows] == [(7, 25.0), (8, 50.0), (9, 12.5)]
    table = variant_weight_rows({"a": "(a)", "b": "(b)"}, weights, ["x", "y", "z"])
    assert [r["head 1"] for r in table] == [0.5, 0.5, 0.0, 0.1, 0.2, 0.7]


def test_slicing_summaries_count_weights_and_shares():
    whole = np.arange(1.0, 9.0).reshape(2, 4)
    cut = whole * np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    text = why_heads.slicing_summary(whole, cut, 2)
    assert "2 × 4 matrix, 2 heads: 8 of its 8 weights" in text and "leave 4." in text
    shares = {"W_Q": np.array([0.5, 0.75]), "one": np.array([1.0])}
    share_text = why_heads.slice_share_summary(shares)
    assert "1/h = 50%" in share_text and "W\\_Q: 50% to 75%; one: 100% to 100%" in share_text
    rows = slice_share_rows(shares)
    assert [(r["W_Q"], r["head"], r["own slice (%)"]) for r in rows] == [
        ("W_Q", 1, 50.0),
        ("W_Q", 2, 75.0),
        ("one", 1, 100.0),
    ]


# Do we need all these heads? --------------------------------------------------------


def test_switches_summary_counts_heads_on_per_layer():
    mask = np.array([[1, 0, 1], [0, 0, 0]])
    text = heads_needed.switches_summary(mask)
    assert text == ("2 of 6 heads on (2 layers × 3 heads). Heads on per layer, from layer 1: 2, 0.")


def _value(x: float) -> str:
    return f"{x:.2f}"


def test_importance_summary_names_the_extremes_of_the_heads_on():
    values = np.array([[0.5, 0.9, 0.1], [0.3, 0.7, 0.2]])
    on = np.array([[True, False, True], [True, True, True]])  # 0.9 is off
    text = heads_needed.importance_summary(values, on, "drop", _value)
    assert "of the 5 heads that are on" in text
    named = re.findall(r"layer (\d) head (\d) \((\d\.\d\d)\)", text)
    assert named == [
        ("2", "2", "0.70"),
        ("1", "1", "0.50"),
        ("2", "1", "0.30"),
        ("1", "3", "0.10"),
        ("2", "3", "0.20"),
        ("2", "1", "0.30"),
    ]
    one = heads_needed.importance_summary(values, values == 0.5, "drop", _value)
    assert one.count("layer 1 head 1 (0.50)") == 2  # one head on: both highest and lowest
    assert "all are switched off" in heads_needed.importance_summary(
        values, on & False, "drop", _value
    )


def test_pruning_summary_with_and_without_random_orders():
    summary = PruningSummary(0.05, 0.8, 72, 30, (10, 14, 12), 2, 66, (32, 0.74))
    text = heads_needed.pruning_summary(summary, 3)
    assert "3 random orders, starting at 80" in text
    assert "5 points: 30 least important first; 12 in a random order (median)." in text
    alone = heads_needed.pruning_summary(PruningSummary(0.05, 0.8, 72, 30, (), 1, 66, None), 0)
    assert alone.endswith("30 least important first.")


def test_rollout_rows_hold_raw_and_rollout_per_layer_and_key():
    rows = np.arange(12.0).reshape(2, 2, 3) / 10
    table = rollout_rows(rows, ["a", "b", "c"])
    assert [(r["layer"], r["key"]) for r in table][:4] == [(1, "a"), (1, "b"), (1, "c"), (2, "a")]
    np.testing.assert_allclose([r["raw attention"] for r in table], rows[0].ravel())
    np.testing.assert_allclose([r["rollout"] for r in table], rows[1].ravel())


# The block around attention ---------------------------------------------------------


def test_block_summaries_state_sizes_and_extremes():
    concat = np.array([[1.0, -3.0], [0.5, 0.0]])
    update = np.array([[0.1, 0.2, -0.25], [0.0, 0.0, 0.0]])
    text = block.concat_summary(concat, update, 1)
    assert text.startswith("2 tokens (rows): the outputs of their 1 head, concatenated")
    assert "2 numbers a token" in text and "3 numbers" in text
    assert text.endswith("Largest size: 3.00 concatenated, 0.25 in the update.")
    ratios = np.array([[0.2, 0.6, 0.4], [1.0, 1.0, 1.0]])
    nudges = block.stream_update_summary(["attn", "ffn"], ratios)
    assert "attn: median 0.40, from 0.20 to 0.60; ffn: median 1.00, from 1.00 to 1.00." in nudges
    hidden = block.hidden_summary(np.array([[1.0, -1.0, 0.0, 2.5]]), "relu")
    assert (
        hidden
        == "RELU hidden layer: 1 token × 4 units, 50% of the values above 0, the largest 2.50."
    )


def test_reads_and_layer_ratio_summaries():
    shares = np.array([[0.7, 0.3], [0.5, 0.5]])  # two units, two heads: strongest 0.7, 0.5
    text = block.reads_summary([("toy", shares)])
    assert text.endswith("toy: 60% (evenly: 50%).")
    ratios = np.zeros((3, 2, 5))
    ratios[0, 0] = [1, 2, 3, 4, 100]  # median 3 despite one huge token
    ratios[-1, 1] = [0.5] * 5
    text = block.layer_ratio_summary(ratios)
    assert "self-attention: 3.00 in layer 1, 0.00 in layer 3" in text
    assert "feed-forward: 0.00 in layer 1, 0.50 in layer 3" in text


def test_collapse_summaries_read_the_picked_and_the_last_depth():
    distances = [np.array([1.0, 1e-3, 1e-16]), np.array([1.0, 0.5, 0.25])]
    text = block.collapse_summary(["no residual", "residual"], distances, 1)
    assert "no residual: 0.001 at depth 1, 1.0 × 10⁻¹⁶ at 2" in text  # no e-notation
    assert "residual: 0.5 at depth 1, 0.25 at 2" in text
    panels = [("collapsed", np.zeros((3, 2))), ("spread", np.array([[3.0, 0], [-3, 0], [0, 0]]))]
    spread = np.sqrt(18 / 3)
    assert block.collapse_pca_summary(panels, 4).endswith(f"collapsed: 0; spread: {spread:.2g}.")
    rows = panel_point_rows(panels, ["a", "b", "c"], "stack")
    assert [(r["stack"], r["token"], r["x"]) for r in rows][3:5] == [
        ("spread", "a", 3.0),
        ("spread", "b", -3.0),
    ]


def test_translation_summaries_name_each_heads_strongest_cell():
    weights = np.array([[[0.2, 0.8], [0.6, 0.4]], [[0.5, 0.5], [1.0, 0.0]]])
    text = translation.maps_summary(["1. a", "2. b"], ["du", "bist"], ["you", "are"], weights)
    assert text.startswith("2 maps of 2 queries (rows) × 2 keys (columns).")
    assert "1\\. a: “du” → “are” 80%; 2\\. b: “bist” → “you” 100%." in text
    joint = translation.joint_summary("1. a", ["du", "bist"], ["you", "are"], weights[1])
    assert joint.endswith("“du” → “you” 50%, “bist” → “you” 100%.")  # a tie: the first key
    rows = matrix_rows(["1. a", "2. b"], ["du", "bist"], ["you", "are"], weights)
    assert rows == [
        {"map": "1. a", "query": "du", "you": "0.20", "are": "0.80"},
        {"map": "1. a", "query": "bist", "you": "0.60", "are": "0.40"},
        {"map": "2. b", "query": "du", "you": "0.50", "are": "0.50"},
        {"map": "2. b", "query": "bist", "you": "1.00", "are": "0.00"},
    ]


def test_causal_maps_summary_names_the_forced_row_and_skips_it():
    """A causal map's first query may see only itself: its 100 % is the mask's, not the
    head's. The summary says so and finds each head's strongest cell in the other rows."""
    allowed = np.tril(np.ones((3, 3), dtype=bool))
    weights = np.array(
        [
            [[1.0, 0, 0], [0.3, 0.7, 0], [0.2, 0.1, 0.7]],  # 70 % twice: the later query
            [[1.0, 0, 0], [0.9, 0.1, 0], [0.05, 0.05, 0.9]],  # 90 % twice: not itself
        ]
    )
    tokens = ["<s>", "du", "bist"]
    text = translation.maps_summary(["1. a", "2. b"], tokens, tokens, weights, allowed)
    assert "Row 1 (“&lt;s&gt;”) may see only itself" in text
    assert "forced by the mask" in text
    assert "“&lt;s&gt;” → “&lt;s&gt;”" not in text
    assert text.endswith("1\\. a: “bist” → “bist” 70%; 2\\. b: “du” → “&lt;s&gt;” 90%.")
    # Without a mask every row counts, as for the encoder's maps.
    plain = translation.maps_summary(["1. a", "2. b"], tokens, tokens, weights)
    assert "forced" not in plain and "1\\. a: “&lt;s&gt;” → “&lt;s&gt;” 100%" in plain


def test_decoder_summary_of_every_example_reads_queries_that_choose():
    """On the hand-built decoder of every example: no head's strongest cell is row 1, and
    each stated percent is the largest weight of the rows after it, recomputed here."""
    from attention.models.translation import EXAMPLES, build_translation_model, head_titles

    model = build_translation_model()
    titles = head_titles("decoder")
    for example in EXAMPLES:
        trace = model.run(example.english, example.german)
        tokens = list(trace.target_tokens)
        mask = trace.decoder.sublayers[0].detail.mask
        assert mask[0].sum() == 1 and np.allclose(trace.decoder_weights[:, 0, 0], 1.0)
        text = translation.maps_summary(titles, tokens, tokens, trace.decoder_weights, mask)
        assert "Row 1 (“&lt;s&gt;”) may see only itself" in text
        stated = re.findall(r"[<>]?\d+%", text.split("in each")[1])
        expected = [percent(max(max(row) for row in w[1:])) for w in trace.decoder_weights]
        assert stated == expected, (example.english, text)
        assert "“&lt;s&gt;” → “&lt;s&gt;”" not in text


# Tables ------------------------------------------------------------------------------


def test_series_rows_keep_small_numbers_readable():
    rows = series_rows("n", [4, 8], {"total": np.array([1234.5678, 2.0]), "tiny": [3e-16, 0.0]})
    assert rows == [{"n": 4, "total": 1234.568, "tiny": 3e-16}, {"n": 8, "total": 2.0, "tiny": 0.0}]
    assert shown_number(0.027757) == pytest.approx(0.02776)
    names = ["attn", "ffn"]
    norms = np.array([[2.0, 4.0], [1.0, 1.0]])
    table = stream_update_rows(names, ["a", "b"], norms, norms / 2, np.full((2, 2), 0.5))
    assert [(r["sublayer"], r["token"], r["‖stream‖"]) for r in table] == [
        ("attn", "a", 2.0),
        ("attn", "b", 4.0),
        ("ffn", "a", 1.0),
        ("ffn", "b", 1.0),
    ]
