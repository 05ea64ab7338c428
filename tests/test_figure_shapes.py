"""Builders check their arrays against the tokens and heads they are given: a wrong
shape raises ValueError naming the argument, the shape expected and the shape given."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.figures import attention_maps, block, heads_off, real_model
from attention.figures.base.checks import check_shape
from attention.geometry.planes import Layout2D

TOKENS = ["the", "cat", "sat", "down"]
N = len(TOKENS)
RNG = np.random.default_rng(0)


def _raises(argument: str, expected: str, given: tuple[int, ...]):
    message = f"{argument} should have shape {expected}, got {given}"
    return pytest.raises(ValueError, match=re.escape(message))


def test_check_shape_names_the_argument_and_both_shapes():
    check_shape("weights", np.zeros((2, 3)), (None, 3))  # fits: nothing raised
    with _raises("weights", "(any, 4)", (2, 3)):
        check_shape("weights", np.zeros((2, 3)), (None, 4))
    with _raises("weights", "(2, 3, any)", (2, 3)):
        check_shape("weights", np.zeros((2, 3)), (2, 3, None))


def test_attention_maps_with_a_token_too_few_raise():
    weights = RNG.random((2, N, N))
    with _raises("weights", f"(any, {N - 1}, {N})", weights.shape):
        attention_maps.attention_grid(weights, TOKENS[:-1], TOKENS)
    with _raises("scores", str(weights.shape), (2, N, N - 1)):
        attention_maps.attention_grid(weights, TOKENS, scores=np.zeros((2, N, N - 1)))
    with _raises("weights", f"(any, {N}, {N})", (N, N)):
        attention_maps.attention_lines(weights[0], TOKENS, TOKENS, [0])


def test_real_model_views_check_their_maps_and_paths():
    pooled = RNG.random((2, 3, N + 1, N + 1))  # more blocks than tokens
    with _raises("pooled", f"(any, any, {N}, {N})", pooled.shape):
        real_model.head_grid_figure(pooled, TOKENS)
    with _raises("role_values", "(2, 3)", (3, 2)):
        real_model.head_grid_figure(pooled[..., :N, :N], TOKENS, role_values=np.ones((3, 2)))
    paths = Layout2D(np.zeros((3, N - 1, 2)), 0.5)
    with _raises("paths.coords", f"(any, {N}, 2)", (3, N - 1, 2)):
        real_model.layer_path_figure(paths, TOKENS)


def test_block_and_heads_off_views_check_rows_per_token():
    with _raises("update", f"({N}, any)", (N - 1, 8)):
        block.concat_figure(TOKENS, np.zeros((N, 8)), np.zeros((N - 1, 8)), 2)
    with _raises("rows", f"(2, any, {N})", (2, 3, N + 2)):
        heads_off.rollout_figure(np.zeros((2, 3, N + 2)), TOKENS, 0)
