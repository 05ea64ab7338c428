"""Every chart on the core pages and every Lesson step through AppTest: it has an
accessible name and a computed summary under it, and its "Show as table" switch shows
the numbers the figure draws (read from the figure JSON, not from the code that built
the table)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.teaching.lesson.content import lesson_text
from attention.teaching.markdown import literal
from tests.support.apptest import (
    _chart_block,
    array,
    chart,
    chart_keys,
    chart_text,
    grid_maps,
    head_points,
    open_page,
    table_rows,
    train_small,
)

FOCUS = 4  # "the" in the default sentence "The cat sat on the mat because it was tired."


def _every_chart_is_named_and_summarised(at, expected: set[str]) -> None:
    assert not at.exception
    keys = chart_keys(at)
    assert expected <= set(keys)
    for key in keys:
        name, summary = chart_text(at, key)
        assert name.strip(), key
        assert re.search(r"\d", summary), key  # a computed summary states numbers


def _weights_by_head(rows: list[dict]) -> np.ndarray:
    """A focus-weights table (key, head 1, head 2, …) as (heads, keys)."""
    heads = [c for c in rows[0] if c != "key"]
    return np.array([[r[h] for r in rows] for h in heads])


def _matrices(rows: list[dict]) -> np.ndarray:
    """A matrix table (map, query, one column per key) as (maps, queries, keys); a
    blocked cell ("—") as NaN, as the maps draw it. Cells are markdown ("0\\.25")."""
    keys = [c for c in rows[0] if c not in ("map", "query")]
    names = list(dict.fromkeys(r["map"] for r in rows))
    return np.array(
        [
            [
                [np.nan if r[k] == "—" else float(r[k].replace("\\", "")) for k in keys]
                for r in rows
                if r["map"] == n
            ]
            for n in names
        ]
    )


def _top_rows_match(rows: list[dict], weights: np.ndarray) -> None:
    """A top-weights table (query, rank, key, weight) against a drawn (n_q, n_k) map."""
    for q, row in enumerate(weights):
        mine = [r["weight"] for r in rows[3 * q : 3 * q + 3]]
        np.testing.assert_allclose(mine, np.sort(row)[::-1][:3], atol=5e-4)


def _stated_shares(summary: str) -> list[int]:
    return [int(p) for p in re.findall(r"(\d+)% on “", summary)]


def test_head_spaces_charts_have_summaries_and_tables_of_their_numbers():
    at = open_page("pages/head_spaces.py", heads="2", focus=str(FOCUS))
    _every_chart_is_named_and_summarised(
        at, {"before_chart", "motion_chart", "head_space_chart", "heatmap_chart", "values_chart"}
    )
    maps = grid_maps(chart(at, "heatmap_chart"))[:, FOCUS]  # (heads, keys) as drawn
    summary = chart_text(at, "heatmap_chart")[1]
    assert _stated_shares(summary) == [
        round(100 * w) for row in maps for w in np.sort(row)[::-1][:2]
    ]
    drawn = grid_maps(chart(at, "heatmap_chart"))  # every map's every cell, as in the table
    np.testing.assert_allclose(_matrices(table_rows(at, "heatmap_chart")), drawn, atol=5e-3)

    (keys,) = [t for t in chart(at, "head_space_chart")["data"] if t.get("name") == "keys"]
    drawn = np.array([w for _, (_, w) in sorted(head_points(keys).items())])
    table = _weights_by_head(table_rows(at, "head_space_chart"))
    np.testing.assert_allclose(table, drawn, atol=5e-4)

    (values,) = [t for t in chart(at, "values_chart")["data"] if t.get("name") == "values"]
    drawn = np.array([w for _, (_, w) in sorted(head_points(values).items())])
    np.testing.assert_allclose(_weights_by_head(table_rows(at, "values_chart")), drawn, atol=5e-4)

    tokens = chart(at, "before_chart")["data"][0]
    rows = table_rows(at, "before_chart")
    np.testing.assert_allclose([r["x (PC 1)"] for r in rows], array(tokens["x"]), atol=5e-4)
    np.testing.assert_allclose([r["y (PC 2)"] for r in rows], array(tokens["y"]), atol=5e-4)
    assert [r["token"] for r in rows] == [literal(t) for t in tokens["hovertext"]]  # as markdown


def test_attention_maps_charts_have_summaries_and_tables_of_their_numbers():
    at = open_page("pages/attention_maps.py", focus=str(FOCUS))
    _every_chart_is_named_and_summarised(
        at, {"grid_chart", "big_chart", "mean_chart", "lines_chart"}
    )
    grid = grid_maps(chart(at, "grid_chart"))
    np.testing.assert_allclose(_matrices(table_rows(at, "grid_chart")), grid, atol=5e-3)
    lines = _weights_by_head(table_rows(at, "lines_chart"))  # head 1 drawn at first
    np.testing.assert_allclose(lines, grid[:1, FOCUS], atol=5e-4)
    big = grid_maps(chart(at, "big_chart"))[0]
    np.testing.assert_allclose(big, grid[0], atol=1e-6)  # head 1 enlarged at first
    np.testing.assert_allclose(_matrices(table_rows(at, "big_chart"))[0], big, atol=5e-3)
    mean = grid_maps(chart(at, "mean_chart"))[0]
    np.testing.assert_allclose(_matrices(table_rows(at, "mean_chart"))[0], mean, atol=5e-3)
    strongest = re.findall(r"” (\d+)%", chart_text(at, "mean_chart")[1])
    assert [int(p) for p in strongest] == [round(100 * w) for w in np.sort(mean.ravel())[::-1][:3]]


@pytest.mark.parametrize("role", [None, "itself"])
def test_real_model_charts_have_summaries_and_tables_of_their_numbers(role):
    query = {"real_role": role} if role else {}
    at = open_page("pages/real_model.py", **query)
    _every_chart_is_named_and_summarised(at, {"real_grid", "real_head_map"})
    drawn = grid_maps(chart(at, "real_head_map"))[0]
    np.testing.assert_allclose(_matrices(table_rows(at, "real_head_map"))[0], drawn, atol=5e-3)
    rows = table_rows(at, "real_grid")
    assert len(rows) == 72 and (rows[0]["layer"], rows[0]["head"]) == (1, 1)
    summary = chart_text(at, "real_grid")[1]
    if role is None:
        return
    above = [
        float(a["text"])
        for a in chart(at, "real_grid")["layout"]["annotations"]
        if re.fullmatch(r"\d\.\d\d", a.get("text", ""))
    ]
    np.testing.assert_allclose([r[role] for r in rows], above, atol=5e-3)
    best = np.sort(above)[::-1][:3]
    assert [int(p) for p in re.findall(r"\((\d+)%\)", summary)] == [round(100 * b) for b in best]


def _columns(rows: list[dict], *names: str) -> np.ndarray:
    """Table columns as an array (len(names), rows)."""
    return np.array([[r[name] for r in rows] for name in names], dtype=float)


def _percents(text: str) -> list[str]:
    """The percentages a sentence states, as written ("50%", ">99%")."""
    return re.findall(r"[<>]?\d+%", text)


def _as_stated(share: float) -> str:
    """A share as the app must state it: rounded, but a part is never "100%"."""
    return ">99%" if 0.99 < share < 1 else f"{round(100 * share)}%"


def _states(stated: str, drawn: float) -> bool:
    """Whether a stated whole percentage fits a share a chart draws to 4 decimals (a
    share just under 1, stated ">99%", may be drawn as 1)."""
    return 0.99 < drawn <= 1 if stated == ">99%" else stated == _as_stated(drawn)


def test_why_heads_charts_have_summaries_and_tables_of_their_numbers():
    at = train_small(open_page("pages/why_heads.py"), seeds=True)
    _every_chart_is_named_and_summarised(
        at,
        {
            "wh_cost_bars",
            "wh_cost_length",
            "wh_two_targets",
            "wh_two_curves",
            "wh_rank_error",
            "wh_rank_sv",
            "wh_rank_patterns",
            "wh_loss",
            "wh_head_maps",
            "wh_seed_spread",
            "wh_slicing",
            "wh_slice_share",
        },
    )
    params, projection, score = (array(t["x"]) for t in chart(at, "wh_cost_bars")["data"])
    rows = table_rows(at, "wh_cost_bars")
    np.testing.assert_array_equal([r["parameters"] for r in rows], params)
    np.testing.assert_array_equal([r["MACs: total"] for r in rows], projection + score)

    rows = table_rows(at, "wh_cost_length")
    for line in chart(at, "wh_cost_length")["data"]:
        np.testing.assert_allclose([r[line["name"]] for r in rows], array(line["y"]))
        np.testing.assert_array_equal([r["n"] for r in rows], array(line["x"]))

    bars = chart(at, "wh_two_targets")
    drawn = np.array([array(t["y"]) for t in bars["data"]])  # one head, head 1, head 2
    rows = table_rows(at, "wh_two_targets")
    table = _columns(rows, "one head", "head 1 of two", "head 2 of two")
    np.testing.assert_allclose(table, drawn, atol=5e-4)
    a, b = (round(s["x0"] + 0.5) for s in bars["layout"]["shapes"][:2])  # shaded targets
    stated = _percents(chart_text(at, "wh_two_targets")[1])
    assert stated == [_as_stated(w) for w in (drawn[0, a], drawn[0, b], drawn[1, a], drawn[2, b])]

    curves = chart(at, "wh_two_curves")["data"]
    rows = table_rows(at, "wh_two_curves")
    for line in curves:
        np.testing.assert_allclose([r[line["name"]] for r in rows], array(line["y"]), atol=5e-4)
    ends = re.findall(r"ends at (\d\.\d+)|heads at (\d\.\d+)", chart_text(at, "wh_two_curves")[1])
    assert [float(x or y) for x, y in ends] == [round(array(c["y"])[-1], 3) for c in curves]

    drawn = grid_maps(chart(at, "wh_rank_patterns"))  # the target, then the fitted patterns
    np.testing.assert_allclose(_matrices(table_rows(at, "wh_rank_patterns")), drawn, atol=5e-3)

    (error,) = chart(at, "wh_rank_error")["data"]
    rows = table_rows(at, "wh_rank_error")
    np.testing.assert_allclose(_columns(rows, "error (nats)")[0], array(error["y"]), atol=5e-4)
    np.testing.assert_allclose(
        _columns(rows, "misplaced (%)")[0], array(error["customdata"]), atol=5e-4
    )

    (staircase,) = chart(at, "wh_rank_sv")["data"]
    z = array(staircase["z"]).reshape(len(array(staircase["y"])), -1)
    rows = table_rows(at, "wh_rank_sv")
    filled = (~np.isnan(z)).sum(axis=1)  # the staircase's drawn cells per d_head
    assert [r["rank"] for r in rows] == filled.tolist()
    stated = re.findall(r"(\d+) at d_head = \d+", chart_text(at, "wh_rank_sv")[1])
    assert [int(s) for s in stated] == filled.tolist()
    sigma = array(staircase["customdata"]).reshape(z.shape)
    table = [[r[literal(f"σ_{i + 1}")] for i in range(z.shape[1])] for r in rows]
    np.testing.assert_allclose(table, sigma, atol=5e-4)  # the hover shows 3 decimals

    rows = table_rows(at, "wh_slice_share")
    names = list(dict.fromkeys(r[literal("W_Q")] for r in rows))  # one per panel, in panel order
    for name, bars in zip(names, chart(at, "wh_slice_share")["data"], strict=True):
        mine = [r["own slice (%)"] for r in rows if r[literal("W_Q")] == name]
        np.testing.assert_allclose(mine, array(bars["y"]), atol=5e-4)

    raw = chart(at, "wh_loss")["data"][::2]  # faint raw loss, then its running mean
    rows = table_rows(at, "wh_loss")
    labels = [c for c in rows[0] if c != "step"]
    assert labels == [t["name"] for t in chart(at, "wh_loss")["data"][1::2]]
    for label, line in zip(labels, raw, strict=True):
        np.testing.assert_allclose([r[label] for r in rows], array(line["y"]), atol=5e-4)
    ends = [float(m) for m in re.findall(r": (\d\.\d{3})", chart_text(at, "wh_loss")[1])]
    smooth = [array(t["y"])[-1] for t in chart(at, "wh_loss")["data"][1::2]]
    np.testing.assert_allclose(ends, smooth, atol=6e-4)

    rows = table_rows(at, "wh_head_maps")
    variants = list(dict.fromkeys(r["variant"] for r in rows))  # in the panels' order
    panels = chart(at, "wh_head_maps")["data"]
    assert len(variants) == len(panels)
    for variant, panel in zip(variants, panels, strict=True):
        z = array(panel["z"]).reshape(len(panel["y"]), -1)  # (heads, keys) as drawn
        mine = [r for r in rows if r["variant"] == variant]
        np.testing.assert_allclose(_columns(mine, *panel["y"]), z, atol=5e-4)

    (first, *_) = chart(at, "wh_seed_spread")["data"]
    rows = [r for r in table_rows(at, "wh_seed_spread") if r["variant"] == literal(first["name"])]
    np.testing.assert_allclose([r["accuracy (%)"] for r in rows], array(first["x"]), atol=5e-4)


@pytest.mark.slow  # ablation: the page scores the task with every head on
def test_heads_needed_charts_have_summaries_and_tables_of_their_numbers():
    at = open_page("pages/heads_needed.py", heads_off="6.12", focus="2")
    _every_chart_is_named_and_summarised(
        at, {"heads_switches", "heads_importance", "heads_rollout"}
    )
    (switches,) = chart(at, "heads_switches")["data"]
    rows = table_rows(at, "heads_switches")
    assert [(r["layer"], r["head"]) for r in rows] == list(
        zip(array(switches["y"]).astype(int), array(switches["x"]).astype(int), strict=True)
    )
    on = np.array(switches["customdata"]) == "on"
    assert [r["on (1) or off (0)"] for r in rows] == on.astype(float).tolist()
    per_layer = on.reshape(6, 12).sum(axis=1)  # MiniLM: 6 layers × 12 heads
    assert chart_text(at, "heads_switches")[1].endswith(", ".join(map(str, per_layer)) + ".")

    (cells,) = chart(at, "heads_importance")["data"]
    z = array(cells["z"]).ravel()
    rows = table_rows(at, "heads_importance")
    column = next(c for c in rows[0] if c not in ("layer", "head"))
    np.testing.assert_allclose([r[column] for r in rows], z, atol=5e-4)
    assert np.isnan(z[5 * 12 + 11])  # head 6.12 is off, blank in both
    stated = [
        float(v)
        for v in re.findall(r"head \d+ \((-?\d\.\d+)\)", chart_text(at, "heads_importance")[1])
    ]
    ranked = np.sort(z[~np.isnan(z)])[::-1]
    np.testing.assert_allclose(stated, [*ranked[:3], *ranked[::-1][:3]], atol=6e-5)

    raw, rolled = (array(t["z"]) for t in chart(at, "heads_rollout")["data"])
    rows = table_rows(at, "heads_rollout")
    np.testing.assert_allclose(_columns(rows, "raw attention")[0], raw.ravel(), atol=5e-4)
    np.testing.assert_allclose(_columns(rows, "rollout")[0], rolled.ravel(), atol=5e-4)


def test_block_charts_have_summaries_and_tables_of_their_numbers():
    at = open_page("pages/block.py")
    _every_chart_is_named_and_summarised(
        at,
        {
            "block_concat",
            "block_reads",
            "block_norms",
            "block_hidden",
            "block_real_ratios",
            "block_real_paths",
            "block_collapse",
            "block_collapse_pca",
            "block_encoder",
            "block_decoder",
            "block_cross",
            "block_joint",
        },
    )
    bars = chart(at, "block_norms")["data"]  # per sublayer: ‖stream‖, then ‖update‖
    rows = table_rows(at, "block_norms")
    sublayers = list(dict.fromkeys(r["sublayer"] for r in rows))
    for s, name in enumerate(sublayers):
        mine = [r for r in rows if r["sublayer"] == name]
        for column, drawn in zip(("‖stream‖", "‖update‖"), bars[2 * s : 2 * s + 2], strict=True):
            np.testing.assert_allclose([r[column] for r in mine], array(drawn["y"]), atol=5e-4)
        ratios = [r["‖update‖ / ‖stream‖"] for r in mine]
        stated = re.search(rf"{name}: median (\d\.\d\d)", chart_text(at, "block_norms")[1])
        assert float(stated.group(1)) == pytest.approx(np.median(ratios), abs=6e-3)

    lines = chart(at, "block_real_ratios")["data"]
    rows = table_rows(at, "block_real_ratios")
    for band, median in (lines[0:2], lines[2:4]):
        sublayer = median["name"].split(":")[0]
        high, low = np.split(array(band["y"]), 2)
        np.testing.assert_allclose(
            _columns(rows, f"{sublayer}: median")[0], array(median["y"]), atol=5e-4
        )
        np.testing.assert_allclose(
            _columns(rows, f"{sublayer}: 90th percentile")[0], high, atol=5e-4
        )
        np.testing.assert_allclose(
            _columns(rows, f"{sublayer}: 10th percentile")[0], low[::-1], atol=5e-4
        )

    points = chart(at, "block_real_paths")["data"][1:]  # after the grey path lines
    rows = table_rows(at, "block_real_paths")
    drawn = np.concatenate([np.column_stack([array(p["x"]), array(p["y"])]) for p in points])
    np.testing.assert_allclose(_columns(rows, "x", "y").T, drawn, atol=5e-4)

    curves = chart(at, "block_collapse")["data"]
    rows = table_rows(at, "block_collapse")
    for curve in curves:
        np.testing.assert_allclose(
            [r[curve["name"]] for r in rows], array(curve["customdata"]), rtol=1e-3
        )

    rows = table_rows(at, "block_collapse_pca")
    drawn = [
        np.column_stack([array(p["x"]), array(p["y"])])
        for p in chart(at, "block_collapse_pca")["data"]
    ]
    np.testing.assert_allclose(
        _columns(rows, "x", "y").T, np.concatenate(drawn), atol=5e-4, rtol=5e-3
    )

    for kind in ("encoder", "decoder", "cross"):
        drawn = grid_maps(chart(at, f"block_{kind}"))  # masked cells are NaN, "—" in the table
        np.testing.assert_allclose(_matrices(table_rows(at, f"block_{kind}")), drawn, atol=5e-3)
        maps = np.nan_to_num(drawn)
        stated = re.findall(r"” ([<>]?\d+%)", chart_text(at, f"block_{kind}")[1])
        assert len(stated) == len(maps)
        assert all(_states(p, m.max()) for p, m in zip(stated, maps, strict=True))
    cross = np.nan_to_num(grid_maps(chart(at, "block_cross")))
    _top_rows_match(table_rows(at, "block_joint"), cross[0])  # head 1 in the picture at first


LESSON_STEPS = [step.id for step in lesson_text()]


@pytest.mark.parametrize("number", range(1, len(LESSON_STEPS) + 1))
def test_every_lesson_chart_is_named_summarised_and_has_a_table(number):
    at = open_page("pages/lesson.py", step=str(number))
    key = f"lesson_view_{LESSON_STEPS[number - 1]}"
    _every_chart_is_named_and_summarised(at, {key})
    name, summary = chart_text(at, key)
    assert name.startswith(f"Step {number}: ")
    assert not re.search(r"\d[eE][+-]?\d", summary)  # read aloud: no e-notation
    figure = chart(at, key)
    drawn = [t for t in figure["data"] if t.get("hoverinfo") != "skip"]
    counts = re.findall(r"([\d,]+) (?:points?|bars?)\b", summary)
    sized = [t for t in drawn if t.get("type", "scatter") in ("scatter", "scattergl", "bar")]
    assert [int(c.replace(",", "")) for c in counts] == [
        len([v for v in (t["x"] if t.get("orientation") == "h" else t["y"]) if v is not None])
        for t in sized
    ]
    assert table_rows(at, key), "the table shows the drawn numbers"


def _number(cell: object) -> float:
    """A table cell as a number (text cells are escaped as markdown: "0\\.231")."""
    return float(str(cell).replace("\\", ""))


def _cells(rows: list[dict], column: str) -> np.ndarray:
    return np.array([_number(r[column]) for r in rows])


def test_lesson_tables_hold_the_numbers_their_charts_draw():
    at = open_page("pages/lesson.py", step=str(LESSON_STEPS.index("points") + 1))
    tokens = chart(at, "lesson_view_points")["data"][0]
    rows = table_rows(at, "lesson_view_points")
    np.testing.assert_allclose(_cells(rows, "x"), array(tokens["x"]), atol=5e-4)
    np.testing.assert_allclose(_cells(rows, "y"), array(tokens["y"]), atol=5e-4)

    at = open_page("pages/lesson.py", step=str(LESSON_STEPS.index("distances") + 1))
    (bars,) = [t for t in chart(at, "lesson_view_distances")["data"] if t.get("type") == "bar"]
    values = _cells(table_rows(at, "lesson_view_distances"), "value")
    np.testing.assert_allclose(
        values, array(bars["x"] if bars.get("orientation") == "h" else bars["y"]), atol=5e-4
    )

    at = open_page("pages/lesson.py", step=str(LESSON_STEPS.index("by_hand") + 1))
    left = chart(at, "lesson_view_by_hand")["data"][0]
    rows = table_rows(at, "lesson_view_by_hand")
    query = rows[0]  # the query's row comes first, before the keys
    assert str(query["row"]).startswith("query of")
    z = np.array(left["z"][0], dtype=float)
    np.testing.assert_allclose([_number(query[str(c)]) for c in range(1, 17)], z, atol=5e-4)


@pytest.mark.parametrize(
    "path",
    [
        "pages/home.py",
        "pages/head_spaces.py",
        "pages/attention_maps.py",
        "pages/why_heads.py",
        "pages/real_model.py",
        "pages/block.py",
    ],
)
def test_every_keyed_chart_has_a_show_as_table_switch(path):
    at = open_page(path)
    assert not at.exception
    keys = chart_keys(at)
    assert keys
    switches = {toggle.key for toggle in at.toggle}
    assert [k for k in keys if f"{k}_table" not in switches] == []


def test_matrix_charts_tables_hold_the_drawn_cells_and_say_what_they_cut():
    at = open_page("pages/block.py")
    concat = chart(at, "block_concat")["data"][0]  # (tokens, h · d_head) before W_O
    rows = [r for r in table_rows(at, "block_concat") if r["drawn"] == concat["name"]]
    z = np.array(concat["z"], dtype=float)
    shown = [c for c in rows[0] if c not in ("drawn", "row") and rows[0][c] != ""]
    assert len(rows) == z.shape[0] and len(shown) == min(24, z.shape[1])
    np.testing.assert_allclose(
        [[_number(r[c]) for c in shown] for r in rows], z[:, : len(shown)], atol=5e-4
    )
    note = _table_note(at, "block_concat")
    assert f"the first 24 of the {z.shape[1]} columns" in note

    hidden = chart(at, "block_hidden")["data"][0]
    rows = table_rows(at, "block_hidden")
    z = np.array(hidden["z"], dtype=float)
    np.testing.assert_allclose(
        [_number(rows[0][str(c)]) for c in range(1, 25)], z[0, :24], atol=5e-4
    )
    assert f"of the {z.shape[1]:,} columns" in _table_note(at, "block_hidden")


def _table_note(at, key: str) -> str:
    """The caption right under a chart's table (its note on what the table cuts)."""
    children, i = _chart_block(at, key)
    after = children[i + 1 :]
    table = next(j for j, c in enumerate(after) if getattr(c, "type", None) == "table")
    note = after[table + 1] if table + 1 < len(after) else None
    return note.value if getattr(note, "type", None) == "caption" else ""
