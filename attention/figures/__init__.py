"""Plotly figure builders, one module per view (head spaces, attention maps, real model,
block, why heads, heads off, lesson) over a small shared base (grid, theme, margins,
palette, text, tiles): pure functions that only draw, arrays in, go.Figure out; and the
pages' tables."""
