"""Script-side time of "The block around attention" on a cold cache (every knob changed
at once): compute and figure building (+ JSON serialisation, as Streamlit sends it) for
the block, the 24-layer rank-collapse stacks and the translation, at 8–64 tokens.
Target: under 1 s at the default widths (d_model 64, 4 heads). The depth slider
alone redoes only the four PCAs and two figures (the stacks are cached).

A reference in the same process: one encoder block forward pass against PyTorch's
nn.TransformerEncoderLayer (same widths, post-LN, GELU, eval mode), when importable.

Then the page's whole script time through AppTest after a depth-slider move (stacks
cached) and after a temperature move (block and stacks recomputed, translation cached).

Run: python -m benchmarks.bench_block
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import plotly.io as pio
from threadpoolctl import threadpool_limits

from attention import MultiHeadAttention
from attention.analysis.rank_collapse import MAX_DEPTH, collapse_runs, relative_pca
from attention.analysis.update_ratios import block_nudges
from attention.core.blocks import FEED_FORWARD, BlockConfig, EncoderBlock
from attention.core.process_tuning import tune_process
from attention.figures.attention_maps import attention_grid
from attention.figures.block import concat_figure, hidden_figure, stream_update_figure
from attention.figures.block_rank_collapse import collapse_pca_figure, rank_collapse_figure
from attention.figures.block_translation import joint_query_key_figure
from attention.geometry.score_space import joint_query_key_layout
from attention.models.toy import toy_inputs
from attention.models.translation import build_translation_model
from benchmarks.common import (
    THREADS,
    interleaved_medians,
    median_seconds,
    pin_threads,
    print_table,
)
from harness.browser import ROOT
from ui.pooled_maps import maps_to_draw

TOKENS = (8, 16, 32, 64)
WIDTHS = ((64, 4, "default"), (384, 16, "widest"))
ENGLISH = ("you", "are", "not", "very", "tired")
GERMAN = ("du", "bist", "nicht", "sehr", "müde")


def _sentence(words: tuple[str, ...], n: int) -> str:
    return " ".join(words[i % len(words)] for i in range(n))


def _serialise(*figures) -> None:
    for fig in figures:
        pio.to_json(fig, engine="orjson", validate=False)


def block_part(x, tokens, mha):
    block = EncoderBlock.around(mha, seed=0)
    trace = block(x)
    step = trace.sublayers[0]
    nudges = block_nudges(trace)
    _serialise(
        concat_figure(tokens, step.detail.concat, step.update, mha.n_heads),
        stream_update_figure(
            tokens, nudges.names, nudges.stream_norms, nudges.update_norms, nudges.ratios
        ),
        hidden_figure(tokens, trace.sublayer(FEED_FORWARD).detail.hidden, "gelu"),
    )


def collapse_part(x, tokens, mha):
    runs = collapse_runs(x, MAX_DEPTH, mha.n_heads, mha.d_head, norm="pre", seed=0)
    curves = [(r.label, r.residual, r.feed_forward, r.distances) for r in runs]
    _serialise(
        rank_collapse_figure(curves, 6),
        collapse_pca_figure(tokens, [(r.label, relative_pca(r.states[6])) for r in runs], 6),
    )


def translation_part(model, n):
    example = model.run(_sentence(ENGLISH, n), _sentence(GERMAN, n))
    source, target = list(example.source_tokens), list(example.target_tokens)
    cross = example.decoder.sublayers[1].detail
    _serialise(
        attention_grid(
            **maps_to_draw(example.encoder_weights, source, self_attention=True), columns=2
        ),
        attention_grid(
            **maps_to_draw(
                example.decoder_weights,
                target,
                allowed=example.decoder.sublayers[0].detail.mask,
                self_attention=True,
            )
        ),
        attention_grid(example.cross_weights, target, source, columns=2),
        joint_query_key_figure(
            joint_query_key_layout(cross.q[0], cross.k[0]),
            target,
            source,
            example.cross_weights[0],
            0,
            "1. meaning",
        ),
    )


def torch_block(d_model: int, n_heads: int, x: np.ndarray):
    """nn.TransformerEncoderLayer forward at the same widths, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    layer = torch.nn.TransformerEncoderLayer(
        d_model, n_heads, 4 * d_model, dropout=0.0, activation="gelu", batch_first=True
    ).eval()
    tx = torch.from_numpy(x.astype(np.float32))[None]

    def run():
        with torch.inference_mode():
            return layer(tx)

    return run


