"""What §4's trained layouts say about the thread's question "is the projection to
d_model/h essential?": per layout, its accuracy, how its heads split between the two
lookups, how different they are, and what its attention layer costs in parameters."""

from __future__ import annotations

from dataclasses import dataclass

from attention.experiments.training.train import Comparison

MOSTLY = 0.5  # a head "looks at" a target when over half its weight goes there
SMOOTHING = 25  # steps in the running mean over the raw training loss (drawn and stated)


@dataclass(frozen=True)
class LayoutFacts:
    """One trained layout, measured on the held-out sequences."""

    label: str
    accuracy: float
    heads_on: tuple[int, int]  # heads with most of their weight on the A token, on B
    diversity: float | None  # mean pairwise Jensen–Shannon divergence (bits)
    parameters: int  # W_Q, W_K, W_V and W_O of the attention layer

    @property
    def split_between_lookups(self) -> bool:
        """Some heads look at A, others at B: the heads divided the two lookups."""
        return min(self.heads_on) > 0


def layout_facts(comparison: Comparison) -> dict[str, LayoutFacts]:
    """Facts for every trained layout, keyed as in TrainingConfig.variants()."""
    facts = {}
    for key, result in comparison.results.items():
        attention = result.model.attention
        weights = (attention.w_q, attention.w_k, attention.w_v, attention.w_o)
        facts[key] = LayoutFacts(
            result.variant.label,
            result.accuracy,
            (int((result.focus[:, 0] > MOSTLY).sum()), int((result.focus[:, 1] > MOSTLY).sum())),
            result.diversity,
            int(sum(w.size for w in weights)),
        )
    return facts
