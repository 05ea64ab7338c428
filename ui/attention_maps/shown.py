"""The attention the Attention maps page draws, as one record its sections share."""

from __future__ import annotations

from dataclasses import dataclass

from attention.core.engine import AttentionTrace


@dataclass(frozen=True)
class ShownMaps:
    """A trace with the tokens asking (rows) and answering (columns), the heads' titles
    (None: "head k") and the names of the query and key axes."""

    trace: AttentionTrace
    query_tokens: list[str]
    key_tokens: list[str]
    head_titles: list[str] | None
    query_side: str
    key_side: str

    @property
    def n_heads(self) -> int:
        return self.trace.weights.shape[0]

    @property
    def head_names(self) -> list[str]:
        """Each head's name in text and tables: its title, else "head k"."""
        return self.head_titles or [f"head {h + 1}" for h in range(self.n_heads)]

    @property
    def is_self(self) -> bool:
        """Self-attention: the queries and keys are the same tokens."""
        return self.query_tokens is self.key_tokens
