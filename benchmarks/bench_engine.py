"""Engine speed: Head Spaces' vectorised NumPy attention against a plain per-head loop and
PyTorch's multi_head_attention_forward (per-head weights returned), in one process.

Run: python -m benchmarks.bench_engine
"""

from __future__ import annotations

import functools

import numpy as np

from attention import MultiHeadAttention
from attention.runtime import tune_process
from benchmarks.common import (
    THREADS,
    interleaved_medians,
    median_seconds,
    pin_threads,
    print_table,
)

SIZES = [  # (label, n tokens, d_model, heads)
    ("classroom", 16, 64, 4),
    ("BERT-base", 512, 768, 12),
]


def per_head_loop(mha: MultiHeadAttention, x: np.ndarray) -> np.ndarray:
    """The textbook loop: one head at a time, each with its own three matmuls."""
    outputs = []
    for h in range(mha.n_heads):
        q = x @ mha.w_q[h] + mha.b_q[h]
        k = x @ mha.w_k[h] + mha.b_k[h]
        v = x @ mha.w_v[h] + mha.b_v[h]
        scores = q @ k.T / np.sqrt(mha.d_head)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        outputs.append(weights @ v)
    return np.concatenate(outputs, axis=-1) @ mha.w_o + mha.b_o


def torch_runner(mha: MultiHeadAttention, x: np.ndarray):
    """PyTorch's functional MHA with the same weights, or None when torch is missing."""
    try:
        import torch
        from torch.nn.functional import multi_head_attention_forward
    except ImportError:
        return None
    d, width = mha.d_model, mha.n_heads * mha.d_head
    in_w = torch.from_numpy(
        np.concatenate(
            [w.transpose(1, 0, 2).reshape(d, width).T for w in (mha.w_q, mha.w_k, mha.w_v)]
        )
    )
    in_b = torch.from_numpy(np.concatenate([b.ravel() for b in (mha.b_q, mha.b_k, mha.b_v)]))
    out_w = torch.from_numpy(np.ascontiguousarray(mha.w_o.T))
    out_b = torch.from_numpy(mha.b_o)
    tx = torch.from_numpy(x)[:, None, :]

    def run():
        with torch.inference_mode():
            return multi_head_attention_forward(
                tx,
                tx,
                tx,
                d,
                mha.n_heads,
                in_w,
                in_b,
                None,
                None,
                False,
                0.0,
                out_w,
                out_b,
                training=False,
                need_weights=True,
                average_attn_weights=False,
            )

    return run


def matmul_gflops(n: int = 1024) -> float:
    """The machine's float32 GEMM rate: an n×n by n×n product."""
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    return 2 * n**3 / median_seconds(lambda: a @ a) / 1e9


def main() -> None:
    pin_threads()
    tune_process()  # for every library in the process alike
    peak = matmul_gflops()
    rows = []
    for label, n, d_model, heads in SIZES:
        mha = MultiHeadAttention(d_model, heads, seed=0)
        x = np.random.default_rng(1).standard_normal((n, d_model), dtype=np.float32)
        runs = [functools.partial(mha, x), functools.partial(per_head_loop, mha, x)]
        run_torch = torch_runner(mha, x)
        if run_torch:
            runs.append(run_torch)
        # alternate blocks of runs, so drifting machine load falls on all alike
        rounds = 8 if n > 100 else 60
        t_engine, t_loop, *rest = interleaved_medians(runs, rounds)
        t_torch = rest[0] if rest else float("nan")
        gflops = 2 * mha.cost(n).macs / t_engine / 1e9
        rows.append(
            [
                f"{label} n={n} d={d_model} h={heads}",
                t_engine * 1e3,
                t_loop * 1e3,
                t_torch * 1e3,
                t_engine / t_loop,
                t_engine / t_torch,
                gflops,
                f"{gflops / peak:.0%}",
            ]
        )
    print(f"threads: {THREADS}; float32; float32 GEMM (1024³) rate: {peak:.1f} GFLOP/s")
    print_table(
        [
            "size",
            "engine ms",
            "loop ms",
            "torch ms",
            "engine/loop",
            "engine/torch",
            "engine GFLOP/s",
            "of GEMM",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
