"""The classroom benchmark's websocket client against a real browser: Chromium and
harness.streamlit_client load Head spaces and move the sidebar's Heads slider by one; the
server must send both the same elements (cached ones resolved), as many Plotly charts as
the page draws, and the same scenario in the address bar. And a live class's push: the
browser reruns only the class's fragment, with the push component's trigger, and so does
the client (the page outside the fragment kept). And on a join link a phone's browser
says nothing of its width (assumed), a laptop's says it is wide."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from attention.teaching.lesson.content import lesson_text
from classroom import open_store
from classroom.events import screen_of
from classroom.store import new_device_id
from harness.browser import wait_until_drawn, wait_until_settled, watch_settling
from harness.class_student import ClassStudent, class_step
from harness.streamlit_client import DONE, StreamlitTab, element_kinds
from tests.browser.test_browser_live_class import shows

pytestmark = pytest.mark.browser


def _runs(frames: list[bytes]) -> list[tuple[list[ForwardMsg], str]]:
    """Split the browser's frames into finished runs: (delta messages with cached
    references resolved, the query string the run left)."""
    cache: dict[str, ForwardMsg] = {}
    runs, deltas, query = [], [], ""
    for frame in frames:
        msg = ForwardMsg()
        msg.ParseFromString(frame)
        if msg.WhichOneof("type") == "ref_hash":
            msg = cache[msg.ref_hash]
        elif msg.metadata.cacheable:
            cache[msg.hash] = msg
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            deltas = []
        elif kind == "delta":
            deltas.append(msg)
        elif kind == "page_info_changed":
            query = msg.page_info_changed.query_string
        elif kind == "script_finished" and msg.script_finished in DONE:
            runs.append((deltas, query))
    return runs


def _client_runs(url: str) -> list:
    async def run():
        tab = StreamlitTab(url, "head_spaces")
        runs = [await tab.open(), await tab.set("heads", 5)]
        await tab.close()
        return runs

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
        return pool.submit(asyncio.run, run()).result()


def test_client_gets_what_the_browser_gets_for_a_slider_move(app_url, page):
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(data)))
    page.goto(f"{app_url}/head_spaces")
    wait_until_drawn(page, min_charts=5)
    loaded = len(_runs(frames))
    heads = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]', has_text="Heads")
    heads.get_by_role("slider").press("ArrowRight")
    deadline = time.monotonic() + 60
    while len(_runs(frames)) == loaded and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    browser = _runs(frames)
    browser_load, browser_move = browser[loaded - 1], browser[loaded]

    client_load, client_move = _client_runs(app_url)

    assert client_load.ok and client_move.ok
    assert client_load.elements == element_kinds(browser_load[0])
    assert client_move.elements == element_kinds(browser_move[0])
    assert client_move.charts == page.locator('[data-testid="stPlotlyChart"]').count() == 5
    # The heads slider is bound to the address bar: the frontend writes it there itself
    # (no page_info_changed from the server), and so does the client.
    page.wait_for_function("location.search === '?heads=5'")
    assert client_move.query_string == urlsplit(page.url).query == "heads=5"


def _reruns(frames: list[bytes]) -> list:
    """The rerun requests among the frames a browser sent."""
    requests = []
    for frame in frames:
        msg = BackMsg()
        msg.ParseFromString(frame)
        if msg.WhichOneof("type") == "rerun_script":
            requests.append(msg.rerun_script)
    return requests


def _last_spec(frames: list[bytes], key: str) -> str:
    """The Plotly spec of the last chart with this key the browser was sent (an empty
    chart's before any)."""
    spec = '{"layout": {"height": 0}, "data": []}'
    for frame in frames:
        msg = ForwardMsg()
        msg.ParseFromString(frame)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            chart = msg.delta.new_element.plotly_chart
            if chart.id.endswith(f"-{key}"):
                spec = chart.spec
    return spec


def _fragment_of(frames: list[bytes], key: str) -> str:
    """The fragment id of the last element with this key the browser was sent."""
    found = ""
    for frame in frames:
        msg = ForwardMsg()
        msg.ParseFromString(frame)
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        if kind and getattr(getattr(element, kind), "id", "").endswith(f"-{key}"):
            found = msg.delta.fragment_id
    return found


def _recorded(page) -> tuple[list[bytes], list[bytes]]:
    """The frames the page's websockets send and receive from now on, as they come."""
    sent: list[bytes] = []
    received: list[bytes] = []

    def listen(ws) -> None:
        ws.on("framesent", lambda data: sent.append(data))
        ws.on("framereceived", lambda data: received.append(data))

    page.on("websocket", listen)
    return sent, received


def test_a_push_reruns_the_class_fragment_in_the_browser_and_the_client(app_url, page):
    store = open_store()  # the server's own (the default SQLite file)
    steps = len(lesson_text())
    opened = store.open_class(steps, ["yes", "no"])
    sent, received = _recorded(page)
    page.goto(f"{app_url}/lesson?class={opened.code}")
    shows(page, f"Step 1 of {steps}", 60_000)
    page.wait_for_function("document.documentElement.dataset.classPush === 'listening'")
    fragment = _fragment_of(received, "live_push")
    assert fragment, "the push component is drawn inside a fragment"
    before = len(_reruns(sent))
    store.set_step(opened.code, opened.secret, 2, ["left", "right"])
    shows(page, f"Step 2 of {steps}", 60_000)
    pushed = _reruns(sent)[before:]
    assert len(pushed) == 1
    assert pushed[0].fragment_id == fragment
    fired = [w for w in pushed[0].widget_states.widgets if w.json_trigger_value]
    assert [w.id.endswith("__events") for w in fired] == [True]
    payload = json.loads(fired[0].json_trigger_value)
    assert payload == [{"event": "moved", "value": screen_of(store.state(opened.code))}]

    async def client() -> tuple:
        tab = StreamlitTab(app_url, "lesson", f"class={opened.code}")
        await tab.open()
        joined = await tab.set_component_state("live_device", {"device": new_device_id()})
        before = set(tab.widget_keys())
        store.set_step(opened.code, opened.secret, 3, ["up", "down"])
        screen = screen_of(store.state(opened.code))
        run = await tab.trigger_component("live_push", "moved", screen)
        kept = set(tab.widget_keys())
        await tab.close()
        return joined, before, run, kept

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
        joined, before, run, kept = pool.submit(asyncio.run, client()).result()
    assert joined.ok and class_step(joined.texts) == 2
    assert run.ok and class_step(run.texts) == 3
    assert "text_area" not in run.elements  # the sidebar's sentence: not rerun
    sidebar = {"heads", "d_model", "focus", "causal"}
    assert sidebar <= before and sidebar <= kept  # the page outside the fragment: kept
    assert "live_vote_2_1" in before and "live_vote_2_1" not in kept  # the fragment's:
    assert "live_vote_3_1" in kept  # replaced by what its run drew
    shows(page, f"Step 3 of {steps}", 60_000)  # and the browser followed too
    store.close_class(opened.code, opened.secret)


def _step_chart(spec_json: str) -> tuple[int, list[str]]:
    """A step chart's height and its colour bars' orientations (a phone's lie under it)."""
    spec = json.loads(spec_json)
    layout = spec["layout"]
    owners = [axis for name, axis in layout.items() if name.startswith("coloraxis")]
    owners += [t for t in spec["data"] if t.get("type") == "heatmap" and "coloraxis" not in t]
    shown = [o for o in owners if o.get("showscale", True) is not False]
    return layout["height"], [o.get("colorbar", {}).get("orientation", "v") for o in shown]


def test_a_phone_client_gets_the_screen_a_phone_browser_gets(app_url, chromium):
    """The class benchmark's students say they are phones as ui.media's reporter does in
    a phone's browser; their step chart must be the one a 390-px Chromium is sent."""
    store = open_store()
    texts = lesson_text()
    opened = store.open_class(len(texts), ["yes", "no"])
    store.set_step(opened.code, opened.secret, 9, ["left", "right"])  # colour bars beside
    key = f"lesson_view_{texts[8].id}"
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    phone.goto(f"{app_url}/lesson")  # not the server's first session (README: known)
    wait_until_drawn(phone)
    received: list[bytes] = []
    phone.on("websocket", lambda ws: ws.on("framereceived", lambda data: received.append(data)))
    phone.goto(f"{app_url}/lesson?class={opened.code}")
    shows(phone, f"Step 9 of {len(texts)}", 60_000)
    deadline = time.monotonic() + 60
    while _step_chart(_last_spec(received, key))[1] != ["h"] and time.monotonic() < deadline:
        phone.wait_for_timeout(200)
    browser = _step_chart(_last_spec(received, key))
    context.close()

    async def client(is_phone: bool) -> tuple[int, list[str]]:
        tab = StreamlitTab(app_url, "lesson", f"class={opened.code}")
        student = ClassStudent(tab, phone=is_phone)
        await student.join()
        _, proto = student.tab.widget(key)
        await student.tab.close()
        return _step_chart(proto.spec)

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
        as_phone = pool.submit(asyncio.run, client(True)).result()
        as_wide = pool.submit(asyncio.run, client(False)).result()
    store.close_class(opened.code, opened.secret)
    assert browser[1] == ["h"]  # the phone browser's bar lies under the plot
    assert as_phone == browser
    assert as_wide[1] == ["v"] and as_wide != browser


def _width_reports(frames: list[bytes]) -> list[dict]:
    """What the reruns a browser asked for said of ui.media's phone-width reporter."""
    return [
        json.loads(widget.json_value)
        for rerun in _reruns(frames)
        for widget in rerun.widget_states.widgets
        if widget.id.endswith("-narrow_screen") and widget.json_value
    ]


@pytest.mark.parametrize(("width", "reports"), [(390, []), (1280, [{"matches": False}])])
def test_on_a_join_link_a_phone_says_nothing_of_its_width(app_url, chromium, width, reports):
    """A class's join link assumes a phone's width (ui/media.py): a phone joins without
    the rerun its width report would cost, a laptop says it is wide and gets the wide
    step chart (its colour bar beside the plot, not under it)."""
    store = open_store()
    texts = lesson_text()
    opened = store.open_class(len(texts), ["yes", "no"])
    store.set_step(opened.code, opened.secret, 9, ["left", "right"])  # colour bars beside
    key = f"lesson_view_{texts[8].id}"
    page = chromium.new_context(viewport={"width": width, "height": 844}).new_page()
    watch_settling(page)
    sent, received = _recorded(page)
    page.goto(f"{app_url}/lesson?class={opened.code}")
    shows(page, f"Step 9 of {len(texts)}", 60_000)
    # The width reporter has mounted and sent its report, if it had one, and the page has
    # drawn the server's answer.
    wait_until_settled(page, min_charts=1)
    orientation = "h" if width < 640 else "v"
    deadline = time.monotonic() + 30
    while _step_chart(_last_spec(received, key))[1] != [orientation]:
        assert time.monotonic() < deadline, _step_chart(_last_spec(received, key))
        page.wait_for_timeout(200)
    page.context.close()
    store.close_class(opened.code, opened.secret)
    assert _width_reports(sent)[:1] == reports  # each rerun after a report repeats it
