"""Real word vectors for the toy pages: mean of WordPiece pieces, nested PCA widths, and
related words staying nearer than unrelated ones after the reduction."""

from __future__ import annotations

import numpy as np
import pytest

from attention.models.pretrained import load_pretrained
from attention.models.pretrained.vocabulary import VocabularyEmbeddings

# (word, a related word, an unrelated word): chosen before looking at any reduced vectors;
# at d_model 2 the pair apple/banana vs apple/parliament flips, so 2 is not asserted.
TRIPLES = [
    ("cat", "dog", "democracy"),
    ("king", "queen", "banana"),
    ("paris", "london", "sandwich"),
    ("happy", "glad", "carbon"),
    ("red", "blue", "theorem"),
    ("car", "truck", "poetry"),
    ("apple", "banana", "parliament"),
    ("mother", "father", "algorithm"),
    ("run", "walk", "purple"),
    ("monday", "tuesday", "elephant"),
]


@pytest.fixture(scope="module")
def model():
    return load_pretrained()


@pytest.fixture(scope="module")
def vocabulary(model):
    return VocabularyEmbeddings(model)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


@pytest.mark.parametrize("d_model", [4, 8, 16, 64, 384])
def test_related_words_stay_nearer_than_unrelated(vocabulary, d_model):
    words = [w for triple in TRIPLES for w in triple]
    vectors, _ = vocabulary.word_vectors(words, d_model)
    for i, triple in enumerate(TRIPLES):
        word, related, unrelated = vectors[3 * i : 3 * i + 3]
        assert cosine(word, related) > cosine(word, unrelated), triple


def test_widths_are_nested_and_full_width_keeps_distances(model, vocabulary):
    words = ["attention", "heads", "see", "different", "words"]
    full, _ = vocabulary.word_vectors(words, 384)
    for d_model in (2, 8, 100):
        narrow, _ = vocabulary.word_vectors(words, d_model)
        assert narrow.shape == (5, d_model) and narrow.dtype == np.float32
        np.testing.assert_allclose(narrow, full[:, :d_model], atol=1e-6)
    # at full width PCA is a rotation of the centred table: distances are unchanged
    rows = model.word_embeddings[[model.tokenizer.token_id(w) for w in words]]
    np.testing.assert_allclose(
        np.linalg.norm(full[:, None] - full[None], axis=-1),
        np.linalg.norm(rows[:, None] - rows[None], axis=-1),
        atol=1e-4,
    )


def test_words_in_several_pieces_get_the_mean_of_their_pieces(model, vocabulary):
    vectors, pieces = vocabulary.word_vectors(["tokenization", "cat"], 384)
    assert pieces == [["token", "##ization"], ["cat"]]
    ids = [model.tokenizer.token_id(p) for p in pieces[0]]
    alone, _ = vocabulary.word_vectors(["token"], 384)
    mean_row = model.word_embeddings[ids].mean(0)
    cat_row = model.word_embeddings[model.tokenizer.token_id("cat")]
    # differences of projected vectors equal differences of the raw rows (same rotation)
    np.testing.assert_allclose(
        np.linalg.norm(vectors[0] - vectors[1]), np.linalg.norm(mean_row - cat_row), atol=1e-4
    )
    assert not np.allclose(vectors[0], alone[0])


def test_kept_variance_grows_to_one(vocabulary):
    shares = [vocabulary.kept_variance(d) for d in (2, 8, 64, 384)]
    assert shares == sorted(shares)
    assert shares[-1] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("d_model", [1, 0, 385, 8.0, True])
def test_bad_width_is_refused(vocabulary, d_model):
    with pytest.raises(ValueError, match="d_model"):
        vocabulary.word_vectors(["cat"], d_model)


@pytest.mark.parametrize("words", [[], "cat"])
def test_bad_word_list_is_refused(vocabulary, words):
    with pytest.raises(ValueError, match="words"):
        vocabulary.word_vectors(words, 8)


def test_unreadable_word_becomes_unknown(vocabulary):
    _, pieces = vocabulary.word_vectors(["\x00", "🍕"], 8)
    assert pieces == [["[UNK]"], ["[UNK]"]]
