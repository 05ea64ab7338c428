"""Issue 26's targets for the live class, measured in one run on `python -m serving
--workers 2` (two workers behind nginx) with the SQLite or the Redis class store.

The lecturer is real headless Chromium (Playwright) on the projector page; each student is
a protocol-level tab (harness.streamlit_client: Streamlit's websocket, no browser) that
says its device id as the device component would, plus a plain HTTP server-sent-events
stream (GET /api/classes/CODE/events) that makes it rerun when the class moves, as the
push component does. Measured:
- join: N students open the join link within 10 s (each worker warmed first by one page,
  as a lecturer opening the link before class does); seconds from the page's GET to the
  run that draws the status line "Class CODE · Step 1 of …" (joined, step drawn), and
  the workers' CPU from the first join until 3 s after the last, per student;
- Next: the lecturer's click → each student shows the next step: when the push announces
  the very screen its page drew ahead (hidden), at once, as ui/components/class_push.js
  does; else when its rerun has drawn "Step S of …". Then the click → every rerun drawn,
  and the workers' CPU seconds spent until then per student;
- vote: N students vote within 20 s; seconds from the vote to a GET /api/classes/CODE
  issued once the student's page acknowledged it (the answer is in the store by then);
  and on the projector: the k-th acknowledgement (in time order) → the first moment the
  projector's page shows k or more answers (its text read every 50 ms in the browser);
- idle: the workers' CPU (psutil, both processes) over 10 s with N connected, nobody acting;
- kill: in the step after's round, half the votes are cast, then the worker the lecturer is NOT on
  is killed (SIGKILL; this measures the students: the lecturer's own worker dying is
  tests/browser/test_browser_lecturer_keeps.py's); every vote acknowledged before the kill must
  be counted, the killed worker's students reconnect (a new session on the live worker,
  same device id), the other half votes, and with Redis the Redis server is killed and
  restarted (the count must be unchanged); then the lecturer's Next reaches the step
  after and every student follows. Not measured here: an app restart with SQLite
  (tests/browser/test_browser_lecturer_keeps.py restarts it once), the one-hour class's memory.

    python -m benchmarks.bench_live_class --store sqlite --students 160
    python -m benchmarks.bench_live_class --store redis --students 40

Students say their screen is a phone's, as the media component does on a phone (the
class's screens are phone first); `--phones K` makes only the first K do so. The class
starts at step 1, or `--from-step S` (the Next then goes to S + 1, the kill's round is
S + 2's). Before the first Next the projector's step has finished its own work and the
machine is quiet (QUIET_CORES): step 8 trains three layouts in the background (~6 s of
CPU alone, longer beside the joins), and a class votes and sees that step's reveal, which
needs the run, before it moves on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psutil
from playwright.async_api import async_playwright

from benchmarks.common import print_table
from harness.browser import CHROMIUM
from harness.class_student import ClassStudent
from harness.redis_server import RedisServer
from harness.streamlit_client import StreamlitTab
from serving.cluster import Cluster, logged_upstreams
from serving.launch import free_port
from serving.nginx import ROUTE_COOKIE
from ui.live.watch import POLL_SECONDS

JOIN_WINDOW = 10.0
VOTE_WINDOW = 20.0
IDLE_SECONDS = 10.0
FOLLOW_TIMEOUT = 60.0
# A Next is measured from a quiet class: the workers and the lecturer's browser together
# under 0.2 of a core over 0.5 s (160 idle students cost ~0.05, the idle projector ~0.03).
QUIET_CORES = 0.2
QUIET_WINDOW = 0.5
# In the projector's page: every 50 ms, when its "N answered this round" changes, note
# (wall-clock ms, N) in window.answeredSeen.
WATCH_ANSWERED = """() => {
  window.answeredSeen = [];
  let last = null;
  setInterval(() => {
    const found = /(\\d+) answered this round/.exec(document.body.innerText);
    const count = found ? Number(found[1]) : null;
    if (count !== last) { last = count; window.answeredSeen.push([Date.now(), count]); }
  }, 50);
}"""


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of `values`; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


class Lecturer:
    """The projector in headless Chromium."""

    def __init__(self, page) -> None:
        self.page = page

    async def start(self, url: str, step: int) -> str:
        await self.page.goto(f"{url}/lesson?present=1&step={step}")
        await self.page.get_by_role("button", name="Start a class").click(timeout=120_000)
        await self.page.wait_for_function(
            "() => document.body.innerText.includes('Join the class')", timeout=60_000
        )
        return parse_qs(urlsplit(self.page.url).query)["class"][0]

    async def settled(self) -> float:
        """Wait until the step shows no progress bar (its background run, e.g. step 8's
        training, has finished); the seconds waited."""
        start = time.monotonic()
        await self.page.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stProgress\"]')", timeout=180_000
        )
        return time.monotonic() - start

    async def click(self, name: str) -> float:
        """Click a button; the monotonic time of the click."""
        button = self.page.get_by_role("button", name=name)
        await button.wait_for(timeout=30_000)
        clicked = time.monotonic()
        await button.click()
        return clicked


def worker_pids(cluster: Cluster) -> list[int]:
    return [w.pid for w in cluster.workers if w.pid is not None]


def browser_pids() -> list[int]:
    """This process's Chromium and its helpers (renderer, GPU, utility)."""
    return children_named("chrom")


