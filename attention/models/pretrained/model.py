"""The whole BERT encoder in NumPy (float32): each layer is the project's own post-LN
`EncoderBlock` around the engine's MultiHeadAttention, so every attention map shown is
the engine's own output and one forward pass also measures every sublayer's nudge.

Per layer (post-LayerNorm BERT):  a = MHA(x);  x = LN(x + a);  x = LN(x + FF(x))
with FF(x) = GELU(x W1 + b1) W2 + b2 and GELU(x) = x Φ(x) = x (1 + erf(x / √2)) / 2.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from safetensors.numpy import load as load_safetensors

from attention.core.blocks import FEED_FORWARD, SELF_ATTENTION, EncoderBlock, update_ratios
from attention.core.engine import MultiHeadAttention
from attention.core.layers import FeedForward, LayerNorm
from attention.core.read_only import read_only
from attention.core.validation import check_int_in_range, check_unit_interval
from attention.models.pretrained.config import ModelConfig, read_config
from attention.models.pretrained.errors import ModelError
from attention.models.pretrained.files import ModelFiles, find_model, read_verified
from attention.models.pretrained.tokenizer import WordPieceTokenizer

SUBLAYERS = (SELF_ATTENTION, FEED_FORWARD)  # the order of a layer's sublayers in a trace


@dataclass(frozen=True)
class ModelTrace:
    """One forward pass: the tokens, every layer's attention and hidden state, and the
    size of every sublayer's update to every token (norms only, to keep runs small)."""

    tokens: list[str]  # WordPiece tokens, [CLS] first and [SEP] last
    token_ids: list[int]
    attentions: np.ndarray  # (layers, heads, n, n) float32, rows sum to 1
    hidden_states: np.ndarray  # (layers + 1, n, d_model): embeddings, then each layer's output
    qkv: np.ndarray | None  # (layers, 3, heads, n, d_head) when asked for, else None
    stream_norms: np.ndarray  # (layers, 2, n): ‖stream‖ entering each of SUBLAYERS
    update_norms: np.ndarray  # (layers, 2, n): ‖update‖ it adds (before its LayerNorm)
    truncated: bool
    notice: str | None  # why the text was cut, when it was

    @property
    def update_ratios(self) -> np.ndarray:
        """(layers, 2, n) ‖update‖ / ‖stream‖: how big a nudge each sublayer gives each token."""
        return update_ratios(self.update_norms, self.stream_norms)

    @property
    def sentence_embedding(self) -> np.ndarray:
        """(d_model,) the sentence's embedding as the model card defines it."""
        return sentence_embedding(self.hidden_states[-1])


def sentence_embedding(last_hidden: np.ndarray) -> np.ndarray:
    """all-MiniLM-L6-v2's sentence embedding (its model card; sentence-transformers'
    pipeline): the mean of the last hidden states over the tokens, scaled to length 1.
    `last_hidden` is (..., n, d_model); the result (..., d_model). sentence-transformers
    cuts texts at 256 tokens first; here a run keeps up to 512, so the two agree for
    texts of up to 256 tokens."""
    pooled = np.asarray(last_hidden).mean(axis=-2)
    length = np.linalg.norm(pooled, axis=-1, keepdims=True)
    return pooled / np.maximum(length, np.finfo(pooled.dtype).tiny)


