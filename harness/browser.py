"""Serve the app and open pages in headless Chromium, the helpers that the real-browser
tests and the browser benchmarks share: start `streamlit run`, wait until Streamlit has
finished and every chart is drawn, take screenshots."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

from serving.launch import APP, ROOT, start_streamlit, wait_healthy

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'
RUN_SEEN_MS = 10_000  # wait_for_rerun: how long a started run may take to show


def start_app(port: int, timeout: float = 60.0, script: Path = APP) -> subprocess.Popen:
    """Start `streamlit run <script>` (the app by default) headless on `port` and wait
    for its health check; its output is kept in a pipe and shown if it fails to start."""
    proc = start_streamlit(port, script)
    try:
        wait_healthy(proc, port, timeout)
    except RuntimeError as error:
        if proc.poll() is None:
            proc.kill()
            raise
        raise RuntimeError(f"{error}:\n{proc.stdout.read().decode()}") from None
    return proc


def wait_until_drawn(page, timeout_ms: int = 60_000, min_charts: int = 0) -> None:
    """Wait for the script to finish, skeletons to go, at least `min_charts` charts to
    exist (a fresh server's first load reruns once through app.py, so "finished" alone
    can come early) and every Plotly chart to render."""
    page.wait_for_selector(READY, timeout=timeout_ms)
    page.wait_for_function(
        """(minCharts) => {
            const app = document.querySelector('[data-testid="stApp"]');
            if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
            if (document.querySelector('[data-testid="stSkeleton"]')) return false;
            const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
            if (charts.length < minCharts) return false;
            return Array.from(charts).every(c => c.querySelector('.main-svg'));
        }""",
        arg=min_charts,
        timeout=timeout_ms,
    )


def count_script_runs(page) -> None:
    """From now on count the page's script runs, so wait_for_rerun can tell a rerun that
    has not started yet from one already over. On a watched page (watch_settling) it
    marks the rerun requests sent so far; otherwise it counts the script-state changes
    in `window.__scriptStates` (a MutationObserver sees every change, however short the
    run)."""
    if _watched(page):
        page.evaluate("() => { window.__settle.mark = window.__settle.sent; }")
        return
    page.evaluate(
        """() => {
            window.__scriptStates = 0;
            const app = document.querySelector('[data-testid="stApp"]');
            new MutationObserver(changes => { window.__scriptStates += changes.length; })
                .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
        }"""
    )


def wait_for_rerun(page, timeout_ms: int = 60_000, min_charts: int = 0) -> None:
    """After count_script_runs and an action: wait until a script run has started and
    ended (instead of a fixed sleep for it to start), then until every chart is drawn.
    On a watched page: until the page has asked for a run since the mark and has settled
    (wait_until_settled). Otherwise a run answered from caches can go from running to
    notRunning within one React render, leaving no attribute change to count: after
    RUN_SEEN_MS with none seen, the run is taken as over and the page must be idle and
    drawn as usual."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    if _watched(page):
        page.wait_for_function(
            "() => window.__settle.sent > window.__settle.mark", timeout=timeout_ms
        )
        wait_until_settled(page, timeout_ms, min_charts)
        return
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            "() => window.__scriptStates > 0", timeout=min(timeout_ms, RUN_SEEN_MS)
        )
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stApp"]')
            .getAttribute('data-test-script-state') === 'notRunning'""",
        timeout=timeout_ms,
    )
    wait_until_drawn(page, timeout_ms, min_charts)


# --- Settling: the page states that it has nothing left to do -------------------------
#
# A page is settled when every script run it asked for has been answered and drawn, and
# ui.media's reporters (tiny components that tell the server the window's width, reduced
# motion, a small projector) have each evaluated their media query in this page and, if
# they told the server something new, have been drawn again with the server's answer.
# Until then a page can still change layout (a phone's first load is laid out wide, then
# once more narrow when its reporter, mounted some time after the first draw, has told).
# watch_settling installs the watcher before the page loads: it reads the frames of
# Streamlit's websocket (protobuf field numbers of BackMsg and ForwardMsg, checked in
# tests/unit/test_settle_watch.py against the installed streamlit) and notes every
# reporter's mount (its window.matchMedia call) and the moment after the report that
# mount may have flushed (a setTimeout queued after Streamlit's own flush timer).
SETTLE_WATCH = """((reporters) => {
    if (window.__settle) return;
    const s = (window.__settle = {seq: 0, sent: 0, started: 0, finished: 0, mark: 0,
        sockets: 0, told: {}, toldSent: {}, toldRun: {}, mounted: {}});
    const tick = () => ++s.seq;
    const varint = (b, at) => {
        let value = 0, scale = 1, byte;
        do { byte = b[at.i++]; value += (byte & 127) * scale; scale *= 128; } while (byte & 128);
        return value;
    };
    const fields = (b) => {  // a protobuf message's top-level fields: [number, value]
        const out = [], at = {i: 0};
        while (at.i < b.length) {
            const tag = varint(b, at), wire = tag % 8, number = (tag - wire) / 8;
            if (wire === 0) out.push([number, varint(b, at)]);
            else if (wire === 2) {
                const length = varint(b, at);
                out.push([number, b.subarray(at.i, at.i + length)]);
                at.i += length;
            } else if (wire === 1) at.i += 8;
            else if (wire === 5) at.i += 4;
            else break;
        }
        return out;
    };
    const text = new TextDecoder();
    const bytes = (data) => data instanceof ArrayBuffer ? new Uint8Array(data)
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : null;
    const keys = Object.keys(reporters);
    const sent = (b) => {  // BackMsg: rerun_script = 11 → ClientState.widget_states = 2
        for (const [number, client] of fields(b)) {  // → WidgetStates.widgets = 1
            if (number !== 11) continue;                // → WidgetState id = 1, json_value = 10
            s.sent = tick();
            for (const [n, states] of fields(client)) {
                if (n !== 2) continue;
                for (const [w, state] of fields(states)) {
                    if (w !== 1) continue;
                    let id = "", json = null;
                    for (const [f, value] of fields(state)) {
                        if (f === 1) id = text.decode(value);
                        if (f === 10) json = text.decode(value);
                    }
                    const key = keys.find((k) => id.endsWith("-" + k));
                    if (!key || json === null) continue;
                    const matches = JSON.parse(json).matches;
                    if (matches !== s.told[key]) {
                        s.told[key] = matches;
                        s.toldSent[key] = s.sent;
                    }
                }
            }
        }
    };
    const received = (b) => {  // ForwardMsg: new_session = 4, script_finished = 6
        for (const [number, value] of fields(b)) {
            if (number === 4) {
                s.started = tick();
                for (const key of keys) {  // the first run that reads what a reporter told
                    if (s.toldSent[key] && !(s.toldRun[key] > s.toldSent[key])) {
                        s.toldRun[key] = s.started;
                    }
                }
            } else if (number === 6 && value !== 2) {  // 2: FINISHED_EARLY_FOR_RERUN
                s.finished = tick();
            }
        }
    };
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
        constructor(url, ...rest) {
            super(url, ...rest);
            this.__settleWatched = String(url).includes("/_stcore/stream");
            if (this.__settleWatched) {
                s.sockets += 1;  // Streamlit's sockets opened so far (a reconnect adds one)
                this.addEventListener("message", (event) => {
                    const b = bytes(event.data);
                    if (b) received(b);
                });
            }
        }
        send(data) {
            const b = this.__settleWatched && bytes(data);
            if (b) sent(b);
            return super.send(data);
        }
    };
    const byQuery = Object.fromEntries(keys.map((key) => [reporters[key], key]));
    const matchMedia = window.matchMedia.bind(window);
    window.matchMedia = (query) => {
        const list = matchMedia(query);
        const key = byQuery[query];
        if (key === undefined) return list;
        const mount = tick();  // ui/components/media_query.js: matchMedia, report, listen
        const listen = list.addEventListener.bind(list);
        list.addEventListener = (...args) => {
            listen(...args);
            setTimeout(() => { s.mounted[key] = mount; }, 0);  // after a report's flush
        };
        return list;
    };
})"""

SETTLED = """([reporters, minCharts]) => {
    const s = window.__settle;
    if (!s) throw new Error("watch_settling(page or context) was not called before the load");
    if (s.sent > s.started || s.started > s.finished) return false;  // a run asked or going
    for (const key of Object.keys(reporters)) {
        if (!document.querySelector(`.st-key-${key}`)) continue;  // not drawn on this page
        const mount = s.mounted[key];
        if (!mount) return false;  // not yet mounted, or its report not yet sent
        if (s.toldSent[key] && !(s.toldRun[key] > s.toldSent[key] && mount > s.toldRun[key])) {
            return false;  // it told the server: wait for the run that read it, drawn
        }
    }
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    if (charts.length < minCharts) return false;
    return Array.from(charts).every((chart) => {
        const plot = chart.querySelector('.js-plotly-plot');
        return chart.querySelector('.main-svg') && plot && plot._fullLayout
            && !plot._fullLayout._replotting;
    });
}"""


def _reporters() -> dict[str, str]:
    """ui.media's reporters: session-state key → the media query each evaluates."""
    from ui.media import NARROW_QUERY, REDUCED_MOTION_QUERY, REPORTERS, SMALL_WINDOW_QUERY

    queries = {
        "narrow_screen": NARROW_QUERY,
        "motion_preference": REDUCED_MOTION_QUERY,
        "small_window": SMALL_WINDOW_QUERY,
    }
    assert set(queries) == set(REPORTERS), "ui.media's reporters changed: update this map"
    return queries


def watch_settling(target) -> None:
    """Watch every page `target` (a page, or a browser context: all its pages) loads from
    now on, for wait_until_settled and an exact wait_for_rerun."""
    target.add_init_script(f"({SETTLE_WATCH})({json.dumps(_reporters())})")


def wait_until_settled(page, timeout_ms: int = 60_000, min_charts: int = 0, also: str = "") -> None:
    """Wait until the page has settled (see SETTLE_WATCH; at least `min_charts` charts,
    each drawn and not drawing) and the JS function of no arguments `also`, if given,
    holds at the same moment (after a window's resize: that every chart has been laid
    out for its new width)."""
    predicate = SETTLED if not also else f"(args) => ({SETTLED})(args) && ({also})()"
    page.wait_for_function(predicate, arg=[_reporters(), min_charts], timeout=timeout_ms)


def _watched(page) -> bool:
    return page.evaluate("() => Boolean(window.__settle)")


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
