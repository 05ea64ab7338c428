"""What the browser actually drew, read from Plotly's graph divs and Streamlit's DOM, so
that browser tests assert what an action changed, not only that nothing broke."""

from __future__ import annotations

import numpy as np

from tests.support.apptest import tile_spans

FAILURES = '[data-testid="stException"], [data-testid="stAlertContentError"]'

# One chart as drawn: subplot panels, heatmap images, SVG scatter traces and bars, WebGL
# traces; per trace its name and its number of rows and columns; the colour axis range,
# the largest finite z, the number of shapes, the annotation texts and whether a second
# colour axis exists: Plotly's own state after drawing (gd._fullData, gd._fullLayout).
_DRAWN = """(gd) => {
    const layout = gd._fullLayout, data = gd._fullData;
    const finiteMax = rows => Math.max(...Array.from(rows, r => Math.max(
        ...Array.from(r.length === undefined ? [r] : r).filter(Number.isFinite))));
    return {
        panels: gd.querySelectorAll('g.cartesianlayer > g.subplot').length,
        heatmaps: gd.querySelectorAll('.heatmaplayer .hm image').length,
        scatters: gd.querySelectorAll('.scatterlayer .trace').length,
        bars: gd.querySelectorAll('.barlayer .point').length,
        gl: data.filter(t => t.type.endsWith('gl')).length,
        names: data.map(t => t.name),
        rows: data.map(t => (t.z || t.y || []).length),
        columns: data.map(t => (t.z && t.z.length ? t.z[0] : t.x || []).length),
        colorRange: layout.coloraxis ? [layout.coloraxis.cmin, layout.coloraxis.cmax] : null,
        zMax: Math.max(...data.filter(t => t.z).map(t => finiteMax(t.z))),
        shapes: (layout.shapes || []).length,
        annotations: (layout.annotations || []).map(a => a.text),
        hasColoraxis2: Boolean(layout.coloraxis2),
    };
}"""


def drawn(page, key: str) -> dict:
    """What the chart shown with Streamlit key `key` holds as drawn (see _DRAWN)."""
    return page.locator(f".st-key-{key} .js-plotly-plot").evaluate(_DRAWN)


def drawn_maps(page, key: str) -> np.ndarray:
    """The maps of the attention grid shown with Streamlit key `key`, as the browser
    holds them: its one heatmap's z split at the NaN gutters, (maps, n_q, n_k)."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot")
    z = plot.evaluate("gd => Array.from(gd._fullData[0].z, row => Array.from(row))")
    titles = plot.evaluate("gd => gd._fullLayout.annotations.length")
    spans = tile_spans(z)
    values = np.array(z, dtype=float)
    return np.stack([values[spans[key]] for key in sorted(spans)][:titles])


def drawn_charts(page) -> list[dict]:
    """`drawn` for every chart on the page, top to bottom."""
    return page.locator(".js-plotly-plot").evaluate_all(f"gds => gds.map({_DRAWN})")


def marks(chart: dict) -> int:
    """How many things a drawn chart shows: heatmaps, SVG traces, bars and WebGL traces."""
    return chart["heatmaps"] + chart["scatters"] + chart["bars"] + chart["gl"]


def assert_no_failure(page) -> None:
    """No exception and no st.error on the page."""
    failures = page.locator(FAILURES)
    assert failures.count() == 0, failures.all_inner_texts()


# Streamlit gives a widget's group its label as written (aria-label): markdown there is
# read aloud ("star star Check yourself"), and so are literal()'s escapes.
_MARKED_UP_NAMES = r"""() => [...document.querySelectorAll('[aria-label]')]
    .map((el) => el.getAttribute('aria-label'))
    .filter((name) => /\*\*|__|\\[\\`*_{}\[\]()#+.!$-]|&(lt|gt|amp);/.test(name))"""


def marked_up_names(page) -> list[str]:
    """The accessible names (aria-label) on the page that carry markdown or its escapes."""
    return page.evaluate(_MARKED_UP_NAMES)
