"""A whole class at once: simulated students speak Streamlit's websocket protocol
(harness.streamlit_client, no browser each) against one server process, or N behind nginx.

Each student opens a page, then every few seconds (think time drawn uniformly from 0.5× to
1.5× --think) moves a sidebar widget. Scenarios:
- follow:  every student plays the lecturer's same sequence of values (cache hits);
- explore: every student its own seed and random values (cache misses);
- train:   --students students follow while one more trains page 3's small model
           again and again (a fresh seed each time): the trainer must not block them.
An action ends when its script_finished arrives. Every action must draw as many Plotly
charts as the student's page load did, and the scenario in the address bar must be the
one the student set ("wrong" counts either miss; tests/browser/test_classroom_client.py checks that
this client gets the same elements as Chromium for the same move). The server's CPU time
(all workers) and peak RSS come from psutil.

    python -m benchmarks.bench_classroom                       # follow 40 + explore 20
    python -m benchmarks.bench_classroom --serve 2 --students 60 --scenarios follow
    python -m benchmarks.bench_classroom --serve 2 --kill-after 30 --scenarios follow
    python -m benchmarks.bench_classroom --target http://127.0.0.1:8501   # a running server

Where a rerun's server CPU goes (Head spaces, follow, 20 students; `py-spy record --gil`
on the server, so only the thread holding the GIL counts; Streamlit 1.67, Plotly 7.1):
- Before: Streamlit's `runner.postScriptGC` ran a full `gc.collect(2)` after every script
  run. With Plotly, pandas, SciPy and scikit-learn loaded that alone cost ~100 ms per run,
  two thirds of the server's CPU per slider move (153 → 51 ms per run, follow; 148 → 72 ms,
  explore, measured back to back). .streamlit/config.toml now turns it off. (The heap
  holds ~186k objects after the imports, and a full collection walks them all: ~0.5 s
  under load here. `gc.freeze()` once after the imports makes it ~0 ms; with it and the
  per-run GC on, explore cost 137 ms per run against 117 ms with the GC off, same load.)
- After, of the ~50 ms left per cached rerun: building the five go.Figure objects
  (Plotly's property validation; the motion figure's frames alone 11 %) 28 %;
  st.plotly_chart's `fig.to_dict()` 22 % (deep copy 13 %, and Plotly's conversion of every
  numpy array to a base64 typed array 19 %, most of it narwhals type checks per array);
  the sidebar's twelve widgets 11 % (the sentence's text_area alone 7 %); Streamlit's
  per-message work (enqueue, signals, hashing) ~10 %; the two dataframes (pandas → Arrow,
  narwhals) 7 %; st.cache_data copies and the computation 7 %; JSON (orjson) 2 %;
  protobuf 1.4 %; the websocket 1.2 %.
- So the next win is not sending less but building less: a figure whose inputs did not
  change is rebuilt and re-serialised on every rerun (Streamlit then replaces it by a
  ref_hash on the wire, after paying for it). Caching the built figures per input at the
  call site (st.cache_resource keyed on the scenario) and building figures from plain
  lists/dicts instead of go.* objects with numpy arrays would remove most of the first
  two items (~25 ms per cached rerun); that is page and figure-builder work (see the report
  of issue 12), not this benchmark's.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import signal
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import psutil

from benchmarks.common import print_table
from harness.streamlit_client import Run, StreamlitTab
from serving.cluster import Cluster, Worker, logged_upstreams
from serving.launch import free_port
from serving.nginx import ROUTE_COOKIE
from view_state.scenario import D_MODEL_CHOICES, MAX_HEADS, Scenario, parse_query, to_query

FIELDS = [f.name for f in dataclasses.fields(Scenario)]
DEFAULT_STUDENTS = {"follow": 40, "explore": 20, "train": 10}
PAGE = "head_spaces"
# The lecturer's walk through the sidebar: every "follow" student plays it in this order.
LECTURE = [
    ("heads", 8), ("d_model", 128), ("temp", 0.5), ("focus", 3), ("heads", 2),
    ("d_model", 32), ("temp", 2.0), ("focus", 6), ("heads", 6), ("d_model", 64),
    ("temp", 1.0), ("focus", 1), ("heads", 4),
]  # fmt: skip
TEMPERATURES = [round(t, 2) for t in np.arange(0.1, 5.0001, 0.05)]


@dataclass
class Student:
    """One student's tab, plan of moves and what happened to it."""

    tab: StreamlitTab
    moves: Callable[[int], tuple[str, object]]  # action number -> (widget key, value)
    expected: dict[str, object] = field(default_factory=dict)  # scenario fields set so far
    loads: list[Run] = field(default_factory=list)
    actions: list[tuple[float, float, Run]] = field(default_factory=list)  # start, end, run
    wrong: Counter = field(default_factory=Counter)
    reconnect_seconds: list[float] = field(default_factory=list)
    charts: int = 0


