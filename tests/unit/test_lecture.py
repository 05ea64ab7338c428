"""The lecture's picture: the asset loader and the fitted two-head, 2-D model."""

from __future__ import annotations

import numpy as np
import pytest

from attention.teaching.lecture_picture import (
    LECTURE_TOKENS,
    LectureContentError,
    _loss_and_gradients,
    fit_lecture_heads,
    load_lecture_sentence,
    parse_lecture_sentence,
)
from tests.support.gradcheck import numerical_gradient, relative_error

SEEDS = [0, 1, 7]


@pytest.fixture(scope="module")
def sentence():
    return load_lecture_sentence()


@pytest.fixture(scope="module", params=SEEDS)
def fit(request, sentence):
    return fit_lecture_heads(sentence, seed=request.param)


def _reference_pass(fit):
    """Queries, keys, values and weights of both heads straight from the fitted arrays."""
    x = fit.sentence.embeddings
    q = np.einsum("nd,hde->hne", x, fit.mha.w_q)
    k = np.einsum("nd,hde->hne", x, fit.mha.w_k)
    v = np.einsum("nd,hde->hne", x, fit.mha.w_v)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(2)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return q, k, v, e / e.sum(axis=-1, keepdims=True)


def _indices(sentence):
    return (sentence.index(t) for t in ("du", "tea", "it's"))


def test_the_asset_holds_the_lecture_tokens_with_2d_embeddings(sentence):
    keys = [t.casefold() for t in sentence.tokens]
    for token in LECTURE_TOKENS:
        assert keys.count(token) == 1
    assert sentence.embeddings.shape == (len(sentence.tokens), 2)
    assert np.isfinite(sentence.embeddings).all()


def test_du_starts_nearest_to_for(sentence):
    """The thread's starting point: in the embedding space "du" is nearer "for" than
    "tea"; the heads have to move it."""
    x = sentence.embeddings
    du, tea, _ = _indices(sentence)
    distance = np.linalg.norm(x - x[du], axis=1)
    distance[du] = np.inf
    assert sentence.tokens[int(distance.argmin())] == "for"
    assert distance[sentence.index("for")] < distance[tea]


def test_head_1_puts_most_of_dus_weight_on_tea_and_its(fit):
    _, _, _, weights = _reference_pass(fit)
    np.testing.assert_allclose(fit.trace.weights, weights, atol=1e-12)
    du, tea, its = _indices(fit.sentence)
    assert weights[0, du, tea] + weights[0, du, its] > 0.8
    assert min(weights[0, du, tea], weights[0, du, its]) > 0.3


def test_head_1_query_du_lands_among_the_keys_tea_and_its(fit):
    """The picture is the head's own 2-D plane: du's two nearest keys are the targets."""
    q, k, _, _ = _reference_pass(fit)
    du, tea, its = _indices(fit.sentence)
    nearest = np.argsort(np.linalg.norm(k[0] - q[0, du], axis=1))[:2]
    assert set(nearest.tolist()) == {tea, its}


def test_head_2_does_not(fit):
    _, _, _, weights = _reference_pass(fit)
    du, tea, its = _indices(fit.sentence)
    assert weights[1, du, tea] + weights[1, du, its] < 0.2
    assert int(weights[1, du].argmax()) not in {tea, its}


def test_star_is_the_weighted_sum_of_the_values(fit):
    _, _, v, weights = _reference_pass(fit)
    for head in range(2):
        np.testing.assert_allclose(fit.trace.heads[head], weights[head] @ v[head], atol=1e-12)


def test_fitted_maps_stay_rotations_and_scalings(fit):
    """The description says no token is squashed: both singular values of every fitted
    W_Q and W_K are within 20 % of each other."""
    for w in (*fit.mha.w_q, *fit.mha.w_k):
        high, low = np.linalg.svd(w, compute_uv=False)
        assert high < 1.2 * low


def test_loss_falls_and_the_history_has_one_entry_per_step(fit):
    history = fit.loss_history
    assert len(history) == 301 and np.isfinite(history).all()
    assert history[-1] < 0.5 * history[0]


def test_description_states_the_measured_numbers(fit):
    _, _, _, weights = _reference_pass(fit)
    du, tea, its = _indices(fit.sentence)
    text = fit.description
    for number in (
        f"{weights[0, du, tea]:.0%} on “tea”",
        f"{weights[0, du, its]:.0%} on “it's”",
        f"{weights[1, du, tea] + weights[1, du, its]:.0%} together",
        f"{fit.loss_history[0]:.2f} to {fit.loss_history[-1]:.2f}",
        "300 steps",
        f"seed {fit.seed}",
        "nearest to “for”",
    ):
        assert number in text


