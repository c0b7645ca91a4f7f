"""HL206's Pod Security admission part: each control of the Pod Security Standards, as
pod-security-admission's ``policy/check_*.go`` checks it, named in the message; what a level
allows stays silent."""

from __future__ import annotations

import pytest
import yaml

from hooklint.config import parse_config
from hooklint.pipeline import lint_text


def _run(level: str, pod_spec: dict, template_meta: dict | None = None) -> list[str]:
    namespace = {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": "shop", "labels": {"pod-security.kubernetes.io/enforce": level}}}  # fmt: skip
    template: dict = {"spec": {"restartPolicy": "Never", "serviceAccountName": "job", "automountServiceAccountToken": False,
                               **pod_spec}}  # fmt: skip
    if template_meta:
        template["metadata"] = template_meta
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "hook", "namespace": "shop", "annotations": {"argocd.argoproj.io/hook": "PreSync"}},
           "spec": {"backoffLimit": 1, "template": template}}  # fmt: skip
    text = yaml.safe_dump_all([namespace, job], sort_keys=False)
    return [f.message for f in lint_text(text, parse_config({}, "t")) if f.rule_id == "HL206"]


def _container(**security) -> dict:
    body: dict = {"name": "c", "image": "ghcr.io/acme/c:1.0.0"}
    if security:
        body["securityContext"] = security
    return body


RESTRICTED_OK_POD = {"securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}}
RESTRICTED_OK_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


@pytest.mark.parametrize(
    ("level", "pod_spec", "control"),
    [
        ("baseline", {"hostNetwork": True, "containers": [_container()]}, "Host Namespaces (hostNetwork=true)"),
        ("baseline", {"hostPID": True, "containers": [_container()]}, "Host Namespaces (hostPID=true)"),
        ("baseline", {"containers": [{**_container(), "ports": [{"containerPort": 80, "hostPort": 8080}]}]},
         "Host Ports (container 'c' must not set hostPort=8080)"),
        ("baseline", {"containers": [_container(capabilities={"add": ["SYS_ADMIN"]})]},
         "Capabilities (container 'c' must not add SYS_ADMIN)"),
        # the library compares exact names: CAP_CHOWN is not CHOWN
        ("baseline", {"containers": [_container(capabilities={"add": ["CAP_CHOWN"]})]},
         "Capabilities (container 'c' must not add CAP_CHOWN)"),
        ("baseline", {"securityContext": {"seccompProfile": {"type": "Unconfined"}}, "containers": [_container()]},
         "Seccomp (pod must not set seccompProfile.type=Unconfined)"),
        ("baseline", {"containers": [_container(procMount="Unmasked")]},
         "/proc Mount Type (container 'c' must not set securityContext.procMount=Unmasked)"),
        ("baseline", {"containers": [_container(seLinuxOptions={"type": "spc_t"})]},
         "SELinux (container 'c' must not set seLinuxOptions.type=spc_t)"),
        ("baseline", {"containers": [_container(appArmorProfile={"type": "Unconfined"})]},
         "AppArmor (container 'c' must not set appArmorProfile.type=Unconfined)"),
        ("baseline", {"containers": [_container(windowsOptions={"hostProcess": True})]},
         "HostProcess (container 'c' must not set windowsOptions.hostProcess=true)"),
        ("restricted", {**RESTRICTED_OK_POD, "containers": [_container(**RESTRICTED_OK_CONTAINER)],
                        "volumes": [{"name": "share", "nfs": {"server": "nas", "path": "/x"}}]},
         "Volume Types (volume 'share' uses nfs)"),
        ("restricted", {**RESTRICTED_OK_POD, "containers": [_container(**RESTRICTED_OK_CONTAINER, runAsUser=0)]},
         "Running as Non-root user (container 'c' must not set runAsUser=0)"),
        ("restricted", {"securityContext": {"runAsNonRoot": False, "seccompProfile": {"type": "RuntimeDefault"}},
                        "containers": [_container(**RESTRICTED_OK_CONTAINER)]},
         "Running as Non-root (pod must not set securityContext.runAsNonRoot=false)"),
        ("restricted", {**RESTRICTED_OK_POD,
                        "containers": [_container(allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"], "add": ["NET_RAW"]})]},
         "Capabilities (container 'c' must not add NET_RAW)"),
    ],
)  # fmt: skip
def test_each_control_is_named(level: str, pod_spec: dict, control: str) -> None:
    [message] = _run(level, pod_spec)
    assert f"violates {control}" in message and f"level '{level}'" in message


def test_annotation_app_armor_profile_is_baseline() -> None:
    meta = {"annotations": {"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}}
    [message] = _run("baseline", {"containers": [_container()]}, meta)
    assert "violates AppArmor (annotation container.apparmor.security.beta.kubernetes.io/c=unconfined)" in message


@pytest.mark.parametrize(
    ("level", "pod_spec"),
    [
        ("restricted", {**RESTRICTED_OK_POD, "containers": [_container(**RESTRICTED_OK_CONTAINER)],
                        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}},
                                    {"name": "tmp", "emptyDir": {}}]}),
        # container-level settings stand for the pod-level ones
        ("restricted", {"containers": [_container(**RESTRICTED_OK_CONTAINER, runAsNonRoot=True,
                                                  seccompProfile={"type": "Localhost", "localhostProfile": "p.json"})]}),
        # a Windows pod skips the Linux-only controls (allowPrivilegeEscalation, capabilities, seccomp)
        ("restricted", {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True}, "containers": [_container()]}),
        ("restricted", {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True,
                                                                      "seccompProfile": {"type": "Unconfined"}},
                        "containers": [_container()]}),
        # a pod in a user namespace may run as root (runAsNonRoot, runAsUser: 1.35 policy)
        ("restricted", {"hostUsers": False, "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}, "runAsUser": 0},
                        "containers": [_container(**RESTRICTED_OK_CONTAINER)]}),
        ("baseline", {"containers": [_container(capabilities={"add": ["NET_BIND_SERVICE", "CHOWN"]},
                                                seLinuxOptions={"type": "container_t", "level": "s0:c1"})]}),
        ("privileged", {"hostNetwork": True, "containers": [_container()]}),
    ],
)  # fmt: skip
def test_what_the_level_allows_is_silent(level: str, pod_spec: dict) -> None:
    assert _run(level, pod_spec) == []
