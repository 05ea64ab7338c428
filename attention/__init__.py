"""Head Spaces: multi-head attention in NumPy, with every intermediate kept for drawing.

Importable without Streamlit: the engine, the real model, projections and figures.
"""

from attention.core.cost import AttentionCost, attention_cost
from attention.core.engine import AttentionTrace, MultiHeadAttention, causal_mask, masked_softmax

__all__ = [
    "AttentionCost",
    "AttentionTrace",
    "MultiHeadAttention",
    "attention_cost",
    "causal_mask",
    "masked_softmax",
]
