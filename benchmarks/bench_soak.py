"""A lecture-length soak: what `make serve WORKERS=2` runs (`python -m serving`: workers
behind nginx, health-checked and restarted) under a whole lecture's load.

160 protocol-level students (harness.streamlit_client, no browser each) follow a lecturer
through the Lesson: when the lecturer moves on (every --step-every seconds) each student
goes to the new step within a few seconds, then answers the step's quiz. 20 more explore
"Inside a real model" alone: each its own long sentence, then other layers and heads, now
and then a new sentence. A worker is killed (SIGKILL) at a random time in the middle half
of the run; `python -m serving` restarts it and its students reconnect.

With --class the 160 are a live class instead (issue 26's one-hour class): they join
by the code and follow by push (harness.class_student, as bench_live_class), and vote in
both rounds of every step; the lecturer drives the class through the store as the
console's buttons do (each step asked, revealed, asked again, revealed; the next step
every --step-every seconds) with each step's answers as a default screen computes them.
--no-kill leaves every worker up, so memory stays with the sessions that made it.

Reported per window (--window, 5 minutes): actions, errors, p95 action latency, the
students whose page showed another step than the lecturer's (lost state), RSS per worker,
open sockets on the workers, the class store's size. Targets (issue 29): 0 lost state, no
error page, p95 within 1.5x of the first window, RSS at the end within 15 % of the first
window's; with --class also issue 26's: RSS at the end within 10 % of after the first step.

    python -m benchmarks.bench_soak --minutes 10
    python -m benchmarks.bench_soak --minutes 60
    python -m benchmarks.bench_soak --minutes 60 --class --no-kill
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, quote

import numpy as np
import psutil

from attention.teaching.lesson.content import lesson_text
from attention.teaching.sentences import DEFAULT_SECOND_TEXT, DEFAULT_TEXT
from benchmarks.common import print_table
from classroom import open_store
from classroom.store import ClassStore, OpenedClass
from harness.class_student import ClassStudent
from harness.streamlit_client import Run, StreamlitTab
from serving.launch import ROOT, free_port, healthy

# A student's long sentence: the app's two sentences' words in a random order.
WORDS = f"{DEFAULT_TEXT} {DEFAULT_SECOND_TEXT}".split()
STORE_NAME = "classroom.sqlite3"
RECOVERY_SECONDS = 60  # after a kill: its students reconnect and the worker restarts
# RSS moves by up to ~200 MB between two moments (freed arrays going back to the system or
# not), so memory is sampled every SAMPLE_SECONDS and compared as medians over spans.
SAMPLE_SECONDS = 30.0


@dataclass
class Action:
    """One student action: when it started (seconds into the run), how long it took."""

    start: float
    seconds: float
    ok: bool
    status: str


@dataclass
class Soak:
    """Everything measured during one run, shared by the students and the sampler."""

    t0: float
    step: int = 1
    step_changed: asyncio.Event = field(default_factory=asyncio.Event)
    actions: list[Action] = field(default_factory=list)
    lost: list[float] = field(default_factory=list)  # when a page showed another step
    samples: list[dict] = field(default_factory=list)
    kill_at: float | None = None
    step_every: float = 150.0
    in_class: list[ClassStudent] = field(default_factory=list)
    checks: set[asyncio.Task] = field(default_factory=set)  # pending, kept from the GC
    first_move: float | None = None  # when the class left step 1 (seconds into the run)
    killed_port: str = ""
    reconnects: int = 0

    def record(self, start: float, run: Run) -> None:
        self.actions.append(Action(start - self.t0, run.seconds, run.ok, run.status))


def shown_step(run: Run) -> int:
    """The Lesson step in the page's address after a run (no `step` there: step 1)."""
    return int(dict(parse_qsl(run.query_string)).get("step", 1))


async def recover(soak: Soak, tab: StreamlitTab) -> bool:
    """A lost socket: reconnect as the frontend does and rerun; False if it failed."""
    soak.reconnects += 1
    try:
        await tab.reconnect()
    except (OSError, TimeoutError):
        return False
    return (await tab.rerun()).ok


