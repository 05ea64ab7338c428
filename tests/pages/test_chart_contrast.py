"""Every text the app's charts draw reads at WCAG AA for text (1.4.3: 4.5:1) on what it is
drawn on: tick labels, axis and figure titles, legends, colour bars, annotations, shape
labels, token labels beside points, numbers on heatmap cells and beside bars, table
cells, the animation's buttons and slider, and hover labels.

The figures come from the pages themselves through AppTest (every chart each view sends,
as Streamlit receives it: `theme=None`, so no Streamlit template), at the defaults and
with the settings that add charts, every Lesson step before and after its reveal, in
presenter mode and on a phone's width; and the live class's vote bars, drawn only with
a class running, from their builder.

Each text's colour is resolved as Plotly.js (v4, Streamlit's bundle) resolves it: its
own font colour, else the colour it inherits (an axis's `color`, the legend's or the
slider's font, the layout font), else Plotly's #444. A heatmap cell's number takes the
colour its own text gives it (a <span style="color: …">), else the trace's, else
Plotly's pick for that cell (Color.contrast: white or #444, the one of higher WCAG
contrast). Its background: the plot area's colour for text inside a subplot (points'
labels, numbers on cells, annotations placed in axis units), the paper's outside it
(ticks, titles, legend, colour bars, annotations placed on the paper), a filled shape
under an annotation or a shape's own label, a legend's, an annotation's, a table cell's,
a button's or a hover label's own fill; translucent colours are laid over what is under
them. Hover labels are not exempt: the numbers they give are text, on the label's own
fill, and the trace name a hovertemplate adds beside them (<extra>) is written in the
point's colour. No text is skipped as decorative.

A text is one part of one chart (an axis's tick labels, a legend, a heatmap's cell
numbers: the worst cell's), counted in every view that draws it. Anything carrying text
that this resolver does not model (a trace or layout part it does not know) fails the
test by name rather than passing unseen.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from plotly.colors import get_colorscale
from streamlit.testing.v1 import AppTest

from attention.figures.base import theme
from attention.figures.base.grid import figure as grid_figure
from attention.figures.base.palette import WEIGHT_AXIS
from attention.figures.base.phone import for_phone
from attention.figures.lesson import for_slides
from attention.figures.live_class import vote_bars
from attention.teaching.lesson.content import lesson_text
from harness.browser import ROOT
from tests.support import colour_science
from tests.support.apptest import array, train_small
from tests.unit.test_theme import CONFIG

WCAG_AA_TEXT = 4.5
PLOTLY_TEXT = "#444444"  # Plotly's layout.font.color default and Color.defaultLine
PLOTLY_BACKGROUND = "#FFFFFF"  # its paper_bgcolor and plot_bgcolor defaults
PLOTLY_ACTIVE_BUTTON = "#F4FAFF"  # the fill of an updatemenu's active or hovered button
NAMED = {"white": "#FFFFFF", "black": "#000000", "transparent": "rgba(0,0,0,0)"}
TEXT_TRACES = {"scatter", "scattergl", "heatmap", "bar", "table"}
LEGEND_TRACES = {"scatter", "scattergl", "bar"}  # the types in a legend unless told not
OTHER_SUBPLOTS = ("scene", "polar", "geo", "ternary", "mapbox", "map", "smith", "grid")


@dataclass(frozen=True)
class Text:
    """One text-carrying part of a figure: where it is, its colour and its background."""

    where: str
    color: str  # "#RRGGBB", opaque
    background: str  # "#RRGGBB", opaque

    @property
    def ratio(self) -> float:
        return colour_science.contrast(self.color, self.background)


# --- colours -----------------------------------------------------------------------


def rgba(color: str) -> tuple[np.ndarray, float]:
    """A CSS colour as Plotly writes them ('#RGB', '#RRGGBB', 'rgb()', 'rgba()', a few
    names) → sRGB channels in 0..1 and alpha. Any other form fails: unresolved."""
    color = NAMED.get(color.strip().lower(), color.strip())
    if re.fullmatch(r"#[0-9a-fA-F]{3}", color):
        color = "#" + "".join(2 * c for c in color[1:])
    if re.fullmatch(r"#[0-9a-fA-F]{6}", color):
        return colour_science.srgb(color), 1.0
    match = re.fullmatch(r"rgba?\(([^)]*)\)", color.replace(" ", ""))
    if not match:
        raise ValueError(f"unresolved colour {color!r}")
    parts = [float(p) for p in match.group(1).split(",")]
    return np.array(parts[:3]) / 255.0, parts[3] if len(parts) == 4 else 1.0


def over(color: str, under: str) -> str:
    """`color` laid over the opaque `under` (alpha compositing), as '#RRGGBB'."""
    channels, alpha = rgba(color)
    below, _ = rgba(under)
    mixed = alpha * channels + (1 - alpha) * below
    return "#" + "".join(f"{round(255 * c):02X}" for c in mixed)


def plotly_contrast(cell: str) -> str:
    """Plotly.js's Color.contrast: white or #444, whichever has the higher WCAG contrast
    with `cell` (the colour it gives a number on a heatmap cell of its own choosing)."""
    on_white = colour_science.contrast(cell, PLOTLY_BACKGROUND)
    return (
        PLOTLY_BACKGROUND if on_white > colour_science.contrast(cell, PLOTLY_TEXT) else PLOTLY_TEXT
    )


# --- the figure's defaults ---------------------------------------------------------


@dataclass(frozen=True)
class Look:
    """What a figure's texts inherit: the layout font's colour, paper and plot fills."""

    font: str
    paper: str
    plot: str

    @classmethod
    def of(cls, layout: dict) -> Look:
        paper = over(layout.get("paper_bgcolor", PLOTLY_BACKGROUND), PLOTLY_BACKGROUND)
        plot = over(layout.get("plot_bgcolor", PLOTLY_BACKGROUND), paper)
        return cls(_font_color(layout.get("font"), PLOTLY_TEXT), paper, plot)


def _font_color(font: dict | None, inherited: str) -> str:
    """A font's own colour, else the one it inherits."""
    return (font or {}).get("color") or inherited


