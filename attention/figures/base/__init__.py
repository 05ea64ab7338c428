"""The figure builders' shared base: grid, theme, margins, palette, text, tiles, points, checks."""
