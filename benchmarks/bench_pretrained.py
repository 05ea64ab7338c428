"""Real-model speed: the NumPy all-MiniLM-L6-v2 forward pass against transformers' eager
BertModel on CPU (same process, same thread count, both returning every layer's
attentions and hidden states), and the load time including the SHA-256 checks.

Run: python -m benchmarks.bench_pretrained
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from attention.core.layers import gelu
from attention.core.process_tuning import tune_process
from attention.models.pretrained import PretrainedModel, load_pretrained
from attention.models.pretrained.vocabulary import VocabularyEmbeddings
from benchmarks.common import THREADS, interleaved_medians, median_seconds, pin_threads, print_table

TOKEN_COUNTS = (128, 512)
WORDS = [
    "the",
    "teacher",
    "projects",
    "every",
    "head",
    "of",
    "the",
    "model",
    "onto",
    "the",
    "wall",
    "so",
    "the",
    "class",
    "can",
    "see",
]


def text_of(model: PretrainedModel, n_tokens: int) -> str:
    """A sentence of exactly `n_tokens` tokens with [CLS] and [SEP] (one piece a word)."""
    text = " ".join(WORDS[i % len(WORDS)] for i in range(n_tokens - 2))
    assert len(model.run(text).tokens) == n_tokens
    return text


def transformers_runner(model_dir: Path, text: str) -> Callable[[], object] | None:
    """transformers' eager BertModel on `text`, or None when torch/transformers are missing."""
    try:
        import torch
        from transformers import AutoTokenizer, BertModel
    except ImportError:
        return None
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    bert = BertModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    encoded = tokenizer(text, truncation=True, max_length=512, return_tensors="pt")

    def run():
        with torch.inference_mode():
            return bert(**encoded, output_attentions=True, output_hidden_states=True)

    return run


def gelu_seconds(model: PretrainedModel, n_tokens: int) -> float:
    """Time of the exact GELU alone over all layers (its share of the forward pass)."""
    inner = np.random.default_rng(0).standard_normal(
        (n_tokens, model.config.d_ff), dtype=np.float32
    )
    return model.config.layers * median_seconds(lambda: gelu(inner), 30)


def main() -> None:
    pin_threads()
    tune_process()  # for every library in the process alike
    load = median_seconds(load_pretrained, repeats=5, warmup=1)
    model = load_pretrained()
    vocabulary_fit = median_seconds(lambda: VocabularyEmbeddings(model), repeats=5, warmup=1)
    rows = []
    for n in TOKEN_COUNTS:
        text = text_of(model, n)
        run_numpy = lambda text=text: model.run(text)  # noqa: E731
        run_torch = transformers_runner(model.files.directory, text)
        rounds = 8 if n <= 128 else 4
        if run_torch is None:
            t_numpy, t_torch = median_seconds(run_numpy, rounds * 5), float("nan")
        else:
            t_numpy, t_torch = interleaved_medians([run_numpy, run_torch], rounds)
        t_gelu = gelu_seconds(model, n)
        rows.append(
            [n, t_numpy * 1e3, t_torch * 1e3, t_numpy / t_torch, t_gelu * 1e3, t_gelu / t_numpy]
        )
    print(f"threads: {THREADS}; float32; model: {model.config.name} ({model.files.source})")
    print(f"load_pretrained() incl. SHA-256 of weights and tokenizer: {load:.2f} s (median of 5)")
    print(
        f"VocabularyEmbeddings (PCA of the {model.config.vocab_size:,} × "
        f"{model.config.d_model} word table): {vocabulary_fit:.3f} s (median of 5)"
    )
    print_table(
        [
            "tokens",
            "NumPy ms",
            "transformers ms",
            "NumPy/transformers",
            "exact GELU ms",
            "GELU share",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