def test_fit_is_deterministic_for_a_seed(sentence):
    a, b = fit_lecture_heads(sentence, seed=3), fit_lecture_heads(sentence, seed=3)
    np.testing.assert_array_equal(a.loss_history, b.loss_history)
    np.testing.assert_array_equal(a.mha.w_q, b.mha.w_q)
    np.testing.assert_array_equal(a.trace.weights, b.trace.weights)
    assert a.description == b.description
    other = fit_lecture_heads(sentence, seed=4)
    assert not np.array_equal(a.mha.w_v, other.mha.w_v)


def test_hand_written_gradients_match_finite_differences(sentence):
    rng = np.random.default_rng(0)
    w_q, w_k = rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 2))
    du, tea, its = _indices(sentence)
    targets = np.isin(np.arange(len(sentence.tokens)), [tea, its])
    x = sentence.embeddings

    def loss():
        return _loss_and_gradients(x, du, targets, w_q, w_k)[0]

    _, (grad_q, grad_k) = _loss_and_gradients(x, du, targets, w_q, w_k)
    assert relative_error(grad_q, numerical_gradient(loss, w_q)) < 1e-6
    assert relative_error(grad_k, numerical_gradient(loss, w_k)) < 1e-6


def _content(sentence, **points):
    table = {"du": [0.3, -0.2], "tea": [-0.7, 0.6], "for": [0.5, -0.3], "it's": [-0.5, 0.8]}
    table.update(points)
    return {"sentence": sentence, "embeddings": table}


def test_parser_accepts_curly_apostrophes_and_any_case():
    parsed = parse_lecture_sentence(_content("Du tea for It’s"))
    assert parsed.tokens == ("Du", "tea", "for", "It’s")
    np.testing.assert_array_equal(parsed.embeddings[parsed.index("it's")], [-0.5, 0.8])


@pytest.mark.parametrize("missing", LECTURE_TOKENS)
def test_loader_rejects_a_sentence_without_the_four_tokens(missing):
    words = [t for t in LECTURE_TOKENS if t != missing] + ["tee"]
    content = _content(" ".join(words), tee=[0.0, 0.0])
    del content["embeddings"][missing]
    with pytest.raises(LectureContentError, match=f"exactly once; {missing} is missing"):
        parse_lecture_sentence(content)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (_content("du tea for it's du"), "du is missing or repeated"),
        (_content("du tea for me"), "it's is missing"),
        ({"embeddings": {}}, "non-empty `sentence`"),
        (_content("   "), "non-empty `sentence`"),
        ({"sentence": "du tea for it's"}, "`embeddings` table"),
        (_content("du tea for it's now"), "missing: \\['now'\\]"),
        (_content("du tea for it's", later=[0.0, 1.0]), "unused: \\['later'\\]"),
        (_content("du tea for it's", du=[0.1]), "'du' must be two finite numbers"),
        (_content("du tea for it's", du=[0.1, float("nan")]), "two finite numbers"),
        (_content("du tea for it's", du=[True, 1.0]), "two finite numbers"),
        (_content("du tea for it's", du="0.1, 0.2"), "two finite numbers"),
        (_content("du tea for it's " + "a " * 13), "at most 16"),
    ],
)
def test_parser_rejects_bad_content_with_a_clear_message(content, message):
    with pytest.raises(LectureContentError, match=message):
        parse_lecture_sentence(content)


def test_loader_reads_toml_and_reports_unreadable_files(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(
        'sentence = "du, tea for it\'s"\n[embeddings]\n'
        'du = [0.3, -0.2]\n"," = [0, 0]\ntea = [-0.7, 0.6]\n"for" = [0.5, -0.3]\n'
        '"it\'s" = [-0.5, 0.8]\n',
        encoding="utf-8",
    )
    assert load_lecture_sentence(good).tokens == ("du", ",", "tea", "for", "it's")
    broken = tmp_path / "broken.toml"
    broken.write_text("sentence = [", encoding="utf-8")
    with pytest.raises(LectureContentError, match="Cannot read the lecture asset"):
        load_lecture_sentence(broken)
    with pytest.raises(LectureContentError, match="Cannot read"):
        load_lecture_sentence(tmp_path / "absent.toml")
