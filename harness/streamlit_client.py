"""A browser tab without a browser: speaks Streamlit's websocket protocol (the BackMsg and
ForwardMsg protobufs of the installed `streamlit` package) the way its frontend does, so a
load benchmark can run dozens of students from one process.

What it copies from the frontend (checked against Streamlit 1.67's JavaScript): the HTTP
requests before the socket (the page, /_stcore/health, /_stcore/host-config, keeping
cookies, so a sticky proxy sees what a browser sends), the subprotocols `streamlit,
<token>[, previous session id]`, every rerun carrying the query string, the states of all
widgets on the page and the hashes of the cached elements it holds (answered with
`ref_hash` references), the cache's expiry after two runs, reconnecting after a lost
socket by pinging /_stcore/health first, and a widget inside an `st.fragment` rerunning
that fragment only (its id in the request; the rest of the page kept as it was).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import time
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

MAX_CACHED_MESSAGE_AGE = 2  # global.maxCachedMessageAge: runs a cached element survives
DONE = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "ok",
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "ok",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error",
}
_CLOSED = object()  # put on the inbox when the socket closes
# A components.v2 component's trigger values travel in one widget: this prefix, the
# component's id, "__events" (streamlit.components.v2.bidi_component.main._make_trigger_id).
_COMPONENT_TRIGGERS = "$$STREAMLIT_INTERNAL_KEY_{}__events"


@dataclass
class Run:
    """One script run as the tab saw it: how long from request to script_finished, the
    element kinds it drew (in order, cached references resolved), how it ended, and the
    query string the server left in the address bar."""

    seconds: float
    status: str  # "ok", "exception" (an st.exception on the page), "disconnected", "timeout", …
    elements: list[str] = field(default_factory=list)
    query_string: str = ""
    texts: list[str] = field(default_factory=list)  # the markdown (and captions) drawn

    @property
    def charts(self) -> int:
        return self.elements.count("plotly_chart")

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def element_kinds(messages: list[ForwardMsg]) -> list[str]:
    """The kinds of the elements a run's messages leave on the page, in order (shared with
    the test that compares this client with the browser's own frames). A place written
    twice in one run, as a placeholder is, counts once, as its last write: the server's
    queue merges such writes or not depending on timing."""
    kinds: dict[tuple[int, ...], str] = {}
    for msg in messages:
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            kinds[tuple(msg.metadata.delta_path)] = msg.delta.new_element.WhichOneof("type")
    return list(kinds.values())


def _initial_state(kind: str, proto) -> WidgetState | None:
    """The state the frontend gives a widget when it first draws it (its value when the
    script set one, else its default); None for kinds a student never sends."""
    state = WidgetState(id=proto.id)
    if kind == "slider":
        if proto.type == Slider.SELECT_SLIDER:
            labels = (
                proto.raw_value
                if proto.set_value
                else [proto.options[int(i)] for i in proto.default]
            )
            state.string_array_value.data[:] = list(labels)
        else:
            state.double_array_value.data[:] = list(
                proto.value if proto.set_value else proto.default
            )
    elif kind == "checkbox":
        state.bool_value = proto.value if proto.set_value else proto.default
    elif kind == "number_input":
        value = proto.value if proto.set_value else proto.default
        if proto.data_type == proto.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind in ("selectbox", "radio"):
        if proto.set_value:
            state.string_value = proto.raw_value
        elif proto.HasField("default"):
            state.string_value = proto.options[proto.default]
        else:
            return None
    elif kind in ("text_area", "text_input"):
        state.string_value = proto.value if proto.set_value else proto.default
    else:
        return None
    return state


class StreamlitTab:
    """One student's tab on one page. `open()` loads the page; `set(key, value)` moves a
    widget and `click(key)` presses a button, each returning the Run it caused."""

    def __init__(self, base_url: str, page: str, query: str = "", timeout: float = 60.0):
        self.base_url = base_url.rstrip("/")
        self.page = page
        self.query_string = query
        self.timeout = timeout
        self.session_id = ""
        self.reconnects = 0
        self._cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self._cookies)
        )
        self._ws: ClientConnection | None = None
        self._inbox: asyncio.Queue = asyncio.Queue()
        self._reader: asyncio.Task | None = None
        self._page_hash = ""
        self._widgets: dict[str, tuple[str, object]] = {}  # id -> (kind, proto), this page
        self._fragment_of: dict[str, str] = {}  # widget id -> its fragment's id ("" for none)
        self._finished_as = 0  # the last run's script_finished status
        self._states: dict[str, WidgetState] = {}  # id -> the state the tab would send
        self._cache: dict[str, list] = {}  # hash -> [message, run it was last used in]
        self._runs_done = 0
        self._run_started = False

    @property
    def connected(self) -> bool:
        return self._ws is not None

    # -- HTTP and the socket ---------------------------------------------------------

    def _get(self, path: str) -> bytes:
        with self._opener.open(self.base_url + path, timeout=self.timeout) as response:
            return response.read()

    def cookie(self, name: str) -> str:
        """The value of the tab's cookie `name` (a proxy's route cookie, say), or ''."""
        return next((c.value for c in self._cookies if c.name == name), "")

    def cookie_header(self) -> str:
        """The Cookie header the tab's browser would send (its proxy route included)."""
        request = urllib.request.Request(self.base_url + "/")
        self._cookies.add_cookie_header(request)
        return request.get_header("Cookie") or ""

    async def _connect(self) -> None:
        await asyncio.to_thread(self._get, "/_stcore/health")
        await asyncio.to_thread(self._get, "/_stcore/host-config")
        url = urlsplit(self.base_url)
        scheme = "wss" if url.scheme == "https" else "ws"
        protocols = ["streamlit", self.cookie("_streamlit_xsrf") or "PLACEHOLDER_AUTH_TOKEN"]
        if self.session_id:
            protocols.append(self.session_id)
        headers = {"Cookie": cookie} if (cookie := self.cookie_header()) else None
        self._ws = await connect(
            f"{scheme}://{url.netloc}{url.path}/_stcore/stream",
            subprotocols=protocols,
            origin=f"{url.scheme}://{url.netloc}",
            additional_headers=headers,
            max_size=None,
            proxy=None,
            open_timeout=self.timeout,
        )
        self._inbox = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(self._ws))

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for data in ws:
                msg = ForwardMsg()
                msg.ParseFromString(data)
                self._inbox.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None
            self._inbox.put_nowait(_CLOSED)

    async def open(self) -> Run:
        """Load the page as a fresh tab: GET it (a proxy may set its cookie here), then
        health, host-config, the socket and the first run."""
        start = time.perf_counter()
        suffix = f"?{self.query_string}" if self.query_string else ""
        await asyncio.to_thread(self._get, f"/{self.page}{suffix}")
        await self._connect()
        return await self._rerun(start, first=True)

    async def reconnect(self, deadline: float = 30.0) -> float:
        """Do what the frontend does after a lost socket: ping /_stcore/health until it
        answers, then open a socket offering the old session id. Returns the seconds it
        took; a proxy may land it on another server, which starts a new session."""
        start = time.perf_counter()
        delay = 0.2
        while True:
            try:
                await self._connect()
                break
            except (OSError, ConnectionClosed, TimeoutError):
                if time.perf_counter() - start > deadline:
                    raise
                await asyncio.sleep(delay)
                delay = min(2 * delay, 2.0)
        self.reconnects += 1
        return time.perf_counter() - start

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    # -- runs -------------------------------------------------------------------------

    def widget(self, key: str) -> tuple[str, object]:
        """The kind and protobuf of the widget with this key, as the last run drew it."""
        for widget_id, (kind, proto) in self._widgets.items():
            if widget_id.endswith(f"-{key}"):
                return kind, proto
        raise KeyError(f"no widget with key {key!r} on {self.page}")

    def component_data(self, key: str) -> dict:
        """The data the last run gave the `st.components.v2` component with this key (its
        JavaScript's `data`); empty when the run did not draw it."""
        try:
            _, proto = self.widget(key)
        except KeyError:
            return {}
        return json.loads(proto.json) if proto.WhichOneof("data") == "json" else {}

    def widget_keys(self) -> list[str]:
        """The keys of the widgets the last run drew (a key is what follows the last "-"
        of a widget's id), for a student who answers whatever quiz the step shows."""
        return [widget_id.rsplit("-", 1)[-1] for widget_id in self._widgets]

    async def set(self, key: str, value: object) -> Run:
        """Move the widget with this key to `value` (a number for sliders and number
        inputs, an option label or index for select widgets, a bool for toggles)."""
        try:
            kind, proto = self.widget(key)
        except KeyError:  # the last run did not draw it (it failed, or drew another page)
            return Run(0.0, f"no widget {key!r}")
        state = WidgetState(id=proto.id)
        if kind == "slider" and proto.type == Slider.SELECT_SLIDER:
            state.string_array_value.data[:] = [str(value)]
        elif kind == "slider":
            state.double_array_value.data[:] = [float(value)]
        elif kind == "checkbox":
            state.bool_value = bool(value)
        elif kind == "number_input":
            if proto.data_type == proto.INT:
                state.int_value = int(value)
            else:
                state.double_value = float(value)
        elif kind in ("selectbox", "radio"):
            state.string_value = proto.options[value] if isinstance(value, int) else str(value)
        else:
            state.string_value = str(value)
        self._states[proto.id] = state
        if getattr(proto, "query_param_key", ""):
            self._bind_to_query(proto, value)
        return await self._rerun(time.perf_counter(), fragment=self._fragment_of[proto.id])

    async def set_component_state(self, key: str, state: dict[str, object]) -> Run:
        """What an `st.components.v2` component's `setStateValue` does: its whole state
        (a JSON object) goes with the next rerun, which fires its `on_*_change` callbacks."""
        try:
            _, proto = self.widget(key)
        except KeyError:
            return Run(0.0, f"no widget {key!r}")
        self._states[proto.id] = WidgetState(id=proto.id, json_value=json.dumps(state))
        return await self._rerun(time.perf_counter(), fragment=self._fragment_of[proto.id])

    async def trigger_component(self, key: str, event: str, value: object) -> Run:
        """What an `st.components.v2` component's `setTriggerValue(event, value)` does: the
        event goes with this one rerun (of the component's fragment, if it is in one)."""
        try:
            _, proto = self.widget(key)
        except KeyError:
            return Run(0.0, f"no widget {key!r}")
        fired = WidgetState(
            id=_COMPONENT_TRIGGERS.format(proto.id),
            json_trigger_value=json.dumps([{"event": event, "value": value}]),
        )
        return await self._rerun(time.perf_counter(), fired, self._fragment_of[proto.id])

    def _bind_to_query(self, proto: object, value: object) -> None:
        """A widget bound to the address bar (bind="query-params"): the frontend writes
        its new value there before the rerun, and leaves a default value out."""
        params = dict(parse_qsl(self.query_string, keep_blank_values=True))
        options = list(getattr(proto, "options", []))
        if options and not isinstance(proto.default, Iterable):  # a select box or radio
            shown = options[value] if isinstance(value, int) else str(value)
            is_default = proto.HasField("default") and options[proto.default] == shown
        elif isinstance(value, str):  # a text input or area
            shown, is_default = value, getattr(proto, "default", None) == value
        else:
            shown = str(int(value)) if value == int(value) else str(value)
            is_default = list(getattr(proto, "default", [])) == [float(value)]
        if is_default:
            params.pop(proto.query_param_key, None)
        else:
            params[proto.query_param_key] = shown
        self.query_string = urlencode(params)

    async def click(self, key: str) -> Run:
        """Press a button: its trigger goes with this one rerun only."""
        try:
            _, proto = self.widget(key)
        except KeyError:
            return Run(0.0, f"no widget {key!r}")
        pressed = WidgetState(id=proto.id, trigger_value=True)
        return await self._rerun(time.perf_counter(), pressed, self._fragment_of[proto.id])

    async def rerun(self) -> Run:
        """Ask for a run with the current widgets (what the frontend does on reconnect)."""
        return await self._rerun(time.perf_counter())

    def _back_msg(self, first: bool, trigger: WidgetState | None, fragment: str) -> bytes:
        msg = BackMsg()
        client = msg.rerun_script
        client.query_string = self.query_string
        if first or not self._page_hash:
            client.page_name = self.page
        else:
            client.page_script_hash = self._page_hash
        states = [self._states[i] for i in self._widgets if i in self._states]
        client.widget_states.widgets.extend(states)
        if trigger is not None:
            client.widget_states.widgets.append(trigger)
        client.fragment_id = fragment
        client.cached_message_hashes.extend(self._cache)
        return msg.SerializeToString()

    async def _rerun(
        self,
        start: float,
        trigger: WidgetState | None = None,
        fragment: str = "",
        first: bool = False,
    ) -> Run:
        """Ask for a run (of `fragment` only, when given) and read until it finishes."""
        if self._ws is None:
            return Run(0.0, "disconnected")
        self._run_started = False  # a late script_finished of an earlier run is not ours
        try:
            await self._ws.send(self._back_msg(first, trigger, fragment))
        except ConnectionClosed:
            return Run(time.perf_counter() - start, "disconnected")
        messages: list[ForwardMsg] = []
        deadline = start + self.timeout
        while True:
            try:
                msg = await asyncio.wait_for(self._inbox.get(), deadline - time.perf_counter())
            except TimeoutError:
                return Run(time.perf_counter() - start, "timeout", element_kinds(messages))
            if msg is _CLOSED:
                return Run(time.perf_counter() - start, "disconnected", element_kinds(messages))
            status = self._receive(msg, messages)
            if status is not None:
                return self._finish(start, status, messages, fragment)

    def _receive(self, msg: ForwardMsg, messages: list[ForwardMsg]) -> str | None:
        """Take one message in; returns how the run ended once script_finished says so."""
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            cached = self._cache[msg.ref_hash]
            cached[1] = self._runs_done
            msg = cached[0]
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable:
            self._cache[msg.hash] = [msg, self._runs_done]
        if kind == "new_session":
            self._run_started = True
            self.session_id = msg.new_session.initialize.session_id
            self._page_hash = msg.new_session.page_script_hash
            messages.clear()  # a run cut short for a rerun starts over
        elif kind == "navigation":
            self._page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "delta":
            messages.append(msg)
        elif kind == "script_finished" and msg.script_finished in DONE and self._run_started:
            self._finished_as = msg.script_finished
            return DONE[msg.script_finished]
        return None

    def _finish(self, start: float, status: str, messages: list[ForwardMsg], fragment: str) -> Run:
        """The run's widgets become the page's (a fragment's run replaces only its own)."""
        seen: dict[str, tuple[str, object]] = {}
        for msg in messages:
            element = (
                msg.delta.new_element if msg.delta.WhichOneof("type") == "new_element" else None
            )
            kind = element.WhichOneof("type") if element is not None else None
            proto = getattr(element, kind) if kind else None
            if proto is None or not getattr(proto, "id", ""):
                continue
            seen[proto.id] = (kind, proto)
            self._fragment_of[proto.id] = msg.delta.fragment_id
            initial = _initial_state(kind, proto)
            if initial is not None and (proto.id not in self._states or proto.set_value):
                self._states[proto.id] = initial
        if fragment and self._finished_as == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
            kept = {i: w for i, w in self._widgets.items() if self._fragment_of[i] != fragment}
            seen = {**kept, **seen}
        self._widgets = seen
        self._runs_done += 1
        self._cache = {
            h: entry
            for h, entry in self._cache.items()
            if self._runs_done - entry[1] <= MAX_CACHED_MESSAGE_AGE
        }
        kinds = element_kinds(messages)
        if "exception" in kinds:
            status = "exception"
        texts = [
            msg.delta.new_element.markdown.body
            for msg in messages
            if msg.delta.WhichOneof("type") == "new_element"
            and msg.delta.new_element.WhichOneof("type") == "markdown"
        ]
        return Run(time.perf_counter() - start, status, kinds, self.query_string, texts)
