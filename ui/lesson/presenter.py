"""The Lesson's CSS: presenter mode's type and chart height on a projector, and the
navigation row on a phone."""

from __future__ import annotations

import streamlit as st

from ui.media import report_small_window

PRESENTER_FONT_SCALE = 1.3
# Presenter mode: bigger type, less padding, and the step's figure as tall as the window
# allows. `.st-key-<key>` is the class Streamlit documents for a keyed container; the
# browser tests check that every step then fits 1280×720 and 1920×1080 without scrolling,
# before and after the reveal. The root size grows with the window (the theme's 17 px
# at 1280×720, 25.5 px at 1920×1080), and every size here is in rem, so a projector's
# larger screen gets larger type and the same layout instead of empty space.
PRESENTER_CSS = """<style>
html {font-size: max(17px, min(1.328125vw, 2.36111vh)) !important;}
[data-testid="stHeader"] {height: 3.75rem;}
[data-testid="stMainBlockContainer"] {padding-top: 3.8rem; padding-bottom: 0;}
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li
{font-size: 1.08rem; line-height: 1.45;}
[data-testid="stMainBlockContainer"] h2 {font-size: 1.65rem; padding: 0.1rem 0 0.3rem 0;}
[data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] {gap: 0.55rem;}
.st-key-lesson_notice {gap: 0.3rem !important;}
.st-key-lesson_notice p {font-size: 0.98rem; line-height: 1.32;}
.st-key-lesson_words [data-testid="stAlert"] > div {padding: 0.45rem 0.7rem;}
.st-key-lesson_words [data-testid="stAlert"] p {font-size: 0.98rem; line-height: 1.32;}
.st-key-lesson_view [data-testid="stElementContainer"],
.st-key-lesson_view [data-testid="stFullScreenFrame"],
.st-key-lesson_view [data-testid="stPlotlyChart"] {height: calc(100dvh - CHART_REMrem) !important;}
.st-key-lesson_view [data-testid="stElementContainer"] {flex: 0 0 auto !important;
  overflow: hidden;}
</style>"""


CHART_REM = 9.2  # the presenter's chart: the window's height less this many rem
PRESENTER_CSS = PRESENTER_CSS.replace("CHART_REM", str(CHART_REM))


# ... 563 px in the smallest window a lesson is laid out for, 1280×720 (17-px rem): the
# gaps between a figure's rows of panels hold their texts there (lesson.for_slides).
LEAST_CHART_PX = int(720 - CHART_REM * 17)


def presenter_style() -> None:
    """The presenter's CSS, and the window's width asked (ui.media.small_window)."""
    st.html(PRESENTER_CSS)
    report_small_window()


NAVIGATION_KEY = "lesson_nav"
# On a phone Streamlit stacks columns one per line: the step, Back, Next, the picker and
# the presenter switch took 280 of 844 px. Under 640 px they wrap instead: the step with
# Back and Next, then the picker across the whole width (beside the switch it cut every
# title), then the switch (beside the picker its label was cut to "Prese…").
PHONE_NAVIGATION_CSS = """<style>
@media (max-width: 640px) {
.st-key-lesson_nav [data-testid="stHorizontalBlock"] {flex-wrap: wrap; row-gap: 0.5rem;}
.st-key-lesson_nav [data-testid="stColumn"] {min-width: 0 !important; width: auto !important;
  flex: 1 1 26% !important;}
.st-key-lesson_nav [data-testid="stColumn"]:nth-child(n+4) {flex-basis: 100% !important;}
}
</style>"""


def phone_navigation_style() -> None:
    """The Lesson's navigation row kept compact on a phone (PHONE_NAVIGATION_CSS)."""
    st.html(PHONE_NAVIGATION_CSS)
