"""ui.pooled_maps: long self-attention maps are pooled before attention_grid draws them,
everything else reaches the builder untouched."""

from __future__ import annotations

import numpy as np

from attention.figures.attention_maps import attention_grid
from ui.pooled_maps import maps_to_draw


def _maps(heads: int, n_q: int, n_k: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(n_k), size=(heads, n_q))


def test_short_and_cross_maps_pass_through_with_their_scores_and_mask():
    weights, tokens = _maps(2, 5, 5), [f"t{i}" for i in range(5)]
    scores, allowed = np.ones((2, 5, 5)), np.tril(np.ones((5, 5), bool))
    short = maps_to_draw(weights, tokens, scores=scores, allowed=allowed, self_attention=True)
    assert short["weights"] is weights and short["scores"] is scores
    assert short["allowed"] is allowed and short["query_tokens"] is tokens
    queries, keys = [f"q{i}" for i in range(100)], [f"k{i}" for i in range(90)]
    cross = maps_to_draw(_maps(1, 100, 90), queries, keys, max_cells=8, columns=1)
    assert cross["weights"].shape == (1, 100, 90) and cross["key_tokens"] is keys
    assert cross["columns"] == 1  # other grid options pass through


def test_a_long_self_attention_map_is_pooled_into_labelled_blocks():
    n, cells = 10, 4  # blocks of 3, 3, 2, 2 tokens
    weights, tokens = _maps(1, n, n), [f"w{i}" for i in range(n)]
    ones = np.ones((1, n, n))
    pooled = maps_to_draw(weights, tokens, scores=ones, self_attention=True, max_cells=cells)
    assert "scores" not in pooled and "allowed" not in pooled
    assert list(pooled["block_starts"]) == [0, 3, 6, 8]
    assert pooled["query_tokens"][1] == "3–5: w3 … w5"
    first = weights[0, 0:3, 0:3].sum(axis=1).mean()  # block (0, 0): mean over 3 queries
    np.testing.assert_allclose(pooled["weights"][0, 0, 0], first)
    np.testing.assert_allclose(pooled["weights"].sum(axis=-1), 1.0)
    figure = attention_grid(**pooled).to_plotly_json()
    assert figure["layout"]["yaxis"]["title"]["text"] == "query · token number"
