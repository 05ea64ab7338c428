"""Public entry point for the geometry of heads (as the README shows it): the score space
in which nearer means a higher score, the joint query/key picture, the PCA plane and the
Procrustes alignment. The code lives in `attention.geometry`."""

from attention.geometry.planes import Layout2D, Plane, align_to, fit_plane, pca_2d
from attention.geometry.rank_agreement import row_rank_correlation
from attention.geometry.score_space import (
    JointLayout,
    RankAgreement,
    equalise_queries_and_keys,
    joint_query_key_layout,
    score_space,
)

__all__ = [
    "JointLayout",
    "Layout2D",
    "Plane",
    "RankAgreement",
    "align_to",
    "equalise_queries_and_keys",
    "fit_plane",
    "joint_query_key_layout",
    "pca_2d",
    "row_rank_correlation",
    "score_space",
]
