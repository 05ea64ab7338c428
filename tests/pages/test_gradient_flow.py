"""The Lesson's residual step states how much gradient reaches the first layer: the
hand-written backward pass through pre-LN attention layers must match central finite
differences, and the residual's identity path must carry the gradient back unchanged
when the attention's own path is cut."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.analysis.gradient_flow import gradient_flow, input_gradient
from attention.analysis.rank_collapse import seeded_layers
from attention.core.blocks import EncoderBlock


def stack(residual: bool, depth: int = 3, d_model: int = 8, heads: int = 2, seed: int = 4):
    layers = seeded_layers(d_model, depth, heads, None, "pre", seed)
    return [EncoderBlock(layer.self_attention, None, "pre", residual) for layer in layers]


def loss(blocks, x, upstream, temperature):
    for block in blocks:
        x = block(x, temperature=temperature).output
    return float((upstream * x).sum())


@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_the_gradient_matches_central_finite_differences(residual, temperature):
    rng = np.random.default_rng(11)
    x, upstream = rng.standard_normal((5, 8)), rng.standard_normal((5, 8))
    blocks = stack(residual)
    analytic = input_gradient(blocks, x, upstream, temperature)
    numeric = np.zeros_like(x)
    step = 1e-6
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += step
        minus[index] -= step
        up, down = (
            loss(blocks, plus, upstream, temperature),
            loss(blocks, minus, upstream, temperature),
        )
        numeric[index] = (up - down) / (2 * step)
    assert np.allclose(analytic, numeric, rtol=1e-5, atol=1e-7)
    assert np.abs(analytic).max() > 1e-3  # a real gradient, not two zeros agreeing


def test_with_the_attention_cut_only_the_identity_path_carries_the_gradient():
    blocks = stack(True)
    for block in blocks:
        block.self_attention.w_o[:] = 0.0  # the update is the constant b_o
    rng = np.random.default_rng(3)
    x, upstream = rng.standard_normal((5, 8)), rng.standard_normal((5, 8))
    assert np.allclose(input_gradient(blocks, x, upstream), upstream)
    for block in blocks:
        block.residual = False
    assert np.allclose(input_gradient(blocks, x, upstream), 0.0)


def test_gradient_flow_reports_the_ratio_of_the_stacks_gradients():
    x = np.random.default_rng(0).standard_normal((6, 16))
    flow = gradient_flow(x, 4, 2, None, seed=1)
    upstream = np.random.default_rng([1, 7]).standard_normal(x.shape)
    for residual, size in ((True, flow.with_residual), (False, flow.without_residual)):
        grad = input_gradient(stack(residual, 4, 16, 2, 1), x, upstream)
        assert size == pytest.approx(np.linalg.norm(grad) / np.linalg.norm(upstream))
    assert flow.depth == 4


def test_the_residual_step_states_both_gradients_without_e_notation():
    from attention.teaching.lesson.content import lesson_text
    from tests.support.apptest import open_page

    number = [step.id for step in lesson_text()].index("residual") + 1
    at = open_page("pages/lesson.py", step=str(number), present="1")
    assert not any("gradient" in m.value for m in at.markdown)  # asked before it tells
    at.button(key="lesson_reveal").click().run()
    assert not at.exception, at.exception
    line = next(m.value for m in at.markdown if "gradient back at layer 1" in m.value)
    line = line.replace("\\", "")
    sizes = re.search(r"is ×(\S+) its size at the top with the residual, ×(\S+) without", line)
    assert sizes, line
    with_residual, without = (float(v.replace(",", "")) for v in sizes.groups())
    assert with_residual > without  # the default lesson shows the residual carrying more
    assert not re.search(r"\de[-+]?\d", line)
