"""Adam (Kingma & Ba, 2015) over a list of NumPy arrays, updated in place.

The experiments fit attention weights with hand-written gradients; Adam makes their short
runs converge without tuning a learning rate per experiment.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention.core.validation import check_positive_float


class Adam:
    """Adam with the usual defaults; `step(grads)` moves every parameter in place.

    `masks` (same shapes as the parameters, or None) freeze the entries where they are
    False: those entries never move, whatever their gradient.
    """

    def __init__(
        self,
        params: Sequence[np.ndarray],
        lr: float = 1e-2,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        masks: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        self.params = list(params)
        self.lr = check_positive_float("lr", lr)
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.masks = list(masks) if masks is not None else [None] * len(self.params)
        if len(self.masks) != len(self.params):
            raise ValueError(
                f"masks must have one entry per parameter ({len(self.params)}); "
                f"got {len(self.masks)}."
            )
        self._m = [np.zeros_like(p) for p in self.params]
        self._v = [np.zeros_like(p) for p in self.params]
        self._t = 0

    def step(self, grads: Sequence[np.ndarray]) -> None:
        """Apply one update from `grads` (one array per parameter, same shapes)."""
        self._t += 1
        correction1 = 1.0 - self.beta1**self._t
        correction2 = 1.0 - self.beta2**self._t
        step_size = self.lr * np.sqrt(correction2) / correction1
        for param, grad, m, v, mask in zip(
            self.params, grads, self._m, self._v, self.masks, strict=True
        ):
            if mask is not None:
                grad = grad * mask
            m *= self.beta1
            m += (1.0 - self.beta1) * grad
            v *= self.beta2
            v += (1.0 - self.beta2) * grad * grad
            param -= step_size * m / (np.sqrt(v) + self.eps)
