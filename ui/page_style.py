"""CSS the app adds to every page: display formulas wrap on a narrow screen instead of
scrolling sideways. Streamlit makes a too-wide formula a scroll box that a keyboard cannot
reach (axe: scrollable-region-focusable), and KaTeX's glyphs overhang their box by a pixel
or two, which already counts as scrolling at full width."""

import streamlit as st

# KaTeX splits a display formula at its top-level relations, operators and \allowbreak;
# `white-space: normal` lets those split points wrap. The padding holds the overhang.
PAGE_CSS = """<style>
.katex-display > .katex {white-space: normal;}
.katex-display {padding-right: 2px;}
</style>"""


def page_style() -> None:
    """Add the app's page CSS (an invisible element; call once per run)."""
    st.html(PAGE_CSS)