async def follow(soak: Soak, url: str, until: float, rng: random.Random, timeout: float) -> None:
    """One student: the lecturer's step within 0–5 s of each move, then the quiz."""
    tab = StreamlitTab(url, "lesson", "step=1", timeout=timeout)
    start = time.perf_counter()
    soak.record(start, await tab.open())
    seen = 1
    while time.perf_counter() < until:
        if soak.step == seen:  # a move made while this student answered is not missed
            try:
                await asyncio.wait_for(soak.step_changed.wait(), until - time.perf_counter())
            except TimeoutError:
                break
        step = seen = soak.step
        await asyncio.sleep(rng.uniform(0, 5))
        if not tab.connected and not await recover(soak, tab):
            soak.record(time.perf_counter(), Run(0.0, "reconnect failed"))
            continue
        start = time.perf_counter()
        run = await tab.set("lesson_step", step - 1)  # the picker's options are 1..n
        soak.record(start, run)
        if run.ok and shown_step(run) != step and soak.step == step:
            soak.lost.append(start - soak.t0)
        await asyncio.sleep(rng.uniform(5, 20))
        quiz = [k for k in tab.widget_keys() if k.startswith("quiz_")]
        if quiz and soak.step == step:
            _, proto = tab.widget(quiz[0])
            start = time.perf_counter()
            soak.record(start, await tab.set(quiz[0], rng.randrange(len(proto.options))))
    await tab.close()


def long_sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 90)))


async def explore(soak: Soak, url: str, until: float, rng: random.Random, timeout: float) -> None:
    """One student alone on the real-model page: a long sentence, layers, heads."""
    tab = StreamlitTab(url, "real_model", f"text={quote(long_sentence(rng))}", timeout=timeout)
    start = time.perf_counter()
    soak.record(start, await tab.open())
    while True:
        await asyncio.sleep(rng.uniform(10, 30))
        if time.perf_counter() >= until:
            break
        if not tab.connected and not await recover(soak, tab):
            soak.record(time.perf_counter(), Run(0.0, "reconnect failed"))
            continue
        keys = tab.widget_keys()
        move = rng.choice(["real_layer", "real_head", "real_head", "text"])
        if move == "text":
            value = long_sentence(rng)
        else:  # an option's index
            value = rng.randrange(len(tab.widget(move)[1].options)) if move in keys else 0
        start = time.perf_counter()
        soak.record(start, await tab.set(move, value))
    await tab.close()


async def lecture(soak: Soak, until: float, every: float, steps: int) -> None:
    """The lecturer: the next step every `every` seconds, from step 1 round again."""
    while time.perf_counter() + every < until:
        await asyncio.sleep(every)
        soak.step = soak.step % steps + 1
        soak.step_changed.set()
        soak.step_changed = asyncio.Event()


def class_answers() -> list[tuple[list[str], str]]:
    """Each step's answer options and right answer as a screen on the default scenario
    computes them (what the lecturer's page sends the class)."""
    from ui.lesson.steps import LESSON_STEPS
    from view_state.scenario import Scenario

    answers = []
    for step in LESSON_STEPS:
        control = step.control(Scenario())
        view = step.view(Scenario(), None if control is None else control.default)
        answers.append((list(view.quiz.options), view.quiz.right))
    return answers


async def in_class(
    soak: Soak, url: str, code: str, until: float, rng: random.Random, timeout: float
) -> None:
    """One student in the live class: join, follow by push, vote in every round (3 s to
    a third of a step's time after the round opens); a page still on another step 20 s
    after the lecturer moved is lost state."""
    student = ClassStudent(StreamlitTab(url, "lesson", f"class={code}", timeout=timeout))
    student.record = soak.record
    soak.in_class.append(student)
    await student.join()
    stop = asyncio.Event()
    listener = asyncio.create_task(student.listen(f"{url}/api/classes/{code}/events", stop))
    voted: set[tuple[int, int]] = set()
    while time.perf_counter() < until:
        try:
            await asyncio.wait_for(student.screen_changed.wait(), until - time.perf_counter())
        except TimeoutError:
            break
        screen = json.loads(student.drawn)
        moment = (screen.get("step"), screen.get("round"))
        if screen.get("phase") != "asking" or moment in voted or not screen.get("options"):
            continue
        voted.add(moment)
        await asyncio.sleep(rng.uniform(3, max(3.0, soak.step_every / 3)))
        if json.loads(student.drawn) == screen:
            await student.vote(moment[0], rng.choice(screen["options"]), moment[1])
    stop.set()
    listener.cancel()
    await student.tab.close()


