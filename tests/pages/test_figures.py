"""Every figure builder returns a figure built from plain dicts (grid.figure: no go.*
object validated on the way), whose every property is nevertheless a valid Plotly one;
and the palette's signed colour axis is symmetric about zero."""

from __future__ import annotations

import ast
import inspect
import itertools
import json
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import plotly.tools
import pytest

from attention import MultiHeadAttention
from attention.analysis.ffn_reads import head_block_reads
from attention.analysis.pruning import PruningCurve, curve_band
from attention.analysis.update_ratios import block_nudges
from attention.core.blocks import FEED_FORWARD, BlockConfig, EncoderBlock
from attention.experiments.equal_cost import compare_layouts, cost_by_length
from attention.experiments.rank_limit import fit_rank_limit, target_pattern
from attention.experiments.slicing import own_slice_share, slicing_matrices
from attention.experiments.training.train import TrainingConfig, compare_variants, seed_summary
from attention.experiments.two_targets import fit_two_targets
from attention.figures import (
    attention_maps,
    block,
    block_rank_collapse,
    block_translation,
    head_motion,
    heads_needed,
    lesson,
    real_model,
    why_heads_cost,
    why_heads_rank_limit,
    why_heads_slicing,
    why_heads_training,
    why_heads_two_targets,
)
from attention.figures import head_spaces as head_space_views
from attention.figures.base.palette import DIVERGING_SCALE, HEAD_COLORS, signed_axis
from attention.figures.base.plane_tiles import PlaneTiles
from attention.figures.base.points import MAX_SVG_POINTS, label_sides
from attention.geometry.head_spaces import head_layout, head_spaces
from attention.geometry.planes import Layout2D, hidden_state_paths
from attention.geometry.pooling import pool_attention
from tests.support import colour_science
from tests.support.apptest import array, colour_scale, grid_maps, tile_boxes, tile_spans
from tests.support.colour_science import contrast
from ui.pooled_maps import maps_to_draw

MODULES = (
    attention_maps,
    block,
    block_rank_collapse,
    block_translation,
    head_space_views,
    head_motion,
    heads_needed,
    lesson,
    real_model,
    why_heads_cost,
    why_heads_rank_limit,
    why_heads_slicing,
    why_heads_training,
    why_heads_two_targets,
)
TOKENS = ["The", "cat", "sat", "on", "the", "<b>mat</b>"]
N, D_MODEL, HEADS = len(TOKENS), 16, 2


