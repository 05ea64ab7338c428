"""The nginx side of `make serve` and of deploy/: find Debian's nginx, render the site
(site.conf.template) with this machine's workers into the process config
(nginx.conf.template) in a run directory, check it with `nginx -t`, and write deploy/nginx.conf from
the same site template (`python -m serving.nginx`), so the two cannot drift apart."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

from serving.headers import SECURITY_HEADERS

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "nginx.conf.template"
SITE_TEMPLATE = HERE / "site.conf.template"
DEPLOY_CONF = HERE.parent / "deploy" / "nginx.conf"
ROUTE_COOKIE = "headspaces_route"
TEMP_DIRS = ("body", "proxy", "fastcgi", "uwsgi", "scgi")
_PLACEHOLDER = re.compile(r"@([A-Z_]+)@")
DEPLOY_HEADER = """\
# GENERATED from serving/site.conf.template by `python -m serving.nginx`: edit the template
# and regenerate (tests/classroom/test_deploy.py checks that this file is the rendering).
# nginx in front of the compose replicas of `app`, mounted as conf.d/default.conf of the
# official nginx image (inside its http block), with the same sticky scheme as `make serve`.
# nginx resolves `app` to every replica when it starts: after
# `docker compose up --scale app=N`, run `docker compose restart nginx`.

"""


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


def _fill(template: Path, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template.read_text())


def render_site(servers: list[str], listen: str, fail_timeout: int = 10) -> str:
    """The site config (http-block level) proxying to `servers` (host:port each) from
    `listen`, every page answered with the SECURITY_HEADERS."""
    lines = "\n".join(
        f"    server {server} max_fails=1 fail_timeout={fail_timeout}s;" for server in servers
    )
    headers = "\n".join(
        f'        add_header {name} "{value}" always;' for name, value in SECURITY_HEADERS.items()
    )
    values = {"COOKIE": ROUTE_COOKIE, "SERVERS": lines, "LISTEN": listen}
    return _fill(SITE_TEMPLATE, {**values, "SECURITY_HEADERS": headers})


def deploy_config() -> str:
    """deploy/nginx.conf as it should read: the site for compose's `app` replicas."""
    return DEPLOY_HEADER + render_site(["app:8501"], "80")


def render_config(
    run_dir: Path, worker_ports: list[int], listen: str, fail_timeout: int = 10
) -> Path:
    """Write nginx.conf, with the site for these loopback worker ports in its http block,
    into `run_dir` (with the temp directories it names) and return its path."""
    run_dir = run_dir.resolve()
    site = render_site([f"127.0.0.1:{port}" for port in worker_ports], listen, fail_timeout)
    for name in TEMP_DIRS:
        path = run_dir / "tmp" / name
        path.mkdir(parents=True, exist_ok=True)
        _give_to_worker_user(path)
    conf = run_dir / "nginx.conf"
    values = {"RUN_DIR": str(run_dir), "USER": _user_line(), "SITE": site}
    conf.write_text(_fill(TEMPLATE, values))
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


if __name__ == "__main__":
    DEPLOY_CONF.write_text(deploy_config())
    print(f"wrote {DEPLOY_CONF}", file=sys.stderr)
