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

from attention.analysis.paraphrase import ParaphraseTask
from attention.models.pretrained.model import PretrainedModel, sentence_embedding

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
            raise ValueError(
                f"texts must be a non-empty sequence of sentences; got {self.texts!r}."
            )
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
    """A score's sentences run under a head mask that may change. Sentences with the same
    number of tokens are stacked into one batch (no padding, so nothing changes but the
    speed), and every hidden state is kept, so a new mask re-runs only the layers from
    the first one it changes."""

    def __init__(self, model: PretrainedModel, texts: Sequence[str]) -> None:
        self.model = model
        self.mask = np.ones((model.config.layers, model.config.heads), np.float32)
        states = [model.run(text).hidden_states for text in texts]
        self._count = len(states)
        by_length: dict[int, list[int]] = {}
        for index, hidden in enumerate(states):
            by_length.setdefault(hidden.shape[1], []).append(index)
        # (positions in `texts`, hidden states (sentences, layers + 1, n, d_model))
        self._groups = [
            (np.array(indices), np.stack([states[i] for i in indices]))
            for indices in by_length.values()
        ]

    def embeddings(self) -> np.ndarray:
        """(sentences, d) unit sentence embeddings under the current mask."""
        out = np.empty((self._count, self.model.config.d_model), np.float32)
        for indices, states in self._groups:
            out[indices] = sentence_embedding(states[:, -1])
        return out

    def set_mask(self, head_mask: np.ndarray, progress: Progress | None = None) -> None:
        """Switch to `head_mask` (layers, heads), re-running what it changes; progress
        counts sentence-layer passes."""
        mask = self.model.check_head_mask(head_mask)  # a checked copy
        changed = np.flatnonzero((mask != self.mask).any(axis=1))
        if changed.size:
            first = int(changed[0])
            layers_run = self.model.config.layers - first
            done = 0
            for indices, states in self._groups:
                for part in _chunks(len(indices), states.shape[2], self.model.config.heads):
                    rerun = self.model.run_layers(states[part, first], first, mask)
                    states[part, first + 1 :] = np.moveaxis(rerun, 0, 1)
                    done += (part.stop - part.start) * layers_run
                    if progress:
                        progress(done, self._count * layers_run)
        self.mask = mask

    def ablated(self, heads: np.ndarray, progress: Progress | None = None) -> np.ndarray:
        """(layers, heads, sentences, d) embeddings with each head where `heads` (layers,
        heads; bool) is True switched off on top of the current mask (elsewhere the
        current embeddings). For layer l, every (head, sentence) pair of a length group
        runs as one batch through layers l…; progress counts sentence-layer passes."""
        layers, n_heads = self.mask.shape
        current = self.embeddings()
        out = np.broadcast_to(current, (layers, n_heads, *current.shape)).copy()
        passes = sum(int(heads[layer].sum()) * (layers - layer) for layer in range(layers))
        total, done = passes * self._count, 0
        for layer in range(layers):
            chosen = np.flatnonzero(heads[layer])
            masks = np.repeat(self.mask[None], len(chosen), axis=0)
            masks[np.arange(len(chosen)), layer, chosen] = 0.0
            for indices, states in self._groups:
                # pairs (head k of `chosen`, sentence s of the group), head-major
                pair_head = np.repeat(np.arange(len(chosen)), len(indices))
                pair_sentence = np.tile(np.arange(len(indices)), len(chosen))
                for part in _chunks(len(pair_head), states.shape[2], n_heads):
                    k, sentence = pair_head[part], pair_sentence[part]
                    last = self.model.run_layers(states[sentence, layer], layer, masks[k])[-1]
                    out[layer, chosen[k], indices[sentence]] = sentence_embedding(last)
                    done += len(k) * (layers - layer)
                    if progress:
                        progress(done, total)
        return out


_MAP_ELEMENTS = 1 << 24  # attention scores in one batch: 64 MB of float32
_TOKENS = 1024  # token rows in one batch: its feed-forward layer holds 6 MB


def _chunks(batch: int, n_tokens: int, heads: int) -> list[slice]:
    """Slices of a batch of `batch` sequences of `n_tokens`, small enough to keep each
    chunk's memory bounded (its attention maps and its token rows)."""
    size = max(1, min(_MAP_ELEMENTS // (heads * n_tokens * n_tokens), _TOKENS // n_tokens))
    return [slice(start, min(start + size, batch)) for start in range(0, batch, size)]


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
