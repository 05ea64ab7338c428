"""Head Spaces served: the Streamlit script app.py inside st.App, with the live class's
HTTP routes (classroom.api) beside Streamlit's own. `streamlit run main.py` finds the App
and serves it with uvicorn; `make run`, `make serve`, the Docker image and the browser
tests all start this file. AppTest runs app.py itself."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st

from classroom import open_store
from classroom.api import class_routes
from classroom.events import ClassWatchers, stop_on_signals

_store = open_store()
_watchers = ClassWatchers(_store)


@asynccontextmanager
async def _lifespan(_app: st.App) -> AsyncIterator[None]:
    """Open event streams end as soon as the server is told to stop; the store closes last."""
    stop_on_signals(asyncio.get_running_loop(), _watchers.stop)
    yield
    _store.close()


app = st.App("app.py", routes=class_routes(_store, _watchers), lifespan=_lifespan)
