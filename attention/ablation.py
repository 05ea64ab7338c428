"""Head importance by ablation (Michel et al., 2019, "Are Sixteen Heads Really Better than
One?"): switch one head off, run the sentences again, and see how much a named score
drops. A head in layer l changes nothing before layer l, so only layers l… are re-run,
from the stored hidden state l, with the heads of one layer as one batch: all
ablations of a sentence cost Σ_l heads·(layers − l) layer passes, about 58 % of a full
pass per head for MiniLM."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from attention.paraphrase import ParaphraseTask
from attention.pretrained.model import PretrainedModel, sentence_embedding

Progress = Callable[[int, int], None]  # (done, total), for a progress bar


class Score(Protocol):
    """A named score of sentence embeddings: higher is better."""

    name: str
    texts: tuple[str, ...]  # the sentences whose embeddings it reads

    def __call__(self, embeddings: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """(..., len(texts), d) unit embeddings → (...) scores; `reference` (len(texts),
        d) holds the same sentences' embeddings with every head on."""


@dataclass(frozen=True)
class CosineScore:
    """Mean over the sentences of the cosine between each embedding and the sentence's
    embedding with every head on (1 when nothing changed)."""

    texts: tuple[str, ...]
    name: str = field(default="cosine to the embedding with every head", init=False)

    def __post_init__(self) -> None:
        if isinstance(self.texts, str) or not self.texts:
            raise ValueError("CosineScore needs a non-empty sequence of sentences.")
        object.__setattr__(self, "texts", tuple(self.texts))

    def __call__(self, embeddings: np.ndarray, reference: np.ndarray) -> np.ndarray:
        return (embeddings * reference).sum(axis=-1).mean(axis=-1)


@dataclass(frozen=True)
class AccuracyScore:
    """Accuracy on the paraphrase task (share of triplets whose anchor is nearer its
    paraphrase than its distractor)."""

    task: ParaphraseTask
    name: str = field(default="paraphrase accuracy", init=False)

    @property
    def texts(self) -> tuple[str, ...]:
        return self.task.texts

    def __call__(self, embeddings: np.ndarray, reference: np.ndarray) -> np.ndarray:
        return self.task.accuracy(embeddings)


class MaskedRuns:
    """A score's sentences run under a head mask that may change: every sentence's hidden
    states are kept, so a new mask re-runs only the layers from the first one it changes."""

    def __init__(self, model: PretrainedModel, texts: Sequence[str]) -> None:
        self.model = model
        self.mask = np.ones((model.config.layers, model.config.heads), np.float32)
        self._states = [model.run(text).hidden_states for text in texts]

    def embeddings(self) -> np.ndarray:
        """(sentences, d) unit sentence embeddings under the current mask."""
        return np.stack([sentence_embedding(states[-1]) for states in self._states])

    def set_mask(self, head_mask: np.ndarray, progress: Progress | None = None) -> None:
        """Switch to `head_mask` (layers, heads), re-running what it changes."""
        mask = self.model.check_head_mask(head_mask)  # a checked copy
        changed = np.flatnonzero((mask != self.mask).any(axis=1))
        if changed.size:
            first = int(changed[0])
            for done, states in enumerate(self._states, 1):
                states[first + 1 :] = self.model.run_layers(states[first], first, mask)
                if progress:
                    progress(done, len(self._states))
        self.mask = mask

    def ablated(self, heads: np.ndarray, progress: Progress | None = None) -> np.ndarray:
        """(layers, heads, sentences, d) embeddings with each head where `heads` (layers,
        heads; bool) is True switched off on top of the current mask; elsewhere the
        current embeddings. One batch per layer and sentence."""
        layers, n_heads = self.mask.shape
        current = self.embeddings()
        out = np.broadcast_to(current, (layers, n_heads, *current.shape)).copy()
        total, done = layers * len(self._states), 0
        for layer in range(layers):
            chosen = np.flatnonzero(heads[layer])
            masks = np.repeat(self.mask[None], len(chosen), axis=0)
            masks[np.arange(len(chosen)), layer, chosen] = 0.0
            for index, states in enumerate(self._states):
                if chosen.size:
                    batch = np.repeat(states[layer][None], len(chosen), axis=0)
                    last = self.model.run_layers(batch, layer, masks)[-1]
                    out[layer, chosen, index] = sentence_embedding(last)
                done += 1
                if progress:
                    progress(done, total)
        return out


def head_importance(
    model: PretrainedModel,
    score: Score,
    head_mask: np.ndarray | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """(layers, heads): how much `score` drops when that head alone is switched off (on
    top of `head_mask`, default every head on); 0 for heads the mask already switched
    off. Negative when switching a head off helps the score."""
    runs = MaskedRuns(model, score.texts)
    reference = runs.embeddings()
    if head_mask is not None:
        runs.set_mask(head_mask)
    on = runs.mask > 0
    ablated = runs.ablated(on, progress)
    drop = score(runs.embeddings(), reference) - score(ablated, reference)
    return np.where(on, drop, 0.0)
