"""The nginx side of `make serve`: find Debian's nginx, render its config from
nginx.conf.template into a run directory, and check it with `nginx -t`."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
ROUTE_COOKIE = "headspaces_route"
TEMP_DIRS = ("body", "proxy", "fastcgi", "uwsgi", "scgi")
_PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


class NginxMissingError(RuntimeError):
    """nginx is not installed (scripts/ensure-nginx installs Debian's package)."""


def nginx_binary() -> str:
    """Path of the nginx executable; NginxMissingError says how to install it."""
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        raise NginxMissingError("nginx is not installed: run scripts/ensure-nginx (Debian's nginx)")
    return found


def render_config(
    run_dir: Path, worker_ports: list[int], listen: str, fail_timeout: int = 10
) -> Path:
    """Write nginx.conf for these loopback worker ports into `run_dir` (with the temp
    directories it names) and return its path."""
    run_dir = run_dir.resolve()
    servers = "\n".join(
        f"        server 127.0.0.1:{port} max_fails=1 fail_timeout={fail_timeout}s;"
        for port in worker_ports
    )
    values = {
        "RUN_DIR": str(run_dir),
        "COOKIE": ROUTE_COOKIE,
        "SERVERS": servers,
        "LISTEN": listen,
        "USER": _user_line(),
    }
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], TEMPLATE.read_text())
    for name in TEMP_DIRS:
        path = run_dir / "tmp" / name
        path.mkdir(parents=True, exist_ok=True)
        _give_to_worker_user(path)
    conf = run_dir / "nginx.conf"
    conf.write_text(text)
    return conf


def check_config(conf: Path) -> subprocess.CompletedProcess:
    """Run `nginx -t` on the rendered config (returncode 0 when nginx accepts it)."""
    return subprocess.run(
        [nginx_binary(), "-t", "-p", str(conf.parent), "-c", str(conf)],
        capture_output=True,
        text=True,
        check=False,
    )


def _user_line() -> str:
    """As root, nginx's workers drop to `nobody`; as anyone else they keep the user."""
    return "user nobody nogroup;" if os.geteuid() == 0 else "# (not root: workers keep this user)"


def _give_to_worker_user(path: Path) -> None:
    if os.geteuid() == 0:
        os.chown(path, pwd.getpwnam("nobody").pw_uid, -1)
