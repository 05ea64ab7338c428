"""CSS the app adds to every page: a focus ring a keyboard user can see, display formulas
that wrap on a narrow screen instead of scrolling sideways, and on a touch screen no
chart toolbar and room above a table for its own. Streamlit makes a too-wide formula a
scroll box that a keyboard cannot reach (axe: scrollable-region-focusable), and KaTeX's
glyphs overhang their box by a pixel or two, which already counts as scrolling at full
width. A collapsed sidebar is hidden, not just moved off the screen, so that Tab and a
screen reader skip it."""

import streamlit as st

from ui.charts import SCREEN_READER_PREFIX
from ui.media import REPORTERS

# KaTeX splits a display formula at its top-level relations, operators and \allowbreak;
# `white-space: normal` lets those split points wrap. The padding holds the overhang.
# Focus: Streamlit's own ring is the primary colour at half opacity (about 2:1 on white)
# and its navigation links show none; every keyboard focus gets a solid ring in the
# theme's primary colour #0072B2 instead (5.2:1 on white, 4.8:1 on the sidebar). Switches,
# radio buttons and sliders focus a hidden input: their widget wears the ring.
# tests/browser/test_browser_keyboard.py measures it on every stop of a keyboard walk.
# A touch screen has no hover, so Plotly keeps its mode bar shown there, and its row of
# buttons (224 px wide) lay over the titles of most charts on a phone or a tablet
# (tests/browser/test_browser_layout.py): touch screens go without it; Streamlit's full-screen
# button stays. A table's toolbar (view, download, search, full screen) shows there too,
# 2.75 rem above the table, where the 1 rem row gap held it over the element before
# (a heading, a formula, another table's last row): the table makes 2 rem more room.
# A collapsed sidebar only slides off the screen (Streamlit's transform): Tab went on
# through its ~20 controls, unseen, before the page (tests/browser/test_browser_tab_order.py).
# A chart's outline for a screen reader only (ui.charts.show_chart, words_shown=False): in
# the page and read out, but no noise on screen for everyone.
# Hidden once it has slid away (after Streamlit's 0.3 s), shown at once when it opens;
# its widget labels set their own visibility (label_visibility), hence the `*` rule.
PAGE_CSS = """<style>
:focus-visible {outline: 2px solid #0072B2 !important; outline-offset: 2px;}
[data-testid="stCheckbox"]:has(input:focus-visible),
[data-testid="stRadioOption"]:has(input:focus-visible),
[data-testid="stSlider"]:has(input:focus-visible)
{outline: 2px solid #0072B2; outline-offset: 2px; border-radius: 4px;}
.katex-display > .katex {white-space: normal;}
.katex-display {padding-right: 2px;}
[data-testid="stSidebar"][data-collapsed="true"] {visibility: hidden;
transition: transform 0.3s, min-width 0.3s, max-width 0.3s, visibility 0s 0.3s;}
[data-testid="stSidebar"][data-collapsed="true"] * {visibility: hidden !important;
transition: visibility 0s 0.3s;}
[class*="st-key-SCREEN_READER_PREFIX"] {position: absolute !important; width: 1px !important;
height: 1px !important; margin: -1px; padding: 0; overflow: hidden; clip-path: inset(50%);
white-space: nowrap; border: 0;}
@media (hover: none) {
.js-plotly-plot .modebar-container {display: none;}
.stDataFrame {margin-top: 2rem;}
}
</style>""".replace("SCREEN_READER_PREFIX", SCREEN_READER_PREFIX)
# The media reporters (ui/media.py) draw nothing, yet each element would take a row gap
# at the top of every page (34 px, which shrank the playground's plot): out of the flow.
HIDDEN_CSS = (
    "<style>" + ", ".join(f".st-key-{key}" for key in REPORTERS) + " {display: none;}</style>"
)


def page_style() -> None:
    """Add the app's page CSS (an invisible element; call once per run)."""
    st.html(PAGE_CSS + HIDDEN_CSS)