def follow_moves(_: int) -> Callable[[int], tuple[str, object]]:
    return lambda k: LECTURE[k % len(LECTURE)]


def explore_moves(student: int) -> Callable[[int], tuple[str, object]]:
    """A fresh seed first (so nothing is shared with other students), then random moves."""
    rng = random.Random(1000 + student)
    choices = {
        "heads": lambda: rng.randint(1, MAX_HEADS),
        "d_model": lambda: rng.choice([d for d in D_MODEL_CHOICES if d >= 8]),
        "temp": lambda: rng.choice(TEMPERATURES),
        "focus": lambda: rng.randint(0, 10),
        "seed": lambda: rng.randint(1, 99_999),
    }

    def move(k: int) -> tuple[str, object]:
        key = "seed" if k == 0 else rng.choice(list(choices))
        return key, choices[key]()

    return move


def _scenario_query(expected: dict[str, object]) -> dict[str, str]:
    return to_query(Scenario(**expected))


def _shown_query(run: Run) -> dict[str, str]:
    return {k: v for k, v in parse_qsl(run.query_string) if k in FIELDS}


def _check(student: Student, run: Run, after_reconnect: bool) -> None:
    """Count a finished run that drew the wrong number of charts or another scenario
    (apart: the first move on a new server after an idle reconnect). A lost move is
    counted once: the student then sees, and goes on from, what the page shows."""
    if not run.ok:
        return
    if run.charts != student.charts:
        student.wrong["charts"] += 1
    if _shown_query(run) != _scenario_query(student.expected):
        student.wrong["state, first move after reconnect" if after_reconnect else "state"] += 1
        _rebase(student, run)


def _rebase(student: Student, run: Run) -> None:
    """A session that starts again on another server takes the scenario in the address bar."""
    shown, _ = parse_query(_shown_query(run))
    student.expected = {name: getattr(shown, name) for name in FIELDS}


async def _recover(student: Student, was_running: bool) -> None:
    """The frontend's answer to a lost socket: reconnect (pinging health first), then
    rerun with its widgets only when a run was in progress."""
    try:
        student.reconnect_seconds.append(await student.tab.reconnect())
    except (OSError, TimeoutError) as error:
        student.wrong[f"reconnect failed: {type(error).__name__}"] += 1
        return
    if was_running:
        run = await student.tab.rerun()
        student.loads.append(run)
        if run.ok:
            _rebase(student, run)


async def _act(student: Student, until: float, think: float, rng: random.Random) -> None:
    run = await student.tab.open()
    student.loads.append(run)
    student.charts = run.charts
    k = 0
    while True:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        if time.perf_counter() >= until:
            return
        after_reconnect = not student.tab.connected
        if after_reconnect:
            await _recover(student, was_running=False)
        key, value = student.moves(k)
        k += 1
        start = time.perf_counter()
        run = await student.tab.set(key, value)
        student.actions.append((start, time.perf_counter(), run))
        if key in FIELDS:
            student.expected[key] = value
        _check(student, run, after_reconnect)
        if run.status == "disconnected":
            await _recover(student, was_running=True)


async def _train(student: Student, until: float, think: float, rng: random.Random) -> None:
    """The trainer: a fresh seed, then the train button, again and again."""
    student.loads.append(await student.tab.open())
    seed = 500
    while time.perf_counter() < until:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        seed += 1
        await student.tab.set("seed", seed)
        start = time.perf_counter()
        run = await student.tab.click("wh_train")
        student.actions.append((start, time.perf_counter(), run))


class ServerProbe:
    """CPU seconds and resident memory of the server processes, sampled in the background."""

    def __init__(self, pids: list[int]):
        self.procs = [psutil.Process(p) for p in pids]
        self.cpu_start = self._cpu()
        self.rss_start = self.rss()
        self.rss_peak = self.rss_start
        self.cpu_last = dict(self.cpu_start)

    def _cpu(self) -> dict[int, float]:
        seconds = {}
        for proc in self.procs:
            try:
                times = proc.cpu_times()
                seconds[proc.pid] = times.user + times.system
            except psutil.Error:
                continue
        return seconds

    def rss(self) -> float:
        total = 0
        for proc in self.procs:
            try:
                total += proc.memory_info().rss
            except psutil.Error:
                continue
        return total / 2**20

    async def sample(self, every: float = 0.25) -> None:
        while True:
            self.rss_peak = max(self.rss_peak, self.rss())
            self.cpu_last.update(self._cpu())
            await asyncio.sleep(every)

    def cpu_seconds(self) -> float:
        self.cpu_last.update(self._cpu())
        return sum(self.cpu_last[p] - self.cpu_start.get(p, 0.0) for p in self.cpu_last)


