"""The phone layouts of the figures (the browser test measures their plot areas at
390×844; here, what each one draws): colour bars and legends moved under the plot keep
the data, the narrow layouts of the concatenation and the cost bars draw the same
numbers as the wide ones, and the phone's importance and rollout maps leave the cell
numbers to the hover and the table."""

from __future__ import annotations

import itertools
import json

import numpy as np

from attention import MultiHeadAttention
from attention.analysis.by_hand import by_hand
from attention.experiments.equal_cost import compare_layouts
from attention.figures.base.phone import for_phone
from attention.figures.block import concat_figure
from attention.figures.head_spaces import query_key_value_figure
from attention.figures.heads_needed import importance_figure, rollout_figure
from attention.figures.lesson import for_slides, lecture_figure
from attention.figures.lesson_by_hand import ingredients_figure
from attention.figures.lesson_translation import MapPanel, three_attentions_figure
from attention.figures.real_model import head_grid_figure
from attention.figures.why_heads_cost import cost_bars
from attention.geometry.head_spaces import head_spaces
from attention.models.toy import toy_inputs
from attention.teaching.lecture_picture import QUERY, lecture_picture

RNG = np.random.default_rng(3)
TOKENS = ["the", "cat", "sat", "on", "the", "mat"]


def _plain(fig) -> dict:
    return fig.to_dict()


def _bar(owner: dict) -> dict:
    return owner["colorbar"]


def test_a_heatmaps_colour_bar_goes_under_the_plot_and_gives_back_the_width():
    values = RNG.normal(size=(6, 12))
    wide = _plain(importance_figure(values, np.ones((6, 12), bool), "drop of the cosine", ".3f"))
    phone = _plain(for_phone(importance_figure(values, np.ones((6, 12), bool), "drop", ".3f")))
    bar = _bar(phone["data"][0])
    assert bar["orientation"] == "h" and bar["yref"] == "container" and bar["y"] == 0
    assert phone["layout"]["margin"]["r"] < wide["layout"]["margin"]["r"] - 100
    grown = phone["layout"]["height"] - wide["layout"]["height"]
    assert phone["layout"]["margin"]["b"] - wide["layout"]["margin"]["b"] >= grown > 20
    np.testing.assert_allclose(np.array(phone["data"][0]["z"], float), np.round(values, 6))


def test_two_colour_bars_lie_one_under_the_other():
    pooled = RNG.dirichlet(np.ones(6), size=(2, 3, 6))
    roles = RNG.random((2, 3))
    layout = _plain(for_phone(head_grid_figure(pooled, TOKENS, role="x", role_values=roles)))[
        "layout"
    ]
    weight, role = _bar(layout["coloraxis"]), _bar(layout["coloraxis2"])
    assert weight["orientation"] == role["orientation"] == "h"
    height = layout["height"]
    top_px, bottom_px = weight["y"] * height, role["y"] * height
    assert bottom_px == 0 and top_px >= role["thickness"] + role["ypad"]  # no overlap
    assert layout["margin"]["b"] >= top_px + weight["thickness"]


def test_a_figure_with_nothing_at_its_side_comes_back_as_it_is():
    fig = cost_bars(compare_layouts(64, 4, 11, bias=True), 11)
    assert for_phone(fig) is fig


def test_the_concatenation_stacked_draws_the_same_maps_full_width():
    concat, update = RNG.normal(size=(6, 8)), RNG.normal(size=(6, 8))
    wide = _plain(concat_figure(TOKENS, concat, update, 2))
    stacked = _plain(concat_figure(TOKENS, concat, update, 2, columns=1))
    for a, b in zip(wide["data"], stacked["data"], strict=True):
        assert a["z"] == b["z"]
    lay = stacked["layout"]
    assert lay["xaxis"]["domain"] == lay["xaxis2"]["domain"] == [0, 1]
    assert lay["yaxis2"]["domain"][1] < lay["yaxis"]["domain"][0]  # the update below
    bands = [s for s in lay["shapes"] if s.get("label")]
    assert [s["label"]["text"] for s in bands] == ["1", "2"]
    for fig in (wide, stacked):  # each head's band a strip above the map, the paper taller or not
        band = next(s for s in fig["layout"]["shapes"] if s.get("label"))
        margin = fig["layout"]["margin"]
        paper_px = fig["layout"]["height"] - margin["t"] - margin["b"]
        assert 15 < (band["y1"] - band["y0"]) * paper_px < 30


def test_upright_cost_bars_draw_the_same_numbers_under_broken_names():
    layouts = compare_layouts(64, 4, 11, bias=True)
    upright = _plain(cost_bars(layouts, 11, upright=True))["data"]
    assert [t["orientation"] for t in upright] == ["v"] * 3
    assert upright[0]["y"] == [row.cost.params for row in layouts]
    assert upright[1]["y"] == [row.projection_macs for row in layouts]
    assert upright[2]["y"] == [row.score_macs for row in layouts]
    names = [label.replace("<br>", " ") for label in upright[0]["x"]]
    assert names == [row.label for row in layouts]
    assert all(len(line) <= 12 for label in upright[0]["x"] for line in label.split("<br>"))


