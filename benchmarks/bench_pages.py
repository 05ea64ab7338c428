"""Where a slider move's time goes on the head-spaces and attention-maps pages.

Per step (engine, 2-D layouts, each figure, JSON serialisation as Streamlit sends it),
at the default scenario (11 tokens, d_model 64, 4 heads) and at 64 tokens × 16 heads,
with each step's share of the uncached total; then the whole script rerun after a slider
move, measured through Streamlit's AppTest (cached results reused, as in the app).

Run: python -m benchmarks.bench_pages
"""

from __future__ import annotations

import time

import numpy as np
import plotly.io as pio

from attention import MultiHeadAttention
from attention.analysis.head_metrics import summarise_heads
from attention.core.process_tuning import tune_process
from attention.figures.attention_maps import attention_grid, attention_lines
from attention.figures.head_motion import motion_figure
from attention.figures.head_spaces import (
    before_figure,
    head_space_figure,
    values_figure,
)
from attention.geometry.head_spaces import head_spaces, neighbours
from attention.models.toy import toy_inputs
from benchmarks.common import median_seconds, print_table
from harness.browser import ROOT
from ui.pooled_maps import maps_to_draw
from view_state.scenario import DEFAULT_TEXT

LONG_TEXT = "The quick brown fox jumps over the lazy dog while seven owls watch. " * 6
SIZES = [("default", DEFAULT_TEXT, 64, 4), ("64 tokens × 16 heads", LONG_TEXT, 64, 16)]


def steps(text: str, d_model: int, heads: int) -> dict[str, float]:
    """Median seconds of each step of drawing both pages once, nothing cached."""
    inputs = toy_inputs(text, d_model)
    mha = MultiHeadAttention(d_model, heads, seed=0, dtype=np.float64)
    trace = mha(inputs.x)
    spaces = head_spaces(inputs.x, trace)
    tokens, w = inputs.tokens, trace.weights
    figures = {
        "figure: before": lambda: before_figure(spaces.before, tokens, 1),
        "figure: head spaces": lambda: head_space_figure(spaces, tokens, w, 1),
        "figure: values": lambda: values_figure(spaces, tokens, w, 1),
        "figure: motion": lambda: motion_figure(spaces, tokens),
        "figure: heatmaps": lambda: attention_grid(
            **maps_to_draw(w, tokens, scores=trace.scores, self_attention=True)
        ),
        "figure: lines": lambda: attention_lines(w, tokens, tokens, list(range(min(heads, 4)))),
    }
    built = [make() for make in figures.values()]
    timings = {
        "toy inputs": median_seconds(lambda: toy_inputs(text, d_model), 20),
        "engine": median_seconds(lambda: mha(inputs.x), 50),
        "2-D layouts (PCA, Procrustes)": median_seconds(lambda: head_spaces(inputs.x, trace), 10),
        "neighbours + head table": median_seconds(
            lambda: (neighbours(inputs.x, trace, 1), summarise_heads(w, 1)), 20
        ),
    }
    timings.update({name: median_seconds(make, 5, 1) for name, make in figures.items()})
    timings["serialise (orjson)"] = median_seconds(
        lambda: [pio.to_json(f, validate=False, engine="orjson") for f in built], 5, 1
    )
    return timings


def rerun_seconds(page: str, repeats: int = 5) -> float:
    """Median script time of a rerun after moving the temperature slider back and forth
    (AppTest; includes its own small overhead, so an upper bound)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(page).run()
    times = []
    for i in range(repeats + 1):
        at.sidebar.slider(key="temp").set_value(1.0 if i % 2 else 1.05)
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
    assert not at.exception, at.exception
    return float(np.median(times[1:]))


def main() -> None:
    tune_process()
    for label, text, d_model, heads in SIZES:
        timings = steps(text, d_model, heads)
        total = sum(timings.values())
        print(f"\n{label}: uncached total {total * 1e3:.1f} ms")
        print_table(
            ["step", "ms", "share"],
            [[name, t * 1e3, f"{t / total:.0%}"] for name, t in timings.items()],
        )
    print("\nscript time of a rerun after a slider move (AppTest, default scenario)")
    print_table(
        ["page", "ms"],
        [
            [page, rerun_seconds(f"pages/{page}.py") * 1e3]
            for page in ("head_spaces", "attention_maps")
        ],
    )


if __name__ == "__main__":
    main()