class PretrainedModel:
    """A BERT encoder's weights and tokenizer; `run(text)` is the forward pass."""

    def __init__(
        self,
        config: ModelConfig,
        weights: dict[str, np.ndarray],
        tokenizer: WordPieceTokenizer,
        files: ModelFiles | None = None,
    ) -> None:
        self.config = config
        self.tokenizer = tokenizer
        self.files = files
        read = _WeightReader(weights, config)
        self.word_embeddings = read.tensor("embeddings.word_embeddings.weight")
        self._positions = read.tensor("embeddings.position_embeddings.weight")
        self._token_type = read.tensor("embeddings.token_type_embeddings.weight")[0]
        self._embedding_norm = read.norm("embeddings.LayerNorm")
        self._blocks = [read.block(i) for i in range(config.layers)]
        # One loaded model serves every run (every session, in the app): its weights are
        # read-only so that code writing into them fails instead of changing every run.
        weights_used = (self.word_embeddings, self._positions, self._token_type)
        read_only((weights_used, self._embedding_norm, self._blocks))

    def run(
        self, text: str, return_qkv: bool = False, head_mask: np.ndarray | None = None
    ) -> ModelTrace:
        """Tokenize `text` and run the encoder once. `return_qkv` also keeps each layer's
        per-head queries, keys and values; `head_mask` (layers, heads) of 0/1 (bool or
        float) switches heads off: a masked head's output is zeros before W_O."""
        cfg = self.config
        scale = self._head_scale(head_mask)
        tokenized = self.tokenizer.encode(text)
        ids = np.asarray(tokenized.ids)
        n = len(ids)
        hidden = np.empty((cfg.layers + 1, n, cfg.d_model), dtype=np.float32)
        attentions = np.empty((cfg.layers, cfg.heads, n, n), dtype=np.float32)
        stream_norms = np.empty((cfg.layers, len(SUBLAYERS), n), dtype=np.float32)
        update_norms = np.empty_like(stream_norms)
        qkv = (
            np.empty((cfg.layers, 3, cfg.heads, n, cfg.d_head), np.float32) if return_qkv else None
        )

        x = self._embedding_norm(
            self.word_embeddings[ids] + self._positions[:n] + self._token_type
        ).output
        hidden[0] = x
        for index, block in enumerate(self._blocks):
            trace = block(x, head_mask=None if scale is None else scale[index])
            attention = trace.sublayers[0].detail
            attentions[index] = attention.weights
            if qkv is not None:
                qkv[index] = attention.q, attention.k, attention.v
            for sublayer, step in enumerate(trace.sublayers):
                stream_norms[index, sublayer] = step.stream_norms
                update_norms[index, sublayer] = step.update_norms
            hidden[index + 1] = x = trace.output
            del trace, attention, step  # free this layer's intermediates before the next
        return ModelTrace(
            tokens=tokenized.tokens,
            token_ids=tokenized.ids,
            attentions=attentions,
            hidden_states=hidden,
            qkv=qkv,
            stream_norms=stream_norms,
            update_norms=update_norms,
            truncated=tokenized.truncated,
            notice=tokenized.notice,
        )

    def block(self, layer: int) -> EncoderBlock:
        """Layer `layer`'s block (0-based) with the model's own weights, read-only (every
        run uses them)."""
        return self._blocks[check_int_in_range("layer", layer, 0, self.config.layers - 1)]

    def run_layers(
        self, x: np.ndarray, first_layer: int = 0, head_mask: np.ndarray | None = None
    ) -> np.ndarray:
        """Hidden states first_layer + 1 … layers, (layers - first_layer, ..., n, d_model),
        from `x` = hidden state `first_layer` (..., n, d_model), and nothing else: for
        ablations, which re-run only the layers a switched-off head changes. `head_mask`
        (..., layers, heads) may hold one mask per batch element; rows before
        `first_layer` are not used."""
        first_layer = check_int_in_range("first_layer", first_layer, 0, self.config.layers - 1)
        scale = self._head_scale(head_mask, batched=True)
        states = []
        for index in range(first_layer, self.config.layers):
            layer_scale = None if scale is None else scale[..., index, :]
            x = self._blocks[index](x, head_mask=layer_scale).output
            states.append(x)
        return np.stack(states)

    def check_head_mask(self, head_mask: np.ndarray, batched: bool = False) -> np.ndarray:
        """`head_mask` as a float32 copy after checking it: shape (layers, heads) (with
        leading batch dimensions when `batched`), values 0/1 or in between. ValueError
        names the expected shape."""
        expected = (self.config.layers, self.config.heads)
        described = f"{'(..., ' if batched else '('}layers, heads) = {expected}"
        shape = np.shape(head_mask)
        if (shape[-2:] if batched else shape) != expected:
            raise ValueError(f"head_mask must have shape {described}; got shape {shape}.")
        return check_unit_interval("head_mask", head_mask, described, np.float32)

    def _head_scale(self, head_mask: np.ndarray | None, batched: bool = False) -> np.ndarray | None:
        """The checked mask, or None when it switches nothing off."""
        if head_mask is None:
            return None
        scale = self.check_head_mask(head_mask, batched)
        return None if np.all(scale == 1) else scale

    def attention_layer(self, layer: int) -> MultiHeadAttention:
        """A new engine object with layer `layer`'s attention weights (0-based: it reads
        `hidden_states[layer]`), independent of the model, so callers may re-run it with
        a temperature or a causal mask, or even change its weights."""
        layer = check_int_in_range("layer", layer, 0, self.config.layers - 1)
        own = self._blocks[layer].self_attention
        return MultiHeadAttention.from_weights(  # from_weights copies every array but W_O
            own.w_q, own.w_k, own.w_v, own.w_o.copy(), own.b_q, own.b_k, own.b_v, own.b_o.copy()
        )

    def __repr__(self) -> str:
        c = self.config
        return (
            f"PretrainedModel({c.name!r}: {c.layers} layers × {c.heads} heads, "
            f"d_model={c.d_model}, d_head={c.d_head}, d_ff={c.d_ff}, vocab={c.vocab_size})"
        )


