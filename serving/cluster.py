"""N Streamlit processes on loopback ports behind one nginx: start them, keep them healthy
(a worker that exits or stops answering /_stcore/health is restarted), stop them all.
Used by `make serve`, the classroom benchmark and the scale-out tests."""

from __future__ import annotations

import re
import secrets
import signal
import subprocess
import time
from pathlib import Path

from serving.launch import APP, free_port, healthy, start_streamlit, wait_healthy
from serving.nginx import check_config, nginx_binary, render_config

UNHEALTHY_CHECKS = 3  # consecutive failed health checks before a worker is restarted
_LOGGED_ROUTE = re.compile(r" route=(\S+) upstream=(.*?) time=")


def logged_upstreams(access_log: Path) -> dict[str, str]:
    """Route cookie -> the worker (host:port) that answered its latest logged request, from
    nginx's access log: which worker holds a browser is the operator's to know, and no
    response header tells the world."""
    if not access_log.exists():
        return {}
    # A request retried on another worker logs "dead:port, live:port": the last answered.
    return {
        route: tried.split(", ")[-1]
        for route, tried in _LOGGED_ROUTE.findall(access_log.read_text())
    }


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Worker:
    """One `streamlit run` on a loopback port, its output in a log file."""

    def __init__(self, port: int, log: Path, app: Path = APP, cookie_secret: str = ""):
        self.port = port
        self.log = log
        self.app = app
        self.cookie_secret = cookie_secret
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.failed_checks = 0

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = start_streamlit(self.port, self.app, out, self.cookie_secret)
        self.failed_checks = 0

    def wait_healthy(self, timeout: float = 90.0) -> None:
        if self.proc is None:
            raise RuntimeError(f"worker on port {self.port} was not started")
        try:
            wait_healthy(self.proc, self.port, timeout)
        except RuntimeError as error:
            raise RuntimeError(f"worker on port {self.port}: {error}; see {self.log}") from None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)


class Cluster:
    """`workers` Streamlit processes behind nginx listening on host:port. Use as a
    context manager, or start() / stop(); check() restarts dead or hung workers."""

    def __init__(
        self,
        workers: int,
        port: int,
        run_dir: Path,
        host: str = "127.0.0.1",
        app: Path = APP,
    ):
        if workers < 1:
            raise ValueError("a cluster needs at least one worker")
        self.run_dir = run_dir.resolve()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.url = f"http://{host}:{port}"
        self.access_log = self.run_dir / "access.log"  # the name nginx.conf.template gives it
        self.listen = f"{host}:{port}"
        secret = secrets.token_hex(16)
        self.workers = [
            Worker(free_port(), self.run_dir / f"worker-{i}.log", app, secret)
            for i in range(workers)
        ]
        self.nginx: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> str:
        """Start the workers, then nginx once each answers its health check; returns the
        URL students open."""
        nginx = nginx_binary()
        conf = render_config(self.run_dir, [w.port for w in self.workers], self.listen)
        checked = check_config(conf)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx rejected {conf}:\n{checked.stderr}")
        for worker in self.workers:
            worker.start()
        for worker in self.workers:
            worker.wait_healthy(timeout)
        self.nginx = subprocess.Popen(
            [nginx, "-p", str(self.run_dir), "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=(self.run_dir / "nginx.out").open("ab"),
        )
        deadline = time.monotonic() + 10
        while not healthy(self.url, timeout=2.0):
            if self.nginx.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start; see {self.run_dir}/error.log")
            time.sleep(0.2)
        return self.url

    def check(self) -> list[str]:
        """One round of health checks; restarts a worker that exited or failed
        UNHEALTHY_CHECKS checks in a row. Returns what it did, for the log."""
        events = []
        for worker in self.workers:
            if worker.proc is not None and worker.proc.poll() is not None:
                events.append(
                    f"worker :{worker.port} exited ({worker.proc.returncode}): restarting"
                )
            elif healthy(worker.url):
                worker.failed_checks = 0
                continue
            else:
                worker.failed_checks += 1
                if worker.failed_checks < UNHEALTHY_CHECKS:
                    continue
                events.append(
                    f"worker :{worker.port} failed {UNHEALTHY_CHECKS} health checks: restarting"
                )
                worker.stop()
            worker.start()
        return events

    def stop(self) -> None:
        """Stop nginx first (no new requests), then every worker."""
        if self.nginx is not None:
            _stop(self.nginx, signal.SIGQUIT)
        for worker in self.workers:
            worker.stop()

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
