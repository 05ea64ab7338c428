"""One colour convention on every page: every heatmap that shows negative values uses the
palette's diverging scale (red < 0 < blue) on a colour axis symmetric about 0, checked
on every chart of every page at the defaults and with the settings that add charts.
And colours every student can read: head colours at text contrast on every chart
background, the heads apart for every colour vision (CIEDE2000 under Machado's
dichromacy simulations, tests/support/colour_science.py), numbers on heatmap cells readable."""

from __future__ import annotations

import json

import numpy as np
import pytest
from plotly.colors import sample_colorscale
from streamlit.testing.v1 import AppTest

from attention.figures.base import theme
from attention.figures.base.grid import figure as grid_figure
from attention.figures.base.palette import (
    DIVERGING_SCALE,
    FOCUS_COLOR,
    HEAD_COLORS,
    ROLE_SCALE,
    TOKEN_COLOR,
    WEIGHT_SCALE,
    scale_color,
    scale_pairs,
    text_on,
)
from attention.figures.lesson import for_slides
from tests.support import colour_science
from tests.support.apptest import array, colour_scale, open_page
from view_state.url_params import MAX_HEADS


def _trained(at: AppTest) -> AppTest:
    """Page 3 after training its four variants at a small size (adds §4's charts)."""
    for key, value in {"wh_d_model": 16, "wh_heads": 2, "wh_steps": 300}.items():
        at.select_slider(key=key).set_value(value)
    at.slider(key="wh_symbols").set_value(4)
    at.slider(key="wh_seq_len").set_value(4)
    at.run()
    at.button(key="wh_train").click().run()
    return at


# (page, URL settings, action, how many signed heatmaps it draws)
VIEWS = [
    ("pages/home.py", {}, None, 0),
    ("pages/head_spaces.py", {}, None, 0),
    ("pages/head_spaces.py", {"heads": "8", "causal": "1"}, None, 0),
    ("pages/attention_maps.py", {}, None, 0),
    ("pages/attention_maps.py", {"maps_kind": "cross"}, None, 0),
    ("pages/why_heads.py", {}, None, 2),  # W_Q as it is and sliced
    ("pages/why_heads.py", {}, _trained, 2),
    ("pages/real_model.py", {"real_role": "[SEP]", "real_stretch": "true"}, None, 0),
    ("pages/block.py", {}, None, 3),  # concatenated heads, W_O's update, hidden units
    ("pages/block.py", {"heads": "16", "d_model": "64", "block_act": "ReLU"}, None, 2),  # ReLU ≥ 0
    ("pages/lesson.py", {"step": "3"}, None, 2),  # by hand: query and keys, values
]


@pytest.mark.parametrize(("path", "query", "action", "expected"), VIEWS)
def test_signed_heatmaps_use_the_one_diverging_scale(path, query, action, expected):
    at = open_page(path, **query)
    if action:
        at = action(at)
    assert not at.exception, at.exception
    signed = 0
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for trace in spec["data"]:
            if trace.get("type") != "heatmap" or not (np.nanmin(array(trace["z"])) < 0):
                continue
            (scale, low, high), where = colour_scale(spec, trace), chart.proto.id
            assert scale == DIVERGING_SCALE, where
            assert low == -high, where
            assert high >= np.nanmax(np.abs(array(trace["z"]))) - 1e-3, where
            signed += 1
    assert signed == expected


# Sharma, Wu & Dalal (2005), Table 1: (L*a*b* 1, L*a*b* 2, ΔE00), pairs 1, 7, 13, 17, 19,
# 25 and 34 (a hue jump across 0°, grey beside a colour, dark and near-white pairs).
SHARMA_PAIRS = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]
HEADS_BY_DEFAULT = 4  # the heads slider's default (view_state/url_params.py)
SMALLEST_DIFFERENCE = 8.0  # CIEDE2000, any two of the 16 heads, every colour vision
SMALLEST_DIFFERENCE_DEFAULT = 12.0  # ... among the first four heads


def _chart_backgrounds() -> set[str]:
    """The backgrounds head colours are drawn on: the charts' theme, a grid's plot area,
    and the same figure made ready for the presenter's projector."""
    plain = grid_figure([{"type": "scatter", "x": [0], "y": [0]}], {"plot_bgcolor": "white"})
    slide = for_slides(plain, ["caption"], font_scale=1.5, fill_height=True).layout
    return {theme.BACKGROUND, slide.paper_bgcolor, slide.plot_bgcolor}


