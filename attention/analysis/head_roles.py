"""Role scores of trained heads, as in studies of BERT's heads (Clark et al., 2019,
"What Does BERT Look At?"): how much of its attention a head puts on the previous token,
the next token, the token itself, [CLS], [SEP] and punctuation, and its entropy.

Built on attention.analysis.head_metrics; every score is the mean over query rows, one number per
head, for weights shaped (..., heads, n, n) and the n tokens they were computed on.
"""

from __future__ import annotations

import unicodedata

import numpy as np

from attention.analysis.head_metrics import entropy_bits, key_share, offset_share

ROLES = (
    "previous token",
    "next token",
    "itself",
    "[CLS]",
    "[SEP]",
    "punctuation",
)
ENTROPY = "entropy (bits)"
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"})


def is_punctuation(token: str) -> bool:
    """A word piece made only of Unicode punctuation (".", ",", "—", "“"…)."""
    text = token.removeprefix("##")
    return (
        token not in SPECIAL_TOKENS
        and bool(text)
        and all(unicodedata.category(c).startswith("P") for c in text)
    )


def role_scores(weights: np.ndarray, tokens: list[str]) -> dict[str, np.ndarray]:
    """Each role's share of attention (0 to 1) and the entropy in bits, per head:
    arrays shaped weights.shape[:-2]."""
    weights = np.asarray(weights)
    n = weights.shape[-1]
    if weights.ndim < 2 or weights.shape[-2] != n or len(tokens) != n:
        raise ValueError(
            f"weights must have shape (..., n, n) for the n={len(tokens)} tokens; "
            f"got shape {weights.shape}."
        )
    token_array = np.array(tokens, dtype=object)
    return {
        "previous token": offset_share(weights, -1),
        "next token": offset_share(weights, 1),
        "itself": offset_share(weights, 0),
        "[CLS]": key_share(weights, token_array == "[CLS]"),
        "[SEP]": key_share(weights, token_array == "[SEP]"),
        "punctuation": key_share(weights, np.array([is_punctuation(t) for t in tokens])),
        ENTROPY: _entropy_by_layer(weights),
    }


def _entropy_by_layer(weights: np.ndarray) -> np.ndarray:
    """entropy_bits over the leading axis one slice at a time: at 512 tokens a whole
    (6, 12, n, n) stack would need 450 MB of float64 temporaries, one layer 75 MB."""
    if weights.ndim <= 3:
        return entropy_bits(weights)
    return np.stack([entropy_bits(part) for part in weights])


def strongest_role(scores: dict[str, np.ndarray]) -> np.ndarray:
    """Per head, the name of the role that takes the largest share of its attention."""
    shares = np.stack([scores[role] for role in ROLES])
    return np.array(ROLES, dtype=object)[shares.argmax(axis=0)]
