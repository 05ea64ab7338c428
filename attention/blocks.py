"""Transformer blocks around `MultiHeadAttention`: each sublayer (attention or the
feed-forward network) reads the residual stream and adds its update back to it, with a
LayerNorm after the add (post-LN, as in the 2017 paper and BERT) or before the sublayer
(pre-LN, as in GPT-2). Every intermediate is kept so the figures can show how big a nudge
each sublayer gives each token.

The encoder block is self-attention then feed-forward (pass causal=True for a GPT-style
decoder-only block); the decoder block is causal self-attention, cross-attention to the
encoder's output, then feed-forward. `residual=False` and norm="none" exist to show what
the residual connection and the normalisation are for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention.engine import AttentionTrace, MultiHeadAttention
from attention.layers import FeedForward, FeedForwardTrace, LayerNorm, LayerNormTrace

NORMS = ("post", "pre", "none")
SELF_ATTENTION = "self-attention"
CAUSAL_SELF_ATTENTION = "causal self-attention"
CROSS_ATTENTION = "cross-attention"
FEED_FORWARD = "feed-forward"


@dataclass(frozen=True)
class SublayerTrace:
    """One sublayer's effect on the residual stream, for (..., n, d_model) tokens."""

    name: str
    stream_in: np.ndarray  # the residual stream before the sublayer
    update: np.ndarray  # what the sublayer computed (added to the stream when residual)
    stream_out: np.ndarray  # the stream after the add (and the LayerNorm, if post-LN)
    detail: AttentionTrace | FeedForwardTrace
    norm: LayerNormTrace | None  # None when norm="none"

    @property
    def stream_norms(self) -> np.ndarray:
        """‖stream‖ per token before the sublayer, shape (..., n)."""
        return np.linalg.norm(self.stream_in, axis=-1)

    @property
    def update_norms(self) -> np.ndarray:
        """‖update‖ per token, shape (..., n)."""
        return np.linalg.norm(self.update, axis=-1)

    @property
    def update_ratios(self) -> np.ndarray:
        """‖update‖ / ‖stream‖ per token: how big a nudge the sublayer gives (0 where
        the stream is the zero vector)."""
        stream = self.stream_norms
        return np.divide(self.update_norms, stream, out=np.zeros_like(stream), where=stream > 0)


@dataclass(frozen=True)
class BlockTrace:
    """Input, every sublayer in order, and output of one block."""

    input: np.ndarray
    sublayers: tuple[SublayerTrace, ...]

    @property
    def output(self) -> np.ndarray:
        return self.sublayers[-1].stream_out

    def sublayer(self, name: str) -> SublayerTrace:
        """The sublayer called `name` (one of the module's sublayer names)."""
        for step in self.sublayers:
            if step.name == name:
                return step
        names = [step.name for step in self.sublayers]
        raise KeyError(f"this block has no sublayer {name!r}; it has {names}.")


class _Block:
    """The residual-plus-LayerNorm wiring shared by the encoder and decoder blocks."""

    def __init__(
        self,
        attentions: tuple[MultiHeadAttention, ...],
        feed_forward: FeedForward | None,
        norm: str,
        residual: bool,
        eps: float,
    ) -> None:
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}; got {norm!r}.")
        d_model = attentions[0].d_model
        for layer in (*attentions[1:], *([feed_forward] if feed_forward else [])):
            if layer.d_model != d_model:
                raise ValueError(
                    f"all layers of a block must share d_model; got {d_model} and "
                    f"{layer.d_model} ({layer!r})."
                )
        self.d_model = d_model
        self.dtype = attentions[0].dtype
        self.feed_forward = feed_forward
        self.norm = norm
        self.residual = bool(residual)
        n_sublayers = len(attentions) + (feed_forward is not None)
        self.norms = (
            []
            if norm == "none"
            else [LayerNorm(d_model, eps, self.dtype) for _ in range(n_sublayers)]
        )

    def _sublayer(
        self,
        index: int,
        name: str,
        stream: np.ndarray,
        run: Callable[[np.ndarray], AttentionTrace | FeedForwardTrace],
    ) -> SublayerTrace:
        """Run one sublayer on the stream: pre-LN reads LN(stream), post-LN normalises
        stream + update; without the residual the update replaces the stream."""
        normed = None
        if self.norm == "pre":
            normed = self.norms[index](stream)
            detail = run(normed.output)
        else:
            detail = run(stream)
        update = detail.output
        out = stream + update if self.residual else update
        if self.norm == "post":
            normed = self.norms[index](out)
            out = normed.output
        return SublayerTrace(name, stream, update, out, detail, normed)

    def _feed_forward_step(self, index: int, stream: np.ndarray) -> list[SublayerTrace]:
        if self.feed_forward is None:
            return []
        return [self._sublayer(index, FEED_FORWARD, stream, self.feed_forward)]


