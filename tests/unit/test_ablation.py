"""Head importance and pruning curves. On a tiny constructed BERT only one head reaches
the output (every other head's block of W_O is zero), so the answer is known: that head
matters and no other does. On MiniLM: importance equals its definition computed head by
head with `run(head_mask=...)`, and all 72 ablations cost at most one pass per head."""

from __future__ import annotations

import numpy as np
import pytest

from attention.analysis.ablation import AccuracyScore, CosineScore, MaskedRuns, head_importance
from attention.analysis.paraphrase import ParaphraseTask, Triplet
from attention.analysis.pruning import (
    PruningCurve,
    curve_band,
    prune_by_importance,
    prune_in_random_order,
)
from attention.core.blocks import EncoderBlock
from attention.models.pretrained import PretrainedModel, load_pretrained
from attention.models.pretrained.config import ModelConfig
from attention.models.pretrained.tokenizer import WordPieceTokenizer
from tests.unit.test_pretrained import package_dir

LAYERS, HEADS, D_HEAD = 2, 3, 4
IMPORTANT = (1, 2)  # the only head whose output reaches W_O's result
TEXTS = ("the cat sat on the mat", "a dog ran home", "birds sing at dawn")


def tiny_model(seed: int = 0) -> PretrainedModel:
    """A 2-layer, 3-head BERT with random weights and MiniLM's tokenizer, in which every
    head but IMPORTANT has a zero block of W_O (so switching it off changes nothing)."""
    d = HEADS * D_HEAD
    config = ModelConfig(LAYERS, HEADS, d, D_HEAD, 16, 30522, 64, 1e-12, "tiny")
    rng = np.random.default_rng(seed)

    def normal(*shape):
        return rng.normal(size=shape).astype(np.float32)

    weights = {
        "embeddings.word_embeddings.weight": normal(30522, d),
        "embeddings.position_embeddings.weight": normal(64, d),
        "embeddings.token_type_embeddings.weight": normal(2, d),
        "embeddings.LayerNorm.weight": 1 + 0.1 * normal(d),
        "embeddings.LayerNorm.bias": 0.1 * normal(d),
    }
    for layer in range(LAYERS):
        prefix = f"encoder.layer.{layer}"
        shapes = {
            "attention.self.query": (d, d),
            "attention.self.key": (d, d),
            "attention.self.value": (d, d),
            "attention.output.dense": (d, d),
            "intermediate.dense": (16, d),
            "output.dense": (d, 16),
        }
        for name, shape in shapes.items():
            weights[f"{prefix}.{name}.weight"] = normal(*shape) / np.sqrt(shape[1])
            weights[f"{prefix}.{name}.bias"] = 0.1 * normal(shape[0])
        w_o = weights[f"{prefix}.attention.output.dense.weight"]  # (out, in = concat)
        for head in range(HEADS):
            if (layer, head) != IMPORTANT:
                w_o[:, head * D_HEAD : (head + 1) * D_HEAD] = 0.0
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            weights[f"{prefix}.{norm}.weight"] = 1 + 0.1 * normal(d)
            weights[f"{prefix}.{norm}.bias"] = 0.1 * normal(d)
    tokenizer_json = (package_dir() / "tokenizer.json").read_text(encoding="utf-8")
    return PretrainedModel(config, weights, WordPieceTokenizer(tokenizer_json, 64))


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


def embedding(model, text, mask=None):
    return model.run(text, head_mask=mask).sentence_embedding


def without(head, mask=None):
    mask = np.ones((LAYERS, HEADS)) if mask is None else mask.copy()
    mask[head] = 0.0
    return mask


# --- importance -------------------------------------------------------------------------


def test_cosine_importance_finds_the_one_head_that_matters(tiny):
    importance = head_importance(tiny, CosineScore(TEXTS))
    assert importance.shape == (LAYERS, HEADS)
    expected = np.mean(
        [1 - embedding(tiny, t) @ embedding(tiny, t, without(IMPORTANT)) for t in TEXTS]
    )
    assert importance[IMPORTANT] == pytest.approx(expected, rel=1e-4)
    assert importance[IMPORTANT] > 1e-3
    others = np.ones((LAYERS, HEADS), bool)
    others[IMPORTANT] = False
    assert np.all(np.abs(importance[others]) < 1e-6)


