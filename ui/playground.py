"""The playground's server side: its state read once from the link through the URL table,
the bidirectional component that draws the heads and takes the drags, the positions a
finished drag sends, and the link written back. The page (pages/playground.py) only
arranges these."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import streamlit as st

from attention.figures.base.palette import head_color
from attention.teaching.lecture_picture import lecture_picture
from attention.teaching.playground import (
    BOUND,
    D_HEAD,
    HeadPoints,
    Playground,
    clamp,
    format_points,
    parse_points,
    playground_from_fit,
)
from view_state import url_params

COMPONENT_KEY = "playground"
NAMES = ("pg_heads", "pg_temp", "pg_keys", "pg_challenge", "pg_q1", "pg_q2", "pg_k1", "pg_k2")
_HERE = Path(__file__).parent / "components"
_draw = st.components.v2.component(
    "head_spaces_playground",
    html='<div class="pg"></div>',
    css=(_HERE / "playground.css").read_text(encoding="utf-8"),
    js=(_HERE / "playground.js").read_text(encoding="utf-8"),
)


def _seq_name(key: str) -> str:
    """Where the number of component `key`'s last positions received is kept: the next
    draw echoes it, so the browser can tell an answer to an earlier send."""
    return f"_{key}_seq"


def _moved_name(key: str) -> str:
    """Where a component outside the playground page keeps its last dragged points."""
    return f"_{key}_moved"


@st.cache_resource
def model_playground() -> Playground:
    """The lecture's fitted heads (seed 0) as the playground starts them; shared, read-only."""
    return playground_from_fit(lecture_picture(0))


def read_link() -> list[str]:
    """Fill each playground value this session lacks from the link (junk → default) and
    return the notices for the junk."""
    missing = tuple(name for name in NAMES if name not in st.session_state)
    values, notices = url_params.read(st.query_params.to_dict(), missing)
    for name in missing:
        st.session_state[name] = values.get(name, url_params.row(name).default)
    return notices


def current_heads(playground: Playground) -> tuple[HeadPoints, ...]:
    """The heads shown, with the positions moved so far (the model's where untouched)."""
    n = len(playground.tokens)
    heads = []
    for number, model in enumerate(playground.heads[: st.session_state["pg_heads"]], 1):
        query, keys = st.session_state[f"pg_q{number}"], st.session_state[f"pg_k{number}"]
        heads.append(
            HeadPoints(
                parse_points(query, 1)[0] if query else model.query,
                parse_points(keys, n) if keys else model.keys,
                model.values,
            )
        )
    return tuple(heads)


def sent_heads(key: str, playground: Playground) -> tuple[HeadPoints, ...] | None:
    """The points a finished drag sent from component `key`, clamped to the plot, one
    HeadPoints per head sent (values as fitted); None for a malformed payload or a
    non-finite number, so nothing non-finite gets in. Remembers the payload's number
    for the next draw of that component."""
    sent = st.session_state[key]["positions"]
    try:
        heads = []
        for query, keys, own in zip(sent["queries"], sent["keys"], playground.heads, strict=False):
            query = np.asarray(query, np.float64).reshape(own.query.shape)
            keys = np.asarray(keys, np.float64).reshape(own.keys.shape)
            if not (np.isfinite(query).all() and np.isfinite(keys).all()):
                return None
            heads.append(HeadPoints(clamp(query), clamp(keys), own.values))
        st.session_state[_seq_name(key)] = int(sent["seq"])
    except (KeyError, TypeError, ValueError):
        return None
    return tuple(heads)


def take_positions() -> None:
    """on_positions_change of the playground page: a finished drag's positions kept to
    the link's four decimals (so the page and a reopened link show the same numbers);
    points left where the model put them stay "" (out of the link)."""
    model = model_playground()
    heads = sent_heads(COMPONENT_KEY, model)
    if heads is None:
        return
    for number, (moved, own) in enumerate(zip(heads, model.heads, strict=False), 1):
        for name, points, start in (
            (f"pg_q{number}", moved.query, own.query),
            (f"pg_k{number}", moved.keys, own.keys),
        ):
            written = format_points(points)
            st.session_state[name] = "" if written == format_points(start) else written


def reset_positions() -> None:
    """Back to the model's own positions in every head."""
    for name in ("pg_q1", "pg_q2", "pg_k1", "pg_k2"):
        st.session_state[name] = ""


def draw(
    playground: Playground,
    heads: tuple[HeadPoints, ...],
    *,
    key: str,
    temperature: float,
    keys_draggable: bool,
    on_positions_change: Callable[[], None],
) -> None:
    """The component under `key`: the heads shown at their current points, redrawn in
    the browser at each frame of a drag; a finished drag calls `on_positions_change`,
    which reads the points with `sent_heads(key, playground)`."""
    values = np.concatenate([h.values for h in playground.heads])
    data = {
        "tokens": list(playground.tokens),
        "query": playground.query_index,
        "bound": BOUND,
        "value_bound": float(np.ceil(np.abs(values).max() * 12) / 10),
        "d_head": D_HEAD,
        "seq": st.session_state.get(_seq_name(key), 0),
        "temperature": temperature,
        "keys_draggable": keys_draggable,
        "heads": [
            {
                "query": head.query.tolist(),
                "keys": head.keys.tolist(),
                "values": head.values.tolist(),
                "color": head_color(h),
            }
            for h, head in enumerate(heads)
        ],
    }
    _draw(key=key, data=data, on_positions_change=on_positions_change)


def draw_page(playground: Playground, heads: tuple[HeadPoints, ...]) -> None:
    """The playground page's component, with the sidebar's temperature and mode."""
    draw(
        playground,
        heads,
        key=COMPONENT_KEY,
        temperature=st.session_state["pg_temp"],
        keys_draggable=st.session_state["pg_keys"],
        on_positions_change=take_positions,
    )


def write_link() -> None:
    """Every playground value into the link; defaults stay out."""
    for name in NAMES:
        url_params.write(st.query_params, name, st.session_state[name])


def moved_heads(key: str, playground: Playground) -> tuple[HeadPoints, ...]:
    """The heads of component `key` as last dragged in this session (the fit's where
    nothing has moved yet)."""
    return st.session_state.get(_moved_name(key), playground.heads)


def keep_in_session(key: str, playground: Playground) -> Callable[[], None]:
    """An on_positions_change for a component outside the playground page: a finished
    drag's points are kept in this session only (nothing in the link), for moved_heads."""

    def keep() -> None:
        heads = sent_heads(key, playground)
        if heads is not None:
            st.session_state[_moved_name(key)] = heads

    return keep