@pytest.fixture(scope="module")
def inputs() -> dict:
    """Small inputs for every builder, computed by the library."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, D_MODEL))
    mha = MultiHeadAttention(D_MODEL, HEADS, seed=0, dtype=np.float64)
    trace = mha(x, causal=True)
    block = EncoderBlock.around(mha, seed=0)(x)
    config = TrainingConfig(
        d_model=8, n_heads=2, n_symbols=2, seq_len=3, hidden=8, steps=5, batch_size=8
    )
    comparison = compare_variants(config, seed=0)
    long_weights = rng.random((2, 2, 80, 80))
    return {
        "x": x,
        "mha": mha,
        "trace": trace,
        "cross": mha(x[:3], context=x),
        "spaces": head_spaces(x, trace),
        "many": _many_points(rng),
        "block": block,
        "comparison": comparison,
        "summary": seed_summary([comparison, comparison]),
        "labels": {v.key: v.label for v in config.variants()},
        "rank": fit_rank_limit(target_pattern("previous", 4), d_model=8, steps=20),
        "two": fit_two_targets(x, 0, (1, N - 1), steps=5),
        "layouts": compare_layouts(D_MODEL, HEADS, N),
        "stack": rng.dirichlet(np.ones(N), size=(2, 3, N)),
        "long": long_weights / long_weights.sum(-1, keepdims=True),
        "hidden_states": rng.normal(size=(3, N, D_MODEL)),
    }


def _many_points(rng: np.random.Generator) -> tuple:
    """Head spaces with more points per trace than MAX_SVG_POINTS (drawn in WebGL):
    the spaces, tokens and weights a head_space_figure takes."""
    n = MAX_SVG_POINTS // 8 + 1
    x = rng.normal(size=(n, D_MODEL))
    trace = MultiHeadAttention(D_MODEL, 8, seed=0, dtype=np.float64)(x)
    return head_spaces(x, trace), [f"t{k}" for k in range(n)], trace.weights


def _builders(i: dict) -> dict:
    """Builder name → a function drawing one figure (several for some builders)."""
    trace, nudges, tokens = i["trace"], block_nudges(i["block"]), TOKENS
    long_tokens = [f"w{k}" for k in range(80)]
    lengths = [4, 8, N]
    return {
        "attention_grid": [
            lambda: attention_maps.attention_grid(
                trace.weights, tokens, scores=trace.scores, allowed=trace.mask
            ),
            lambda: attention_maps.attention_grid(
                **maps_to_draw(i["long"][0], long_tokens, self_attention=True)
            ),
        ],
        "rank_patterns": [lambda: why_heads_rank_limit.rank_patterns(i["rank"], [1, 2, 9])],
        "head_grid_figure": [
            lambda: real_model.head_grid_figure(i["stack"], tokens),
            lambda: real_model.head_grid_figure(
                i["stack"], tokens, (1, 2), "itself", i["stack"].mean(axis=(-2, -1))
            ),
        ],
        "head_figure": [
            lambda: real_model.head_figure(i["stack"][0, 1], tokens, 0, 1, stretch=True),
            lambda: real_model.head_figure(i["long"][0, 0], long_tokens, 1, 0),
        ],
        "concat_figure": [
            lambda: block.concat_figure(tokens, trace.concat, i["block"].sublayers[0].update, HEADS)
        ],
        "hidden_figure": [
            lambda: block.hidden_figure(
                tokens, i["block"].sublayer(FEED_FORWARD).detail.hidden, "gelu"
            )
        ],
        "slicing_figure": [
            lambda: why_heads_slicing.slicing_figure(*slicing_matrices(i["mha"].w_q), HEADS)
        ],
        "head_reads_figure": [
            lambda: block.head_reads_figure(
                [
                    (
                        "random <b>",
                        head_block_reads(EncoderBlock.random(BlockConfig(8, 2, seed=0))).shares,
                    )
                ]
            )
        ],
        "singular_value_chart": [lambda: why_heads_rank_limit.singular_value_chart(i["rank"])],
        "head_maps": [lambda: why_heads_training.head_maps(i["comparison"])],
        "before_figure": [lambda: head_space_views.before_figure(i["spaces"].before, tokens, 2)],
        "head_space_figure": [
            lambda: head_space_views.head_space_figure(i["spaces"], tokens, trace.weights, 2),
            lambda: head_space_views.head_space_figure(*i["many"], 0),  # WebGL points
        ],
        "values_figure": [
            lambda: head_space_views.values_figure(i["spaces"], tokens, trace.weights, 2),
            lambda: head_space_views.values_figure(*i["many"], 0),
        ],
        "query_key_value_figure": [
            lambda: head_space_views.query_key_value_figure(
                i["spaces"].heads[1], tokens, trace.weights[1], 2, 1
            ),
            lambda: head_space_views.query_key_value_figure(
                i["spaces"].heads[1], tokens, trace.weights[1], 2, 1, columns=1, title_chars=30
            ),
        ],
        "motion_figure": [
            lambda: head_motion.motion_figure(i["spaces"], tokens),
            lambda: head_motion.motion_figure(i["spaces"], tokens, start=1),
        ],
        "lecture_figure": [lambda: lesson.lecture_figure(tokens, i["x"][:, :2], trace, 1)],
        "neighbour_order_chart": [
            lambda: head_space_views.neighbour_order_chart(np.array([0.5, np.nan]), "<b>cat</b>")
        ],
        "for_slides": [
            lambda: lesson.for_slides(why_heads_two_targets.two_target_curves(i["two"]), ["a <b>"]),
            lambda: lesson.for_slides(
                head_space_views.before_figure(i["spaces"].before, tokens, 2), ["x", "y"], 1.3, True
            ),
        ],
        "joint_query_key_figure": [
            lambda: block_translation.joint_query_key_figure(
                head_layout(i["cross"], 1), tokens[:3], tokens, i["cross"].weights[1], 1, "h"
            )
        ],
        "collapse_pca_figure": [
            lambda: block_rank_collapse.collapse_pca_figure(
                tokens, [("a", i["x"][:, :2]), ("b", np.zeros((N, 2)))], 3
            )
        ],
        "layer_path_figure": [
            lambda: real_model.layer_path_figure(hidden_state_paths(i["hidden_states"]), tokens),
            lambda: real_model.layer_path_figure(
                hidden_state_paths(np.ones((2, 80, 4)).cumsum(1)), long_tokens
            ),
        ],
        "attention_lines": [
            lambda: attention_maps.attention_lines(trace.weights, tokens, tokens, [0, 1]),
            lambda: attention_maps.attention_lines(trace.weights, tokens, tokens, [1], focus=3),
        ],
        "cost_bars": [lambda: why_heads_cost.cost_bars(i["layouts"], N)],
        "cost_by_length_chart": [
            lambda: why_heads_cost.cost_by_length_chart(
                cost_by_length(D_MODEL, HEADS, lengths), lengths, N
            )
        ],
        "two_target_figure": [lambda: why_heads_two_targets.two_target_figure(tokens, i["two"])],
        "two_target_curves": [lambda: why_heads_two_targets.two_target_curves(i["two"])],
        "rank_error_chart": [
            lambda: why_heads_rank_limit.rank_error_chart(i["rank"], {"n": 4, "big": 9})
        ],
        "loss_curves": [
            lambda: why_heads_training.loss_curves(
                {i["labels"][k]: r.losses for k, r in i["comparison"].results.items()}, 5
            )
        ],
        "seed_spread": [
            lambda: why_heads_training.seed_spread(i["summary"], i["labels"], [0, 1], 2)
        ],
        "slice_share_chart": [
            lambda: why_heads_slicing.slice_share_chart(
                {"a": own_slice_share(i["mha"].w_q), "b": own_slice_share(i["mha"].w_q[:, :, :3])}
            )
        ],
        "stream_update_figure": [
            lambda: block.stream_update_figure(
                tokens, nudges.names, nudges.stream_norms, nudges.update_norms, nudges.ratios
            )
        ],
        "rank_collapse_figure": [
            lambda: block_rank_collapse.rank_collapse_figure(
                [("with", True, True, [1.0, 0.5]), ("without", False, False, [1.0, 0.0])], 1
            )
        ],
        "layer_ratio_figure": [
            lambda: block.layer_ratio_figure(np.random.default_rng(1).random((6, 2, N)))
        ],
        "switches_figure": [lambda: heads_needed.switches_figure(np.eye(3, 4))],
        "importance_figure": [
            lambda: heads_needed.importance_figure(
                np.array([[0.2, -0.1, 0.0], [0.05, 0.3, 0.1]]), np.eye(2, 3) < 1, "drop", ".2f"
            )
        ],
        "rollout_figure": [
            lambda: heads_needed.rollout_figure(
                np.random.default_rng(2).random((2, 3, N)), tokens, 5
            )
        ],
        "pruning_figure": [lambda: heads_needed.pruning_figure(*_pruning_inputs())],
    }


def _pruning_inputs() -> tuple:
    """A pruning curve over 4 heads, a band of two random orders, 2 heads removable."""
    removed = np.arange(5)
    curve = PruningCurve("accuracy", removed, np.array([0.9, 0.9, 0.88, 0.8, 0.7]), ())
    randoms = [PruningCurve("accuracy", removed, np.linspace(0.9, s, 5), ()) for s in (0.5, 0.6)]
    return curve, curve_band(randoms), 2, 2, 0.05


def test_every_public_builder_is_checked_here(inputs):
    public = {
        name
        for module in MODULES
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__
        and not name.startswith("_")
        and inspect.signature(function).return_annotation in ("go.Figure", go.Figure)
    }
    assert public == set(_builders(inputs))


def _figures(inputs: dict) -> list[tuple[str, go.Figure]]:
    return [(name, make()) for name, makers in _builders(inputs).items() for make in makers]


def test_builders_write_plain_dicts_that_plotly_accepts(inputs):
    for name, fig in _figures(inputs):
        assert isinstance(fig, go.Figure), name
        # grid.figure() turns validation off for the figure and every trace in it; a
        # make_subplots figure or a trace added by fig.add_trace(...) would keep it on.
        assert fig._validate is False, name
        assert all(trace._validate is False for trace in fig.data), name
        written = json.loads(pio.to_json(fig, validate=False))
        # Validating the same dicts raises on any property Plotly does not know and
        # may only fill in what the builder left to Plotly, never change a value.
        validated = json.loads(pio.to_json(go.Figure(fig.to_dict())))
        del validated["layout"]["template"]  # Plotly's default; the app sends none (theme.py)
        assert not _differences(written, validated), (name, _differences(written, validated))


def test_figure_modules_create_no_validated_plotly_objects():
    """What the figures above cannot show: a go.Heatmap(...) passed to grid.figure()
    loses its flag, yet was validated when it was made; so the source is checked too."""
    for path in Path(attention_maps.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                where = f"{path.name}:{node.lineno}"
                assert node.value.id != "go" or node.attr == "Figure", where
                assert not node.attr.startswith(("add_", "update_")), where
            if isinstance(node, ast.Name | ast.alias):
                assert "make_subplots" not in ast.unparse(node), path.name


def _differences(a: object, b: object, path: str = "") -> list[str]:
    """Where two JSON values differ ("layout.shapes: missing", "data[0].z", …)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            found
            for key in sorted(set(a) | set(b))
            for found in (
                _differences(a[key], b[key], f"{path}.{key}")
                if key in a and key in b
                else [f"{path}.{key}: only in {'written' if key in a else 'validated'}"]
            )
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            found
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for found in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]


