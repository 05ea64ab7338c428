"""Public entry point for head importance by ablation (as the README shows it); the code
lives in `attention.analysis.ablation`."""

from attention.analysis.ablation import AccuracyScore, CosineScore, Score, head_importance

__all__ = ["AccuracyScore", "CosineScore", "Score", "head_importance"]