def test_accuracy_importance_is_the_drop_in_accuracy_head_by_head(tiny):
    sentences = ["the cat sat", "a cat was sitting", "the cat ran", "dogs bark", "a dog barks"]
    triplets = [Triplet(*sentences[:3]), Triplet("dogs bark", "a dog barks", "the cat sat")]
    triplets.append(Triplet("a cat was sitting", "the cat sat", "dogs bark"))
    task = ParaphraseTask(tuple(triplets))
    importance = head_importance(tiny, AccuracyScore(task))

    def accuracy(mask=None):
        return task.accuracy(np.stack([embedding(tiny, t, mask) for t in task.texts]))

    for layer in range(LAYERS):
        for head in range(HEADS):
            expected = accuracy() - accuracy(without((layer, head)))
            assert importance[layer, head] == pytest.approx(expected, abs=1e-12)


def test_importance_on_top_of_a_mask_and_zero_for_heads_already_off(tiny):
    base = without((0, 1))
    importance = head_importance(tiny, CosineScore(TEXTS), head_mask=base)
    assert importance[0, 1] == 0.0
    reference = [embedding(tiny, t) for t in TEXTS]
    on_base = np.mean([embedding(tiny, t, base) @ r for t, r in zip(TEXTS, reference, strict=True)])
    off = np.mean(
        [
            embedding(tiny, t, without(IMPORTANT, base)) @ r
            for t, r in zip(TEXTS, reference, strict=True)
        ]
    )
    assert importance[IMPORTANT] == pytest.approx(on_base - off, rel=1e-4)


def test_progress_counts_up_to_its_total(tiny):
    reports = []
    head_importance(
        tiny, CosineScore(TEXTS), progress=lambda done, total: reports.append((done, total))
    )
    total = HEADS * (LAYERS + (LAYERS - 1)) * len(TEXTS)  # sentence-layer passes
    assert reports[-1] == (total, total)
    assert all(total == t for _, t in reports)
    assert [d for d, _ in reports] == sorted({d for d, _ in reports})


def test_masked_runs_follow_a_changing_mask(tiny):
    runs = MaskedRuns(tiny, TEXTS)
    for mask in (without(IMPORTANT), without((0, 0)), np.ones((LAYERS, HEADS))):
        runs.set_mask(mask)
        expected = np.stack([embedding(tiny, t, mask) for t in TEXTS])
        np.testing.assert_allclose(runs.embeddings(), expected, atol=1e-6)
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        runs.set_mask(np.ones((3, 3)))


def test_cosine_score_needs_sentences():
    with pytest.raises(ValueError, match="sentences"):
        CosineScore(())
    with pytest.raises(ValueError, match="sentences"):
        CosineScore("one string")


# --- pruning ------------------------------------------------------------------------------


def test_pruning_by_importance_keeps_the_important_head_and_the_score(tiny):
    curve = prune_by_importance(tiny, CosineScore(TEXTS), rescore_every=1)
    steps = LAYERS * (HEADS - 1)
    assert len(curve.order) == steps and list(curve.removed) == list(range(steps + 1))
    assert IMPORTANT not in curve.order
    np.testing.assert_array_equal(curve.scores, curve.scores[0])  # nothing that matters went
    assert curve.heads_removable() == steps
    survivors = np.ones((LAYERS, HEADS), bool)
    for head in curve.order:
        survivors[head] = False
    assert survivors.sum(axis=1).tolist() == [1] * LAYERS


def test_pruning_by_importance_measured_in_steps_ranks_and_keeps_as_every_head(tiny):
    every_head = prune_by_importance(tiny, CosineScore(TEXTS), rescore_every=2)
    stepped = prune_by_importance(tiny, CosineScore(TEXTS), rescore_every=2, measure_every=2)
    steps = LAYERS * (HEADS - 1)
    assert stepped.order == every_head.order  # each round ranked with the same heads off
    assert list(stepped.removed) == [*range(0, steps, 2), steps]
    np.testing.assert_allclose(stepped.scores, every_head.scores[stepped.removed], atol=1e-6)
    survivors = np.ones((LAYERS, HEADS), bool)
    for head in stepped.order:
        survivors[head] = False
    assert survivors.sum(axis=1).tolist() == [1] * LAYERS
    with pytest.raises(ValueError, match="divide"):
        prune_by_importance(tiny, CosineScore(TEXTS), rescore_every=3, measure_every=2)


