"""Small multiples of 2-D point pictures on ONE pair of axes: each panel's points scaled
into a unit square of its own tile, with a title above and a frame around each tile.

PCA coordinates have no units, so nothing is lost by scaling each panel on its own, and
one pair of axes draws faster than a subplot per panel (docs/speed-history.md). Within
a tile both directions keep one scale, so distances and angles stay true.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention.core.validation import check_positive_int
from attention.figures.base.grid import TITLE_LINE_PX, rectangles_path
from attention.figures.base.palette import FONT_SIZE

TILE_GAP = 0.12  # between two tiles of a row, per tile width
INNER = 0.88  # the points' bounding box fills this share of the tile's longer side
FRAME = {"color": "#D0D0D0", "width": 1}


@dataclass(frozen=True)
class Placement:
    """Where one panel's points go: subtract `centre`, multiply by `scale`, add `origin`
    (the tile's centre). An affine map, so weighted averages stay weighted averages."""

    centre: np.ndarray
    scale: float
    origin: np.ndarray

    def __call__(self, points: np.ndarray) -> np.ndarray:
        placed = (np.asarray(points, float) - self.centre) * self.scale + self.origin
        return np.round(placed, 5)  # a 100,000th of a tile: far below a pixel


@dataclass(frozen=True)
class PlaneTiles:
    """`n_panels` unit tiles in rows of `columns`, panel 0 top left, each with room for
    a title of `title_lines` lines above it, drawn `tile_px` pixels wide: about what four
    tiles across the page get beside the sidebar in a 1440-px window. One scale on both
    axes, so the chart's width decides the real size: in a wider window the grid keeps
    that size, centred; in a narrower one it shrinks, top aligned (to ~85 % in a 1280-px
    window), its titles keeping their room."""

    n_panels: int
    columns: int
    tile_px: int = 200
    title_lines: int = 2

    def __post_init__(self) -> None:
        check_positive_int("n_panels", self.n_panels)
        check_positive_int("columns", self.columns)

    @property
    def rows(self) -> int:
        return math.ceil(self.n_panels / self.shown_columns)

    @property
    def shown_columns(self) -> int:
        return min(self.columns, self.n_panels)

    @property
    def row_pitch(self) -> float:
        """A row's height in tile units: the tile and the title above it."""
        return 1 + (self.title_lines * TITLE_LINE_PX + 30) / self.tile_px

    def origin(self, panel: int) -> np.ndarray:
        """The centre of panel `panel`'s tile."""
        row, col = divmod(panel, self.shown_columns)
        return np.array([col * (1 + TILE_GAP), -row * self.row_pitch])

    def place(self, panel: int, points: np.ndarray) -> Placement:
        """The map that fits `points` (every point the panel will draw, shape (m, 2))
        into the middle of panel `panel`'s tile, equal scale on both axes."""
        points = np.asarray(points, float)
        low, high = points.min(axis=0), points.max(axis=0)
        extent = float(np.max(high - low))
        scale = INNER / extent if extent > 0 else 1.0
        return Placement((low + high) / 2, scale, self.origin(panel))

    def stack(self, fitted: list[np.ndarray], *parts: list[np.ndarray]) -> list[np.ndarray]:
        """Each of `parts` (one array of points per panel) placed in its panel's tile by
        the map that fits that panel's `fitted` points, all panels stacked, panel 0 first."""
        places = [self.place(panel, points) for panel, points in enumerate(fitted)]
        return [np.vstack([place(part[p]) for p, place in enumerate(places)]) for part in parts]

    def layout(self, titles: list[str], colors: list[str], x_title: str, y_title: str) -> dict:
        """Axes that show every tile at one scale (no ticks: PCA has no units), a title
        above each tile in its panel's colour, the tiles' frames and the figure height."""
        right = (self.shown_columns - 1) * (1 + TILE_GAP) + 0.5
        bottom = -(self.rows - 1) * self.row_pitch - 0.5
        top = 0.5 + self.row_pitch - 1
        plain = {
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
            "ticks": "",
            "constrain": "domain",
        }
        centres = [self.origin(p) for p in range(self.n_panels)]
        frames = rectangles_path([(x - 0.5, y - 0.5, x + 0.5, y + 0.5) for x, y in centres])
        return {
            "xaxis": {**plain, "range": [-0.52, right + 0.02], "title": {"text": x_title}},
            "yaxis": {
                **plain,
                "range": [bottom - 0.02, top],
                "scaleanchor": "x",
                "scaleratio": 1,
                "constraintoward": "top",
                "title": {"text": y_title},
            },
            "annotations": [
                {
                    "text": title,
                    "x": float(self.origin(p)[0]),
                    "y": float(self.origin(p)[1]) + 0.5,
                    "xref": "x",
                    "yref": "y",
                    "yanchor": "bottom",
                    "yshift": 2,
                    "showarrow": False,
                    "font": {"size": FONT_SIZE, "color": color},
                }
                for p, (title, color) in enumerate(zip(titles, colors, strict=True))
            ],
            "shapes": [{"type": "path", "path": frames, "line": FRAME, "layer": "below"}],
            "height": round(self.rows * self.row_pitch * self.tile_px) + 110,
        }