def _title(part: dict | str | None) -> dict:
    """A title as a dict (a string is its text)."""
    return {"text": part} if isinstance(part, str) else dict(part or {})


def _text(where: str, color: str, background: str) -> Text:
    """A Text whose colour is laid over its (already opaque) background."""
    return Text(where, over(color, background), background)


# --- layout parts ------------------------------------------------------------------


def title_texts(layout: dict, look: Look) -> Iterator[Text]:
    """The figure's title and its subtitle (which inherits the title's font)."""
    title = _title(layout.get("title"))
    color = _font_color(title.get("font"), look.font)
    if title.get("text"):
        yield _text("title", color, look.paper)
    subtitle = _title(title.get("subtitle"))
    if subtitle.get("text"):
        yield _text("title.subtitle", _font_color(subtitle.get("font"), color), look.paper)


def axis_names(spec: dict) -> list[str]:
    """Every cartesian axis the layout names or a trace draws on."""
    names = {key for key in spec["layout"] if re.fullmatch(r"[xy]axis\d*", key)}
    for trace in spec["data"]:
        if trace.get("type", "scatter") in ("table",):
            continue
        for letter in "xy":
            axis_id = trace.get(letter + "axis", letter)
            names.add(axis_id[0] + "axis" + axis_id[1:])
    return sorted(names)


def axis_texts(spec: dict, look: Look) -> Iterator[Text]:
    """Each visible axis's tick labels (outside the plot: on the paper; inside: on the
    plot area) and its title. An axis's own `color` colours both unless their fonts
    say otherwise (Plotly's tick_label_defaults)."""
    for name in axis_names(spec):
        axis = spec["layout"].get(name, {})
        if axis.get("visible") is False:
            continue
        own = axis.get("color")
        inherited = own if own and own.lower() not in ("#444", "#444444") else look.font
        if axis.get("showticklabels", True):
            inside = "inside" in axis.get("ticklabelposition", "outside")
            color = _font_color(axis.get("tickfont"), inherited)
            yield _text(f"{name}.tickfont", color, look.plot if inside else look.paper)
        title = _title(axis.get("title"))
        if title.get("text"):
            yield _text(f"{name}.title", _font_color(title.get("font"), inherited), look.paper)


def legend_shown(spec: dict) -> bool:
    """Whether Plotly draws the legend: as the layout says, else when two or more traces
    enter it or one asks to."""
    layout, data = spec["layout"], spec["data"]
    if "showlegend" in layout:
        return bool(layout["showlegend"])
    entering = [
        t
        for t in data
        if t.get("showlegend", t.get("type", "scatter") in LEGEND_TRACES) is not False
    ]
    return len(entering) > 1 or any(t.get("showlegend") is True for t in data)