def test_signed_heatmaps_use_the_diverging_axis(inputs):
    """The palette's promise on the builders themselves (the pages are checked in
    tests/pages/test_colours.py)."""
    signed = 0
    for name, fig in _figures(inputs):
        spec = json.loads(pio.to_json(fig, validate=False))
        for trace in spec["data"]:
            z = array(trace["z"]) if trace["type"] == "heatmap" else np.zeros(1)
            if np.nanmin(z) < 0:
                scale, low, high = colour_scale(spec, trace)
                assert scale == DIVERGING_SCALE, name
                assert low == -high, name
                assert high >= np.nanmax(np.abs(z)) - 1e-3, name
                signed += 1
    assert signed == 6  # concatenated heads, W_O's update, hidden units, W_Q twice, importance


def test_signed_axis_is_symmetric_and_white_at_zero():
    axis = signed_axis(np.array([-0.5, 2.0]), np.array([[-3.0]]), title="value")
    assert (axis["cmin"], axis["cmax"]) == (-3.0, 3.0)
    trace = signed_axis(np.array([0.25, -0.5]), title="value", on_trace=True)
    assert (trace["zmin"], trace["zmax"]) == (-0.5, 0.5) and "cmin" not in trace
    assert dict(axis["colorscale"])[0.5].upper() == "#F7F7F7"
    assert signed_axis(np.zeros(3), title="v")["cmax"] == 1.0  # all zero: any range is fine
    red, blue = (int(DIVERGING_SCALE[i][1][1:3], 16) for i in (0, -1))
    assert red > blue  # negative end red, positive end blue


