"""The phone layouts of the figures (the browser test measures their plot areas at
390×844; here, what each one draws): colour bars and legends moved under the plot keep
the data, the narrow layouts of the concatenation and the cost bars draw the same
numbers as the wide ones, and the phone's importance and rollout maps leave the cell
numbers to the hover and the table."""

from __future__ import annotations

import numpy as np

from attention.experiments.equal_cost import compare_layouts
from attention.figures.base.phone import for_phone
from attention.figures.block import concat_figure
from attention.figures.heads_off import importance_figure, rollout_figure
from attention.figures.real_model import head_grid_figure
from attention.figures.why_heads_cost import cost_bars

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