def legend_texts(spec: dict, look: Look) -> Iterator[Text]:
    """The legend's entries and title, on the legend's fill (the paper by default), and
    any trace's legend-group title."""
    if not legend_shown(spec):
        return
    legend = spec["layout"].get("legend", {})
    background = over(legend.get("bgcolor", look.paper), look.paper)
    color = _font_color(legend.get("font"), look.font)
    yield _text("legend.font", color, background)
    title = _title(legend.get("title"))
    if title.get("text"):
        yield _text("legend.title", _font_color(title.get("font"), color), background)
    for i, trace in enumerate(spec["data"]):
        group = _title(trace.get("legendgrouptitle"))
        if group.get("text"):
            group_color = _font_color(group.get("font"), color)
            yield _text(f"data[{i}].legendgrouptitle", group_color, background)


def colorbar_owners(spec: dict) -> Iterator[tuple[str, dict]]:
    """Everything that draws a colour bar: a colour axis some trace uses, a heatmap with a
    scale of its own, a scatter's marker that shows its scale."""
    layout, data = spec["layout"], spec["data"]
    used = {t.get("coloraxis") for t in data} | {t.get("marker", {}).get("coloraxis") for t in data}
    for name, axis in layout.items():
        if name.startswith("coloraxis") and name in used and axis.get("showscale", True):
            yield f"{name}.colorbar", axis.get("colorbar", {})
    for i, trace in enumerate(data):
        kind = trace.get("type", "scatter")
        if kind == "heatmap" and "coloraxis" not in trace and trace.get("showscale", True):
            yield f"data[{i}].colorbar", trace.get("colorbar", {})
        marker = trace.get("marker", {})
        if marker.get("showscale") and "coloraxis" not in marker:
            yield f"data[{i}].marker.colorbar", marker.get("colorbar", {})


def colorbar_texts(spec: dict, look: Look) -> Iterator[Text]:
    """Each colour bar's tick labels and title, on its fill (none: the paper)."""
    for where, bar in colorbar_owners(spec):
        background = over(bar.get("bgcolor", "rgba(0,0,0,0)"), look.paper)
        if bar.get("showticklabels", True):
            yield _text(
                f"{where}.tickfont", _font_color(bar.get("tickfont"), look.font), background
            )
        title = _title(bar.get("title"))
        if title.get("text"):
            yield _text(f"{where}.title", _font_color(title.get("font"), look.font), background)


def _on_axes(part: dict) -> bool:
    """Whether a layout part is placed in a subplot's units (data or domain), not the
    paper's or the container's."""
    return all(
        part.get(ref, letter) not in ("paper", "container")
        for ref, letter in (("xref", "x"), ("yref", "y"))
    )


def _refs(part: dict) -> tuple[str, str]:
    """The units a layout part is placed in (its xref and yref)."""
    return part.get("xref", "x"), part.get("yref", "y")


def _filled_shape_under(note: dict, shapes: list[dict], look: Look) -> str | None:
    """The fill of the last filled rectangle drawn under an annotation's anchor point,
    placed in the same units (the head bands that carry their numbers), if any."""
    fill = None
    for shape in shapes:
        if shape.get("type") != "rect" or not shape.get("fillcolor"):
            continue
        if _refs(shape) != _refs(note):
            continue
        try:
            xs = sorted((float(shape["x0"]), float(shape["x1"])))
            ys = sorted((float(shape["y0"]), float(shape["y1"])))
            x, y = float(note["x"]), float(note["y"])
        except (KeyError, TypeError, ValueError):
            continue  # placed by category: not under a filled shape the test can place
        if xs[0] <= x <= xs[1] and ys[0] <= y <= ys[1]:
            under = look.plot if _on_axes(shape) else look.paper
            fill = over(shape["fillcolor"], under)
    return fill


def annotation_texts(spec: dict, look: Look) -> Iterator[Text]:
    """Each annotation with text: on its own fill, else a filled shape under it, else the
    plot area (placed in a subplot's units) or the paper."""
    shapes = spec["layout"].get("shapes", [])
    for i, note in enumerate(spec["layout"].get("annotations", [])):
        if note.get("visible") is False or not str(note.get("text", "")).strip():
            continue
        under = look.plot if _on_axes(note) else look.paper
        under = _filled_shape_under(note, shapes, look) or under
        background = over(note.get("bgcolor", "rgba(0,0,0,0)"), under)
        yield _text(f"annotations[{i}]", _font_color(note.get("font"), look.font), background)