def test_singular_value_colours_count_orders_of_magnitude_from_zero(inputs):
    result = inputs["rank"]
    trace = why_heads_rank_limit.singular_value_chart(result).data[0]
    z, bar = np.array(trace.z, dtype=float), trace.colorbar
    shown = result.singular_values > 1e-6 * result.singular_values[:, :1]
    assert np.nanmin(z) >= 0 and np.isnan(z[~shown]).all()
    powers = [int(t.replace("−", "-")) for t in bar.ticktext]  # typeset minus signs
    np.testing.assert_allclose(
        z[shown] + powers[0], np.log10(result.singular_values[shown]), atol=1e-3
    )
    assert [p - powers[0] for p in powers] == list(bar.tickvals)


def test_the_sentence_marker_sits_at_its_length_on_the_log_axis():
    lengths = [4, 8, 16, 1024]
    fig = why_heads_cost.cost_by_length_chart(cost_by_length(D_MODEL, HEADS, lengths), lengths, 11)
    line = fig.layout.shapes[0]
    assert line.x0 == line.x1 == 11  # shapes take data values on a log axis
    assert fig.layout.annotations[0].x == pytest.approx(np.log10(11))  # annotations, log10


def test_one_head_and_the_two_heads_have_three_colours(inputs):
    fig = why_heads_two_targets.two_target_figure(TOKENS, inputs["two"])
    colours = [trace.marker.color for trace in fig.data]
    assert len(set(colours)) == 3


