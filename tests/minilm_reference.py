"""Reference numbers for all-MiniLM-L6-v2 from Hugging Face transformers (PyTorch, eager
attention), independent of `attention/`: tokens from the pure-Python BertTokenizer
(vocab.txt), attentions and hidden states from BertModel. Needs torch and transformers."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def reference_run(model_dir: Path, texts: list[str], max_length: int = 512) -> list[dict]:
    """Per text: tokens, ids, attentions (layers, heads, n, n), hidden states
    (layers + 1, n, d) and the normalised mean-pooled sentence embedding."""
    import torch
    from transformers import BertModel, BertTokenizer

    tokenizer = BertTokenizer(str(model_dir / "vocab.txt"), do_lower_case=True)
    model = BertModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    results = []
    for text in texts:
        encoded = tokenizer(text, truncation=True, max_length=max_length, return_tensors="pt")
        with torch.inference_mode():
            out = model(**encoded, output_attentions=True, output_hidden_states=True)
        hidden = np.stack([h[0].numpy() for h in out.hidden_states])
        pooled = hidden[-1].mean(axis=0)
        results.append(
            {
                "tokens": tokenizer.convert_ids_to_tokens(encoded["input_ids"][0]),
                "ids": encoded["input_ids"][0].numpy(),
                "attentions": np.stack([a[0].numpy() for a in out.attentions]),
                "hidden_states": hidden,
                "sentence_embedding": pooled / np.linalg.norm(pooled),
            }
        )
    return results


def library_versions() -> dict[str, str]:
    import tokenizers
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "numpy": np.__version__,
    }
