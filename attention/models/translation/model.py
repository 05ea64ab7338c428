"""The hand-built English → German encoder–decoder: one encoder block and one decoder
block whose attentions are the records of `heads`, with residual adds and no LayerNorm or
feed-forward, so every number stays readable. Nothing is trained or drawn at random."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.core.blocks import BlockTrace, DecoderBlock, EncoderBlock
from attention.core.engine import AttentionTrace, MultiHeadAttention
from attention.core.read_only import read_only
from attention.models.translation.features import START, embed
from attention.models.translation.heads import (
    HEADS,
    head_dimension,
    head_index,
    projections,
    values,
)
from attention.models.translation.vocabulary import ENGLISH, GERMAN, VOCABULARY, look_up


@dataclass(frozen=True)
class TranslationTrace:
    """The example run on one sentence pair: tokens, both blocks and their attentions."""

    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]  # the decoder's input: START, then the target words
    encoder: BlockTrace
    decoder: BlockTrace

    @property
    def cross(self) -> AttentionTrace:
        """The cross-attention: German queries (START first) over the encoded English."""
        return self.decoder.sublayers[1].detail

    @property
    def encoder_weights(self) -> np.ndarray:
        """(heads, n_source, n_source): the encoder's self-attention."""
        return self.encoder.sublayers[0].detail.weights

    @property
    def decoder_weights(self) -> np.ndarray:
        """(heads, n_target, n_target): the decoder's causal self-attention."""
        return self.decoder.sublayers[0].detail.weights

    @property
    def cross_weights(self) -> np.ndarray:
        """(heads, n_target, n_source): target queries over source keys."""
        return self.cross.weights

    def source_positions(self, feature: str) -> list[int]:
        """Positions of the English words with the grammatical feature `feature`."""
        words = VOCABULARY[ENGLISH]
        return [i for i, t in enumerate(self.source_tokens) if feature in words[t].grammar]

    def strongest_key(self, kind: str, head_name: str, query: int = -1) -> tuple[str, float]:
        """The key token that `query` (default: the last) gives most weight in the head
        `head_name` of attention `kind` ("encoder", "decoder" or "cross"), and the weight."""
        weights = {
            "encoder": self.encoder_weights,
            "decoder": self.decoder_weights,
            "cross": self.cross_weights,
        }[kind]
        keys = self.target_tokens if kind == "decoder" else self.source_tokens
        row = weights[head_index(kind, head_name), query]
        best = int(np.argmax(row))
        return keys[best], float(row[best])


def _attention(kind: str, d_head: int) -> MultiHeadAttention:
    """One attention from its head records."""
    heads = HEADS[kind]
    w_q, w_k = (
        np.stack(side) for side in zip(*(projections(h, d_head) for h in heads), strict=True)
    )
    w_v, w_o = zip(*(values(h, d_head) for h in heads), strict=True)
    return MultiHeadAttention.from_weights(
        w_q, w_k, np.stack(w_v), np.concatenate(w_o), dtype=np.float64
    )


@dataclass(frozen=True)
class TranslationModel:
    """One encoder block and one decoder block with the hand-built heads."""

    encoder: EncoderBlock
    decoder: DecoderBlock

    def run(self, source: str, target: str) -> TranslationTrace:
        """Run the English `source` and the German `target` (fed to the decoder after a
        start token, as during training); ValueError with a readable message on bad input."""
        source_words = look_up(source, ENGLISH)
        target_words = look_up(target, GERMAN)
        encoded = self.encoder(embed(source_words))
        decoded = self.decoder(embed(target_words, start=True), memory=encoded.output)
        return TranslationTrace(
            tuple(w.text for w in source_words),
            (START, *(w.text for w in target_words)),
            encoded,
            decoded,
        )


def build_translation_model() -> TranslationModel:
    """The hand-built example (deterministic: no random draws), its weights read-only
    because one model serves every run."""
    d_head = head_dimension()
    encoder = EncoderBlock(_attention("encoder", d_head), None, norm="none")
    decoder = DecoderBlock(
        _attention("decoder", d_head), _attention("cross", d_head), None, norm="none"
    )
    return read_only(TranslationModel(encoder, decoder))