def test_the_chance_labels_do_not_sit_on_one_line(inputs):
    fig = why_heads_training.seed_spread(inputs["summary"], inputs["labels"], [0, 1], 3)
    shifts = [a.yshift or 0 for a in fig.layout.annotations]
    assert len(set(shifts)) == len(shifts)


def test_pruning_figure_marks_a_measured_point_of_a_stepped_curve():
    removed = np.array([0, 6, 12, 18])  # measured every 6 heads
    curve = PruningCurve("accuracy", removed, np.array([1.0, 0.98, 0.9, 0.8]), ())
    randoms = [PruningCurve("accuracy", removed, np.linspace(1.0, s, 4), ()) for s in (0.5, 0.6)]
    removable = curve.heads_removable(0.05)
    assert removable == 6  # 0.98 is within 5 points, 0.90 is not
    fig = heads_needed.pruning_figure(curve, curve_band(randoms), 2, removable, 0.05)
    marked = fig.data[3]
    assert list(marked.x) == [6] and list(marked.y) == [98.0]


def test_attention_grid_tiles_every_map_into_one_trace_with_keys_under_each_column():
    """Six 5×7 maps in rows of 4: one heatmap trace gives back every weight (NaN where
    the mask blocks) and every score; each title sits over its own map; keys are
    labelled under the last map of each column (the two columns without a map in the
    short last row get a second axis at the first row's bottom)."""
    rng = np.random.default_rng(1)
    weights = rng.random((6, 5, 7))
    scores = rng.normal(size=(6, 5, 7))
    allowed = rng.random((5, 7)) > 0.2
    keys = [f"k{j}" for j in range(7)]
    figure = attention_maps.attention_grid(
        weights, [f"q{i}" for i in range(5)], keys, scores=scores, allowed=allowed, columns=4
    ).to_plotly_json()
    assert [t["type"] for t in figure["data"]] == ["heatmap", "scatter"]
    drawn = grid_maps(figure)
    expected = np.where(allowed, np.round(weights, 5), np.nan)
    np.testing.assert_allclose(drawn, expected, atol=1e-9)
    np.testing.assert_allclose(grid_maps(figure, "customdata"), np.round(scores, 4), atol=1e-9)
    spans = tile_spans(figure["data"][0]["z"])
    for h, title in enumerate(figure["layout"]["annotations"]):
        columns = spans[divmod(h, 4)][1]
        assert title["text"] == f"head {h + 1}"
        assert title["x"] == (columns.start + columns.stop - 1) / 2
    x = figure["data"][0]["x"]
    for axis, tiles in (("xaxis", [0, 1]), ("xaxis2", [2, 3])):
        ticks = figure["layout"][axis]
        shown = [x.index(v) for v in ticks["tickvals"]]
        under = [i for c in tiles for i in range(spans[0, c][1].start, spans[0, c][1].stop)]
        assert shown == under and ticks["ticktext"] == keys * 2
    assert figure["layout"]["xaxis2"]["overlaying"] == "x"


