"""Real word vectors for the toy pages: a word's MiniLM embedding at any width d_model.

A word is the mean of its WordPiece pieces' rows of the model's word-embedding table
(30,522 × 384 for MiniLM), then projected on the table's first d_model principal axes.
One PCA, fitted once on the whole table, serves every width: principal components are
nested, so the first d_model coordinates of the full fit are the d_model-component fit.
"""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import PCA

from attention.core.validation import check_int_in_range
from attention.models.pretrained.model import PretrainedModel

MIN_D_MODEL = 2


class VocabularyEmbeddings:
    """Word vectors from a pretrained model's embedding table, reduced by PCA.

    Build once per process (about 0.05 s for MiniLM: the covariance-eigh solver works on
    the 384 × 384 covariance, not the 30,522-row table) and reuse for every width.
    """

    def __init__(self, model: PretrainedModel) -> None:
        self._table = model.word_embeddings
        self._tokenizer = model.tokenizer
        self._unknown = model.tokenizer.token_id("[UNK]")
        self._pca = PCA(svd_solver="covariance_eigh").fit(self._table)
        self._axes = self._pca.components_.astype(np.float32)  # (max_d_model, d)
        self._centre = self._pca.mean_.astype(np.float32)
        self.max_d_model = self._axes.shape[0]

    def word_vectors(self, words: list[str], d_model: int) -> tuple[np.ndarray, list[list[str]]]:
        """Return (n_words, d_model) float32 coordinates (centred on the vocabulary's mean,
        not rescaled) and each word's WordPiece pieces, whose vectors were averaged."""
        d_model = self._check_d_model(d_model)
        if isinstance(words, str) or not words:
            raise ValueError(f"words must be a non-empty list of strings; got {words!r}.")
        vectors = np.empty((len(words), self._table.shape[1]), dtype=np.float32)
        pieces = []
        for i, word in enumerate(words):
            ids, word_pieces = self._tokenizer.pieces(str(word))
            if not ids and self._unknown is not None:  # e.g. only control characters
                ids, word_pieces = [self._unknown], ["[UNK]"]
            if not ids:
                raise ValueError(f"word {word!r} has no WordPiece pieces.")
            vectors[i] = self._table[ids].mean(axis=0)
            pieces.append(word_pieces)
        return (vectors - self._centre) @ self._axes[:d_model].T, pieces

    def kept_variance(self, d_model: int) -> float:
        """Share of the table's variance the first d_model coordinates keep (0 to 1)."""
        d_model = self._check_d_model(d_model)
        return float(self._pca.explained_variance_ratio_[:d_model].sum())

    def _check_d_model(self, d_model: int) -> int:
        return check_int_in_range("d_model", d_model, MIN_D_MODEL, self.max_d_model)