class _WeightReader:
    """Turns a BERT checkpoint's tensors into the engine's layout: HF stores each linear
    layer as (out, in) for x Wᵀ; the engine wants (in, out) and per-head blocks."""

    def __init__(self, weights: dict[str, np.ndarray], config: ModelConfig) -> None:
        self._weights = weights
        self._config = config

    def tensor(self, name: str) -> np.ndarray:
        for key in (name, f"bert.{name}"):  # bare BertModel, or inside a task model
            if key in self._weights:
                return np.ascontiguousarray(self._weights[key], dtype=np.float32)
        raise ModelError(f"model.safetensors has no tensor {name!r}; is it a BERT encoder?")

    def linear(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        weight = self.tensor(f"{name}.weight")
        return np.ascontiguousarray(weight.T), self.tensor(f"{name}.bias")

    def norm(self, name: str) -> LayerNorm:
        eps = self._config.layer_norm_eps
        return LayerNorm.from_weights(
            self.tensor(f"{name}.weight"), self.tensor(f"{name}.bias"), eps
        )

    def attention(self, layer: int) -> MultiHeadAttention:
        cfg, prefix = self._config, f"encoder.layer.{layer}.attention"
        per_head = {}
        for role in ("query", "key", "value"):
            weight, bias = self.linear(f"{prefix}.self.{role}")
            by_head = weight.reshape(cfg.d_model, cfg.heads, cfg.d_head).transpose(1, 0, 2)
            per_head[f"w_{role[0]}"] = by_head
            per_head[f"b_{role[0]}"] = bias.reshape(cfg.heads, cfg.d_head)
        w_o, b_o = self.linear(f"{prefix}.output.dense")
        return MultiHeadAttention.from_weights(**per_head, w_o=w_o, b_o=b_o, dtype=np.float32)

    def block(self, layer: int) -> EncoderBlock:
        """Layer `layer` as a post-LN encoder block with its learned LayerNorms."""
        prefix = f"encoder.layer.{layer}"
        w_in, b_in = self.linear(f"{prefix}.intermediate.dense")
        w_out, b_out = self.linear(f"{prefix}.output.dense")
        return EncoderBlock(
            self.attention(layer),
            FeedForward.from_weights(w_in, b_in, w_out, b_out, "gelu"),
            norm="post",
            norms=(
                self.norm(f"{prefix}.attention.output.LayerNorm"),
                self.norm(f"{prefix}.output.LayerNorm"),
            ),
        )


def load_pretrained(model_dir: str | os.PathLike | None = None) -> PretrainedModel:
    """Find, verify and load the model (all-MiniLM-L6-v2 unless told otherwise).

    Raises ModelNotFoundError when no directory has the files and ModelIntegrityError when
    the default model's files do not match the official SHA-256 (both are ModelError).
    """
    files = find_model(model_dir)
    config = read_config(files.directory / "config.json", files.name)
    weight_bytes = read_verified(files, "model.safetensors")
    tokenizer_json = read_verified(files, "tokenizer.json").decode("utf-8")
    try:
        weights = load_safetensors(weight_bytes)
    except Exception as error:  # safetensors raises its own untyped errors on bad files
        raise ModelError(f"Cannot read {files.directory / 'model.safetensors'}: {error}") from None
    tokenizer = WordPieceTokenizer(tokenizer_json, max_tokens=config.max_positions)
    return PretrainedModel(config, weights, tokenizer, files)