def test_a_figure_hands_streamlit_its_dict_without_building_plotly_objects(inputs):
    """What st.plotly_chart sends (plotly.tools' figure → dict, then plotly.io's JSON) is
    the JSON a go.Figure built from the same dict writes, and getting it builds none of
    Plotly's objects (that took ~60 ms a page); reading fig.data still works."""
    for name, fig in _figures(inputs):
        sent = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
        assert "_data_objs" not in fig.__dict__, name  # nothing built so far
        built = go.Figure(fig.to_dict(), _validate=False).to_plotly_json()
        del built["layout"]["template"]  # Plotly's default; the app sends none (theme.py)
        assert _same(pio.to_json(sent, validate=False), pio.to_json(built, validate=False)), name
        assert "template" not in sent["layout"] and sent["layout"]["datarevision"], name
        assert len(fig.data) == len(sent["data"]), name  # built on first use
        fig.update_layout(height=123)  # a built figure writes what was changed
        assert fig.to_dict()["layout"]["height"] == 123, name


def _same(a: str, b: str) -> bool:
    """Equal JSON texts once parsed, NaN equal to NaN."""
    return _canonical(json.loads(a)) == _canonical(json.loads(b))


def _canonical(value: object) -> object:
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return "NaN" if isinstance(value, float) and value != value else value


@pytest.mark.parametrize(("panels", "columns"), [(1, 4), (5, 2), (8, 4), (16, 4)])
def test_plane_tiles_keep_every_panel_in_its_own_tile_at_one_scale(panels, columns):
    tiles = PlaneTiles(panels, columns)
    rng = np.random.default_rng(panels)
    layout = tiles.layout([f"t{p}" for p in range(panels)], ["#000000"] * panels, "x", "y")
    boxes = tile_boxes({"layout": layout})
    assert len(boxes) == panels
    for p, (x0, y0, x1, y1) in enumerate(boxes):
        points = rng.normal(size=(20, 2)) * [3.0, 0.5] + [7.0, -2.0]  # wide, off-centre
        place = tiles.place(p, points)
        drawn = place(points)
        assert (drawn[:, 0] > x0).all() and (drawn[:, 0] < x1).all()
        assert (drawn[:, 1] > y0).all() and (drawn[:, 1] < y1).all()
        ratio = np.linalg.norm(drawn[0] - drawn[1]) / np.linalg.norm(points[0] - points[1])
        assert ratio == pytest.approx(place.scale, rel=1e-3)  # one scale for both axes
        weights = rng.dirichlet(np.ones(20))
        np.testing.assert_allclose(place(weights @ points), weights @ drawn, atol=1e-4)
        title = layout["annotations"][p]
        assert title["y"] == pytest.approx(y1, abs=1e-3) and x0 < title["x"] < x1  # above it
        below = [b for b in boxes if b[0] == x0 and b[1] > y1]
        assert all(b[1] - y1 > 0.1 for b in below)  # room for the title under the next row
    lefts = sorted({b[0] for b in boxes})
    assert all(b - a > 1 for a, b in itertools.pairwise(lefts))  # no overlap


def test_plane_tiles_reject_an_empty_grid():
    with pytest.raises(ValueError, match=r"n_panels must be a positive integer"):
        PlaneTiles(0, 4)