async def class_lecture(
    soak: Soak,
    store: ClassStore,
    opened: OpenedClass,
    until: float,
    answers: list[tuple[list[str], str]],
) -> None:
    """The lecturer through the store, as the console's buttons: each step asked (40 % of
    its time), revealed, asked again (40 %), revealed; then the next step."""
    every, code, secret = soak.step_every, opened.code, opened.secret
    while True:
        for share, action in ((0.4, store.reveal), (0.1, store.open_second_round)):
            await asyncio.sleep(share * every)
            await asyncio.to_thread(action, code, secret)
        await asyncio.sleep(0.4 * every)
        await asyncio.to_thread(store.reveal, code, secret)
        await asyncio.sleep(0.1 * every)
        if time.perf_counter() + every > until:
            return
        if soak.first_move is None:
            soak.first_move = time.perf_counter() - soak.t0
        soak.step = soak.step % len(answers) + 1
        options, right = answers[soak.step - 1]
        await asyncio.to_thread(store.set_step, code, secret, soak.step, options, "", right)
        check = asyncio.create_task(check_followed(soak, soak.step))
        soak.checks.add(check)
        check.add_done_callback(soak.checks.discard)


async def check_followed(soak: Soak, step: int, grace: float = 20.0) -> None:
    """`grace` seconds after a move, every student still in class shows its step."""
    await asyncio.sleep(grace)
    if soak.step != step:
        return
    behind = [s for s in soak.in_class if s.showing != step]
    soak.lost.extend([time.perf_counter() - soak.t0] * len(behind))


def workers(serve: psutil.Process) -> dict[str, psutil.Process]:
    """The Streamlit workers `python -m serving` runs now, by their port."""
    found = {}
    for child in serve.children():
        try:
            cmd = child.cmdline()
        except psutil.Error:
            continue
        if "streamlit" in " ".join(cmd) and "--server.port" in cmd:
            found[cmd[cmd.index("--server.port") + 1]] = child
    return found


def sample(serve: psutil.Process, store: Path) -> dict:
    """RSS (MB) and established sockets per worker port, and the store's size (KB)."""
    rss, sockets = {}, {}
    for port, proc in workers(serve).items():
        try:
            rss[port] = proc.memory_info().rss / 2**20
            sockets[port] = sum(c.status == "ESTABLISHED" for c in proc.net_connections())
        except psutil.Error:
            continue
    size = sum(p.stat().st_size for p in store.parent.glob(store.name + "*"))
    return {"rss": rss, "sockets": sockets, "store_kb": size / 1024}


async def sampler(soak: Soak, serve: psutil.Process, store: Path) -> None:
    while True:
        await asyncio.sleep(SAMPLE_SECONDS)
        soak.samples.append({"t": time.perf_counter() - soak.t0, **sample(serve, store)})


def median_rss(soak: Soak, lo: float, hi: float) -> dict[str, float]:
    """Each worker's median RSS (MB) over the samples taken from `lo` to `hi` seconds."""
    spans: dict[str, list[float]] = {}
    for taken in soak.samples:
        if lo <= taken["t"] <= hi:
            for port, mb in taken["rss"].items():
                spans.setdefault(port, []).append(mb)
    return {port: float(np.median(values)) for port, values in spans.items()}


def rss_range(soak: Soak, lo: float, hi: float) -> str:
    """Each worker's median (lowest–highest) RSS from `lo` to `hi` seconds."""
    parts = []
    for port, median in median_rss(soak, lo, hi).items():
        values = [t["rss"][port] for t in soak.samples if lo <= t["t"] <= hi and port in t["rss"]]
        parts.append(f"{median:.0f} ({min(values):.0f}–{max(values):.0f})")
    return " / ".join(parts)