@dataclass
class Server:
    """Where students connect, the processes to measure and, for the kill test, to kill."""

    url: str
    pids: list[int]
    worker_ports: list[int] = field(default_factory=list)
    access_log: Path | None = None  # nginx's, naming the worker each route cookie reached


def _start_server(stack: ExitStack, workers: int, run_dir: Path) -> Server:
    if workers == 0:
        worker = Worker(free_port(), run_dir / "worker.log")
        stack.callback(worker.stop)
        worker.start()
        worker.wait_healthy()
        return Server(worker.url, [worker.pid])
    cluster = stack.enter_context(Cluster(workers, free_port(), run_dir))
    ports = [w.port for w in cluster.workers]
    return Server(cluster.url, [w.pid for w in cluster.workers], ports, cluster.access_log)


async def _warm_up(url: str) -> None:
    """One page load before measuring: imports, the model and the first run's rerun."""
    tab = StreamlitTab(url, PAGE, timeout=120)
    run = await tab.open()
    await tab.close()
    if not run.ok:
        raise RuntimeError(f"warm-up page load failed: {run.status}")


async def _kill_later(server: Server, after: float, log: dict) -> None:
    await asyncio.sleep(after)
    pid = server.pids[0]
    log["time"] = time.perf_counter()
    log["upstream"] = f"127.0.0.1:{server.worker_ports[0]}"
    log["upstreams"] = logged_upstreams(server.access_log) if server.access_log else {}
    os.kill(pid, signal.SIGKILL)


async def run_scenario(name: str, server: Server, args: argparse.Namespace) -> dict:
    """Run one scenario against a warmed-up server; returns its figures."""
    students_n = args.students or DEFAULT_STUDENTS[name]
    plans = explore_moves if name == "explore" else follow_moves
    students = [
        Student(StreamlitTab(server.url, PAGE, timeout=args.timeout), plans(i))
        for i in range(students_n)
    ]
    tasks = []
    start = time.perf_counter()
    until = start + args.ramp + args.duration
    probe = ServerProbe(server.pids) if server.pids else None
    kill: dict = {}

    async def begin(student: Student, delay: float, act) -> None:
        await asyncio.sleep(delay)
        await act(student, until, args.think, random.Random(delay))

    for i, student in enumerate(students):
        tasks.append(begin(student, args.ramp * i / students_n, _act))
    trainer = None
    if name == "train":
        trainer = Student(StreamlitTab(server.url, "why_heads", timeout=300), follow_moves(0))
        tasks.append(begin(trainer, 0.0, _train))
    sampler = asyncio.create_task(probe.sample()) if probe else None
    killer = None
    if args.kill_after:
        killer = asyncio.create_task(_kill_later(server, args.kill_after, kill))
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - start
    for task in (sampler, killer):
        if task is not None:
            task.cancel()
    await asyncio.gather(*(s.tab.close() for s in students), return_exceptions=True)
    result = _summarise(name, students, wall, probe)
    if trainer is not None:
        result["trainer"] = [run for _, _, run in trainer.actions]
        await trainer.tab.close()
    if kill:
        result["kill"] = _kill_report(students, kill)
    return result


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    if not values:
        return (float("nan"),) * 3
    return (
        float(np.percentile(values, 50)),
        float(np.percentile(values, 95)),
        max(values),
    )


def _summarise(name: str, students: list[Student], wall: float, probe: ServerProbe | None) -> dict:
    loads = [r for s in students for r in s.loads]
    actions = [r for s in students for _, _, r in s.actions]
    statuses = Counter(r.status for r in loads + actions if not r.ok)
    wrong = sum((s.wrong for s in students), Counter())
    return {
        "scenario": name,
        "students": len(students),
        "loads": len(loads),
        "actions": len(actions),
        "errors": sum(statuses.values()),
        "error kinds": dict(statuses),
        "wrong": dict(wrong),
        "load": _percentiles([r.seconds for r in loads if r.ok]),
        "action": _percentiles([r.seconds for r in actions if r.ok]),
        "actions/s": len(actions) / wall,
        "cpu": probe.cpu_seconds() / wall if probe else float("nan"),
        "cpu per run": 1000 * probe.cpu_seconds() / max(1, len(loads) + len(actions))
        if probe
        else float("nan"),
        "rss": (probe.rss_start, probe.rss_peak, probe.rss()) if probe else (float("nan"),) * 3,
        "reconnects": [t for s in students for t in s.reconnect_seconds],
    }


