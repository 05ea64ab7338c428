"""Public entry point for attention rollout (as the README shows it); the code lives in
`attention.analysis.rollout`."""

from attention.analysis.rollout import attention_rollout

__all__ = ["attention_rollout"]