@pytest.mark.parametrize(("first", "second", "expected"), SHARMA_PAIRS)
def test_ciede2000_matches_sharmas_published_pairs(first, second, expected):
    assert colour_science.ciede2000(np.array(first), np.array(second)) == pytest.approx(
        expected, abs=1e-4
    )
    assert colour_science.ciede2000(np.array(second), np.array(first)) == pytest.approx(
        expected, abs=1e-4
    )


def test_simulated_dichromats_see_grey_unchanged_and_confuse_their_own_pair():
    """Machado's matrices keep neutral colours neutral (rows sum to 1) and collapse the
    colours each dichromacy is known to confuse: red/green, and blue/green for tritans."""
    greys = ["#FFFFFF", "#808080"]
    for vision in colour_science.MACHADO_2009:
        np.testing.assert_allclose(
            colour_science.seen_as(greys, vision), colour_science.seen_as(greys, "normal"), atol=0.2
        )
    red_green = ["#D62728", "#8C8C00"]
    normal = colour_science.smallest_difference(red_green, "normal")
    assert colour_science.smallest_difference(red_green, "deuteranopia") < normal / 2
    assert colour_science.smallest_difference(red_green, "protanopia") < normal / 2
    blue_green = ["#0072B2", "#008661"]
    normal = colour_science.smallest_difference(blue_green, "normal")
    assert colour_science.smallest_difference(blue_green, "tritanopia") < normal / 2


def test_wcag_contrast_of_known_pairs():
    assert colour_science.contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert colour_science.contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert colour_science.contrast("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)


def test_every_head_colour_reads_as_text_on_every_chart_background():
    """Head colours colour titles and labels, not only marks: 4.5:1 (WCAG AA for text),
    which also clears the 3:1 marks need, on the default and the presenter charts."""
    backgrounds = _chart_backgrounds()
    assert len(HEAD_COLORS) >= MAX_HEADS
    for color in HEAD_COLORS:
        for background in backgrounds:
            assert colour_science.contrast(color, background) >= 4.5, (color, background)


@pytest.mark.parametrize("vision", colour_science.VISIONS)
def test_heads_stay_apart_for_every_colour_vision(vision):
    heads = list(HEAD_COLORS[:MAX_HEADS])
    assert colour_science.smallest_difference(heads, vision) >= SMALLEST_DIFFERENCE
    default = heads[:HEADS_BY_DEFAULT]
    assert colour_science.smallest_difference(default, vision) >= SMALLEST_DIFFERENCE_DEFAULT


@pytest.mark.parametrize("vision", colour_science.VISIONS)
def test_heads_stay_apart_from_the_token_and_focus_colours(vision):
    """Head colours never pass for the original tokens' grey or the focus's black."""
    for neutral in (TOKEN_COLOR, FOCUS_COLOR):
        for color in HEAD_COLORS:
            seen = colour_science.seen_as([color, neutral], vision)
            assert colour_science.ciede2000(seen[0], seen[1]) >= SMALLEST_DIFFERENCE, color


@pytest.mark.parametrize("scale", [WEIGHT_SCALE, DIVERGING_SCALE, scale_pairs(ROLE_SCALE)])
def test_numbers_on_the_extreme_cells_of_every_scale_read_at_4_5(scale):
    """Plotly writes a heatmap cell's number in white or in its dark grey (#444444),
    whichever contrasts more with the cell: at both ends of every scale that is ≥ 4.5:1."""
    for _, cell in (scale[0], scale[-1]):
        best = max(colour_science.contrast(cell, text) for text in ("#FFFFFF", "#444444"))
        assert best >= 4.5, cell


@pytest.mark.parametrize("scale", [WEIGHT_SCALE, DIVERGING_SCALE])
def test_numbers_written_on_any_cell_of_a_scale_read_at_4_5(scale):
    """The heads page writes each cell's number in palette.text_on's black or white for
    the cell's colour: ≥ 4.5:1 along the whole scale, where Plotly's own white or #444
    falls to 3.2:1 (tests/test_chart_contrast.py). scale_color is the colour Plotly
    draws there (its own sampling, in sRGB channels)."""
    for share in np.linspace(0, 1, 201):
        cell = scale_color(scale, share)
        assert colour_science.srgb(sample_colorscale(scale, [share])[0]) == pytest.approx(
            colour_science.srgb(cell),
            abs=1.5 / 255,  # Plotly truncates, we round
        )
        assert colour_science.contrast(text_on(cell), cell) >= 4.5, cell
