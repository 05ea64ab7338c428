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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from attention.core.engine import AttentionTrace, MultiHeadAttention
from attention.core.layers import FeedForward, FeedForwardTrace, LayerNorm, LayerNormTrace

NORMS = ("post", "pre", "none")
SELF_ATTENTION = "self-attention"
CAUSAL_SELF_ATTENTION = "causal self-attention"
CROSS_ATTENTION = "cross-attention"
FEED_FORWARD = "feed-forward"


def token_norms(x: np.ndarray) -> np.ndarray:
    """‖x‖ over the last axis, (..., n, d) → (..., n); einsum, 3-4× faster than
    np.linalg.norm's squared temporary at BERT size."""
    return np.sqrt(np.einsum("...i,...i->...", x, x))


def update_ratios(update_norms: np.ndarray, stream_norms: np.ndarray) -> np.ndarray:
    """‖update‖ / ‖stream‖ element by element: how big a nudge a sublayer gives a token.
    The only place the library computes this ratio. Where ‖stream‖ is 0 no ratio is
    defined and the result is 0 (never inf or NaN, so medians and figures stay finite)."""
    update_norms = np.asarray(update_norms)
    stream_norms = np.asarray(stream_norms)
    shape = np.broadcast_shapes(update_norms.shape, stream_norms.shape)
    ratios = np.zeros(shape, np.result_type(update_norms, stream_norms, np.float32))
    return np.divide(update_norms, stream_norms, out=ratios, where=stream_norms > 0)


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
        return token_norms(self.stream_in)

    @property
    def update_norms(self) -> np.ndarray:
        """‖update‖ per token, shape (..., n)."""
        return token_norms(self.update)

    @property
    def update_ratios(self) -> np.ndarray:
        """‖update‖ / ‖stream‖ per token, by `update_ratios` (0 where ‖stream‖ is 0)."""
        return update_ratios(self.update_norms, self.stream_norms)


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


@dataclass(frozen=True)
class BlockConfig:
    """A block with freshly drawn weights: its sizes and choices (see `EncoderBlock` and
    `DecoderBlock`); one `seed` fixes every layer's weights."""

    d_model: int
    n_heads: int
    d_head: int | None = None
    d_ff: int | None = None
    activation: str = "gelu"
    use_feed_forward: bool = True
    norm: str = "post"
    residual: bool = True
    seed: int | None = 0
    bias: bool = True
    eps: float = 1e-5
    dtype: type = np.float32

    def draw(self, attentions: int) -> tuple[list[MultiHeadAttention], FeedForward | None]:
        """`attentions` attention layers and the feed-forward network (None when not
        used), each from its own child seed of `seed`: the feed-forward's comes last."""
        seeds = child_seeds(self.seed, attentions + 1)
        layers = [
            MultiHeadAttention(self.d_model, self.n_heads, self.d_head, seed, self.bias, self.dtype)
            for seed in seeds[:attentions]
        ]
        ffn = None
        if self.use_feed_forward:
            ffn = FeedForward(
                self.d_model, self.d_ff, self.activation, seeds[-1], self.bias, self.dtype
            )
        return layers, ffn


class _Block:
    """The residual-plus-LayerNorm wiring shared by the encoder and decoder blocks."""

    def __init__(
        self,
        attentions: tuple[MultiHeadAttention, ...],
        feed_forward: FeedForward | None,
        norm: str,
        residual: bool,
        eps: float,
        norms: Sequence[LayerNorm] | None,
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
        self.norms = self._layer_norms(n_sublayers, eps, norms)

    def _layer_norms(
        self, count: int, eps: float, given: Sequence[LayerNorm] | None
    ) -> list[LayerNorm]:
        """Fresh LayerNorms (gain 1, bias 0, `eps`), or the given learned ones checked
        against the block: one per sublayer, same d_model and dtype."""
        if given is None:
            if self.norm == "none":
                return []
            return [LayerNorm(self.d_model, eps, self.dtype) for _ in range(count)]
        given = list(given)
        if self.norm == "none" or len(given) != count:
            wanted = "none (norm='none')" if self.norm == "none" else f"{count}, one per sublayer"
            raise ValueError(f"norms must hold {wanted} LayerNorm(s); got {len(given)}.")
        for layer_norm in given:
            if (
                not isinstance(layer_norm, LayerNorm)
                or layer_norm.d_model != self.d_model
                or layer_norm.gain.dtype != self.dtype
            ):
                raise ValueError(
                    f"norms must be LayerNorms of d_model={self.d_model} in "
                    f"{np.dtype(self.dtype).name}; got {layer_norm!r}."
                )
        return given

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
    residual connection and a LayerNorm: fresh ones with `eps`, or a trained model's
    learned ones passed as `norms` (one per sublayer, each with its own eps)."""

    def __init__(
        self,
        self_attention: MultiHeadAttention,
        feed_forward: FeedForward | None = None,
        norm: str = "post",
        residual: bool = True,
        eps: float = 1e-5,
        norms: Sequence[LayerNorm] | None = None,
    ) -> None:
        self.self_attention = self_attention
        super().__init__((self_attention,), feed_forward, norm, residual, eps, norms)

    @classmethod
    def random(cls, config: BlockConfig) -> EncoderBlock:
        """A block with freshly drawn weights, as `config` describes."""
        (attention,), ffn = config.draw(1)
        return cls(attention, ffn, config.norm, config.residual, config.eps)

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
        head_mask: np.ndarray | None = None,
    ) -> BlockTrace:
        """Run the block on tokens x (..., n, d_model). `attention` may hand in this
        block's self-attention of x already computed (same heads, mask and temperature);
        it is used where the attention reads x itself, i.e. unless norm="pre".
        `head_mask` switches self-attention heads off as `MultiHeadAttention.__call__`
        describes."""
        x = np.asarray(x, dtype=self.dtype)
        name = CAUSAL_SELF_ATTENTION if causal else SELF_ATTENTION
        if attention is not None and attention.output.shape != x.shape:
            raise ValueError(
                f"attention must be this block's attention over x, with output shape "
                f"{x.shape}; got {attention.output.shape}."
            )
        reuse = attention is not None and self.norm != "pre" and head_mask is None

        def attend(h: np.ndarray) -> AttentionTrace:
            if reuse:
                return attention
            return self.self_attention(
                h, causal=causal, temperature=temperature, head_mask=head_mask
            )

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
        norms: Sequence[LayerNorm] | None = None,
    ) -> None:
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        super().__init__(
            (self_attention, cross_attention), feed_forward, norm, residual, eps, norms
        )

    @classmethod
    def random(cls, config: BlockConfig) -> DecoderBlock:
        """A block with freshly drawn weights, as `config` describes."""
        (self_attention, cross_attention), ffn = config.draw(2)
        return cls(self_attention, cross_attention, ffn, config.norm, config.residual, config.eps)

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