def children_named(part: str) -> list[int]:
    """The pids of this process's descendants whose name holds `part`."""
    return [p.pid for p in psutil.Process().children(recursive=True) if part in p.name()]


def cpu_spent(groups: dict[str, list[int]], before: dict[str, float]) -> dict[str, float]:
    """Each group's CPU seconds since `before` (its cpu_seconds then)."""
    return {name: cpu_seconds(pids) - before[name] for name, pids in groups.items()}


async def quiet(pids: list[int], cores: float = QUIET_CORES, timeout: float = 60.0) -> float:
    """Wait until `pids` together use under `cores` of a core over a QUIET_WINDOW (the work
    a step started, its result drawn, has ended); the seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        before = cpu_seconds(pids)
        await asyncio.sleep(QUIET_WINDOW)
        if cpu_seconds(pids) - before < cores * QUIET_WINDOW:
            break
    return time.monotonic() - start


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


async def wait_state(api: str, check, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = await asyncio.to_thread(get_json, api)
        if check(state) or time.monotonic() > deadline:
            return state
        await asyncio.sleep(0.05)


async def follow_times(
    students: list[ClassStudent], step: int, since: float, drawn: bool = False
) -> list[float]:
    """Seconds from `since` until each student showed `step` (or its rerun drew it, with
    `drawn`); waits up to FOLLOW_TIMEOUT."""
    deadline = time.monotonic() + FOLLOW_TIMEOUT

    def times(student: ClassStudent) -> dict[int, float]:
        return student.drawn_at if drawn else student.shown_at

    while time.monotonic() < deadline and not all(step in times(s) for s in students):
        await asyncio.sleep(0.05)
    return [times(s)[step] - since for s in students if step in times(s)]


async def votes(
    students: list[ClassStudent], step: int, options: list[str], api: str, window: float
):
    """Every student votes once, at a random moment within `window`; (student, seconds from
    the vote to the API answering after the acknowledgement, acknowledged, wall-clock time
    of the acknowledgement) per vote."""

    async def one(student: ClassStudent) -> tuple[ClassStudent, float, bool, float]:
        await asyncio.sleep(random.uniform(0, window))
        start = time.monotonic()
        acked = await student.vote(step, random.choice(options))
        acked_at = time.time()
        await asyncio.to_thread(get_json, api)
        return student, time.monotonic() - start, acked, acked_at

    return await asyncio.gather(*(one(s) for s in students))


def projector_delays(acked_at: list[float], seen: list[list[float]]) -> list[float]:
    """Seconds from the k-th acknowledgement to the projector first showing ≥ k answers
    (0 when it showed them before: the store has a vote before its page acknowledges it);
    `seen` is the projector's [(ms, count)] in time order. Unseen counts are left out."""
    delays = []
    for k, acked in enumerate(sorted(acked_at), start=1):
        shown = next((ms / 1000 for ms, count in seen if count is not None and count >= k), None)
        if shown is not None:
            delays.append(max(0.0, shown - acked))
    return delays


async def warm_up(url: str, cluster: Cluster) -> None:
    """Open the Lesson once on each worker, as a lecturer would before class (a worker's
    first session loads the model and fits the PCA: not what a joining student should pay)."""
    warmed: set[str] = set()
    for _ in range(20):
        tab = StreamlitTab(url, "lesson")
        await tab.open()
        warmed.add(logged_upstreams(cluster.access_log).get(tab.cookie(ROUTE_COOKIE), ""))
        await tab.close()
        if len(warmed - {""}) == len(cluster.workers):
            return


