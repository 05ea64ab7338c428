"""Head Spaces served: the Streamlit script app.py inside st.App, with the live class's
HTTP routes (classroom.api) beside Streamlit's own. `streamlit run main.py` finds the App
and serves it with uvicorn; `make run`, `make serve`, the Docker image and the browser
tests all start this file. AppTest runs app.py itself."""

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st

from classroom import open_store
from classroom.api import class_routes
from classroom.events import ClassWatchers, stop_on_signals
from serving.idle_collection import IdleCollector

# A class's Next reruns ~80 screens of a worker at once, and the event loop that starts
# their threads and sends their messages waits for the GIL after each: at Python's default
# 5-ms switch interval the wait is several ms per message. bench_live_class (160 students,
# screens drawn in turn): Next p95 1.10–1.46 s at 5 ms, 0.87 s at 1 ms, 0.78–1.07 s at 0.2 ms.
GIL_SWITCH_SECONDS = 0.0002
sys.setswitchinterval(GIL_SWITCH_SECONDS)
IdleCollector().start()  # full garbage collections between steps, not inside a Next
_store = open_store()
_watchers = ClassWatchers(_store)


@asynccontextmanager
async def _lifespan(_app: st.App) -> AsyncIterator[None]:
    """Open event streams end as soon as the server is told to stop; the store closes last."""
    stop_on_signals(asyncio.get_running_loop(), _watchers.stop)
    yield
    _store.close()


app = st.App("app.py", routes=class_routes(_store, _watchers), lifespan=_lifespan)