async def kill_one(soak: Soak, serve: psutil.Process, at: float) -> None:
    await asyncio.sleep(at)
    soak.killed_port, victim = next(iter(workers(serve).items()))
    soak.kill_at = time.perf_counter() - soak.t0
    victim.send_signal(signal.SIGKILL)


def start_serving(run_dir: Path, workers_n: int) -> tuple[subprocess.Popen, str]:
    """`python -m serving` as `make serve` starts it, its class store in `run_dir`."""
    port = free_port()
    env = {**os.environ, "HEADSPACES_CLASS_STORE": f"sqlite://{run_dir / STORE_NAME}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "serving", "--workers", str(workers_n), "--port", str(port),
         "--run-dir", str(run_dir)],
        cwd=ROOT, env=env, stdout=(run_dir / "serve.out").open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while not healthy(url, timeout=2.0):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"python -m serving did not start; see {run_dir}/serve.out")
        time.sleep(0.5)
    return proc, url


async def soak_run(args: argparse.Namespace, url: str, serve: psutil.Process, store: Path):
    rng = random.Random(args.seed)
    for page in ("lesson", "real_model"):  # imports, MiniLM, the first runs
        warm = StreamlitTab(url, page, timeout=180)
        await warm.open()
        await warm.close()
    if args.live_class:
        answers = await asyncio.to_thread(class_answers)
        class_store = open_store(f"sqlite://{store}")
        opened = class_store.open_class(len(answers), answers[0][0])
        class_store.set_step(opened.code, opened.secret, 1, answers[0][0], "", answers[0][1])
    start = time.perf_counter()
    soak = Soak(start, step_every=args.step_every)
    until = start + 60 * args.minutes
    background = [asyncio.create_task(sampler(soak, serve, store))]
    if args.live_class:
        followers = [
            in_class(soak, url, opened.code, until, random.Random(rng.random()), args.timeout)
            for _ in range(args.followers)
        ]
        lecturer = class_lecture(soak, class_store, opened, until, answers)
    else:
        followers = [
            follow(soak, url, until, random.Random(rng.random()), args.timeout)
            for _ in range(args.followers)
        ]
        lecturer = lecture(soak, until, args.step_every, len(lesson_text()))
    tasks = followers + [
        explore(soak, url, until, random.Random(rng.random()), args.timeout)
        for _ in range(args.explorers)
    ]
    background.append(asyncio.create_task(lecturer))
    if args.kill:
        kill_at = rng.uniform(0.25, 0.75) * 60 * args.minutes
        background.append(asyncio.create_task(kill_one(soak, serve, kill_at)))
    first = sample(serve, store)
    await asyncio.gather(*tasks)
    for task in background:
        task.cancel()
    soak.samples.insert(0, {"t": 0.0, **first})
    soak.samples.append({"t": time.perf_counter() - start, **sample(serve, store)})
    return soak


def clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def report(soak: Soak, args: argparse.Namespace) -> None:
    """One row per window, then the targets against the figures."""
    rows, p95s = [], []
    end = max((a.start for a in soak.actions), default=0.0)
    kill = soak.kill_at if soak.kill_at is not None else float("inf")

    def recovering(a: Action) -> bool:  # started while the kill's students came back
        return kill - args.timeout <= a.start <= kill + RECOVERY_SECONDS

    for w in range(int(end // args.window) + 1):
        lo, hi = w * args.window, (w + 1) * args.window
        acts = [a for a in soak.actions if lo <= a.start < hi]
        ok = [a.seconds for a in acts if a.ok]
        steady = [a.seconds for a in acts if a.ok and not recovering(a)]
        p95s.append(float(np.percentile(steady, 95)) if steady else float("nan"))
        at = next((s for s in soak.samples if s["t"] >= hi), soak.samples[-1])
        rows.append([
            f"{clock(lo)}–{clock(hi)}", len(acts), sum(not a.ok for a in acts),
            float(np.percentile(ok, 50)) if ok else float("nan"),
            float(np.percentile(ok, 95)) if ok else float("nan"), p95s[-1],
            sum(lo <= t < hi for t in soak.lost),
            rss_range(soak, lo, hi),
            " / ".join(map(str, at["sockets"].values())), at["store_kb"],
        ])  # fmt: skip
    following = "in a live class by push (two rounds per step)" if args.live_class else "the Lesson"
    killed = (
        f"worker killed at {clock(soak.kill_at)} (port {soak.killed_port})"
        if soak.kill_at is not None
        else "no worker killed"
    )
    print(
        f"Soak: {args.minutes} min, {args.followers} following {following} (a step every "
        f"{args.step_every:.0f} s) + {args.explorers} exploring the real model, "
        f"`python -m serving --workers {args.workers}`; {killed}, {soak.reconnects} students "
        f"reconnected; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    headers = ["window", "actions", "errors", "p50 s", "p95 s",
               f"p95 s, not within {RECOVERY_SECONDS} s of the kill", "lost state",
               "RSS per worker MB, median (range)", "sockets per worker", "store KB"]  # fmt: skip
    print_table(headers, rows)
    cut = [a for a in soak.actions if not a.ok and recovering(a)]
    errors = Counter(a.status for a in soak.actions if not a.ok and not recovering(a))
    print(
        f"failed actions started while the killed worker's students came back (from "
        f"{args.timeout:.0f} s before the kill to {RECOVERY_SECONDS} s after it): "
        f"{dict(Counter(a.status for a in cut)) or 'none'}; other errors: "
        f"{dict(errors) or 'none'}"
    )
    last = median_rss(soak, end - args.window, end + args.window)  # the last window
    first_rss = median_rss(soak, 0.0, args.window)
    growth = {port: last[port] / first_rss[port] - 1 for port in last if port in first_rss}
    rows = []
    if soak.first_move is not None:  # a class: issue 26's memory target
        after = median_rss(soak, soak.first_move, soak.first_move + args.step_every)
        kept = {port: last[port] / after[port] - 1 for port in last if port in after}
        rows.append(
            [
                "RSS end within 10 % of after the first step (class; medians)",
                ", ".join(f"{g:+.0%}" for g in kept.values()),
                all(abs(g) <= 0.10 for g in kept.values()),
            ]
        )
    rows.extend(
        [
            ["0 lost state", len(soak.lost), not soak.lost],
            ["no error (apart from the kill's)", sum(errors.values()), not errors],
            ["p95 ≤ 1.5× first window (kill's minute apart)", f"{max(p95s) / p95s[0]:.2f}×",
             max(p95s) <= 1.5 * p95s[0]],
            ["RSS end within 15 % of first window (medians)",
             ", ".join(f"{g:+.0%}" + (" (restarted)" if port == soak.killed_port else "")
                       for port, g in growth.items()),
             all(abs(g) <= 0.15 for port, g in growth.items() if port != soak.killed_port)],
            # A kill can move the killed worker's sessions to the others (those that
            # reconnect before it is back): each worker's memory follows its sessions,
            # and all workers together hold them all.
            ["… all workers together (medians summed)",
             f"{sum(last.values()) / sum(first_rss.values()) - 1:+.0%}",
             abs(sum(last.values()) / sum(first_rss.values()) - 1) <= 0.15],
        ]
    )  # fmt: skip
    print_table(["target", "figure", "met"], rows)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--followers", type=int, default=160)
    parser.add_argument("--explorers", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--window", type=float, default=300.0, help="seconds per table row")
    parser.add_argument("--step-every", type=float, help="default: 150 s; 40 s under 30 min")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run fails")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--class", dest="live_class", action="store_true", help="a live class, by push"
    )
    parser.add_argument(
        "--kill", action=argparse.BooleanOptionalAction, default=True, help="kill a worker"
    )
    args = parser.parse_args(argv)
    if args.step_every is None:
        args.step_every = 150.0 if args.minutes >= 30 else 40.0
    return args


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        proc, url = start_serving(run_dir, args.workers)
        try:
            soak = asyncio.run(soak_run(args, url, psutil.Process(proc.pid), run_dir / STORE_NAME))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    report(soak, args)


if __name__ == "__main__":
    main()