def test_the_engines_float32_weights_are_written_in_a_few_digits():
    """Maps are rounded to 5 decimals before they are written, which only shortens the
    JSON when the rounding is done in float64: a float32 rounded in float32 prints its
    float64 value, ~19 characters a number (5.7 MB for one 512-token map)."""
    weights = np.random.default_rng(3).dirichlet(np.ones(40), size=(2, 40)).astype(np.float32)
    tokens = [f"t{k}" for k in range(40)]
    for fig in (
        real_model.head_figure(weights[0], tokens, 0, 0),
        attention_maps.attention_grid(weights, tokens),
        real_model.head_grid_figure(
            pool_attention(weights[None], real_model.GRID_BLOCKS), tokens, selected=(0, 0)
        ),
    ):
        z = json.loads(pio.to_json(fig, validate=False))["data"][0]["z"]
        written = [json.dumps(v) for row in z for v in row if v is not None]
        assert max(map(len, written)) <= 7  # "0.01234"
    one = json.loads(pio.to_json(real_model.head_figure(weights[0], tokens, 0, 0)))["data"][0]
    np.testing.assert_allclose(one["z"], weights[0], atol=5e-6)  # the weights, to 5 decimals


def test_pictures_of_more_points_than_svg_draws_fast_use_webgl(inputs):
    """12 heads × 512 tokens drew in ~2 s as SVG markers; past MAX_SVG_POINTS a trace is
    WebGL. The focus queries (one per head) and the small default stay SVG."""
    for build in (head_space_views.head_space_figure, head_space_views.values_figure):
        data = build(*inputs["many"], 0).to_dict()["data"]
        points = [(len(t["x"]), t["type"]) for t in data if "markers" in t.get("mode", "")]
        assert all((size > MAX_SVG_POINTS) == (kind == "scattergl") for size, kind in points)
        assert "scattergl" in {kind for _, kind in points}
        small = build(inputs["spaces"], TOKENS, inputs["trace"].weights, 2).to_dict()["data"]
        assert "scattergl" not in {t["type"] for t in small}


def _font_colors(node: object, under_font: bool = False) -> list[str]:
    """Every colour a figure dict gives to text (fonts of titles, annotations, labels)."""
    if isinstance(node, dict):
        found = [node["color"]] if under_font and isinstance(node.get("color"), str) else []
        for key, value in node.items():
            found += _font_colors(value, key.endswith("font"))
        return found
    if isinstance(node, list | tuple):
        return [color for item in node for color in _font_colors(item)]
    return []


def test_text_in_a_heads_colour_reads_at_4_5_on_white(inputs):
    """Titles and labels drawn in a head's colour are drawn in it whole (no
    transparency that would thin it out), so they keep the palette's text contrast."""
    heads = {color.upper() for color in HEAD_COLORS}
    coloured = 0
    for name, fig in _figures(inputs):
        for color in _font_colors(fig.to_dict()):
            if color.upper() in heads:
                coloured += 1
                assert contrast(color, "#FFFFFF") >= 4.5, (name, color)
            elif color.startswith("rgba("):  # a head's colour made transparent
                rgb = "#" + "".join(f"{int(v):02X}" for v in color[5:-1].split(",")[:3])
                assert rgb not in heads, (name, color)
    assert coloured > 0  # the lecture, the maps' titles and the training labels use them


def test_reduced_motion_steps_through_the_heads_without_transitions(inputs):
    """Play and the slider keep their stages and rests; only the glide goes to 0 ms."""
    tokens = TOKENS
    moving = head_motion.motion_figure(inputs["spaces"], tokens).to_plotly_json()
    still = head_motion.motion_figure(inputs["spaces"], tokens, reduced_motion=True)
    still = still.to_plotly_json()

    def timing(fig: dict) -> tuple[list, list, list]:
        play = fig["layout"]["updatemenus"][0]["buttons"][0]["args"]
        steps = [
            s["args"][1]["transition"]["duration"] for s in fig["layout"]["sliders"][0]["steps"]
        ]
        return play[0], [t["duration"] for t in play[1]["transition"]], steps

    frames, glides, steps = timing(moving)
    still_frames, still_glides, still_steps = timing(still)
    assert still_frames == frames  # the same stages, in the same order
    assert max(glides) > 0 and max(steps) > 0
    assert still_glides == [0] * len(glides) and still_steps == [0] * len(steps)


