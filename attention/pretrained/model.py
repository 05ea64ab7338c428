"""The whole BERT encoder in NumPy (float32), each layer's self-attention run by the
engine's MultiHeadAttention, so every attention map shown is the engine's own output.

Per layer (post-LayerNorm BERT):  a = MHA(x);  x = LN(x + a);  x = LN(x + FF(x))
with FF(x) = GELU(x W1 + b1) W2 + b2 and GELU(x) = x Φ(x) = x (1 + erf(x / √2)) / 2.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from safetensors.numpy import load as load_safetensors

from attention.engine import MultiHeadAttention
from attention.layers import FeedForward, LayerNorm
from attention.pretrained.config import ModelConfig, read_config
from attention.pretrained.errors import ModelError
from attention.pretrained.files import ModelFiles, find_model, read_verified
from attention.pretrained.tokenizer import WordPieceTokenizer


@dataclass(frozen=True)
class ModelTrace:
    """One forward pass: the tokens and every layer's attention and hidden state."""

    tokens: list[str]  # WordPiece tokens, [CLS] first and [SEP] last
    token_ids: list[int]
    attentions: np.ndarray  # (layers, heads, n, n) float32, rows sum to 1
    hidden_states: np.ndarray  # (layers + 1, n, d_model): embeddings, then each layer's output
    qkv: np.ndarray | None  # (layers, 3, heads, n, d_head) when asked for, else None
    sentence_embedding: np.ndarray  # (d_model,) mean of the last hidden state, NOT normalised
    truncated: bool
    notice: str | None  # why the text was cut, when it was

    @property
    def normalized_sentence_embedding(self) -> np.ndarray:
        """The mean-pooled embedding scaled to length 1: what sentence-transformers returns
        for all-MiniLM-L6-v2 (its pipeline ends with a Normalize module)."""
        return self.sentence_embedding / np.linalg.norm(self.sentence_embedding)


@dataclass(frozen=True)
class ResidualUpdates:
    """Per layer, sublayer (0 = attention, 1 = feed-forward) and token: ‖stream‖ entering
    the sublayer and ‖update‖ it adds, each (layers, 2, n)."""

    stream: np.ndarray
    update: np.ndarray

    @property
    def ratios(self) -> np.ndarray:
        """‖update‖ / ‖stream‖: how big a nudge each sublayer gives each token."""
        return self.update / np.maximum(self.stream, np.finfo(np.float32).tiny)


@dataclass(frozen=True)
class _Layer:
    attention: MultiHeadAttention
    attention_norm: LayerNorm
    feed_forward: FeedForward
    output_norm: LayerNorm


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
        self._layers = [read.layer(i) for i in range(config.layers)]

    def run(self, text: str, return_qkv: bool = False) -> ModelTrace:
        """Tokenize `text` and run the encoder; `return_qkv` also keeps each layer's
        per-head queries, keys and values."""
        cfg = self.config
        tokenized = self.tokenizer.encode(text)
        ids = np.asarray(tokenized.ids)
        n = len(ids)
        hidden = np.empty((cfg.layers + 1, n, cfg.d_model), dtype=np.float32)
        attentions = np.empty((cfg.layers, cfg.heads, n, n), dtype=np.float32)
        qkv = (
            np.empty((cfg.layers, 3, cfg.heads, n, cfg.d_head), np.float32) if return_qkv else None
        )

        x = self.word_embeddings[ids] + self._positions[:n] + self._token_type
        hidden[0] = x = self._embedding_norm(x).output
        for index, layer in enumerate(self._layers):
            trace = layer.attention(x)
            attentions[index] = trace.weights
            if qkv is not None:
                qkv[index] = trace.q, trace.k, trace.v
            x = layer.attention_norm(x + trace.output).output
            x = layer.output_norm(x + layer.feed_forward(x).output).output
            hidden[index + 1] = x
        return ModelTrace(
            tokens=tokenized.tokens,
            token_ids=tokenized.ids,
            attentions=attentions,
            hidden_states=hidden,
            qkv=qkv,
            sentence_embedding=hidden[-1].mean(axis=0),
            truncated=tokenized.truncated,
            notice=tokenized.notice,
        )

    def residual_updates(self, hidden_states: np.ndarray) -> ResidualUpdates:
        """For each layer and token of a run's hidden states: the length of the residual
        stream entering each sublayer and of the update the sublayer adds to it (before
        the LayerNorm that follows), recomputed from the layer's input."""
        layers = len(self._layers)
        n = hidden_states.shape[1]
        stream = np.empty((layers, 2, n), dtype=np.float32)
        update = np.empty((layers, 2, n), dtype=np.float32)
        for index, layer in enumerate(self._layers):
            x = hidden_states[index]
            attended = layer.attention(x).output
            middle = layer.attention_norm(x + attended).output
            fed = layer.feed_forward(middle).output
            stream[index] = np.linalg.norm(x, axis=-1), np.linalg.norm(middle, axis=-1)
            update[index] = np.linalg.norm(attended, axis=-1), np.linalg.norm(fed, axis=-1)
        return ResidualUpdates(stream, update)

    def attention_layer(self, layer: int) -> MultiHeadAttention:
        """A new engine object with layer `layer`'s attention weights (0-based: it reads
        `hidden_states[layer]`), independent of the model, so callers may re-run it with
        a temperature or a causal mask, or even change its weights."""
        if isinstance(layer, bool) or not isinstance(layer, int | np.integer):
            raise ValueError(f"layer must be an integer; got {layer!r}.")
        if not 0 <= layer < self.config.layers:
            raise ValueError(
                f"layer must be from 0 to {self.config.layers - 1} (0-based); got {layer}."
            )
        own = self._layers[int(layer)].attention
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

    def layer(self, layer: int) -> _Layer:
        prefix = f"encoder.layer.{layer}"
        w_in, b_in = self.linear(f"{prefix}.intermediate.dense")
        w_out, b_out = self.linear(f"{prefix}.output.dense")
        return _Layer(
            attention=self.attention(layer),
            attention_norm=self.norm(f"{prefix}.attention.output.LayerNorm"),
            feed_forward=FeedForward.from_weights(w_in, b_in, w_out, b_out, "gelu"),
            output_norm=self.norm(f"{prefix}.output.LayerNorm"),
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
