"""The synthetic task of §4: a sequence holds one token with the first mark and one with
the second (A and B); the answer is both of their symbols, so the query must look up two
tokens at once.

Each token is a symbol (0 … n_symbols-1) with an optional mark; its vector is the sum of a
symbol vector, a mark vector and a position vector, all fixed random draws (a frozen
embedding table), so only the attention layer and the read-out learn. The sequence ends
with a query token whose position holds the answer. How the tokens are written (the marks,
"?" for the query) is content, in assets/task.toml.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from attention.assets import TEXT, TEXTS, AssetError, asset_label, check_fields, read_toml
from attention.core.validation import check_int_in_range, check_positive_int

TEXTS_FILE = "task.toml"


@dataclass(frozen=True)
class TaskTexts:
    """How the task's tokens are written: the two marks, mark–symbol separator, query."""

    marks: tuple[str, str]
    separator: str
    query: str


def load_task_texts(root: Path | None = None) -> TaskTexts:
    """Read and check assets/task.toml: two different marks, and no label that could be
    mistaken for a symbol (a number) or for another label."""
    label = asset_label(TEXTS_FILE, root)
    fields = check_fields(
        read_toml(TEXTS_FILE, root), label, {"marks": TEXTS, "separator": TEXT, "query": TEXT}
    )
    marks, query = tuple(fields["marks"]), fields["query"]
    if len(marks) != 2 or marks[0] == marks[1]:
        raise AssetError(f"{label}: 'marks' must be two different texts; got {marks!r}.")
    for name, text in (("marks", marks[0]), ("marks", marks[1]), ("query", query)):
        if text.isdigit():
            raise AssetError(f"{label}: {name} {text!r} looks like a symbol (a number).")
    if query in marks:
        raise AssetError(f"{label}: the query {query!r} is also a mark.")
    return TaskTexts(marks, fields["separator"], query)


TASK_TEXTS = load_task_texts()
MARKS = ("", *TASK_TEXTS.marks)  # index 0 = unmarked


@dataclass(frozen=True)
class Batch:
    """Examples of the task: vectors (size, seq_len + 1, d_model), the two answers
    (size, 2) = (symbol marked A, symbol marked B), and what was drawn, for labels."""

    x: np.ndarray
    answers: np.ndarray
    symbols: np.ndarray  # (size, seq_len)
    marks: np.ndarray  # (size, seq_len): 0 unmarked, 1 = A, 2 = B


@dataclass(frozen=True)
class TwoLookupTask:
    """The task's sizes and the seed of its fixed token vectors."""

    n_symbols: int = 8
    seq_len: int = 8
    d_model: int = 32
    noise: float = 0.0  # std of fresh Gaussian noise added to every coordinate of every token
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("n_symbols", "seq_len", "d_model"):
            check_int_in_range(name, getattr(self, name), 2)
        if not (np.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"noise must be a finite number >= 0; got {self.noise!r}.")

    @cached_property
    def tables(self) -> dict[str, np.ndarray]:
        """The frozen embedding: symbol, mark and position vectors and the query token."""
        rng = np.random.default_rng([self.seed, 7])
        d = self.d_model
        return {
            "symbol": rng.normal(size=(self.n_symbols, d)),
            "mark": np.vstack([np.zeros(d), rng.normal(size=(2, d))]),
            "position": rng.normal(size=(self.seq_len + 1, d)),
            "query": rng.normal(size=d),
        }

    def sample(self, rng: np.random.Generator, size: int) -> Batch:
        """Draw `size` sequences: random symbols, two distinct marked positions."""
        size = check_positive_int("size", size)
        symbols = rng.integers(self.n_symbols, size=(size, self.seq_len))
        order = np.argsort(rng.random((size, self.seq_len)), axis=1)
        rows = np.arange(size)
        marks = np.zeros((size, self.seq_len), dtype=np.int64)
        marks[rows, order[:, 0]] = 1
        marks[rows, order[:, 1]] = 2
        answers = np.stack([symbols[rows, order[:, 0]], symbols[rows, order[:, 1]]], axis=1)
        x = self.embed(symbols, marks)
        if self.noise:
            x = x + rng.normal(scale=self.noise, size=x.shape)
        return Batch(x, answers, symbols, marks)

    def embed(self, symbols: np.ndarray, marks: np.ndarray) -> np.ndarray:
        """Token vectors (size, seq_len + 1, d_model), the query token last."""
        t = self.tables
        content = t["symbol"][symbols] + t["mark"][marks] + t["position"][: self.seq_len]
        query = np.broadcast_to(t["query"] + t["position"][-1], (len(symbols), 1, self.d_model))
        return np.concatenate([content, query], axis=1)

    @staticmethod
    def labels(batch: Batch, index: int) -> list[str]:
        """Readable tokens of example `index`: '5', 'A:3', 'B:0', …, '?' (as TASK_TEXTS
        writes them)."""
        tokens = [
            f"{MARKS[m]}{TASK_TEXTS.separator}{s}" if m else str(s)
            for s, m in zip(batch.symbols[index], batch.marks[index], strict=True)
        ]
        return [*tokens, TASK_TEXTS.query]