def _kill_report(students: list[Student], kill: dict) -> dict:
    """Errors split by when the action ran relative to the kill, for the killed worker's
    students (the worker nginx logged for their route cookie just before) and the others."""
    t = kill["time"]
    upstream_of = {
        i: kill["upstreams"].get(s.tab.cookie(ROUTE_COOKIE), "") for i, s in enumerate(students)
    }
    rows = Counter()
    late_errors = []  # seconds after the kill at which an action that failed was started
    for i, student in enumerate(students):
        side = "killed worker" if upstream_of.get(i) == kill["upstream"] else "live worker"
        for begin, end, run in student.actions:
            when = "before" if end < t else "in flight" if begin < t else "after"
            rows[(side, when, "ok" if run.ok else "error")] += 1
            if when == "after" and not run.ok:
                late_errors.append(begin - t)
    moved = sum(1 for i, s in enumerate(students) if upstream_of.get(i) == kill["upstream"])
    return {"rows": rows, "students on killed worker": moved, "late errors": late_errors}


def _print(results: list[dict], conditions: str) -> None:
    print(f"Classroom load, page {PAGE!r}: {conditions}")
    headers = [
        "scenario", "students", "loads", "actions", "errors", "wrong",
        "load p50", "load p95", "load max", "act p50", "act p95", "act max",
        "actions/s", "CPU cores", "CPU ms/run", "RSS start→peak→end MB",
    ]  # fmt: skip
    rows = []
    for r in results:
        rss = "→".join(f"{m:.0f}" for m in r["rss"])
        wrong = sum(r["wrong"].values())
        rows.append(
            [r["scenario"], r["students"], r["loads"], r["actions"], r["errors"], wrong,
             *r["load"], *r["action"], r["actions/s"], r["cpu"], r["cpu per run"], rss]
        )  # fmt: skip
    print_table(headers, rows)
    for r in results:
        if r["errors"] or r["wrong"]:
            print(f"  {r['scenario']}: errors {r['error kinds']}, wrong {r['wrong']}")
        if r["reconnects"]:
            p50, _, worst = _percentiles(r["reconnects"])
            count = len(r["reconnects"])
            print(f"  {r['scenario']}: {count} reconnects, p50 {p50:.2f} s, max {worst:.2f} s")
        if "trainer" in r:
            times = [run.seconds for run in r["trainer"]]
            ok = sum(run.ok for run in r["trainer"])
            print(
                f"  {r['scenario']}: the trainer ran {len(times)} trainings ({ok} ok), "
                f"median {statistics.median(times) if times else float('nan'):.1f} s each"
            )
        if "kill" in r:
            moved = r["kill"]["students on killed worker"]
            print(f"  kill test: {moved} students were on the killed worker")
            if late := r["kill"]["late errors"]:
                started = ", ".join(f"{t:.2f}" for t in sorted(late))
                print(f"  failed actions started after the kill, seconds after it: {started}")
            rows = [[*key, n] for key, n in sorted(r["kill"]["rows"].items())]
            print_table(["students on", "action", "result", "count"], rows)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default="follow,explore", help="follow, explore, train")
    parser.add_argument("--students", type=int, help="default: 40 follow, 20 explore, 10 train")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of acting")
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds between actions")
    parser.add_argument(
        "--ramp", type=float, default=5.0, help="seconds over which students arrive"
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run fails")
    parser.add_argument(
        "--serve", type=int, default=0, help="N workers behind nginx (0: one plain process)"
    )
    parser.add_argument("--target", help="URL of a running server (not measured; no restart)")
    parser.add_argument(
        "--pids", default="", help="with --target: server pids to measure, comma-separated"
    )
    parser.add_argument(
        "--kill-after", type=float, help="kill worker 0 this many seconds in (needs --serve 2+)"
    )
    args = parser.parse_args(argv)
    if args.kill_after and args.serve < 2:
        parser.error("--kill-after needs --serve 2 or more")
    return args


async def _main(args: argparse.Namespace) -> None:
    results = []
    for name in args.scenarios.split(","):
        with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
            if args.target:
                pids = [int(p) for p in args.pids.split(",") if p]
                server = Server(args.target.rstrip("/"), pids)
            else:
                server = _start_server(stack, args.serve, Path(tmp))
            await _warm_up(server.url)
            results.append(await run_scenario(name, server, args))
    where = args.target or (f"{args.serve} workers behind nginx" if args.serve else "one process")
    conditions = (
        f"{where}, think {args.think} s (±50 %), "
        f"{args.duration:.0f} s after a {args.ramp:.0f} s ramp; "
        f"{os.cpu_count()} cores shared with other work (load average {os.getloadavg()[0]:.1f})"
    )
    _print(results, conditions)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt  # so SIGTERM, too, stops the servers this run started


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    asyncio.run(_main(_parse(argv)))


if __name__ == "__main__":
    main()
