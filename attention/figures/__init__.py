"""Plotly figure builders by kind of view — heatmaps, spaces (2-D points), lines, curves —
and the pages' tables: pure functions, arrays in, go.Figure (or table rows) out."""
