"""Where each head moves the tokens: the numbers behind the "Head spaces" page.

For the points x (n, d_model) and one forward pass: the "before" picture (PCA of x),
each head's queries and keys in one joint 2-D layout drawn from the head's score space
(see attention.geometry.score_space: there nearer is exactly higher score), with how much of that
order the head's own space and the picture keep, rotated onto the "before" picture so
panels are comparable, each head's values with
every query's head output (the weighted sum of values), and — in full dimensions, with
no 2-D picture involved — how each head reorders a token's neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.engine import AttentionTrace
from attention.geometry.planes import Layout2D, align_to, fit_plane, pca_2d
from attention.geometry.rank_agreement import row_rank_correlation
from attention.geometry.score_space import JointLayout, RankAgreement, joint_query_key_layout


@dataclass(frozen=True)
class HeadSpace:
    """One head's 2-D pictures and how faithful they are."""

    queries: np.ndarray  # (n, 2), aligned to the "before" layout
    keys: np.ndarray  # (n, 2)
    variance_kept: float  # of the head's score space (d_head + 1) by the joint PCA
    rho: RankAgreement  # ρ(score, −distance): score space, head space, picture
    values: np.ndarray  # (n, 2) PCA of this head's values, aligned to "before"
    outputs: np.ndarray  # (n, 2) each query's head output in the values' plane
    value_variance_kept: float


@dataclass(frozen=True)
class HeadSpaces:
    before: Layout2D
    heads: list[HeadSpace]


def head_spaces(x: np.ndarray, trace: AttentionTrace) -> HeadSpaces:
    """All pictures for one unbatched self-attention pass over x (n, d_model)."""
    before = pca_2d(x)
    reference = np.vstack([before.coords, before.coords])
    heads = []
    for h in range(trace.q.shape[0]):
        joint = head_layout(trace, h)
        n = len(joint.queries)
        both = align_to(np.vstack([joint.queries, joint.keys]), reference)
        plane = fit_plane(trace.v[h])
        values = plane.project(trace.v[h])
        outputs = plane.project(trace.heads[h])
        rotated = align_to(np.vstack([values, outputs]), reference)
        heads.append(
            HeadSpace(
                queries=both[:n],
                keys=both[n:],
                variance_kept=joint.variance_kept,
                rho=joint.rho,
                values=rotated[:n],
                outputs=rotated[n:],
                value_variance_kept=plane.variance_kept,
            )
        )
    return HeadSpaces(before, heads)


def head_layout(trace: AttentionTrace, head: int) -> JointLayout:
    """One head's queries and keys in one joint 2-D layout (see attention.geometry.score_space),
    for an unbatched self- or cross-attention pass."""
    return joint_query_key_layout(trace.q[head], trace.k[head])


@dataclass(frozen=True)
class Neighbours:
    """For one focus token: its nearest tokens in the original space and the keys each
    head scores highest, all in full dimensions, with how much each head reorders them."""

    original_order: np.ndarray  # token indices, most cosine-similar first
    original_cosine: np.ndarray  # (n,) cosine of each token to the focus token
    head_orders: np.ndarray  # (heads, n) key indices, highest score first
    head_scores: np.ndarray  # (heads, n) the focus query's raw scores
    rank_corr: np.ndarray  # (heads,) Spearman ρ between cosine and each head's scores


def cosine_to(x: np.ndarray, focus: int) -> np.ndarray:
    """(n,) cosine of every token vector of x (n, d) with token `focus` (0 for a zero
    vector): how nearly they point the same way in all d dimensions."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1)
    return x @ x[focus] / np.maximum(norms * norms[focus], 1e-300)


def neighbours(x: np.ndarray, trace: AttentionTrace, focus: int) -> Neighbours:
    """Rank the tokens around `focus` in the original space and in every head."""
    cosine = cosine_to(x, focus)
    scores = np.asarray(trace.scores[:, focus, :], dtype=np.float64)
    corr = row_rank_correlation(np.broadcast_to(cosine, scores.shape), scores)
    return Neighbours(
        original_order=np.argsort(-cosine, kind="stable"),
        original_cosine=cosine,
        head_orders=np.argsort(-scores, axis=1, kind="stable"),
        head_scores=scores,
        rank_corr=corr,
    )


@dataclass(frozen=True)
class AgreementRange:
    """The lowest and highest ρ(score, −distance) over a set of heads, at each step from
    the score space to the picture (NaN-free: heads with no order are left out)."""

    score_space: tuple[float, float]
    head_space: tuple[float, float]
    picture: tuple[float, float]


def agreement_range(spaces: HeadSpaces) -> AgreementRange:
    """How faithfully every head's space and picture order keys by score, as ranges."""

    def span(values: list[float]) -> tuple[float, float]:
        finite = [v for v in values if np.isfinite(v)]
        return (min(finite), max(finite)) if finite else (float("nan"), float("nan"))

    rhos = [head.rho for head in spaces.heads]
    return AgreementRange(
        span([r.score_space for r in rhos]),
        span([r.head_space for r in rhos]),
        span([r.picture for r in rhos]),
    )
