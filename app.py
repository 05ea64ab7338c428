"""Head Spaces: the Streamlit script — page navigation, theme and page CSS, nothing else.
main.py serves it inside st.App with the live class's routes; AppTest runs it directly.
Every page draws the shared sidebar itself (ui.sidebar.scenario_sidebar)."""

import streamlit as st

from attention.core.process_tuning import tune_process
from ui.media import report_media
from ui.navigation import app_pages, join_link, mark_entry, to_the_class
from ui.page_style import page_style


@st.cache_resource
def _tune_process() -> dict[str, bool]:
    # .streamlit/config.toml keeps the legacy `pages/` mode's file list out of the sidebar
    # of a fresh server's first run; every run through here shows the app's navigation.
    st.set_option("client.showSidebarNavigation", True)
    return tune_process(blas_threads=1)


st.set_page_config(page_title="Head Spaces", page_icon=":material/scatter_plot:", layout="wide")
_tune_process()
page_style()
report_media(narrow_first=join_link())
page = st.navigation(app_pages())
to_the_class(page)
mark_entry()
page.run()
