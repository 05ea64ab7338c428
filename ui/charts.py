"""Showing Plotly figures the same way on every page: full width, a toolbar whose PNG
button exports at slide quality (none on a touch screen), and the page's shared font;
under a chart, its text alternative (a computed summary a screen reader reads) and a
"Show as table" switch."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention.figures.base.grid import figure
from attention.figures.base.phone import for_phone
from attention.figures.drawn_tables import MAX_COLUMNS, MAX_ROWS, cut_parts, figure_rows, frame_rows
from attention.teaching.markdown import literal
from attention.teaching.narration.charts import table_cut_note
from ui.media import narrow_screen

# The toolbar keeps what a class uses: the slide-quality PNG and "reset axes" after a
# drag-zoom (dragging still zooms). Each button is a stop of the Tab order: Plotly's eight
# made 15–17 Tabs from the Lesson's Next to its quiz.
TOOLBAR_BUTTONS = ("toImage", "resetScale2d")
CHART_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtons": [list(TOOLBAR_BUTTONS)],
}


SCREEN_READER_PREFIX = "for_screen_readers_"  # a container's key: ui/page_style.py hides it
# Set once a session has been sent a chart: its browser has loaded Plotly's code.
_CHART_SENT = "_chart_sent"


TableRows = Sequence[Mapping[str, object]] | pd.DataFrame


def table_switch_key(chart_key: str) -> str:
    """The key of a chart's "Show as table" switch."""
    return f"{chart_key}_table"


def show_chart(
    fig: go.Figure,
    key: str | None,
    container: DeltaGenerator | None = None,
    *,
    name: str | None = None,
    summary: str | None = None,
    table: TableRows | None = None,
    table_note: str | None = None,
    laid_out: bool = False,
    words_shown: bool = True,
    **kwargs,
) -> object:
    """Draw `fig` across `container` (a column, or an st.empty() placeholder redrawn in
    place; the page itself by default); returns Streamlit's selection event, if any.
    A chart redrawn several times in one run, as a live placeholder is, takes no key.
    No Streamlit theme: the figures carry the look themselves (attention/figures/base/theme.py).
    The SVG itself says nothing to a screen reader: `name` becomes the chart's accessible
    name (Streamlit's `alt`: role="figure" with an aria-label), `summary` (markdown, from a
    narration function) is captioned right under it (with `words_shown` False, for a screen
    reader only: an outline of the drawing that would be noise on screen), and `table` (rows
    built from the arrays the figure draws) sits behind a keyboard-operable switch keyed
    after the chart, as an HTML table (st.table: real rows and headers, read cell by cell),
    with `table_note` under it when the table holds only part of the chart. On a phone the
    figure is laid out for it here, unless `laid_out` says its maker did (once, for many
    screens: for_phone is a whole copy of the figure, up to ~9 ms)."""
    target = st if container is None else container
    if summary is not None or table is not None:
        target = target.container()  # one block: a placeholder holds the chart and its text
    st.session_state[_CHART_SENT] = True
    if narrow_screen() and not laid_out:
        fig = for_phone(fig)
    event = target.plotly_chart(
        fig, key=key, width="stretch", config=CHART_CONFIG, theme=None, alt=name, **kwargs
    )
    if summary is not None and words_shown:
        target.caption(summary)
    elif summary is not None:  # an outline of the drawing: for a screen reader only
        target.container(key=f"{SCREEN_READER_PREFIX}{key}").caption(summary)
    if table is not None:
        if key is None:
            raise ValueError("a chart with a table needs a key for its switch")
        if target.toggle("Show as table", key=table_switch_key(key)):
            target.table(_plain(table), hide_index=True, alt=name and f"{name}, as a table")
            if table_note:
                target.caption(table_note)
    return event


# Characters with a meaning inside a markdown table cell (inline markup, HTML, math,
# the cell separator); a column name holding none renders as it reads.
_INLINE_MARKUP = re.compile(r"[\\`*_\[\]<>&~$|]")


def _plain(table: TableRows) -> pd.DataFrame:
    """The rows with their text cells escaped, and column names that hold markup
    characters: st.table renders markdown in both, and tokens are user text (a map's
    keys name its columns)."""
    frame = pd.DataFrame(table)
    frame.columns = [
        literal(name) if _INLINE_MARKUP.search(name) else name for name in map(str, frame.columns)
    ]
    for column in frame.select_dtypes(include=["object", "string"]).columns:
        frame[column] = frame[column].map(lambda cell: literal(str(cell)))
    return frame


def drawn_table(fig: go.Figure) -> dict[str, object]:
    """show_chart's `table` and `table_note` read from the figure's own traces (every
    resting frame of an animation): for charts whose numbers are whole matrices or
    curves, the table holds what the chart draws."""
    spec = fig.to_dict()
    rows = frame_rows(spec) if spec.get("frames") else figure_rows(spec)
    columns = dict.fromkeys(column for row in rows for column in row)
    return {  # parts with other columns leave their cells empty, not NaN
        "table": [{column: row.get(column, "") for column in columns} for row in rows],
        "table_note": table_cut_note(cut_parts(spec), MAX_ROWS, MAX_COLUMNS),
    }


@contextmanager
def loading_plotly_meanwhile() -> Iterator[None]:
    """Around a page's computation: in a session's first run, a blank chart stands in
    a slot until the computation ends. Streamlit's browser code loads Plotly (4.7 MB,
    ~2 s to start in headless Chromium here) only once a first chart arrives; this
    starts it alongside the computation instead of after it. Later runs leave the slot
    empty, so every run leaves the page the same elements."""
    slot = st.empty()
    if st.session_state.get(_CHART_SENT):
        yield
        return
    show_chart(figure([], {"height": 10, "margin": {"t": 0, "b": 0}}), None, container=slot)
    try:
        yield
    finally:
        slot.empty()