class EncoderBlock(_Block):
    """Self-attention then (optionally) a feed-forward network, each wrapped in a
    residual connection and a LayerNorm."""

    def __init__(
        self,
        self_attention: MultiHeadAttention,
        feed_forward: FeedForward | None = None,
        norm: str = "post",
        residual: bool = True,
        eps: float = 1e-5,
    ) -> None:
        self.self_attention = self_attention
        super().__init__((self_attention,), feed_forward, norm, residual, eps)

    @classmethod
    def random(
        cls,
        d_model: int,
        n_heads: int,
        d_head: int | None = None,
        d_ff: int | None = None,
        activation: str = "gelu",
        use_feed_forward: bool = True,
        norm: str = "post",
        residual: bool = True,
        seed: int | None = 0,
        bias: bool = True,
        eps: float = 1e-5,
        dtype: type = np.float32,
    ) -> EncoderBlock:
        """A block with freshly drawn weights; one `seed` fixes all of them."""
        attention_seed, ffn_seed = child_seeds(seed, 2)
        attention = MultiHeadAttention(d_model, n_heads, d_head, attention_seed, bias, dtype)
        ffn = None
        if use_feed_forward:
            ffn = FeedForward(d_model, d_ff, activation, ffn_seed, bias, dtype)
        return cls(attention, ffn, norm, residual, eps)

    @classmethod
    def around(
        cls,
        attention: MultiHeadAttention,
        d_ff: int | None = None,
        activation: str = "gelu",
        norm: str = "post",
        seed: int | None = 0,
        eps: float = 1e-5,
    ) -> EncoderBlock:
        """Wrap existing heads in a block with a freshly drawn feed-forward network; its
        seed is derived from `seed`, so it never repeats the heads' own random draws."""
        (ffn_seed,) = child_seeds(seed, 1)
        ffn = FeedForward(attention.d_model, d_ff, activation, ffn_seed, True, attention.dtype)
        return cls(attention, ffn, norm, True, eps)

    def __call__(
        self,
        x: np.ndarray,
        causal: bool = False,
        temperature: float = 1.0,
        attention: AttentionTrace | None = None,
    ) -> BlockTrace:
        """Run the block on tokens x (..., n, d_model). `attention` may hand in this
        block's self-attention of x already computed (same heads, mask and temperature);
        it is used where the attention reads x itself, i.e. unless norm="pre"."""
        x = np.asarray(x, dtype=self.dtype)
        name = CAUSAL_SELF_ATTENTION if causal else SELF_ATTENTION
        if attention is not None and attention.output.shape != x.shape:
            raise ValueError(
                f"attention must be this block's attention over x, with output shape "
                f"{x.shape}; got {attention.output.shape}."
            )
        reuse = attention is not None and self.norm != "pre"

        def attend(h: np.ndarray) -> AttentionTrace:
            if reuse:
                return attention
            return self.self_attention(h, causal=causal, temperature=temperature)

        steps = [self._sublayer(0, name, x, attend)]
        steps += self._feed_forward_step(1, steps[-1].stream_out)
        return BlockTrace(x, tuple(steps))


class DecoderBlock(_Block):
    """Causal self-attention over the target so far, cross-attention from the target to
    the encoder's output (the memory), then (optionally) a feed-forward network; each
    wrapped in a residual connection and a LayerNorm."""

    def __init__(
        self,
        self_attention: MultiHeadAttention,
        cross_attention: MultiHeadAttention,
        feed_forward: FeedForward | None = None,
        norm: str = "post",
        residual: bool = True,
        eps: float = 1e-5,
    ) -> None:
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        super().__init__((self_attention, cross_attention), feed_forward, norm, residual, eps)

    @classmethod
    def random(
        cls,
        d_model: int,
        n_heads: int,
        d_head: int | None = None,
        d_ff: int | None = None,
        activation: str = "gelu",
        use_feed_forward: bool = True,
        norm: str = "post",
        residual: bool = True,
        seed: int | None = 0,
        bias: bool = True,
        eps: float = 1e-5,
        dtype: type = np.float32,
    ) -> DecoderBlock:
        """A block with freshly drawn weights; one `seed` fixes all of them."""
        self_seed, cross_seed, ffn_seed = child_seeds(seed, 3)
        self_attention = MultiHeadAttention(d_model, n_heads, d_head, self_seed, bias, dtype)
        cross_attention = MultiHeadAttention(d_model, n_heads, d_head, cross_seed, bias, dtype)
        ffn = None
        if use_feed_forward:
            ffn = FeedForward(d_model, d_ff, activation, ffn_seed, bias, dtype)
        return cls(self_attention, cross_attention, ffn, norm, residual, eps)

    def __call__(self, x: np.ndarray, memory: np.ndarray, temperature: float = 1.0) -> BlockTrace:
        """Run the block on target tokens x (..., n_target, d_model) reading the encoder's
        output `memory` (..., n_source, d_model). Target position i never sees i+1, i+2, …"""
        x = np.asarray(x, dtype=self.dtype)

        def attend_back(h: np.ndarray) -> AttentionTrace:
            return self.self_attention(h, causal=True, temperature=temperature)

        def attend_source(h: np.ndarray) -> AttentionTrace:
            return self.cross_attention(h, context=memory, temperature=temperature)

        steps = [self._sublayer(0, CAUSAL_SELF_ATTENTION, x, attend_back)]
        steps.append(self._sublayer(1, CROSS_ATTENTION, steps[-1].stream_out, attend_source))
        steps += self._feed_forward_step(2, steps[-1].stream_out)
        return BlockTrace(x, tuple(steps))


def child_seeds(seed: int | None, count: int) -> list[int]:
    """Independent integer seeds for a block's layers, all fixed by one seed."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count)]