def shape_label_texts(spec: dict, look: Look) -> Iterator[Text]:
    """A shape's own label: on the shape's fill, laid over what the shape is drawn on."""
    for i, shape in enumerate(spec["layout"].get("shapes", [])):
        label = shape.get("label", {})
        if not str(label.get("text", "")).strip():
            continue
        under = look.plot if _on_axes(shape) else look.paper
        background = over(shape.get("fillcolor", "rgba(0,0,0,0)"), under)
        yield _text(f"shapes[{i}].label", _font_color(label.get("font"), look.font), background)


def menu_texts(spec: dict, look: Look) -> Iterator[Text]:
    """An updatemenu's button labels (on its fill, the paper by default, and on Plotly's
    active/hovered fill) and a slider's step labels and current value (on the paper)."""
    for i, menu in enumerate(spec["layout"].get("updatemenus", [])):
        if menu.get("visible") is False:
            continue
        color = _font_color(menu.get("font"), look.font)
        fill = over(menu.get("bgcolor", look.paper), look.paper)
        yield _text(f"updatemenus[{i}]", color, fill)
        yield _text(f"updatemenus[{i}] active", color, PLOTLY_ACTIVE_BUTTON)
    for i, slider in enumerate(spec["layout"].get("sliders", [])):
        if slider.get("visible") is False:
            continue
        color = _font_color(slider.get("font"), look.font)
        yield _text(f"sliders[{i}].font", color, look.paper)
        current = slider.get("currentvalue", {})
        if current.get("visible", True):
            current_color = _font_color(current.get("font"), color)
            yield _text(f"sliders[{i}].currentvalue", current_color, look.paper)


# --- traces ------------------------------------------------------------------------


def _colors(value: object, inherited: str) -> list[str]:
    """A font's colour or per-point colours (an array), else the inherited one."""
    if isinstance(value, list | tuple):
        return sorted({c or inherited for c in value})
    return [value or inherited]


def scatter_texts(i: int, trace: dict, look: Look) -> Iterator[Text]:
    """Labels written beside a scatter's points, on the plot area."""
    if "text" not in trace.get("mode", "markers") or trace.get("text") in (None, "", []):
        return
    for color in _colors(trace.get("textfont", {}).get("color"), look.font):
        yield _text(f"data[{i}].textfont", color, look.plot)


def bar_texts(i: int, trace: dict, look: Look) -> Iterator[Text]:
    """Numbers written beside bars (textposition "outside", on the plot area); text inside
    bars is not modelled and fails."""
    if trace.get("text") in (None, "", []) and not trace.get("texttemplate"):
        return
    if trace.get("textposition") != "outside":
        raise AssertionError(f"data[{i}]: bar text inside bars is not resolved by this test")
    font = trace.get("outsidetextfont") or trace.get("textfont", {})
    for color in _colors(font.get("color"), look.font):
        yield _text(f"data[{i}].textfont", color, look.plot)


def _scale_and_range(trace: dict, layout: dict) -> tuple[list, float, float]:
    """A heatmap's colour scale as (position, colour) pairs and the z it spans: its own,
    or its colour axis's; the data's extent where no bound is set."""
    z = array(trace["z"])
    if "coloraxis" in trace:
        axis = layout[trace["coloraxis"]]
        scale, low, high = axis.get("colorscale"), axis.get("cmin"), axis.get("cmax")
    else:
        scale, low, high = trace.get("colorscale"), trace.get("zmin"), trace.get("zmax")
    scale = get_colorscale(scale) if isinstance(scale, str) else scale
    if scale is None:
        raise AssertionError("a heatmap on Plotly's default scale is not resolved by this test")
    low = float(np.nanmin(z)) if low is None else low
    high = float(np.nanmax(z)) if high is None else high
    return scale, low, high


def cell_colors(trace: dict, layout: dict) -> Iterator[tuple[float, str, str | None]]:
    """Each drawn cell's value, its colour (interpolated on the scale in sRGB channels,
    as Plotly does) and the colour its own text gives its number (<span style="color:
    …"> in `text` written by a "%{text}" texttemplate), if any."""
    scale, low, high = _scale_and_range(trace, layout)
    positions = np.array([float(p) for p, _ in scale])
    channels = np.array([rgba(c)[0] for _, c in scale])
    values = array(trace["z"])
    own = _cell_text_colors(trace, values.shape)
    for index in zip(*np.nonzero(np.isfinite(values)), strict=True):
        value = float(values[index])
        share = 0.5 if high == low else float(np.clip((value - low) / (high - low), 0, 1))
        rgb = [np.interp(share, positions, channels[:, k]) for k in range(3)]
        cell = "#" + "".join(f"{round(255 * c):02X}" for c in rgb)
        yield value, cell, own[index]


