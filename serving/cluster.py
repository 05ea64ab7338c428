"""N Streamlit processes on loopback ports behind one nginx: start them, keep them healthy
(a worker that exits or stops answering /_stcore/health is restarted), stop them all.
Used by `make serve`, the classroom benchmark and the scale-out tests."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from harness.browser import free_port
from serving.nginx import check_config, nginx_binary, render_config

ROOT = Path(__file__).resolve().parent.parent
HEALTH = "/_stcore/health"
UNHEALTHY_CHECKS = 3  # consecutive failed health checks before a worker is restarted


def healthy(url: str, timeout: float = 5.0) -> bool:
    """True when `url`/_stcore/health answers "ok"."""
    try:
        with urllib.request.urlopen(url + HEALTH, timeout=timeout) as response:
            return response.read().decode().strip() == "ok"
    except OSError:
        return False


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

    def __init__(self, port: int, log: Path, app: Path = ROOT / "app.py", cookie_secret: str = ""):
        self.port = port
        self.log = log
        self.app = app
        self.cookie_secret = cookie_secret
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.failed_checks = 0

    def start(self) -> None:
        command = [
            sys.executable, "-m", "streamlit", "run", str(self.app),
            "--server.headless", "true",
            "--server.address", "127.0.0.1",
            "--server.port", str(self.port),
            "--server.fileWatcherType", "none",
            "--browser.gatherUsageStats", "false",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.cookie_secret:  # one secret for all workers: a cookie signed by one is valid on all
            env["STREAMLIT_SERVER_COOKIE_SECRET"] = self.cookie_secret
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self.failed_checks = 0

    def wait_healthy(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"worker on port {self.port} exited; see {self.log}")
            if healthy(self.url, timeout=2.0):
                return
            time.sleep(0.3)
        raise RuntimeError(f"worker on port {self.port} not healthy after {timeout} s")

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
        app: Path = ROOT / "app.py",
    ):
        if workers < 1:
            raise ValueError("a cluster needs at least one worker")
        self.run_dir = run_dir.resolve()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.url = f"http://{host}:{port}"
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
