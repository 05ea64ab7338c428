"""Reference numbers for all-MiniLM-L6-v2 from Hugging Face transformers (PyTorch, eager
attention) and sentence-transformers, independent of `attention/`: tokens from the
pure-Python BertTokenizer (vocab.txt), attentions, hidden states and the sublayers' update
sizes from BertModel, sentence embeddings from SentenceTransformer (the model card's
pipeline: Transformer, mean Pooling, Normalize). Needs torch, transformers and (for the
embeddings) sentence-transformers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def reference_run(model_dir: Path, texts: list[str], max_length: int = 512) -> list[dict]:
    """Per text: tokens, ids, attentions (layers, heads, n, n), hidden states
    (layers + 1, n, d), and per layer, sublayer (0 attention, 1 feed-forward) and token
    the norm of the stream entering the sublayer and of its update, read by forward hooks
    on BertModel's own modules: `stream_norms`, `update_norms` (layers, 2, n)."""
    import torch
    from transformers import BertModel, BertTokenizer

    tokenizer = BertTokenizer(str(model_dir / "vocab.txt"), do_lower_case=True)
    model = BertModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    captured: dict[str, list[np.ndarray]] = {
        "attention_update": [],
        "ffn_stream": [],
        "ffn_update": [],
    }

    def keep(name):
        def hook(module, inputs, output):
            captured[name].append(np.linalg.norm(output[0].numpy(), axis=-1))

        return hook

    for layer in model.encoder.layer:
        layer.attention.output.dense.register_forward_hook(keep("attention_update"))
        layer.attention.output.register_forward_hook(keep("ffn_stream"))  # after its LayerNorm
        layer.output.dense.register_forward_hook(keep("ffn_update"))
    results = []
    for text in texts:
        for record in captured.values():
            record.clear()
        encoded = tokenizer(text, truncation=True, max_length=max_length, return_tensors="pt")
        with torch.inference_mode():
            out = model(**encoded, output_attentions=True, output_hidden_states=True)
        hidden = np.stack([h[0].numpy() for h in out.hidden_states])
        stream = np.stack([np.linalg.norm(hidden[:-1], axis=-1), captured["ffn_stream"]], axis=1)
        update = np.stack([captured["attention_update"], captured["ffn_update"]], axis=1)
        results.append(
            {
                "tokens": tokenizer.convert_ids_to_tokens(encoded["input_ids"][0]),
                "ids": encoded["input_ids"][0].numpy(),
                "attentions": np.stack([a[0].numpy() for a in out.attentions]),
                "hidden_states": hidden,
                "stream_norms": stream,
                "update_norms": update,
            }
        )
    return results


def reference_embeddings(model_dir: Path, texts: list[str]) -> np.ndarray:
    """(len(texts), d) sentence embeddings from sentence-transformers, loaded from the
    local model directory with the Hub switched off."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    return model.encode(texts, convert_to_numpy=True)


def library_versions() -> dict[str, str]:
    import sentence_transformers
    import tokenizers
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "sentence-transformers": sentence_transformers.__version__,
        "numpy": np.__version__,
    }