_SPAN_COLOR = re.compile(r"<span style=['\"][^'\"]*color:\s*([^;'\"]+)")


def _cell_text_colors(trace: dict, shape: tuple) -> np.ndarray:
    """Per cell, the colour a span in the cell's `text` gives its number (None: none)."""
    colors = np.full(shape, None, dtype=object)
    if "%{text}" not in trace.get("texttemplate", ""):
        return colors
    for index, text in np.ndenumerate(np.array(trace["text"], dtype=object).reshape(shape)):
        match = _SPAN_COLOR.search(str(text))
        colors[index] = match.group(1).strip() if match else None
    return colors


def heatmap_texts(i: int, trace: dict, layout: dict) -> Iterator[Text]:
    """The numbers written on a heatmap's cells (texttemplate): each cell's colour is the
    background; the text's colour is the cell text's own, else the trace's, else
    Plotly's pick for the cell. One Text, the worst cell's."""
    if not trace.get("texttemplate"):
        return
    font = trace.get("textfont", {}).get("color")
    cells = [
        _text(f"data[{i}].texttemplate (z={value:g})", own or font or plotly_contrast(cell), cell)
        for value, cell, own in cell_colors(trace, layout)
    ]
    if cells:
        yield min(cells, key=lambda text: text.ratio)


def table_texts(i: int, trace: dict, look: Look) -> Iterator[Text]:
    """A table's header and cell text on their fills (white by default)."""
    for part in ("header", "cells"):
        section = trace.get(part, {})
        if not section.get("values"):
            continue
        fills = np.ravel(np.array(section.get("fill", {}).get("color", "white"), dtype=object))
        colors = _colors(section.get("font", {}).get("color"), look.font)
        for fill in sorted(set(fills)):
            for color in colors:
                yield _text(f"data[{i}].{part}", color, over(fill, look.paper))


def trace_texts(spec: dict, look: Look) -> Iterator[Text]:
    """The text every trace draws; a trace type this test does not model fails."""
    for i, trace in enumerate(spec["data"]):
        kind = trace.get("type", "scatter")
        if kind not in TEXT_TRACES:
            raise AssertionError(f"data[{i}]: trace type {kind!r} is not resolved by this test")
        if kind in ("scatter", "scattergl"):
            yield from scatter_texts(i, trace, look)
        elif kind == "bar":
            yield from bar_texts(i, trace, look)
        elif kind == "heatmap":
            yield from heatmap_texts(i, trace, spec["layout"])
        else:
            yield from table_texts(i, trace, look)


def point_colors(trace: dict) -> list[str]:
    """The colours Plotly gives a trace's points in a hover label: its marker's (one, or
    one per point), else its line's; a heatmap's cells have none (Plotly's #444)."""
    if trace.get("type") == "heatmap":
        return [PLOTLY_TEXT]
    for part in ("marker", "line"):
        color = trace.get(part, {}).get("color")
        if isinstance(color, str):
            return [color]
        if isinstance(color, list) and all(isinstance(c, str) for c in color):
            return sorted(set(color))
    raise AssertionError(f"{trace.get('name')!r}: a point colour from a scale or the colorway")


def hover_texts(spec: dict, look: Look) -> Iterator[Text]:
    """Hover labels (fx/hover.js): the label's text in its font colour, else Plotly's
    pick for its fill, on its fill (the layout's or the trace's own, else the point's
    colour); and a trace name the hovertemplate puts beside it (<extra>name</extra>),
    written in the point's colour on the paper at 80 % over the plot area."""
    shared = spec["layout"].get("hoverlabel", {})
    name_box = over(_alpha(look.paper, 0.8), look.plot)
    for i, trace in enumerate(spec["data"]):
        if trace.get("hoverinfo") in ("skip", "none") or trace.get("type") == "table":
            continue
        label = {**shared, **trace.get("hoverlabel", {})}
        where = "hoverlabel" if "hoverlabel" not in trace else f"data[{i}].hoverlabel"
        own = _font_color(label.get("font"), None)
        fills = [label["bgcolor"]] if label.get("bgcolor") else point_colors(trace)
        for fill in (over(f, look.paper) for f in fills):
            yield _text(where, own or plotly_contrast(fill), fill)
        if re.search(r"<extra>(.+?)</extra>", str(trace.get("hovertemplate", ""))):
            for color in point_colors(trace):
                name = f"data[{i}].hovertemplate <extra>"
                yield _text(name, over(color, look.paper), name_box)


