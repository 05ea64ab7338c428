"""Helpers for AppTest: open the app (optionally with URL parameters) on a page, and
read a Plotly chart's figure JSON by the chart's key."""

from __future__ import annotations

import base64
import functools
import json
import re

import numpy as np
from streamlit.testing.v1 import AppTest

from attention.models.toy import toy_inputs
from harness.browser import ROOT


def open_page(path: str | None = None, **query: str) -> AppTest:
    """Run app.py with `query` in the URL, then switch to `path` (e.g. "pages/x.py")."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if path:
        at.switch_page(path).run()
    return at


def chart(at: AppTest, key: str) -> dict:
    """The figure (data and layout) of the plotly chart drawn with `key`."""
    for element in at.get("plotly_chart"):
        if element.proto.id.endswith(f"-{key}"):
            return json.loads(element.proto.spec)
    keys = [e.proto.id.rsplit("-", 1)[-1] for e in at.get("plotly_chart")]
    raise KeyError(f"no chart with key {key!r}; charts on the page: {keys}")


def traces(figure: dict, kind: str) -> list[dict]:
    """The figure's traces of one type ("heatmap", "scatter", ...)."""
    return [t for t in figure["data"] if t.get("type", "scatter") == kind]


def colour_scale(figure: dict, trace: dict) -> tuple[list, float | None, float | None]:
    """The colour scale and its (low, high) ends a trace is drawn with: the trace's own
    (zmin, zmax) or those of the layout coloraxis it names (cmin, cmax)."""
    if "coloraxis" in trace:
        axis = figure["layout"][trace["coloraxis"]]
        return axis.get("colorscale"), axis.get("cmin"), axis.get("cmax")
    return trace.get("colorscale"), trace.get("zmin"), trace.get("zmax")


def array(value: object) -> np.ndarray:
    """A figure array as NumPy: Plotly 6+ ships NumPy data as base64 typed arrays
    ({"dtype", "bdata", "shape"}); plain lists (None = gap) become floats."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return data.reshape([int(s) for s in str(shape).split(",")]) if shape else data
    return np.array(value, dtype=float)


def tile_spans(value: object) -> dict[tuple[int, int], tuple[slice, slice]]:
    """The maps of a grid drawn as ONE matrix with NaN gutters: (row, column) of each map
    → the matrix rows and columns it takes, read from the all-NaN rows and columns."""
    z = array(value)
    rows, columns = _runs(~np.isnan(z).all(axis=1)), _runs(~np.isnan(z).all(axis=0))
    return {(r, c): (rs, cs) for r, rs in enumerate(rows) for c, cs in enumerate(columns)}


def tile_maps(value: object) -> np.ndarray:
    """The maps of such a matrix stacked (rows, columns, m, k); they must be equal-sized."""
    z = array(value)
    spans = tile_spans(z)
    rows, columns = (max(key[i] for key in spans) + 1 for i in (0, 1))
    return np.stack([z[spans[r, c]] for r in range(rows) for c in range(columns)]).reshape(
        rows, columns, *z[spans[0, 0]].shape
    )


def grid_maps(figure: dict, field: str = "z") -> np.ndarray:
    """An attention grid's maps (heatmaps.attention_grid: ONE heatmap trace, the maps
    tiled in rows with NaN gutters) as (maps, n_q, n_k), map 1 first, one per title;
    NaN where a mask blocks a cell. `field` "customdata" reads the scores instead."""
    trace = traces(figure, "heatmap")[0]
    spans = tile_spans(trace["z"])
    values = array(trace[field])
    maps = [values[spans[key]] for key in sorted(spans)]
    return np.stack(maps[: len(figure["layout"]["annotations"])])


def grid_labels(figure: dict) -> tuple[list[str], list[str]]:
    """An attention grid's query and key labels, as its first map's hover shows them."""
    trace = traces(figure, "heatmap")[0]
    rows, columns = tile_spans(trace["z"])[0, 0]
    return list(trace["y"][rows]), list(trace["x"][columns])


def head_points(trace: dict) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """A tiled head figure's points trace (keys, values: customdata [weight, head]) per
    head number: (points (n, 2) as drawn, weights (n,))."""
    data = array(trace["customdata"]).reshape(-1, 2)
    xy = np.column_stack([array(trace["x"]), array(trace["y"])])
    return {int(h): (xy[data[:, 1] == h], data[data[:, 1] == h, 0]) for h in np.unique(data[:, 1])}


def path_boxes(path: str) -> list[tuple[float, float, float, float]]:
    """The (x0, y0, x1, y1) rectangles of a path shape (grid.rectangles_path), in order."""
    corners = re.findall(r"M([-\d.]+),([-\d.]+)H([-\d.]+)V([-\d.]+)H", path)
    return [tuple(float(v) for v in box) for box in corners]


def tile_boxes(figure: dict) -> list[tuple[float, float, float, float]]:
    """The tiles' frames of a plane_tiles figure as (x0, y0, x1, y1), panel 1 first."""
    return path_boxes(figure["layout"]["shapes"][0]["path"])


