"""A Lesson chart's table and text alternative read from the figure dict alone: points,
bars, heatmap rows (gaps left out, capped), Plotly tables; tiny numbers without
e-notation; guide lines without hover left out; no token named in the outline."""

from __future__ import annotations

from attention.figures.drawn_tables import MAX_COLUMNS, MAX_ROWS, cut_parts, figure_rows
from attention.teaching.narration.charts import table_cut_note
from attention.teaching.narration.lesson import chart_outline

SPEC = {
    "data": [
        {"type": "scatter", "x": [0.5, 2.0], "y": [2.4e-16, 1.0], "text": ["cat", "<b>mat</b>"]},
        {"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines", "hoverinfo": "skip"},
        {"type": "bar", "orientation": "h", "x": [3.0, 1.5], "y": ["unit 1", "unit 2"]},
        {
            "type": "heatmap",
            "z": [[1, 2], [None, None], [3, 40000.0]],
            "x": [1, 2],
            "y": ["a", "", "b"],
        },
        {
            "type": "table",
            "header": {"values": ["<b>key</b>", "weight"]},
            "cells": {"values": [["cat", "mat"], ["0.25", "0.75"]]},
        },
    ]
}


def test_rows_are_the_drawn_numbers():
    rows = figure_rows(SPEC)
    points, bars, cells, table = rows[:2], rows[2:4], rows[4:6], rows[6:]
    assert [(p["label"], p["x"], p["y"]) for p in points] == [
        ("cat", 0.5, "2.40 × 10⁻¹⁶"),
        ("mat", 2.0, 1.0),
    ]
    assert [(b["label"], b["value"]) for b in bars] == [("unit 1", 3.0), ("unit 2", 1.5)]
    assert [(c["row"], c["1"], c["2"]) for c in cells] == [("a", 1, 2), ("b", 3, "4.00 × 10⁴")]
    assert table == [{"key": "cat", "weight": "0.25"}, {"key": "mat", "weight": "0.75"}]


def test_long_traces_are_capped():
    spec = {"data": [{"type": "scatter", "x": list(range(500)), "y": list(range(500))}]}
    assert len(figure_rows(spec)) == MAX_ROWS


def test_the_outline_counts_and_ranges_without_naming_tokens():
    outline = chart_outline(SPEC, 60, 24)
    assert outline.startswith(
        "The chart draws 2 points (x from 0.5 to 2, y from 2.4 × 10⁻¹⁶ to 1); "
        "2 bars from 1.5 to 3; a map of 3 × 2 cells, values from 1 to 4.0 × 10⁴; "
        "a table of 2 rows × 2 columns."
    )
    assert "cat" not in outline and "e-" not in outline
    assert chart_outline({"data": []}, 60, 24) == "The chart draws no numbers."


def test_only_maps_larger_than_the_table_are_noted_with_their_sizes():
    wide = {"type": "heatmap", "z": [[0.0] * 30] * 3}
    tall = {"type": "heatmap", "z": [[0.0] * 2] * 70}
    small = {"type": "heatmap", "z": [[0.0] * 2] * 2}
    guide = {"type": "heatmap", "z": [[0.0] * 99], "hoverinfo": "skip"}
    many = {"type": "scatter", "x": list(range(512)), "y": list(range(512))}
    few = {"type": "scatter", "x": [1, 2], "y": [3, 4]}
    cut = cut_parts({"data": [wide, small, tall, guide, many, few]})
    assert cut == [(3, 30), (70, 2), (512, 0)]
    assert table_cut_note(cut, MAX_ROWS, MAX_COLUMNS) == (
        "The table lists the first 24 of the 30 columns of the map of 3 × 30 cells; "
        "the first 60 of the 70 rows of the map of 70 × 2 cells; "
        "the first 60 of a trace's 512 marks."
    )
    assert len(figure_rows({"data": [many]})) == MAX_ROWS
    assert table_cut_note(cut_parts({"data": [small]}), MAX_ROWS, MAX_COLUMNS) is None