def _alpha(color: str, alpha: float) -> str:
    """An opaque colour at `alpha`, as rgba()."""
    channels, _ = rgba(color)
    r, g, b = (round(255 * c) for c in channels)
    return f"rgba({r},{g},{b},{alpha})"


LAYOUT_PARTS: tuple[Callable[[dict, Look], Iterator[Text]], ...] = (
    axis_texts,
    legend_texts,
    colorbar_texts,
    annotation_texts,
    shape_label_texts,
    menu_texts,
    trace_texts,
    hover_texts,
)


def chart_texts(spec: dict) -> list[Text]:
    """Every text of a figure dict (and of each animation frame's traces laid over it),
    once per place it is drawn."""
    layout = spec["layout"]
    assert "template" not in layout, "a template's fonts are not resolved by this test"
    unknown = [key for key in layout if key.startswith(OTHER_SUBPLOTS)]
    assert not unknown, f"subplots this test does not resolve: {unknown}"
    look = Look.of(layout)
    texts = {t.where: t for t in title_texts(layout, look)}
    for version in _frame_versions(spec):
        for part in LAYOUT_PARTS:
            for text in part(version, look):
                if text.where not in texts or text.ratio < texts[text.where].ratio:
                    texts[text.where] = text
    return list(texts.values())


def _frame_versions(spec: dict) -> Iterator[dict]:
    """The figure as drawn, then as each animation frame redraws it (the frame's traces
    over the figure's, by position)."""
    yield spec
    for frame in spec.get("frames", []):
        data = [dict(t) for t in spec["data"]]
        indices = frame.get("traces", range(len(frame.get("data", []))))
        for index, trace in zip(indices, frame.get("data", []), strict=False):
            if index < len(data):
                data[index] = {**data[index], **trace}
        yield {**spec, "data": data, "layout": {**spec["layout"], **frame.get("layout", {})}}


# --- the views -------------------------------------------------------------------------

LESSON = "pages/lesson.py"
STEPS = len(lesson_text())


def run_view(path: str, query: dict[str, str], phone: bool = False) -> AppTest:
    """The app opened on `path` with `query` in its URL, at a phone's width if asked
    (the width a class's join link assumes until the browser says: ui/media)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    if phone:
        at.session_state["narrow_screen_first"] = True
    at.run()
    at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


def page_charts(at: AppTest, view: str) -> dict[str, dict]:
    """The figure of every chart on the page, named by the view and the chart's key. Each
    is sent without Streamlit's chart theme (its template would colour what the figure
    leaves unset: ui/charts.show_chart), which the resolver above relies on."""
    charts = {}
    for n, element in enumerate(at.get("plotly_chart")):
        key = element.proto.id.rsplit("-", 1)[-1] or f"chart {n}"
        assert element.proto.theme == "", (key, element.proto.theme)
        charts[f"{view} · {key}"] = json.loads(element.proto.spec)
    return charts


def revealed(at: AppTest) -> AppTest:
    """The lesson step after its answer is revealed (the presenter's button, else the
    quiz answered), which may draw the step's revealed figure."""
    reveal = [b for b in at.button if b.key == "lesson_reveal"]
    if reveal:
        reveal[0].click().run()
    else:
        quiz = next(r for r in at.radio if str(r.key).startswith("quiz_"))
        quiz.set_value(quiz.options[0].replace("\\", "")).run()
    assert not at.exception, at.exception
    return at


def trained(at: AppTest) -> AppTest:
    """The "Why several heads?" page with its variants trained across seeds (§4's
    charts)."""
    return train_small(at, seeds=True)


PAGES: list[tuple[str, dict[str, str], Action]] = [  # page, URL settings, action after
    ("pages/home.py", {}, None),
    ("pages/head_spaces.py", {}, None),
    ("pages/head_spaces.py", {"heads": "8", "causal": "1"}, None),
    ("pages/attention_maps.py", {}, None),
    ("pages/attention_maps.py", {"maps_kind": "cross"}, None),
    ("pages/why_heads.py", {}, trained),
    ("pages/real_model.py", {}, None),
    ("pages/real_model.py", {"real_role": "[SEP]", "real_stretch": "true"}, None),
    ("pages/block.py", {}, None),
    ("pages/block.py", {"heads": "16", "d_model": "64", "block_act": "ReLU"}, None),
    ("pages/heads_needed.py", {}, None),
    ("pages/heads_needed.py", {"heads_off": "6.12", "focus": "2"}, None),
]
SCREENS = {"wide": False, "phone": True}


