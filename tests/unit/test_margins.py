"""Margins reserved before Plotly draws (attention/figures/base/margins.py): they grow with
the labels, titles, colour bars and legends that sit on the plot's outer edges, never
shrink a margin a figure set, and leave axes inside the paper to Plotly. That they are
wide enough in a real browser is checked in tests/browser/test_browser_draws.py."""

from __future__ import annotations

from attention.figures.base.margins import PUSH_PAD, reserved, text_width


def _heatmap(tokens: list[str]) -> list[dict]:
    z = [[0.5] * len(tokens)] * len(tokens)
    return [{"type": "heatmap", "z": z, "y": tokens, "showscale": False}]


def _axes(**extra) -> dict:
    axis = {"tickfont": {"size": 14}, "title": {"text": "query", "standoff": 20}}
    return {"yaxis": {**axis, **extra}, "xaxis": {}, "margin": {"l": 10, "r": 10}}


def test_the_left_margin_grows_with_the_longest_label_and_keeps_a_wider_one():
    short = reserved(_heatmap(["a", "cat"]), _axes())["margin"]["l"]
    long = reserved(_heatmap(["a", "catastrophe"]), _axes())["margin"]["l"]
    grown = text_width("catastrophe", 14) - text_width("cat", 14)
    assert abs((long - short) - grown) <= 1  # margins are whole pixels
    assert short > 20 + PUSH_PAD  # the title's standoff and the label at least
    wide = reserved(_heatmap(["a"]), {**_axes(), "margin": {"l": 300}})["margin"]["l"]
    assert wide == 300
    hidden = reserved(_heatmap(["catastrophe"]), _axes(showticklabels=False))["margin"]["l"]
    assert hidden < long


def test_markup_and_line_breaks_count_as_the_text_they_show():
    assert text_width("<b>cat</b>", 10) == text_width("cat", 10)
    assert text_width("cat<br>catastrophe", 10) == text_width("catastrophe", 10)


def test_an_axis_inside_the_paper_leaves_its_margin_to_plotly():
    layout = {**_axes(), "xaxis": {"domain": [0.4, 1.0]}}
    inner = reserved(_heatmap(["catastrophe"]), layout)["margin"]["l"]
    assert inner == 10


def test_colour_bars_and_a_short_legend_widen_the_right_margin():
    bare = reserved(_heatmap(["a"]), _axes())["margin"]["r"]
    traces = [{"type": "heatmap", "z": [[1]], "coloraxis": "coloraxis"}]
    layout = {**_axes(), "coloraxis": {"cmin": 0, "cmax": 1, "colorbar": {"thickness": 16}}}
    assert reserved(traces, layout)["margin"]["r"] > bare + 16
    lines = [{"type": "scatter", "name": f"head {h}", "y": [1, 2]} for h in (1, 2)]
    beside = reserved(lines, {"margin": {"r": 10}})["margin"]["r"]
    below = reserved(lines, {"margin": {"r": 10}, "legend": {"orientation": "h"}})["margin"]
    alone = reserved(lines[:1], {"margin": {"r": 10}})["margin"]["r"]  # no legend for one
    assert beside > text_width("head 1", 12) + 40 and below["r"] == 10 and alone == 10
    long = [{**t, "name": "four full-size heads × 64: scores"} for t in lines]
    assert reserved(long, {"margin": {"r": 10}})["margin"]["r"] == 10  # left to Plotly


def _low() -> dict:
    """Axes with a thin bottom margin, as the grids of maps set it."""
    return {**_axes(), "margin": {"l": 10, "r": 10, "b": 10}}


def test_a_colour_bar_along_the_bottom_deepens_the_bottom_margin_not_the_right():
    traces = [{"type": "heatmap", "z": [[1]], "coloraxis": "coloraxis"}]
    upright = {**_axes(), "coloraxis": {"colorbar": {"thickness": 12}}}
    lying = {"orientation": "h", "yref": "container", "thickness": 12, "ypad": 4}
    titled = {**lying, "title": {"text": "weight", "side": "top", "font": {"size": 14}}}
    margins = {
        name: reserved(traces, {**_low(), "coloraxis": {"colorbar": bar}})["margin"]
        for name, bar in (("lying", lying), ("titled", titled))
    }
    bare = reserved(_heatmap(["a"]), _low())["margin"]
    assert reserved(traces, upright)["margin"]["r"] > bare["r"] + 12
    assert margins["lying"]["r"] == bare["r"]
    assert margins["lying"]["b"] >= bare["b"] + 4 + 12 + 12  # pad, bar, a line of ticks
    assert margins["titled"]["b"] >= margins["lying"]["b"] + 14  # and the title's line