def test_the_phones_importance_and_rollout_maps_write_no_cell_numbers():
    values, on = RNG.normal(size=(2, 3)), np.ones((2, 3), bool)
    assert "texttemplate" in _plain(importance_figure(values, on, "t", ".2f"))["data"][0]
    phone = _plain(importance_figure(values, on, "t", ".2f", cell_text=False))["data"][0]
    assert "texttemplate" not in phone and "%{z:.2f}" in phone["hovertemplate"]
    rows = RNG.dirichlet(np.ones(6), size=(2, 3))
    assert all("texttemplate" in t for t in _plain(rollout_figure(rows, TOKENS, 1))["data"])
    phone = _plain(rollout_figure(rows, TOKENS, 1, title_chars=30, cell_text=False))
    assert not any("texttemplate" in t for t in phone["data"])
    assert all(
        len(line) <= 30 for a in phone["layout"]["annotations"] for line in a["text"].split("<br>")
    )


def _rows_apart(layout: dict, names: list[str]) -> bool:
    """The y axes' domains, top first, each below the one before without overlap."""
    domains = [layout[name]["domain"] for name in names]
    return all(low[1] < high[0] for high, low in itertools.pairwise(domains))


def test_the_lessons_panels_one_per_row_draw_what_the_row_draws():
    fit = lecture_picture(0)
    tokens, query = list(fit.sentence.tokens), list(fit.sentence.tokens).index(QUERY)
    wide = _plain(lecture_figure(tokens, fit.sentence.embeddings, fit.trace, query))
    tall = _plain(lecture_figure(tokens, fit.sentence.embeddings, fit.trace, query, columns=1))
    drawn = [json.dumps([(t["x"], t["y"]) for t in f["data"]]) for f in (wide, tall)]
    assert drawn[0] == drawn[1]  # as text: the segments' gaps are NaN
    axes = [f"yaxis{i if i > 1 else ''}" for i in range(1, 6)]
    assert _rows_apart(tall["layout"], axes)
    assert tall["layout"]["height"] > 2 * wide["layout"]["height"]

    t = ["a", "b", "c"]
    maps = [MapPanel(name, RNG.random((3, 3)), t, t) for name in ("self", "causal", "cross")]
    row = _plain(three_attentions_figure(maps))
    column = _plain(three_attentions_figure(maps, one_per_row=True))
    assert [m["z"] for m in row["data"]] == [m["z"] for m in column["data"]]
    assert _rows_apart(column["layout"], ["yaxis", "yaxis2", "yaxis3"])
    assert all(column["layout"][f"xaxis{s}"]["domain"] == [0, 1] for s in ("", "2", "3"))

    hand = by_hand(RNG.normal(size=4), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 4)))
    side = _plain(ingredients_figure(list("abcde"), hand, 1, 0))
    stacked = _plain(ingredients_figure(list("abcde"), hand, 1, 0, columns=1))
    assert json.dumps([m["z"] for m in side["data"]]) == json.dumps(
        [m["z"] for m in stacked["data"]]
    )
    assert _rows_apart(stacked["layout"], ["yaxis", "yaxis2"])


def _extent(traces: list[dict], axis: str) -> tuple[float, float]:
    values = np.concatenate([np.array(t[axis], dtype=float) for t in traces])
    return float(np.nanmin(values)), float(np.nanmax(values))


def test_the_lessons_query_key_value_tiles_stack_on_a_phone():
    """Step 2's two tiles (queries and keys; values and the output) side by side on a
    page, one under the other on a phone, drawing the same points."""
    x = toy_inputs(" ".join(TOKENS), d_model=16, seed=0).x
    trace = MultiHeadAttention(16, 2, seed=0)(x)
    space = head_spaces(x, trace).heads[1]
    figures = [
        _plain(query_key_value_figure(space, TOKENS, trace.weights[1], 1, 1, columns=columns))
        for columns in (2, 1)
    ]
    for fig in figures:
        assert len(fig["data"]) == len(figures[0]["data"])
    (side_q, side_v), (stack_q, stack_v) = (
        ([t for t in f["data"] if t.get("name") in ("queries", "keys")],
         [t for t in f["data"] if t.get("name") == "values"])
        for f in figures
    )  # fmt: skip
    assert len(side_q) == 2 and len(side_v) == 1
    assert _extent(side_q, "x")[1] < _extent(side_v, "x")[0]  # values to the right
    assert _extent(stack_v, "y")[1] < _extent(stack_q, "y")[0]  # values below
    assert figures[1]["layout"]["height"] > figures[0]["layout"]["height"]


def test_a_phones_caption_grows_the_figure_not_the_plot():
    fig = cost_bars(compare_layouts(64, 4, 11, bias=True), 11, upright=True)
    caption = ["Head Spaces lesson, step 8: a question", "a long setting " * 6]

    def paper(spec: dict) -> float:
        layout = spec["layout"]
        return layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]

    squeezed = _plain(for_slides(fig, caption, caption_chars=30))
    kept = _plain(for_slides(fig, caption, caption_chars=30, keep_plot=True))
    assert paper(squeezed) < paper(_plain(fig)) - 40
    assert abs(paper(kept) - paper(_plain(fig))) <= 1


def test_the_phones_role_grid_frames_the_maps_without_numbers_above():
    pooled = RNG.dirichlet(np.ones(6), size=(2, 3, 6))
    roles = RNG.random((2, 3))
    wide = _plain(head_grid_figure(pooled, TOKENS, role="x", role_values=roles))["layout"]
    phone = _plain(head_grid_figure(pooled, TOKENS, role="x", role_values=roles, narrow=True))
    numbers = {f"{v:.2f}" for v in roles.ravel()}
    assert numbers <= {a["text"] for a in wide["annotations"]}
    assert not numbers & {a["text"] for a in phone["layout"]["annotations"]}
    assert len(phone["layout"]["shapes"]) == len(wide["shapes"])  # every frame still drawn
