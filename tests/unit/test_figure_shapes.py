"""Builders check their arrays against the tokens and heads they are given: a wrong
shape raises ValueError naming the argument, the shape expected and the shape given."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from attention import MultiHeadAttention
from attention.analysis.pruning import PruningCurve, curve_band
from attention.experiments.rank_limit import fit_rank_limit, target_pattern
from attention.experiments.slicing import slicing_matrices
from attention.experiments.training.train import TrainingConfig, compare_variants
from attention.experiments.two_targets import fit_two_targets
from attention.figures import (
    attention_maps,
    block,
    block_rank_collapse,
    head_motion,
    head_spaces,
    heads_needed,
    real_model,
    why_heads_cost,
    why_heads_rank_limit,
    why_heads_slicing,
    why_heads_training,
    why_heads_two_targets,
)
from attention.figures.base.checks import check_shape
from attention.geometry.head_spaces import head_spaces as layouts_of
from attention.geometry.planes import Layout2D

TOKENS = ["the", "cat", "sat", "down"]
N = len(TOKENS)
RNG = np.random.default_rng(0)


def _raises(argument: str, expected: str, given: tuple[int, ...]):
    message = f"{argument} must have shape {expected}; got shape {given}."
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
        heads_needed.rollout_figure(np.zeros((2, 3, N + 2)), TOKENS, 0)


def test_head_space_views_check_every_layout_per_token():
    x = RNG.normal(size=(N, 8))
    trace = MultiHeadAttention(8, 2, seed=0, dtype=np.float64)(x)
    spaces = layouts_of(x, trace)
    with _raises("spaces.before.coords", f"({N - 1}, 2)", (N, 2)):
        head_motion.motion_figure(spaces, TOKENS[:-1])
    short = dataclasses.replace(spaces.heads[1], keys=spaces.heads[1].keys[:-1])
    wrong = dataclasses.replace(spaces, heads=[spaces.heads[0], short])
    with _raises("spaces.heads[1].keys", f"({N}, 2)", (N - 1, 2)):
        head_spaces.head_space_figure(wrong, TOKENS, trace.weights, 0)
    with _raises("rank_corr", "(any)", (2, 2)):
        head_spaces.neighbour_order_chart(np.zeros((2, 2)), "cat")


def test_heads_off_views_check_the_mask_values_and_curves():
    with _raises("mask", "(any, any)", (12,)):
        heads_needed.switches_figure(np.ones(12))
    with _raises("values", "(any, any)", (6,)):
        heads_needed.importance_figure(np.ones(6), np.ones(6) > 0, "drop", ".2f")
    removed = np.arange(4)
    curve = PruningCurve("accuracy", removed, np.ones(3), ())
    band = curve_band([PruningCurve("accuracy", removed, np.ones(4), ())] * 2)
    with _raises("curve.scores", "(4)", (3,)):
        heads_needed.pruning_figure(curve, band, 2, 1, 0.05)


def test_why_heads_views_check_their_results():
    x = RNG.normal(size=(N, 8))
    two = fit_two_targets(x, 0, (1, N - 1), steps=3)
    with _raises("result.one_head", f"({N + 1})", (N,)):
        why_heads_two_targets.two_target_figure([*TOKENS, "extra"], two)
    with _raises("result.two_heads_loss", "(3)", (2,)):
        why_heads_two_targets.two_target_curves(
            dataclasses.replace(two, two_heads_loss=two.two_heads_loss[:2])
        )
    rank = fit_rank_limit(target_pattern("previous", 3), d_model=4, steps=3)
    with _raises("result.singular_values", "(3, any)", (3,)):
        why_heads_rank_limit.singular_value_chart(
            dataclasses.replace(rank, singular_values=rank.singular_values[:, 0])
        )
    with _raises("result.error", "(3)", (2,)):
        why_heads_rank_limit.rank_error_chart(dataclasses.replace(rank, error=rank.error[:2]), {})
    with _raises("result.fitted", "(3, 3, 3)", (2, 3, 3)):
        why_heads_rank_limit.rank_patterns(dataclasses.replace(rank, fitted=rank.fitted[:2]), [1])
    with _raises("projection of one head", "(2)", (3,)):
        table = {"one head": {"projection": np.ones(3), "score": np.ones(3)}}
        why_heads_cost.cost_by_length_chart(table, [4, 8], 5)


def test_slicing_figure_checks_both_matrices_against_the_heads():
    whole, cut = slicing_matrices(MultiHeadAttention(8, 2, seed=0).w_q)
    with _raises("whole", "(any, a multiple of n_heads=3)", (8, 8)):
        why_heads_slicing.slicing_figure(whole, cut, 3)
    with _raises("cut", "(8, 8)", (8, 4)):
        why_heads_slicing.slicing_figure(whole, cut[:, :4], 2)


def test_training_views_check_weights_per_token_and_accuracy_per_seed():
    config = TrainingConfig(d_model=8, n_heads=2, n_symbols=2, seq_len=3, steps=2, batch_size=4)
    comparison = compare_variants(config, seed=0)
    one_token_short = dataclasses.replace(comparison, example_tokens=comparison.example_tokens[:-1])
    with _raises("example weights of one", "(any, 3)", (1, 4)):
        why_heads_training.head_maps(one_token_short)
    summary = {"one": {"accuracy": np.ones(3)}}
    with _raises("accuracy of one", "(2)", (3,)):
        why_heads_training.seed_spread(summary, {"one": "(a)"}, [0, 1], 2)
    with _raises("losses of (a)", "(any)", (2, 2)):
        why_heads_training.loss_curves({"(a)": np.ones((2, 2))}, 4)


def test_block_views_check_shares_ratios_and_distances():
    with _raises("shares of random", "(any, any)", (8,)):
        block.head_reads_figure([("random", np.ones(8))])
    with _raises("ratios", "(any, 2, any)", (6, 3, N)):
        block.layer_ratio_figure(np.ones((6, 3, N)))
    with _raises("distances of with", "(any)", (2, 2)):
        block_rank_collapse.rank_collapse_figure([("with", True, True, np.ones((2, 2)))])
