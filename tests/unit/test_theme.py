"""The charts' own look (attention/figures/base/theme.py): it matches the app's configured
theme, reaches every axis a trace draws on, never overrides what a figure set, and is
sent without a template and with a data revision."""

from __future__ import annotations

import tomllib

from attention.figures.base import theme
from attention.figures.base.grid import DATAREVISION, figure
from tests.support.paths import ROOT

CONFIG = ROOT / ".streamlit" / "config.toml"


def test_the_look_is_the_configured_light_theme():
    configured = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["theme"]
    assert configured["base"] == "light"
    assert configured["textColor"] == theme.TEXT_COLOR
    assert configured["backgroundColor"] == theme.BACKGROUND
    assert configured["baseFontSize"] == theme.BASE_PX


def test_every_axis_a_trace_draws_on_gets_the_look_under_the_figures_own_values():
    data = [{"type": "scatter", "x": [1], "y": [2], "xaxis": "x3", "yaxis": "y3"}]
    layout = {
        "title": "Heads",
        "font": {"size": 16},
        "xaxis2": {"showgrid": True, "title": {"text": "key"}},
        "coloraxis": {"colorbar": {"len": 0.6}},
    }
    out = theme.themed(data, layout)
    assert {"xaxis", "yaxis", "xaxis2", "xaxis3", "yaxis3"} <= out.keys()
    assert out["xaxis3"]["tickfont"]["color"] == theme.MUTED and out["yaxis3"]["automargin"]
    assert out["xaxis2"]["showgrid"] is True  # the figure's own value stays
    assert out["xaxis2"]["gridcolor"] == theme.LINES  # a colour only for a line shown:
    assert out["xaxis3"]["gridcolor"] == theme.LINES  # Plotly's default: grid on
    assert "tickcolor" not in out["xaxis3"]  # no ticks by default: a colour would add them
    assert out["xaxis2"]["title"]["text"] == "key"
    assert out["xaxis2"]["title"]["font"]["color"] == theme.MUTED
    assert out["font"] == {**theme.LAYOUT["font"], "size": 16}
    assert out["title"] == {**theme.LAYOUT["title"], "text": "Heads"}  # bold by its font
    assert out["coloraxis"]["colorbar"]["len"] == 0.6
    assert out["coloraxis"]["colorbar"]["thickness"] == theme.COLORBAR["thickness"]
    assert theme.themed(data, out) == out  # a figure themed twice (for_slides) is the same
    out["font"]["size"] = 99
    assert theme.LAYOUT["font"]["size"] == theme.SMALL_PX  # the defaults are copied


def test_line_colours_go_only_to_the_lines_plotly_draws():
    """Plotly switches a grid, zero line or ticks on when the axis itself names their
    colour, so the theme colours exactly the lines Plotly's defaults or the figure show."""
    heat = theme.themed([{"type": "heatmap", "z": [[1]]}], {"yaxis": {"zeroline": False}})
    assert heat["xaxis"]["tickcolor"] == theme.LINES  # heatmaps get outer ticks
    assert "zerolinecolor" not in heat["yaxis"] and heat["yaxis"]["gridcolor"] == theme.LINES
    bars = theme.themed([{"type": "bar", "y": [1]}], {"xaxis": {"ticks": ""}})
    assert not {"gridcolor", "zerolinecolor", "tickcolor"} & bars["xaxis"].keys()
    assert bars["yaxis"]["gridcolor"] == theme.LINES
    sideways = theme.themed([{"type": "bar", "x": [1], "orientation": "h"}], {})
    assert "gridcolor" not in sideways["yaxis"] and "gridcolor" in sideways["xaxis"]


def test_figures_are_sent_without_template_and_with_a_data_revision():
    spec = figure([{"type": "bar", "y": [1.0, 2.0]}], {"title": "a"}).to_dict()["layout"]
    assert "template" not in spec and spec["datarevision"] == DATAREVISION
    built = figure([{"type": "bar", "y": [1.0, 2.0]}], {})
    built.update_layout(height=300)  # built into Plotly's objects: still no template
    assert "template" not in built.to_dict()["layout"]
    assert built.to_dict()["layout"]["datarevision"] == DATAREVISION