def test_random_order_drops_exactly_when_the_important_head_goes(tiny):
    curves = prune_in_random_order(tiny, CosineScore(TEXTS), seeds=range(6))
    orders = {curve.order for curve in curves}
    assert len(orders) > 1  # the seeds give different orders
    dropped_somewhere = False
    for curve in curves:
        for k in range(1, len(curve.scores)):
            gone = IMPORTANT in curve.order[:k]
            assert (curve.scores[k] < curve.scores[0] - 1e-4) == gone
            dropped_somewhere |= gone
        assert len(curve.order) == LAYERS * (HEADS - 1)  # down to one head per layer
    assert dropped_somewhere


def test_random_order_measured_in_steps_keeps_the_points_it_measures(tiny):
    every_head = prune_in_random_order(tiny, CosineScore(TEXTS), seeds=[3])[0]
    stepped = prune_in_random_order(tiny, CosineScore(TEXTS), seeds=[3], measure_every=3)[0]
    steps = LAYERS * (HEADS - 1)  # 4: measured after 3 heads and after the last
    assert stepped.order == every_head.order
    assert list(stepped.removed) == [0, 3, steps]
    np.testing.assert_allclose(stepped.scores, every_head.scores[[0, 3, steps]], atol=1e-6)
    with pytest.raises(ValueError, match="measure_every"):
        prune_in_random_order(tiny, CosineScore(TEXTS), measure_every=0)


def test_heads_removable_reads_the_first_big_drop():
    curve = PruningCurve("accuracy", np.arange(6), np.array([1.0, 1.0, 0.97, 0.96, 0.9, 1.0]), ())
    assert curve.heads_removable(0.05) == 3  # 0.9 is the first 5-point drop, at 4 heads
    assert curve.heads_removable(0.2) == 5
    exactly = PruningCurve("accuracy", np.arange(3), np.array([0.8, 0.78, 0.75]), ())
    assert exactly.heads_removable(0.05) == 1  # a drop of exactly 5 points counts


def test_curve_band_spans_the_curves():
    removed = np.arange(3)
    curves = [
        PruningCurve("s", removed, np.array(scores), ())
        for scores in ([1.0, 0.9, 0.5], [1.0, 0.7, 0.6], [1.0, 0.8, 0.4])
    ]
    band = curve_band(curves)
    np.testing.assert_array_equal(band.low, [1.0, 0.7, 0.4])
    np.testing.assert_array_equal(band.median, [1.0, 0.8, 0.5])
    np.testing.assert_array_equal(band.high, [1.0, 0.9, 0.6])
    with pytest.raises(ValueError, match="same points"):
        curve_band([curves[0], PruningCurve("s", removed[:2], np.ones(2), ())])


def test_pruning_progress_reaches_its_total(tiny):
    reports = []
    prune_by_importance(tiny, CosineScore(TEXTS), 3, progress=lambda d, t: reports.append((d, t)))
    assert reports[-1][0] == reports[-1][1]
    assert [d for d, _ in reports] == sorted(d for d, _ in reports)
    with pytest.raises(ValueError, match="rescore_every"):
        prune_by_importance(tiny, CosineScore(TEXTS), rescore_every=0)


# --- MiniLM -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    return load_pretrained()


@pytest.mark.slow  # one MiniLM pass per head
def test_minilm_importance_matches_its_definition_and_costs_one_pass_per_head(minilm, monkeypatch):
    text = "The cat sat on the mat because it was tired."
    passes = []
    original = EncoderBlock.__call__

    def counting(self, x, *args, **kwargs):
        passes.append(int(np.prod(np.shape(x)[:-2])))  # sentences in this batch
        return original(self, x, *args, **kwargs)

    monkeypatch.setattr(EncoderBlock, "__call__", counting)
    importance = head_importance(minilm, CosineScore((text,)))
    layers, heads = minilm.config.layers, minilm.config.heads
    # one base run, then for layer l a batch of 12 through layers l…: Σ 12 (6 − l)
    assert sum(passes) == layers + heads * sum(layers - layer for layer in range(layers))
    assert sum(passes) <= layers * heads * layers  # at most one pass per head
    monkeypatch.undo()

    full = minilm.run(text).sentence_embedding
    for head in [(0, 0), (2, 7), (5, 11)]:
        mask = np.ones((layers, heads))
        mask[head] = 0.0
        expected = 1 - minilm.run(text, head_mask=mask).sentence_embedding @ full
        assert importance[head] == pytest.approx(expected, abs=2e-6)
