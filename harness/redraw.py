"""Time a user's move in the real browser: key press → Streamlit done → every Plotly chart
redrawn. An init script records, on the page's own clock, the key press (or pointer
press), the websocket frames (sent and received, with their bytes), the script state's
changes and every DOM change inside a Plotly chart; a move is over when the script is back
to notRunning and no chart has changed for QUIET_MS. The redraw time is read from the
records (the last chart change), so the quiet wait never adds to it."""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

QUIET_MS = 300  # no chart change for this long after the script finished = drawn
MOVE_TIMEOUT_MS = 30_000

# Installed before any page script: wraps WebSocket to log frames, observes the script
# state and the charts' subtrees, and marks each key or pointer press.
RECORDER = """(() => {
  const log = {t0: null, sent: [], received: [], states: [], charts: new Map()};
  window.__redraw = log;
  const mark = () => { log.t0 = performance.now(); };
  document.addEventListener('keydown', mark, true);
  document.addEventListener('pointerdown', mark, true);
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => {
      log.received.push([performance.now(), e.data.byteLength ?? e.data.size ?? 0]);
    });
    const send = ws.send.bind(ws);
    ws.send = (data) => { log.sent.push([performance.now(), data.byteLength ?? 0]); send(data); };
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  new MutationObserver((records) => {
    const now = performance.now();
    for (const r of records) {
      if (r.type === 'attributes' && r.attributeName === 'data-test-script-state') {
        log.states.push([now, r.target.getAttribute('data-test-script-state')]);
        continue;
      }
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const chart = el && el.closest('[data-testid="stPlotlyChart"]');
      if (chart) log.charts.set(chart, now);
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})()"""

# The move's records in ms from its press once it has settled (script done, charts still
# for quietMs, and something happened or 2 s passed); else null.
SETTLED = """([quietMs]) => {
  const log = window.__redraw;
  const app = document.querySelector('[data-testid="stApp"]');
  if (log.t0 === null || !app) return null;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if (document.querySelector('[data-testid="stSkeleton"]')) return null;
  const t0 = log.t0, since = performance.now() - t0;
  const changed = [...log.charts.entries()].filter(([c, t]) => t >= t0 && c.isConnected);
  const ran = log.states.some(([t, s]) => t >= t0 && s === 'running');
  if (!ran && changed.length === 0 && since < 2000) return null;
  const drawn = Math.max(0, ...changed.map(([, t]) => t - t0));
  const finished = Math.max(0, ...log.states.filter(([t]) => t >= t0).map(([t]) => t - t0));
  if (since - Math.max(drawn, finished) < quietMs) return null;
  const sent = log.sent.filter(([t]) => t >= t0);
  const received = log.received.filter(([t]) => t >= t0);
  return {
    total: Math.max(drawn, finished),
    sent: sent.length ? sent[0][0] - t0 : null,
    lastFrame: received.length ? received[received.length - 1][0] - t0 : null,
    bytes: received.reduce((s, [, n]) => s + n, 0),
    charts: changed.length,
    onPage: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
  };
}"""


@dataclass(frozen=True)
class Move:
    """One timed move, in ms from the press: everything drawn, first frame sent, last
    frame received; bytes received; charts changed / on the page; the renderer's main
    thread time in scripts, in layout + style and in all (busy); the server process's CPU
    time (all its threads: script, serialising, websocket)."""

    total: float
    sent: float | None
    last_frame: float | None
    bytes: int
    charts: int
    on_page: int
    script_ms: float
    layout_ms: float
    busy_ms: float
    server_cpu_ms: float

    @property
    def server(self) -> float:
        """Frame sent → last frame back: the server's whole turn (script, serialising)."""
        if self.sent is None or self.last_frame is None:
            return 0.0
        return self.last_frame - self.sent

    @property
    def browser(self) -> float:
        """The rest: before the frame is sent and after the reply has arrived."""
        return self.total - self.server


def install(context) -> None:
    """Record moves in every page of this Playwright browser context."""
    context.add_init_script(RECORDER)


def _metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_move(page, cdp, act, server_pid: int) -> Move:
    """Run `act()` (a key or pointer press) and wait until everything it changed is
    drawn; `cdp` is the page's CDP session with Performance enabled, `server_pid` the
    Streamlit process serving the page."""
    page.evaluate("() => { window.__redraw.t0 = null; }")
    before, cpu = _metrics(cdp), cpu_seconds(server_pid)
    act()
    handle = page.wait_for_function(SETTLED, arg=[QUIET_MS], timeout=MOVE_TIMEOUT_MS, polling=50)
    after, cpu = _metrics(cdp), cpu_seconds(server_pid) - cpu
    r = handle.json_value()
    if page.locator('[data-testid="stException"]').count():
        raise RuntimeError("the page shows an exception after the move")

    def spent(*names: str) -> float:
        return 1000.0 * sum(after[n] - before[n] for n in names)

    return Move(
        total=r["total"],
        sent=r["sent"],
        last_frame=r["lastFrame"],
        bytes=int(r["bytes"]),
        charts=int(r["charts"]),
        on_page=int(r["onPage"]),
        script_ms=spent("ScriptDuration"),
        layout_ms=spent("LayoutDuration", "RecalcStyleDuration"),
        busy_ms=spent("TaskDuration"),
        server_cpu_ms=1000.0 * cpu,
    )


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100), linearly interpolated."""
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def median_of(moves: list[Move], field: str) -> float:
    """Median of one attribute over moves."""
    return statistics.median(getattr(m, field) for m in moves)


def main_thread_self_times(trace: dict) -> dict[str, float]:
    """Self time (ms) per event name on the renderer's main thread of a Chrome trace:
    each complete event's duration minus that of the events nested in it."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e.get("args", {}).get("name") == "CrRendererMain"
    }
    spans = sorted(
        (e["ts"], e["ts"] + e["dur"], e["name"])
        for e in events
        if e.get("ph") == "X" and "dur" in e and (e["pid"], e["tid"]) in main
    )
    totals: dict[str, float] = defaultdict(float)
    stack: list[list] = []  # [end, name, child time]
    for start, end, name in spans:
        while stack and stack[-1][0] <= start:
            _close(stack, totals)
        stack.append([end, name, 0.0, end - start])
    while stack:
        _close(stack, totals)
    return {name: us / 1000.0 for name, us in totals.items()}


def _close(stack: list[list], totals: dict[str, float]) -> None:
    _, name, children, duration = stack.pop()
    totals[name] += duration - children
    if stack:
        stack[-1][2] += duration