async def run(args: argparse.Namespace, url: str, cluster: Cluster, redis: RedisServer | None):
    random.seed(args.seed)
    rows: list[list[object]] = []
    n = args.students
    await warm_up(url, cluster)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        page = await browser.new_page(viewport={"width": 1280, "height": 720})
        lecturer = Lecturer(page)
        code = await lecturer.start(url, args.from_step)
        moved, kill_step, last = (args.from_step + k for k in (1, 2, 3))
        api = f"{url}/api/classes/{code}"
        lecturer_route = next(
            c["value"] for c in await page.context.cookies() if c["name"] == ROUTE_COOKIE
        )
        students = [
            ClassStudent(StreamlitTab(url, "lesson", f"class={code}"), phone=k < args.phones)
            for k in range(n)
        ]

        async def join_later(student: ClassStudent) -> float:
            await asyncio.sleep(random.uniform(0, JOIN_WINDOW))
            return await student.join()

        pids = worker_pids(cluster)
        before_joins = cpu_seconds(pids)
        joins = await asyncio.gather(*(join_later(s) for s in students))
        join_errors = sum(1 for s in students if s.errors)
        state = await wait_state(api, lambda s: s["joined"] >= n)

        stop = asyncio.Event()
        listeners = [asyncio.create_task(s.listen(f"{api}/events", stop)) for s in students]
        await asyncio.sleep(3.0)  # every stream has sent its first screen
        joined_cpu = cpu_seconds(pids) - before_joins
        rows.append(
            [
                "join p95 (s), first step drawn",
                p95(joins),
                "≤ 3",
                f"{n} joined; workers' CPU {1000 * joined_cpu / n:.1f} ms per student"
                " (their joins and streams, and the projector's step)",
            ]
        )
        rows.append(["join errors", join_errors, "0", f"joined: {state['joined']}"])

        waited = await lecturer.settled() + await quiet(pids + browser_pids())
        groups = {
            "workers": pids,
            "lecturer's browser": browser_pids(),
            "nginx": children_named("nginx"),
            "the students (this process)": [os.getpid()],
        }
        before = {name: cpu_seconds(group) for name, group in groups.items()}
        clicked = await lecturer.click("Next ▶")
        followed = await follow_times(students, moved, clicked)
        redrawn = await follow_times(students, moved, clicked, drawn=True)
        spent = cpu_spent(groups, before)
        per_rerun = spent["workers"] / n
        pushed = [s.pushed_at[moved] - clicked for s in students if moved in s.pushed_at]
        rows.append(
            [
                "Next → every student, p95 (s)",
                p95(followed),
                "≤ 1",
                f"{len(followed)}/{n}; first {min(followed, default=0):.2f} s; pushed p95 "
                f"{p95(pushed):.2f} s; workers' CPU {1000 * per_rerun:.1f} ms per student"
                + (f"; the class quiet {waited:.0f} s after the joins" if waited >= 1 else ""),
            ]
        )
        split = ", ".join(f"{name} {seconds:.2f}" for name, seconds in spent.items())
        swapped = sum(1 for s in students if moved in s.shown_ahead)
        rows.append(
            [
                "… every student's rerun drew it, p95 (s)",
                p95(redrawn),
                "",
                f"{swapped}/{n} showed it drawn ahead before their rerun",
            ]
        )
        rows.append(["Next: CPU seconds until every student's rerun drew it", "", "", split])

        options = list((await wait_state(api, lambda s: s["step"] == moved))["votes"])
        await page.evaluate(WATCH_ANSWERED)
        cast = await votes(students, moved, options, api, VOTE_WINDOW)
        acked = sum(1 for _, _, ok, _ in cast if ok)
        state = await wait_state(api, lambda s: s["answered"] >= acked)
        rows.append(
            [
                "vote → in /api, p95 (s)",
                p95([t for _, t, _, _ in cast]),
                "≤ 1",
                f"{acked} acked, {state['answered']} counted",
            ]
        )
        await asyncio.sleep(2.0)  # the projector's next polls
        seen = await page.evaluate("() => window.answeredSeen")
        shown = projector_delays([at for _, _, ok, at in cast if ok], seen)
        rows.append(
            [
                "vote → on the projector, p95 (s)",
                p95(shown),
                "≤ 1",
                f"{len(shown)}/{acked} seen; projector polls every {POLL_SECONDS:g} s",
            ]
        )

        await asyncio.sleep(3.0)
        before, t0 = cpu_seconds(pids), time.monotonic()
        await asyncio.sleep(IDLE_SECONDS)
        idle = 100 * (cpu_seconds(pids) - before) / (time.monotonic() - t0)
        rows.append(["idle CPU, both workers (% of a core)", idle, "≤ 10", f"{n} connected"])

        # Faults: kill the other worker in the middle of the next step's round.
        clicked = await lecturer.click("Next ▶")
        await follow_times(students, kill_step, clicked)
        options = list((await wait_state(api, lambda s: s["step"] == kill_step))["votes"])
        upstreams = logged_upstreams(cluster.access_log)
        victim = next(w for w in cluster.workers if f":{w.port}" not in upstreams[lecturer_route])
        on_victim = [
            s
            for s in students
            if upstreams.get(s.tab.cookie(ROUTE_COOKIE)) == f"127.0.0.1:{victim.port}"
        ]
        first, second = students[: n // 2], students[n // 2 :]
        cast = await votes(first, kill_step, options, api, VOTE_WINDOW / 4)
        acked_before = sum(1 for _, _, ok, _ in cast if ok)
        os.kill(victim.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        await asyncio.sleep(2.0)
        for student in on_victim:  # what the frontend does after its socket closes
            student.rerun_soon(student.drawn)
        await asyncio.sleep(5.0)
        cast = await votes(second, kill_step, options, api, VOTE_WINDOW / 4)
        acked_after = sum(1 for _, _, ok, _ in cast if ok)
        state = await asyncio.to_thread(get_json, api)
        rows.append(
            [
                "kill: acked before the kill, counted",
                f"{acked_before}/{len(first)}",
                "all counted",
                f"answered {state['answered']} ≥ {acked_before}: "
                f"{state['answered'] >= acked_before}",
            ]
        )
        rows.append(
            [
                "kill: students on the killed worker",
                len(on_victim),
                "",
                f"{acked_after}/{len(second)} voted after",
            ]
        )
        if redis is not None:
            counted = state["answered"]
            redis.restart()
            state = await wait_state(api, lambda s: True)
            rows.append(
                [
                    "Redis restarted: answered before → after",
                    f"{counted} → {state['answered']}",
                    "same",
                    "",
                ]
            )
        clicked = await lecturer.click("Next ▶")
        followed = await follow_times(students, last, clicked)
        state = await wait_state(api, lambda s: s["step"] == last)
        rows.append(
            [
                f"kill: lecturer's Next → step {last}, every student",
                f"{len(followed)}/{n}",
                f"{n}/{n}",
                f"p95 {p95(followed):.2f} s, store step {state['step']}; "
                f"{sum(1 for s in students if last in s.shown_ahead)} shown drawn ahead",
            ]
        )
        rows.append(
            [
                "reconnected after the kill",
                sum(s.tab.reconnects for s in students),
                "",
                f"{time.monotonic() - killed_at:.0f} s after",
            ]
        )
        for i, student in enumerate(students):
            if student.errors:
                print(f"student {i}: {student.errors[:3]}, steps drawn {sorted(student.shown_at)}")
        stop.set()
        for task in listeners:
            task.cancel()
        for student in students:
            await student.tab.close()
        await browser.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    parser.add_argument("--students", type=int, default=160)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--phones", type=int, help="students whose screen says it is a phone (default: all)"
    )
    parser.add_argument(
        "--from-step", type=int, default=1, help="the class starts here; Next goes on from it"
    )
    args = parser.parse_args()
    args.phones = args.students if args.phones is None else args.phones
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        run_dir = Path(tmp)
        redis = None
        if args.store == "redis":
            redis = RedisServer(run_dir)
            redis.start()
            os.environ["HEADSPACES_CLASS_STORE"] = redis.url
        else:
            os.environ["HEADSPACES_CLASS_STORE"] = f"sqlite://{run_dir / 'classes.sqlite3'}"
        cluster = Cluster(2, free_port(), run_dir)
        try:
            url = cluster.start()
            rows = asyncio.run(run(args, url, cluster, redis))
        finally:
            cluster.stop()
            if redis is not None:
                redis.stop()
    print(
        f"live class, {args.students} students ({args.phones} on a phone's screen), store "
        f"{args.store}, 2 workers behind nginx; from step {args.from_step}"
    )
    print_table(["measure", "figure", "target", "detail"], rows)


if __name__ == "__main__":
    main()
