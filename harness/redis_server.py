"""A throwaway redis-server for the class store's tests and the live-class benchmark:
Debian's binary on a free loopback port, its data in a tmp dir, every write fsynced to the
append-only file so a killed server loses nothing it acknowledged."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import redis

from serving.launch import free_port


class RedisServer:
    """One redis-server process; restart() kills it (SIGKILL) and starts it again on the
    same port and data."""

    def __init__(self, data_dir: Path) -> None:
        self.binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc: subprocess.Popen | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=1)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    client.close()
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self._proc is not None and self._proc.poll() is None:
            os.kill(self._proc.pid, sig)
            self._proc.wait(timeout=15)
        self._proc = None

    def restart(self) -> None:
        self.stop(signal.SIGKILL)
        self.start()


def redis_server_installed() -> bool:
    """Whether a redis-server binary is on PATH or at Debian's path."""
    return shutil.which("redis-server") is not None or Path("/usr/bin/redis-server").exists()