def test_two_nearly_coincident_points_put_their_labels_on_opposite_sides():
    """'The' and 'the' a hair apart: one label above, one below; distant points keep the
    default side; the rule uses the picture's span, so scaling the data changes nothing."""
    xy = np.array([[0.0, 0.0], [10.0, 4.0], [10.1, 4.05], [5.0, 8.0]])
    sides = label_sides(xy)
    assert sides == ["top center", "bottom center", "top center", "top center"]
    assert label_sides(xy * 1000) == sides
    assert label_sides(xy, "bottom center") == [
        "bottom center", "bottom center", "top center", "bottom center"
    ]  # fmt: skip
    apart = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert label_sides(apart) == ["top center"] * 2


def test_the_token_picture_labels_close_tokens_on_opposite_sides():
    tokens = ["The", "the", "cat", "sat"]
    coords = np.array([[1.0, 1.0], [1.02, 0.98], [-3.0, 2.0], [2.0, -4.0]])
    fig = head_space_views.before_figure(Layout2D(coords, 0.5), tokens, focus=2)
    positions = fig.data[0].textposition
    assert positions[0] != positions[1] and {positions[0], positions[1]} == {
        "top center",
        "bottom center",
    }


@pytest.mark.parametrize("n", [11, 60])
def test_the_two_target_bars_always_name_both_targets_and_the_query(n):
    tokens = [f"w{i}" for i in range(n)]
    targets, query = (1, n - 2), n - 1
    x = np.random.default_rng(0).normal(size=(n, 8))
    result = fit_two_targets(x, query, targets, steps=2)
    fig = why_heads_two_targets.two_target_figure(tokens, result)
    for axis in ("xaxis", "xaxis2"):
        named = fig.layout[axis].tickvals
        assert {tokens[t] for t in (*targets, query)} <= set(named)
        assert len(named) == n if n <= 24 else len(named) <= 24 + 3


def test_rank_collapse_runs_with_equal_distances_stay_distinguishable():
    """Two residual runs a hair apart (attention alone, attention + FFN): one is a wide
    dark line drawn first, the other a thin line of another colour with markers over it,
    each readable on white (≥ 3:1, WCAG's non-text contrast)."""
    same = np.geomspace(1.0, 0.1, 6)
    fig = block_rank_collapse.rank_collapse_figure(
        [("attention + FFN, residual", True, True, same),
         ("attention, residual", True, False, same * 1.001)]
    )  # fmt: skip
    band, line = fig.data
    assert band.name == "attention, residual" and line.name == "attention + FFN, residual"
    assert band.line.width >= 2.5 * line.line.width and band.line.color != line.line.color
    assert line.mode == "lines+markers" and band.mode == "lines"
    assert min(colour_science.contrast(t.line.color, "#FFFFFF") for t in fig.data) >= 3


def test_the_lecture_picture_explains_its_marks_in_its_free_cell():
    """Two heads make five panels in a 3 × 2 grid: the free sixth cell holds the key to
    the marks, right of the last panel and level with it; the query's name is escaped."""
    tokens = ["<b>", "tea", "it's", "du"]
    x = np.random.default_rng(1).normal(size=(4, 4))
    trace = MultiHeadAttention(4, 2, seed=0, dtype=np.float64)(x)  # d_head = 2
    fig = lesson.lecture_figure(tokens, x[:, :2], trace, query=0)
    (key,) = [a for a in fig.layout.annotations if "Σ weight × value" in (a.text or "")]
    assert "&lt;b&gt;" in key.text and "<b>" not in key.text.replace("<br>", "")
    last_x, last_y = fig.layout["xaxis5"].domain, fig.layout["yaxis5"].domain
    assert key.x > last_x[1] and last_y[0] < key.y < last_y[1]
