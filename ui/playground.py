"""The playground's server side: its state read once from the link through the URL table,
the bidirectional component that draws the heads and takes the drags, the positions a
finished drag sends, and the link written back. The page (pages/playground.py) only
arranges these."""

from __future__ import annotations

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
from ui import url_params

COMPONENT_KEY = "playground"
_SEQ = "_pg_seq"  # the number of the last positions received, echoed to the browser
NAMES = ("pg_heads", "pg_temp", "pg_keys", "pg_challenge", "pg_q1", "pg_q2", "pg_k1", "pg_k2")
_HERE = Path(__file__).parent / "components"
_draw = st.components.v2.component(
    "head_spaces_playground",
    html='<div class="pg"></div>',
    css=(_HERE / "playground.css").read_text(encoding="utf-8"),
    js=(_HERE / "playground.js").read_text(encoding="utf-8"),
)


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


def take_positions() -> None:
    """on_positions_change: a finished drag's positions, clamped and kept to the link's
    four decimals (so the page and a reopened link show the same numbers); points left
    where the model put them stay "" (out of the link). A malformed payload is ignored,
    so nothing non-finite gets in."""
    sent = st.session_state[COMPONENT_KEY]["positions"]
    model = model_playground()
    try:
        st.session_state[_SEQ] = int(sent["seq"])
        moved = zip(sent["queries"], sent["keys"], model.heads, strict=False)
        for number, (query, keys, own) in enumerate(moved, 1):
            for name, points, start in (
                (f"pg_q{number}", query, own.query),
                (f"pg_k{number}", keys, own.keys),
            ):
                points = np.asarray(points, np.float64).reshape(start.shape)
                if not np.isfinite(points).all():
                    return
                written = format_points(clamp(points))
                st.session_state[name] = "" if written == format_points(start) else written
    except (KeyError, TypeError, ValueError):
        return


def reset_positions() -> None:
    """Back to the model's own positions in every head."""
    for name in ("pg_q1", "pg_q2", "pg_k1", "pg_k2"):
        st.session_state[name] = ""


def draw(playground: Playground, heads: tuple[HeadPoints, ...]) -> None:
    """The component: every head shown, redrawn in the browser at each frame of a drag."""
    values = np.concatenate([h.values for h in playground.heads])
    data = {
        "tokens": list(playground.tokens),
        "query": playground.query_index,
        "bound": BOUND,
        "value_bound": float(np.ceil(np.abs(values).max() * 12) / 10),
        "d_head": D_HEAD,
        "seq": st.session_state.get(_SEQ, 0),
        "temperature": st.session_state["pg_temp"],
        "keys_draggable": st.session_state["pg_keys"],
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
    _draw(key=COMPONENT_KEY, data=data, on_positions_change=take_positions)


def write_link() -> None:
    """Every playground value into the link; defaults stay out."""
    for name in NAMES:
        url_params.write(st.query_params, name, st.session_state[name])
