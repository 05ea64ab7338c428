"""Every chart on the core pages through AppTest: it has an accessible name and a
computed summary under it, and its "Show as table" switch shows the numbers the figure
draws (read from the figure JSON, not from the code that built the table)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention.teaching.markdown import literal
from tests.apptest import (
    array,
    chart,
    chart_keys,
    chart_text,
    grid_maps,
    head_points,
    open_page,
    table_rows,
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
    np.testing.assert_allclose(_weights_by_head(table_rows(at, "heatmap_chart")), maps, atol=5e-4)

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
    np.testing.assert_allclose(
        _weights_by_head(table_rows(at, "grid_chart")), grid[:, FOCUS], atol=5e-4
    )
    lines = _weights_by_head(table_rows(at, "lines_chart"))  # heads 1-4 drawn at first
    np.testing.assert_allclose(lines, grid[:4, FOCUS], atol=5e-4)
    big = grid_maps(chart(at, "big_chart"))[0]
    np.testing.assert_allclose(big, grid[0], atol=1e-6)  # head 1 enlarged at first
    _top_rows_match(table_rows(at, "big_chart"), big)
    mean = grid_maps(chart(at, "mean_chart"))[0]
    _top_rows_match(table_rows(at, "mean_chart"), mean)
    strongest = re.findall(r"” (\d+)%", chart_text(at, "mean_chart")[1])
    assert [int(p) for p in strongest] == [round(100 * w) for w in np.sort(mean.ravel())[::-1][:3]]


@pytest.mark.parametrize("role", [None, "itself"])
def test_real_model_charts_have_summaries_and_tables_of_their_numbers(role):
    query = {"real_role": role} if role else {}
    at = open_page("pages/real_model.py", **query)
    _every_chart_is_named_and_summarised(at, {"real_grid", "real_head_map"})
    _top_rows_match(table_rows(at, "real_head_map"), grid_maps(chart(at, "real_head_map"))[0])
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
