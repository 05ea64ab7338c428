"""§4: the hand-written backward pass, the task, determinism and what training returns."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from attention.experiments.slicing import input_slices
from attention.experiments.training.model import TwoLookupModel
from attention.experiments.training.task import TwoLookupTask
from attention.experiments.training.train import (
    TrainingConfig,
    compare_variants,
    mean_pairwise_jsd,
    seed_summary,
    train_variant,
    trained_heads,
)
from tests.support.gradcheck import numerical_gradient, relative_error

SMALL = TrainingConfig(d_model=8, n_heads=2, n_symbols=4, seq_len=5, hidden=16, steps=40)


@pytest.mark.parametrize("variant", SMALL.variants(), ids=lambda v: v.key)
def test_backward_pass_matches_finite_differences(variant):
    task = TwoLookupTask(n_symbols=4, seq_len=5, d_model=8, noise=0.3)
    batch = task.sample(np.random.default_rng(0), 6)
    model = TwoLookupModel(8, variant.n_heads, variant.d_head, 4, 7, variant.sliced, seed=1)

    def loss():
        return model.loss(model.forward(batch.x), batch.answers)

    grads = model.gradients(model.forward(batch.x), batch.answers)
    for name, param, grad in zip(model.PARAMETER_NAMES, model.parameters(), grads, strict=True):
        error = relative_error(grad, numerical_gradient(loss, param))
        assert error < 1e-6, f"{name}: relative error {error:.2e}"


@pytest.mark.reference
def test_backward_pass_matches_torch_autograd():
    torch = pytest.importorskip("torch")
    task = TwoLookupTask(n_symbols=5, seq_len=6, d_model=8)
    batch = task.sample(np.random.default_rng(1), 9)
    model = TwoLookupModel(8, 2, 4, 5, 11, seed=2)
    grads = model.gradients(model.forward(batch.x), batch.answers)

    p = {
        n: torch.tensor(a, requires_grad=True)
        for n, a in zip(model.PARAMETER_NAMES, model.parameters(), strict=True)
    }
    x = torch.tensor(batch.x)
    q = torch.einsum("bd,hde->bhe", x[:, -1], p["w_q"])
    k = torch.einsum("bnd,hde->bhne", x, p["w_k"])
    v = torch.einsum("bnd,hde->bhne", x, p["w_v"])
    w = torch.softmax(torch.einsum("bhe,bhne->bhn", q, k) / 2.0, dim=-1)
    heads = torch.einsum("bhn,bhne->bhe", w, v).reshape(9, 8)
    r = x[:, -1] + heads @ p["w_o"]
    logits = (torch.relu(r @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]).reshape(9 * 2, 5)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(batch.answers).reshape(-1))
    loss.backward()
    for name, grad in zip(model.PARAMETER_NAMES, grads, strict=True):
        np.testing.assert_allclose(grad, p[name].grad.numpy(), rtol=1e-9, atol=1e-12)


def test_task_answers_are_the_marked_symbols():
    task = TwoLookupTask(n_symbols=6, seq_len=7, d_model=10)
    batch = task.sample(np.random.default_rng(0), 50)
    assert batch.x.shape == (50, 8, 10)
    assert ((batch.marks == 1).sum(axis=1) == 1).all() and (
        (batch.marks == 2).sum(axis=1) == 1
    ).all()
    for i in range(50):
        assert batch.answers[i, 0] == batch.symbols[i][batch.marks[i] == 1][0]
        assert batch.answers[i, 1] == batch.symbols[i][batch.marks[i] == 2][0]
    t = task.tables
    j = int(np.flatnonzero(batch.marks[0] == 2)[0])
    expected = t["symbol"][batch.symbols[0, j]] + t["mark"][2] + t["position"][j]
    np.testing.assert_allclose(batch.x[0, j], expected)
    labels = task.labels(batch, 0)
    assert labels[j] == f"B:{batch.symbols[0, j]}" and labels[-1] == "?"


def test_noise_is_fresh_per_example_and_absent_by_default():
    clean = TwoLookupTask(seq_len=4, d_model=6).sample(np.random.default_rng(0), 3)
    noisy = TwoLookupTask(seq_len=4, d_model=6, noise=0.5).sample(np.random.default_rng(0), 3)
    np.testing.assert_allclose(
        clean.x, TwoLookupTask(seq_len=4, d_model=6).embed(clean.symbols, clean.marks)
    )
    assert not np.allclose(noisy.x[:, -1], noisy.x[0, -1])


def test_same_seed_same_curves_other_seed_other_curves():
    a = compare_variants(SMALL, seed=3)
    b = compare_variants(SMALL, seed=3)
    c = compare_variants(SMALL, seed=4)
    for key in a.results:
        np.testing.assert_array_equal(a.results[key].losses, b.results[key].losses)
        assert a.results[key].accuracy == b.results[key].accuracy
        assert not np.array_equal(a.results[key].losses, c.results[key].losses)


def test_sliced_heads_never_read_outside_their_slice():
    result = train_variant(SMALL.variants()[3], SMALL, seed=0)
    outside = ~input_slices(8, 2)[:, :, None]
    for w in (result.model.attention.w_q, result.model.attention.w_k, result.model.attention.w_v):
        assert np.all(w[np.broadcast_to(outside, w.shape)] == 0.0)
        assert np.any(w[np.broadcast_to(~outside, w.shape)] != 0.0)


def test_split_heads_learn_the_task():
    config = TrainingConfig(d_model=16, n_heads=2, n_symbols=4, seq_len=5, steps=400)
    result = train_variant(config.variants()[1], config, seed=0)
    assert result.accuracy > 0.9, "chance is 1/16"
    assert result.losses[-50:].mean() < 0.5 * result.losses[:50].mean()
    assert result.steps_to(0.9) is not None


def test_results_describe_the_heads():
    comparison = compare_variants(SMALL, seed=0)
    one, split = comparison.results["one"], comparison.results["split"]
    assert one.diversity is None and 0.0 <= split.diversity <= 1.0
    assert split.focus.shape == (2, 3)
    np.testing.assert_allclose(split.focus.sum(axis=1), 1.0)
    assert split.losses.shape == split.batch_accuracy.shape == (40,)
    assert comparison.example_weights("full").shape == (2, 6)
    assert len(comparison.example_tokens) == 6
    summary = seed_summary([comparison, compare_variants(SMALL, seed=1)])
    assert summary["split"]["accuracy"].shape == (2,)
    assert np.isnan(summary["one"]["diversity"]).all()


def test_trained_heads_reproduce_the_models_attention():
    comparison = compare_variants(SMALL, seed=0)
    mha, tokens, x = trained_heads(comparison, "split")
    assert tokens == comparison.example_tokens and x.shape == (6, 8)
    assert (mha.n_heads, mha.d_model, mha.d_head) == (2, 8, 4)
    last_row = mha(x).weights[:, -1, :]
    np.testing.assert_allclose(last_row, comparison.example_weights("split"), atol=1e-12)


def test_steps_to_reads_the_running_accuracy():
    result = compare_variants(SMALL, seed=0).results["split"]
    fake = np.r_[np.zeros(100), np.ones(100)]
    object.__setattr__(result, "batch_accuracy", fake)
    assert result.steps_to(0.5, window=10) == 105
    assert result.steps_to(1.0, window=10) == 110
    object.__setattr__(result, "batch_accuracy", np.zeros(100))
    assert result.steps_to(0.5) is None


def test_jensen_shannon_against_scipy():
    rng = np.random.default_rng(0)
    maps = rng.dirichlet(np.ones(7), size=(5, 3))  # 5 examples, 3 heads
    expected = [
        np.mean([jensenshannon(m[i], m[j], base=2) ** 2 for i, j in ((0, 1), (0, 2), (1, 2))])
        for m in maps
    ]
    np.testing.assert_allclose(mean_pairwise_jsd(maps), expected, rtol=1e-10)
    one_hot = np.eye(3)
    assert mean_pairwise_jsd(one_hot) == pytest.approx(1.0)
    assert mean_pairwise_jsd(np.ones((2, 4)) / 4) == 0.0
    with pytest.raises(ValueError, match="at least 2 heads"):
        mean_pairwise_jsd(np.ones((1, 4)) / 4)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_heads": 3}, "n_heads"),
        ({"steps": 0}, "steps"),
        ({"lr": -1.0}, "lr"),
        ({"n_heads": 1}, "n_heads"),
    ],
)
def test_bad_config_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        TrainingConfig(**kwargs)


def test_bad_task_sizes_name_the_parameter():
    with pytest.raises(ValueError, match="seq_len"):
        TwoLookupTask(seq_len=1)
    with pytest.raises(ValueError, match="noise"):
        TwoLookupTask(noise=-0.1)