def _runs(filled: np.ndarray) -> list[slice]:
    """The maximal runs of True in a boolean vector, as slices."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], filled.astype(int), [0]])))
    return [slice(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


@functools.cache
def _vocabulary():
    from attention.models.pretrained import load_pretrained
    from attention.models.pretrained.vocabulary import VocabularyEmbeddings

    return VocabularyEmbeddings(load_pretrained())


def toy_points(text: str, d_model: int, seed: int = 0, positions: bool = True):
    """The toy source's inputs as the app builds them (MiniLM's word vectors)."""
    vocabulary = _vocabulary()
    return toy_inputs(
        text,
        d_model,
        seed=seed,
        positions=positions,
        word_vectors=lambda words, d: vocabulary.word_vectors(words, d)[0],
    )


def chart_keys(at: AppTest) -> list[str]:
    """The keys of every keyed plotly chart on the page, in page order."""
    return [e.proto.id.rsplit("-", 1)[-1] for e in at.get("plotly_chart") if e.proto.id]


def _chart_block(at: AppTest, key: str) -> tuple[list, int]:
    """The elements of the block show_chart drew the chart with `key` into, and its index."""

    def find(block):
        children = list(getattr(block, "children", {}).values())
        for i, child in enumerate(children):
            if getattr(child, "type", None) == "plotly_chart" and child.proto.id.endswith(
                f"-{key}"
            ):
                return children, i
            found = find(child)
            if found:
                return found
        return None

    found = find(at.main)
    if found is None:
        raise KeyError(f"no chart with key {key!r}")
    return found


def chart_text(at: AppTest, key: str) -> tuple[str, str]:
    """A chart's accessible name (its alt) and the summary captioned right under it, or
    in the screen-reader-only block right under it ("" where missing)."""
    children, i = _chart_block(at, key)
    after = children[i + 1] if i + 1 < len(children) else None
    if getattr(after, "type", None) != "caption" and len(getattr(after, "children", {})) == 1:
        after = next(iter(after.children.values()))  # show_chart's words_shown=False block
    caption = after.value if getattr(after, "type", None) == "caption" else ""
    return children[i].proto.alt, caption


def table_rows(at: AppTest, key: str) -> list[dict]:
    """Turn on the chart's "Show as table" switch and return the rows of the table it
    shows under the chart."""
    at.toggle(key=f"{key}_table").set_value(True).run()
    assert not at.exception
    children, i = _chart_block(at, key)
    (table,) = [c for c in children[i + 1 :] if getattr(c, "type", None) == "table"]
    return table.value.to_dict("records")


SMALL_TRAINING = {"wh_d_model": 16, "wh_heads": 2, "wh_steps": 300}


def train_small(at: AppTest, seeds: bool = False) -> AppTest:
    """Train "Why several heads?" §4 at a small size (and across seeds if asked)."""
    for key, value in SMALL_TRAINING.items():
        at.select_slider(key=key).set_value(value)
    at.slider(key="wh_symbols").set_value(4)
    at.slider(key="wh_seq_len").set_value(4)
    at.run()
    at.button(key="wh_train").click().run()
    assert not at.exception, at.exception
    if seeds:
        at.button(key="wh_seeds").click().run()
        assert not at.exception, at.exception
    return at


def quiz_of(at: AppTest):
    """The step's quiz: the radio whose key starts with "quiz_"."""
    return next(radio for radio in at.radio if str(radio.key).startswith("quiz_"))


def check_answer(at: AppTest, option: str | None = None) -> AppTest:
    """Choose `option` (the first option when None, as written, unescaped) in the step's
    quiz and press its Check button: choosing alone answers nothing."""
    quiz = quiz_of(at)
    quiz.set_value(quiz.options[0].replace("\\", "") if option is None else option)
    return at.button(key=f"{quiz.key}_check").click().run()
