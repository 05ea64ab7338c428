"""Where the maps of a `grid.tiled` matrix sit on its category axes: titles, ticks,
frames and outlines for a grid of attention maps drawn as ONE heatmap trace (the
attention-map view's small multiples and the real model's 72 heads)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention.figures.base.grid import rectangles_path, tiled
from attention.figures.base.palette import FONT_SIZE

MAP_FRAME = 0.04  # a frame sits this share of a map outside it


MAP_OUTLINE = {"color": "#B0B0B0", "width": 1}


@dataclass(frozen=True)
class MapTiles:
    """Where the maps of a `tiled` matrix sit on its category axes (cell i at i): maps of
    `height` × `width` cells, `row_gap` and `col_gap` cells apart."""

    height: int
    width: int
    row_gap: int
    col_gap: int

    def row_start(self, row: int) -> int:
        return row * (self.height + self.row_gap)

    def col_start(self, col: int) -> int:
        return col * (self.width + self.col_gap)

    def col_middle(self, col: int) -> float:
        return self.col_start(col) + (self.width - 1) / 2

    def tile(self, maps: np.ndarray, rows: int, columns: int) -> np.ndarray:
        """(h, height, width) maps as one matrix in rows of `columns`, NaN where a short
        last row has no map."""
        padded = np.full((rows * columns, *maps.shape[1:]), np.nan)
        padded[: len(maps)] = maps
        return tiled(padded.reshape(rows, columns, *maps.shape[1:]), self.row_gap, self.col_gap)

    def categories(self, labels: list[str], count: int, gap: int) -> list[str]:
        """Category names along one side: the labels once per map, made unique by a
        map's count of zero-width spaces (invisible in hover), and the gutters' cells."""
        out: list[str] = []
        for t in range(count):
            if t:
                out += [f"gap {t}.{i}" for i in range(gap)]
            out += [label + "\u200b" * t for label in labels]
        return out

    def ticks(
        self,
        labels: list[str],
        maps: range,
        gap: int,
        shown: list[str] | None = None,
        step: int = 1,
    ) -> dict:
        """Tick labels on one side for these maps only (the gutters get none): every
        `step`-th cell, written as `shown` (default: the labels themselves)."""
        names = self.categories(labels, maps.stop, gap)
        per_map = len(labels) + gap
        cells = range(0, len(labels), step)
        text = [(shown or labels)[i] for i in cells]
        values = [names[t * per_map + i] for t in maps for i in cells]
        return {"tickmode": "array", "tickvals": values, "ticktext": text * len(maps)}

    def title(self, text: str, row: int, col: int, color: str | None) -> dict:
        """A map's title just above it."""
        return {
            "text": text,
            "xref": "x",
            "yref": "y",
            "x": self.col_middle(col),
            "y": self.row_start(row) - 0.5,
            "yshift": 4,
            "xanchor": "center",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": FONT_SIZE, **({"color": color} if color else {})},
        }

    def box(self, row: int, col: int, pad: float = 0.0) -> dict:
        """The rectangle around map (row, col), `pad` maps wider on every side."""
        x0 = self.col_start(col) - 0.5 - pad * self.width
        y0 = self.row_start(row) - 0.5 - pad * self.height
        return {
            "xref": "x",
            "yref": "y",
            "x0": x0,
            "x1": x0 + self.width * (1 + 2 * pad),
            "y0": y0,
            "y1": y0 + self.height * (1 + 2 * pad),
        }

    def frame(self, row: int, col: int, color: str) -> dict:
        """A thick rectangle just outside one map."""
        return {
            "type": "rect",
            **self.box(row, col, MAP_FRAME),
            "line": {"color": color, "width": 5},
        }

    def _path(self, count: int, columns: int) -> str:
        boxes = [self.box(*divmod(i, columns)) for i in range(count)]
        return rectangles_path([(b["x0"], b["y0"], b["x1"], b["y1"]) for b in boxes])

    def outlines(self, count: int, columns: int) -> dict:
        """A thin grey edge around every map, as ONE path shape."""
        path = self._path(count, columns)
        return {"type": "path", "xref": "x", "yref": "y", "path": path, "line": MAP_OUTLINE}

    def backgrounds(self, count: int, columns: int, color: str) -> dict:
        """Every map's area filled with `color` under the trace, as ONE path shape: its
        NaN cells (blocked by a mask) show it, the gutters stay white."""
        path = self._path(count, columns)
        return {
            "type": "path",
            "xref": "x",
            "yref": "y",
            "path": path,
            "fillcolor": color,
            "line": {"width": 0},
            "layer": "below",
        }