Action = Callable[[AppTest], AppTest] | None


def views() -> Iterator:
    """Every page view on a wide screen and a phone, and every Lesson step on both and in
    presenter mode."""
    for screen, phone in SCREENS.items():
        for path, query, action in PAGES:
            settings = [f"{key}={value}" for key, value in query.items()]
            name = [path.removeprefix("pages/"), *settings, action.__name__ if action else ""]
            yield pytest.param(
                path, query, action, phone, id=" ".join([*filter(None, name), screen])
            )
    for number in range(1, STEPS + 1):
        for mode, query, phone in (
            ("wide", {}, False),
            ("phone", {}, True),
            ("presenter", {"present": "1"}, False),
        ):
            params = {"step": str(number), **query}
            yield pytest.param(LESSON, params, revealed, phone, id=f"lesson step {number} {mode}")


def _view_charts(path: str, query: dict, action: Action, phone: bool) -> dict[str, dict]:
    """The charts a view draws: as opened, and after its action (a reveal, training)."""
    at = run_view(path, query, phone)
    charts = page_charts(at, "opened")
    if action:
        charts |= page_charts(action(at), action.__name__)
    return charts


def _below(charts: dict[str, dict]) -> list[str]:
    """The texts of `charts` under 4.5:1, described for the failure message."""
    return [
        f"{name}: {text.where} {text.color} on {text.background} = {text.ratio:.2f}:1"
        for name, spec in charts.items()
        for text in chart_texts(spec)
        if text.ratio < WCAG_AA_TEXT
    ]


@pytest.mark.parametrize(("path", "query", "action", "phone"), list(views()))
def test_every_chart_text_reads_at_4_5_to_1(path, query, action, phone):
    charts = _view_charts(path, query, action, phone)
    assert charts, "the view draws charts"
    below = _below(charts)
    assert not below, f"{len(below)} chart texts under 4.5:1:\n" + "\n".join(below)


@pytest.mark.parametrize("rounds", [{1: {"a": 3, "b": 1}}, {1: {"a": 3}, 2: {"a": 1, "b": 4}}])
def test_the_live_class_vote_bars_read_at_4_5_to_1(rounds):
    """Drawn only while a class runs (ui/live_class.show_answers): from the builder."""
    below = _below({"vote bars": vote_bars(["a", "b"], rounds).to_dict()})
    assert not below, "\n".join(below)


def chart_backgrounds() -> dict[str, str]:
    """Every fill the theme's text colours can sit on: a figure's paper and plot area as
    the pages draw it, made ready for the presenter's projector (lesson.for_slides) and
    laid out for a phone (phone.for_phone); Plotly's fill of an active button; and the
    page's secondary background (no chart sits on it today: the margin covers one that
    would)."""
    data = [{"type": "heatmap", "z": [[0, 1]], "coloraxis": "coloraxis"}]
    plain = grid_figure(data, {"coloraxis": WEIGHT_AXIS, "plot_bgcolor": "white"})
    slide = for_slides(plain, ["caption"], font_scale=1.3, fill_height=True).to_dict()
    phone = for_phone(plain).to_dict()
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["theme"]
    backgrounds = {"active button": PLOTLY_ACTIVE_BUTTON}
    backgrounds["secondary background"] = config["secondaryBackgroundColor"]
    for name, spec in (("default", plain.to_dict()), ("presenter", slide), ("phone", phone)):
        look = Look.of(spec["layout"])
        backgrounds |= {f"{name} paper": look.paper, f"{name} plot": look.plot}
    return backgrounds


@pytest.mark.parametrize("color", [theme.MUTED, theme.TEXT_COLOR])
def test_the_themes_text_colours_read_on_every_chart_background(color):
    for name, background in chart_backgrounds().items():
        assert colour_science.contrast(color, background) >= WCAG_AA_TEXT, (name, background)


def test_the_theme_sets_every_text_colour_it_draws_in_the_one_muted_grey():
    """One source: the theme's layout font, axes and colour bars write MUTED, whose value
    no figure repeats."""
    assert theme.LAYOUT["font"]["color"] == theme.MUTED
    for part in (theme.AXES["x"], theme.AXES["y"], theme.COLORBAR):
        assert part["tickfont"]["color"] == part["title"]["font"]["color"] == theme.MUTED
    figures = Path(theme.__file__).resolve().parent.parent
    for source in figures.rglob("*.py"):
        if source.name != "theme.py":
            assert theme.MUTED.lower() not in source.read_text(encoding="utf-8").lower(), source