def rerun_seconds(widget: str, values: list) -> float:
    """Median script time of page reruns with `widget` set to each of `values` in turn,
    the first rerun not counted (AppTest, so an upper bound: it adds its own overhead)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/block.py").run()
    times = []
    for value in values:
        at.slider(key=widget).set_value(value)
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
    assert not at.exception, at.exception
    return float(np.median(times[1:]))


def page_rows(model, threads: int) -> list[tuple]:
    """One table row per width and sentence length: each section's time, uncached."""
    rows = []
    for d_model, n_heads, label in WIDTHS:
        for n in TOKENS:
            inputs = toy_inputs(" ".join(f"w{i}" for i in range(n)), d_model, seed=0)
            x, tokens = inputs.x, inputs.tokens
            mha = MultiHeadAttention(d_model, n_heads, seed=0, dtype=np.float64)
            block = median_seconds(partial(block_part, x, tokens, mha), repeats=7, warmup=1)
            collapse = median_seconds(partial(collapse_part, x, tokens, mha), repeats=5, warmup=1)
            translation = median_seconds(partial(translation_part, model, n), repeats=7, warmup=1)
            total = block + collapse + translation
            rows.append(
                (threads, label, d_model, n_heads, n, 1e3 * block, 1e3 * collapse,
                 1e3 * translation, 1e3 * total, "yes" if total < 1.0 else "NO")
            )  # fmt: skip
    return rows


def main() -> None:
    tune_process()
    pin_threads()
    model = build_translation_model()
    print(
        f"NumPy BLAS threads: 1 and {THREADS}; medians in ms. On a small machine shared with "
        "other work, spinning BLAS threads can make these small matmuls 10x slower.\n"
    )
    rows = []
    for threads in sorted({1, THREADS}):
        with threadpool_limits(threads, user_api="blas"):
            rows += page_rows(model, threads)
    print_table(
        ["threads", "widths", "d_model", "heads", "tokens", "§1 block", "§2 collapse ×24",
         "§3 translation", "total", "< 1 s"],
        rows,
    )  # fmt: skip

    print("\nOne encoder block forward (float32), NumPy vs PyTorch nn.TransformerEncoderLayer")
    rows = []
    for d_model, n_heads, label in WIDTHS:
        for n in TOKENS:
            x = toy_inputs(" ".join(f"w{i}" for i in range(n)), d_model).x.astype(np.float32)
            block = EncoderBlock.random(BlockConfig(d_model, n_heads, seed=0, dtype=np.float32))
            run = torch_block(d_model, n_heads, x)
            # alternating blocks of runs, so drifting machine load falls on both alike
            ours, *rest = interleaved_medians(
                [partial(block, x), run] if run else [partial(block, x)], 10
            )
            theirs = rest[0] if rest else float("nan")
            rows.append((label, n, 1e6 * ours, 1e6 * theirs, ours / theirs))
    print_table(["widths", "tokens", "NumPy µs", "PyTorch µs", "NumPy / PyTorch"], rows)

    print("\nWhole page script, default scenario (AppTest)")
    print_table(
        ["rerun after", "ms"],
        [
            ["depth slider (stacks cached)", 1e3 * rerun_seconds("block_depth", [7, 8] * 3)],
            # a new temperature every time: nothing of the block or the stacks is cached
            [
                "temperature (block + stacks recomputed)",
                1e3 * rerun_seconds("temp", [round(1.05 + 0.05 * i, 2) for i in range(6)]),
            ],
        ],
    )


if __name__ == "__main__":
    main()
