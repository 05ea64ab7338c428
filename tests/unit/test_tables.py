"""The table builders against numbers computed here, independently of the library:
plain loops over the vectors, array sizes of the engine's own weights, hand-made results."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy.stats import spearmanr

from attention import MultiHeadAttention
from attention.analysis.head_metrics import summarise_heads
from attention.analysis.head_roles import ENTROPY, ROLES, role_scores
from attention.experiments.equal_cost import compare_layouts
from attention.experiments.training.train import Comparison, TrainingConfig, VariantResult
from attention.figures import tables
from attention.geometry.head_spaces import neighbours

TOKENS = ["the", "cat", "sat", "on", "the", "mat", "."]
N, D_MODEL, HEADS = len(TOKENS), 8, 2


@pytest.fixture(scope="module")
def scene():
    x = np.random.default_rng(3).normal(size=(N, D_MODEL))
    mha = MultiHeadAttention(D_MODEL, HEADS, seed=3, dtype=np.float64)
    return x, mha, mha(x)


def _scores(x, mha, head, query):
    """q·k / √d_head of one query against every key, written out."""
    q = x[query] @ mha.w_q[head] + mha.b_q[head]
    return [float(q @ (x[j] @ mha.w_k[head] + mha.b_k[head])) / math.sqrt(mha.d_head)
            for j in range(len(x))]  # fmt: skip


def _cosines(x, focus):
    return [float(x[j] @ x[focus] / (np.linalg.norm(x[j]) * np.linalg.norm(x[focus])))
            for j in range(len(x))]  # fmt: skip


def test_neighbour_table_ranks_by_cosine_and_by_each_heads_score(scene):
    x, mha, trace = scene
    focus = 1
    table = tables.neighbour_table(TOKENS, neighbours(x, trace, focus), rows=5)
    assert list(table.index) == [1, 2, 3, 4, 5]
    cosine = _cosines(x, focus)
    best = sorted(range(N), key=lambda j: -cosine[j])[:5]
    assert table["original space (cosine)"].tolist() == [
        f"{TOKENS[j]} ({cosine[j]:+.2f})" for j in best
    ]
    assert best[0] == focus  # a token is most like itself
    for head in range(HEADS):
        scores = _scores(x, mha, head, focus)
        order = sorted(range(N), key=lambda j: -scores[j])[:5]
        assert table[f"head {head + 1} (score)"].tolist() == [
            f"{TOKENS[j]} ({scores[j]:+.2f})" for j in order
        ]


def test_neighbour_table_never_asks_for_more_rows_than_tokens(scene):
    x, _, trace = scene
    assert len(tables.neighbour_table(TOKENS, neighbours(x, trace, 0), rows=50)) == N


def test_rank_correlation_table_is_spearman_per_head_and_says_n_a_for_flat_heads(scene):
    x, mha, _ = scene
    flat = MultiHeadAttention.from_weights(
        w_q=np.stack([mha.w_q[0], np.zeros_like(mha.w_q[1])]),
        w_k=mha.w_k,
        w_v=mha.w_v,
        w_o=mha.w_o,
        b_q=np.zeros_like(mha.b_q),
    )
    styled = tables.rank_correlation_table(neighbours(x, flat(x), 2))
    column = styled.data["rank correlation with the original order"]
    expected = spearmanr(_cosines(x, 2), _scores(x, flat, 0, 2)).statistic
    assert column["head 1"] == pytest.approx(expected, abs=1e-12)
    assert np.isnan(column["head 2"])  # head 2 scores every key 0
    shown = styled.to_string()
    assert f"{expected:+.2f}" in shown and "n/a" in shown


def test_head_kind_table_rows_against_the_weights(scene):
    _, _, trace = scene
    focus = 4
    styled = tables.head_kind_table(summarise_heads(trace.weights, focus), TOKENS, TOKENS, focus)
    table = styled.data
    assert list(table.index) == ["head 1", "head 2"]
    for head, row in zip(range(HEADS), table.itertuples(index=False), strict=True):
        w = trace.weights[head]
        entropy = statistics.mean(-sum(p * math.log2(p) for p in r if p > 0) for r in w)
        top = int(np.argmax(w[focus]))
        assert row[0] == pytest.approx(entropy) and row[1] == pytest.approx(w.max())
        assert row[2] == f"{TOKENS[top]} ({w[focus, top]:.2f})"
    assert table.columns[2] == "“the” looks most at"
    assert f"{table.iloc[0, 0]:.2f}" in styled.to_string()


def test_cost_table_counts_the_engines_weights_and_multiply_adds():
    n = 5
    rows = tables.cost_table(compare_layouts(D_MODEL, HEADS, n))
    assert [r["layout"] for r in rows] == ["2 heads × 4", "1 head × 8", "2 full-size heads × 8"]
    for row, (heads, d_head) in zip(rows, [(2, 4), (1, 8), (2, 8)], strict=True):
        mha = MultiHeadAttention(D_MODEL, heads, d_head, seed=0)
        arrays = (mha.w_q, mha.w_k, mha.w_v, mha.b_q, mha.b_k, mha.b_v, mha.w_o, mha.b_o)
        width = heads * d_head
        assert row["parameters"] == sum(a.size for a in arrays)
        assert row["distributions per query"] == heads
        assert row["MACs: projections"] == 3 * n * D_MODEL * width + n * width * D_MODEL
        assert row["MACs: scores (∝ n²)"] == 2 * heads * n * n * d_head
        assert row["softmax exps"] == heads * n * n
        assert row["MACs: total"] == row["MACs: projections"] + row["MACs: scores (∝ n²)"]


def _result(config, variant, accuracy, answers, focus, diversity, batch_accuracy):
    return VariantResult(
        variant=variant,
        losses=np.zeros(len(batch_accuracy)),
        batch_accuracy=np.asarray(batch_accuracy, dtype=float),
        accuracy=accuracy,
        answer_accuracy=answers,
        focus=np.asarray(focus, dtype=float),
        diversity=diversity,
        seconds=1.25,
        model=None,
    )


def test_comparison_table_from_hand_made_results():
    config = TrainingConfig(d_model=8, n_heads=2)
    one, split, full, cut = config.variants()
    climbing = [0.0] * 100 + [1.0] * 100
    results = {
        "one": _result(config, one, 0.4, (0.5, 0.8), [[0.5, 0.4, 0.1]], None, [0.2] * 200),
        "split": _result(config, split, 0.997, (1.0, 0.994), [[0.9, 0, 0.1], [0, 0.6, 0.4]],
                         0.81234, climbing),
        "full": _result(config, full, 0.004, (0.0, 0.02), [[0.6, 0.3, 0.1]] * 2, 0.0, [0.0]),
        "sliced": _result(config, cut, 0.25, (0.5, 0.5), [[0.2, 0.2, 0.6]] * 2, 0.1, climbing),
    }  # fmt: skip
    rows = tables.comparison_table(Comparison(config, 0, [], np.zeros((1, 8)), results))
    reached = next(t for t in range(50, 201) if sum(climbing[t - 50 : t]) / 50 >= 0.95)
    assert rows[0] == {
        "variant": one.label,
        "accuracy (both right)": "40.0%",
        "A right": "50.0%",
        "B right": "80.0%",
        "steps to 95 %": "never",
        "heads mostly on A / on B": "0 / 0",  # 0.5 is not more than half
        "head diversity (JSD, bits)": "—",
        "training time (s)": "1.2",
    }
    assert rows[1]["accuracy (both right)"] == "99.7%" and rows[1]["B right"] == "99.4%"
    assert rows[1]["steps to 95 %"] == str(reached) == "148"
    assert rows[1]["heads mostly on A / on B"] == "1 / 1"
    assert rows[1]["head diversity (JSD, bits)"] == "0.812"
    assert rows[2]["accuracy (both right)"] == "0.4%"  # not rounded to nothing
    assert rows[2]["heads mostly on A / on B"] == "2 / 0"
    labels = {v.key: v.label for v in config.variants()}
    assert [r["variant"] for r in tables.slice_rows(rows, labels)] == [split.label, cut.label]


def test_seed_table_summarises_each_variant_across_seeds():
    accuracy = [0.5, 0.75, 1.0]
    summary = {
        "one": {
            "accuracy": np.array(accuracy),
            "diversity": np.full(3, np.nan),
            "steps_to_95": np.array([np.nan, np.nan, np.nan]),
        },
        "split": {
            "accuracy": np.array([1.0, 1.0, 0.9]),
            "diversity": np.array([0.2, 0.4, 0.6]),
            "steps_to_95": np.array([300.0, np.nan, 100.0]),
        },
    }
    labels = {"one": "(a)", "split": "(b)"}
    one, split = tables.seed_table(summary, labels)
    sd = statistics.pstdev(accuracy)
    assert (
        one["accuracy mean ± sd"]
        == f"{statistics.mean(accuracy):.1%} ± {sd:.1%}"
        == ("75.0% ± 20.4%")
    )
    assert one["accuracy min – max"] == "50.0% – 100.0%"
    assert one["seeds reaching 95 %"] == "0 of 3" and one["steps to 95 % (median)"] == "—"
    assert one["head diversity mean ± sd"] == "—"
    assert split["seeds reaching 95 %"] == "2 of 3" and split["steps to 95 % (median)"] == "200"
    assert split["head diversity mean ± sd"] == "0.400 ± 0.163"
    assert [
        r["variant"] for r in tables.slice_rows([one, split], {"split": "(b)", "sliced": "(d)"})
    ] == ["(b)"]


def test_pattern_checkboxes_tick_the_keys_each_query_attends_to():
    pattern = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    grid = tables.pattern_checkboxes(pattern)
    assert list(grid.index) == list(grid.columns) == ["t0", "t1", "t2"]
    assert grid.to_numpy().tolist() == [[True, False, False], [True, True, False],
                                        [False, False, True]]  # fmt: skip


def test_role_table_has_one_row_per_head_counted_from_one():
    tokens = ["[CLS]", "the", "cat", ",", "sat", ".", "[SEP]"]
    n = len(tokens)
    on_sep = np.zeros((n, n))
    on_sep[:, -1] = 1.0
    weights = np.stack([np.stack([on_sep, np.full((n, n), 1 / n)])] * 6)
    rows = tables.role_table(role_scores(weights, tokens))
    assert len(rows) == 12
    assert [(r["layer"], r["head"]) for r in rows[:3]] == [(1, 1), (1, 2), (2, 1)]
    assert set(rows[0]) == {"layer", "head", "strongest role", *ROLES, ENTROPY}
    assert rows[0]["strongest role"] == "[SEP]" and rows[0]["[SEP]"] == 1.0
    assert rows[0][ENTROPY] == 0.0
    assert rows[1][ENTROPY] == pytest.approx(math.log2(n))
    assert rows[1]["punctuation"] == pytest.approx(2 / n)  # "," and "."


def test_matrix_rows_hold_every_weight_of_the_engines_maps(scene):
    """One row per head and query, one column per key (a repeated token named with its
    position, as on the maps' axes), each cell the engine's weight to two decimals."""
    trace = scene[2]
    rows = tables.matrix_rows(["h1", "h2"], TOKENS, TOKENS, trace.weights)
    assert len(rows) == HEADS * N
    keys = ["the (0)", "cat", "sat", "on", "the (4)", "mat", "."]
    for i, row in enumerate(rows):
        head, q = divmod(i, N)
        assert list(row) == ["map", "query", *keys]
        assert (row["map"], row["query"]) == (f"h{head + 1}", keys[q])
        for k, key in enumerate(keys):
            assert float(row[key]) == pytest.approx(trace.weights[head, q, k], abs=0.005)
            assert len(row[key]) == 4  # "0.23": two decimals


def test_matrix_rows_mark_the_cells_a_causal_mask_blocks():
    x = np.random.default_rng(5).normal(size=(4, 8))
    trace = MultiHeadAttention(8, 2, seed=5)(x, causal=True)
    allowed = np.tril(np.ones((4, 4), dtype=bool))
    rows = tables.matrix_rows(["a", "b"], list("wxyz"), list("wxyz"), trace.weights, allowed)
    for i, row in enumerate(rows):
        head, q = divmod(i, 4)
        for k, key in enumerate("wxyz"):
            if k > q:
                assert row[key] == "—"
            else:
                assert float(row[key]) == pytest.approx(trace.weights[head, q, k], abs=0.005)
    assert rows[0]["w"] == "1.00"  # the first query may see itself only


def test_maps_table_falls_back_to_the_focus_rows_past_the_cell_limit(scene):
    trace = scene[2]
    small = tables.maps_table(["h1", "h2"], TOKENS, TOKENS, trace.weights, focus=1)
    assert len(small) == HEADS * N and "query" in small[0]
    side = math.isqrt(tables.MAX_MATRIX_CELLS // 2) + 1  # two maps just past the limit
    big = np.full((2, side, side), 1 / side)
    tokens = [f"t{i}" for i in range(side)]
    rows = tables.maps_table(["h1", "h2"], tokens, tokens, big, focus=3)
    assert len(rows) == side and list(rows[0]) == ["key", "h1", "h2"]
    rows = tables.maps_table(["h1", "h2"], tokens, tokens, big)  # no focus: top keys
    assert len(rows) == 2 * side * 3 and list(rows[0]) == ["map", "query", "rank", "key", "weight"]
