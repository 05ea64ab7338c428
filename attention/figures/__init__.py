"""Plotly figure builders: pure functions, plain arrays in, go.Figure out."""
