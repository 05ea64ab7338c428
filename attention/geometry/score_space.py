"""One head's queries and keys in one honest picture: the score space, where nearer is
exactly a higher score, and the joint 2-D layout drawn from it.

The joint layout starts as AttentionViz does (Yeh et al., 2023): translate the keys so
their centroid meets the queries', and scale queries and keys to equal mean norm
(measured from their centres, as the picture shows them). Neither changes any softmax — a
shift of all keys adds the same amount to every score in a query's row, and q·f, k/f
leave q·k alone. A score is a dot product, not a distance, so `score_space` then adds one
balancing coordinate in which nearer is exactly higher score for every query at once;
the picture is the 2-D PCA of that space, and `RankAgreement` says how much of the
order each step keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_array

from attention.geometry.planes import pca_2d
from attention.geometry.rank_agreement import mean_row_agreement, row_ranks


@dataclass(frozen=True)
class RankAgreement:
    """How well "nearer" ranks "higher score" at each step from a head's space to its
    picture: Spearman ρ(score, −distance) over the keys, one per query row, averaged
    over the rows (rows whose scores are all equal have no order and are skipped; NaN
    if every row is such). +1 = the nearest key is always the highest-scoring one."""

    score_space: float  # head space + the balancing coordinate: 1 by construction
    head_space: float  # the head's own q and k (d_head), as the engine computes them
    picture: float  # the 2-D picture drawn from the score space


@dataclass(frozen=True)
class JointLayout:
    """Queries and keys of one head in one shared 2-D picture of its score space."""

    queries: np.ndarray  # (n_q, 2)
    keys: np.ndarray  # (n_k, 2)
    variance_kept: float  # of the score space (d_head + 1 dimensions) by the two axes
    rho: RankAgreement


def equalise_queries_and_keys(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale queries by f and keys by 1/f so that both clouds spread equally far from
    their own centre (equal mean norm as the picture shows it), then move the keys'
    centre onto the queries'. Every query's softmax over the keys is unchanged."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    q_spread = np.linalg.norm(q - q.mean(axis=0), axis=1).mean()
    k_spread = np.linalg.norm(k - k.mean(axis=0), axis=1).mean()
    f = np.sqrt(k_spread / q_spread) if q_spread > 0 and k_spread > 0 else 1.0
    q, k = q * f, k / f
    return q, k - k.mean(axis=0) + q.mean(axis=0)


def score_space(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Queries (n_q, d) and keys (n_k, d) lifted to (n_q, d+1) and (n_k, d+1) so that
    ‖q_aug[i] − k_aug[j]‖² = c_i − 2·q[i]·k[j] with c_i = ‖q[i]‖² + M² the same for every
    key: nearer is exactly higher score, for every query at once. Each key gets
    √(M² − ‖k_j‖²), M the largest key norm, and each query 0 (the reduction of
    maximum inner product search to nearest neighbours). float32 stays float32; other
    numbers become float64; a mix of the two becomes float64."""
    q = check_array(q, dtype=[np.float64, np.float32], input_name="q")
    k = check_array(k, dtype=[np.float64, np.float32], input_name="k")
    if q.shape[1] != k.shape[1]:
        raise ValueError(
            f"q and k must have the same number of columns (one per dimension of the "
            f"head); got q with shape {q.shape} and k with shape {k.shape}."
        )
    dtype = np.result_type(q, k)
    q, k = q.astype(dtype, copy=False), k.astype(dtype, copy=False)
    norms_sq = np.einsum("ij,ij->i", k, k)
    lift = np.sqrt(np.maximum(norms_sq.max() - norms_sq, 0))
    return np.hstack([q, np.zeros((len(q), 1), dtype)]), np.hstack([k, lift[:, None]])


def joint_query_key_layout(q: np.ndarray, k: np.ndarray) -> JointLayout:
    """One head's queries (n_q, d_head) and keys (n_k, d_head) in one 2-D picture:
    equalised and shifted (no weight changes), lifted to the score space, then PCA; with
    how well distance ranks the true scores q·k in the head's own space, the score space
    and the picture."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    score_ranks = row_ranks(q @ k.T)
    q_eq, k_eq = equalise_queries_and_keys(q, k)
    q_aug, k_aug = score_space(q_eq, k_eq)
    layout = pca_2d(np.vstack([q_aug, k_aug]))
    q2, k2 = layout.coords[: len(q)], layout.coords[len(q) :]
    rho = RankAgreement(
        score_space=mean_row_agreement(score_ranks, q_aug, k_aug),
        head_space=mean_row_agreement(score_ranks, q, k),
        picture=mean_row_agreement(score_ranks, q2, k2),
    )
    return JointLayout(q2, k2, layout.variance_kept, rho)