# --- the resolver itself -----------------------------------------------------------------


def test_colours_are_laid_over_their_background():
    assert over("rgba(0, 0, 0, 0)", "#F3F6FA") == "#F3F6FA"
    assert over("rgba(0,0,0,0.5)", "#FFFFFF") == "#808080"
    assert over("white", "#000000") == "#FFFFFF" and over("#abc", "#000000") == "#AABBCC"
    with pytest.raises(ValueError):
        rgba("hsl(0, 0%, 50%)")


def test_plotly_picks_the_cell_text_of_higher_contrast():
    assert plotly_contrast("#08306B") == "#FFFFFF"
    assert plotly_contrast("#F7F7F7") == PLOTLY_TEXT
    assert plotly_contrast("#6BAED6") == PLOTLY_TEXT  # 3.9:1, not 2.5:1 in white


def test_texts_inherit_as_plotly_resolves_them():
    """Layout font → axes, annotations, traces; an axis's colour → its ticks and title;
    legend font → its title; plot area vs paper; a note's fill; a filled shape under a
    note; an unknown trace type fails."""
    spec = {
        "data": [
            {"type": "scatter", "mode": "markers+text", "text": ["a"], "showlegend": True},
            {
                "type": "heatmap",
                "z": [[0, 1]],
                "colorscale": [[0, "#FFFFFF"], [1, "#000000"]],
                "texttemplate": "%{z}",
                "xaxis": "x2",
                "yaxis": "y2",
                "hoverinfo": "skip",
            },
        ],
        "layout": {
            "font": {"color": "#777777"},
            "plot_bgcolor": "rgba(0,0,0,0)",
            "paper_bgcolor": "#EEEEEE",
            "xaxis": {"color": "#112233", "title": {"text": "x"}},
            "yaxis": {"tickfont": {"color": "#000000"}, "ticklabelposition": "inside"},
            "legend": {"font": {"color": "#333333"}, "title": {"text": "t"}},
            "hoverlabel": {"bgcolor": "white", "font": {"color": "#999999"}},
            "annotations": [
                {"text": "on paper", "xref": "paper", "yref": "paper", "x": 0, "y": 1},
                {"text": "boxed", "bgcolor": "#000000", "font": {"color": "#FFFFFF"}},
                {"text": "on band", "x": 1, "y": 1, "font": {"color": "white"}},
            ],
            "shapes": [
                {"type": "rect", "x0": 0, "x1": 2, "y0": 0, "y1": 2, "fillcolor": "#0072B2"}
            ],
        },
    }
    found = {t.where: (t.color, t.background) for t in chart_texts(spec)}
    assert found["xaxis.tickfont"] == found["xaxis.title"] == ("#112233", "#EEEEEE")
    assert found["yaxis.tickfont"] == ("#000000", "#EEEEEE")  # transparent plot: the paper
    assert found["xaxis2.tickfont"] == ("#777777", "#EEEEEE")
    assert found["legend.title"] == ("#333333", "#EEEEEE")
    assert found["annotations[0]"] == ("#777777", "#EEEEEE")
    assert found["annotations[1]"] == ("#FFFFFF", "#000000")
    assert found["annotations[2]"] == ("#FFFFFF", "#0072B2")
    assert found["data[0].textfont"] == ("#777777", "#EEEEEE")
    assert found["hoverlabel"] == ("#999999", "#FFFFFF")
    cells = found["data[1].texttemplate (z=0)"]  # white cell, #444 on it; black: white
    assert cells == (PLOTLY_TEXT, "#FFFFFF")
    spec["data"].append({"type": "pie", "labels": ["a"]})
    with pytest.raises(AssertionError, match="pie"):
        chart_texts(spec)


def test_a_cells_own_text_colour_is_read_from_its_span():
    trace = {
        "type": "heatmap",
        "z": [[0.0, 1.0]],
        "colorscale": [[0, "#FFFFFF"], [1, "#000000"]],
        "texttemplate": "%{text}",
        "text": [['<span style="color:#000000">0</span>', "<span style='color: #FFFFFF'>1</span>"]],
    }
    cells = list(cell_colors(trace, {}))
    assert cells == [(0.0, "#FFFFFF", "#000000"), (1.0, "#000000", "#FFFFFF")]
