"""Head Spaces served: the Streamlit script app.py inside st.App, with the live class's
HTTP routes (classroom.api) beside Streamlit's own. `streamlit run main.py` finds the App
and serves it with uvicorn; `make run`, `make serve`, the Docker image and the browser
tests all start this file. AppTest runs app.py itself."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st

from classroom import open_store
from classroom.api import class_routes

_store = open_store()


@asynccontextmanager
async def _close_store(_app: st.App) -> AsyncIterator[None]:
    yield
    _store.close()


app = st.App("app.py", routes=class_routes(_store), lifespan=_close_store)
