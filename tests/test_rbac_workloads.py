"""Two RBAC reaches HL106 missed (issue 32): a hook whose ServiceAccount may start pods in every
namespace (create on pods or a kind that makes them, ephemeral containers, ServiceAccount tokens;
Kubernetes RBAC good practices, "Workload creation", "Token request") or approve client
certificates, through the application's own ClusterRole or a built-in one of the bootstrap policy
(F10); and a hook that runs as one of Argo CD's own ServiceAccounts, which the stock install binds
to cluster-admin-like roles, while a tiny binding in the application silenced HL104 (F6)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import hits, write
from hooklint.cli import app
from tests.manifests import RUNNER_HOOK_JOB

TAIL = ("a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over "
        "the cluster. Grant only the verbs and resources it needs.")
PODS = ("running pods cluster-wide ({}: it can run code as any ServiceAccount of any namespace, with that namespace's "
        "Secrets)")

HOOK_RBAC = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: migrate
  namespace: payments
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookSucceeded
    argocd.argoproj.io/sync-wave: "-1"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: pod-maker
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookSucceeded
    argocd.argoproj.io/sync-wave: "-1"
rules:
  - apiGroups: ["", apps, batch]
    resources: [pods, deployments, daemonsets, jobs]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: migrate-pod-maker
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: HookSucceeded
    argocd.argoproj.io/sync-wave: "-1"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: pod-maker
subjects:
  - kind: ServiceAccount
    name: migrate
    namespace: payments
"""

HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  namespace: payments
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  ttlSecondsAfterFinished: 600
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: migrate
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
          securityContext:
            allowPrivilegeEscalation: false
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
"""


def test_attack_presync_cluster_role_that_creates_workloads(tmp_path, monkeypatch) -> None:
    """The attacker's folder: before, ``hooklint lint --no-cache .`` exited 0 while the same
    binding reading secrets cluster-wide was HL106."""
    settings = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: payments}\ndata: {a: b}\n"
    write(tmp_path, {"rbac.yaml": HOOK_RBAC, "job.yaml": HOOK_JOB, "cm.yaml": settings, ".hooklint.yaml": "{}\n"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if ": error HL" in line or ": warning HL" in line] == [
        "job.yaml:16:27: error HL106 hook-overprivileged-rbac: Job/db-migrate runs as ServiceAccount 'migrate', and "
        "ClusterRoleBinding/migrate-pod-maker grants " + PODS.format("create on pods, deployments, daemonsets, jobs")
        + " through ClusterRole 'pod-maker': " + TAIL]  # fmt: skip


def test_the_same_role_bound_in_one_namespace_is_not_reported() -> None:
    """As with reading Secrets, starting pods in the hook's own namespace reaches that namespace's
    ServiceAccounts and Secrets only, the reach a namespaced grant is meant to have."""
    namespaced = HOOK_RBAC.replace("kind: ClusterRoleBinding\nmetadata:\n  name: migrate-pod-maker\n",
                                   "kind: RoleBinding\nmetadata:\n  name: migrate-pod-maker\n  namespace: payments\n")
    assert "kind: RoleBinding" in namespaced
    assert hits("HL106", HOOK_JOB, context=namespaced) == []


JOB = RUNNER_HOOK_JOB


def binding(role: str, kind: str = "ClusterRoleBinding", role_kind: str = "ClusterRole") -> str:
    ns = ", namespace: app" if kind == "RoleBinding" else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: grant{ns}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: '{role}'}}\n"
            "subjects: [{kind: ServiceAccount, name: runner, namespace: app}]\n")  # fmt: skip


def role(rules: str, kind: str = "ClusterRole") -> str:
    ns = ", namespace: app" if kind == "Role" else ""
    return f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: r{ns}}}\nrules: {rules}\n---\n"


def grants(context: str) -> list[str]:
    """What HL106 says each binding grants, the hook's position checked."""
    found = hits("HL106", JOB, context=context)
    assert all((line, column) == (11, 27) for line, column, _ in found)
    return [message.split(" grants ", 1)[-1].removesuffix(": " + TAIL) for _, _, message in found]


APPROVE = "(it can approve certificates that authenticate to the API server as another user or node)"


@pytest.mark.parametrize("name, granted", [
    ("system:controller:replicaset-controller", PODS.format("update on replicasets; create and patch on pods")),
    ("system:controller:replication-controller",
     PODS.format("update on replicationcontrollers; create and patch on pods")),
    ("system:controller:statefulset-controller", PODS.format("create, update and patch on pods")),
    ("system:controller:daemon-set-controller", PODS.format("create and patch on pods")),
    ("system:controller:job-controller", PODS.format("update and patch on jobs; create and patch on pods")),
    ("system:controller:persistent-volume-binder", PODS.format("create on pods")),
    ("system:controller:cronjob-controller", PODS.format("update on cronjobs; create, update and patch on jobs")),
    ("system:controller:deployment-controller",
     PODS.format("update on deployments, pods; create, update and patch on replicasets")),
    ("system:controller:certificate-controller",
     f"approve on signers kubernetes.io/kube-apiserver-client-kubelet {APPROVE}"),
    ("system:certificates.k8s.io:kube-apiserver-client-approver",
     f"approve on signers kubernetes.io/kube-apiserver-client {APPROVE}"),
    ("system:controller:storage-version-migrator-controller", "every resource"),
])  # fmt: skip
def test_built_in_roles_that_start_pods_or_approve_certificates(name: str, granted: str) -> None:
    """Each was silent: the bootstrap policy's rules (``controller_policy.go``, ``policy.go``)."""
    assert grants(binding(name)) == [f"{granted} through the built-in ClusterRole '{name}'"]


def test_built_in_pod_starters_in_one_namespace_are_not_reported() -> None:
    assert grants(binding("system:controller:job-controller", kind="RoleBinding")) == []
    # kube-scheduler binds pending pods to nodes and deletes pods; it starts none and reads no Secret
    assert grants(binding("system:kube-scheduler")) == []
    assert grants(binding("system:certificates.k8s.io:kubelet-serving-approver")) == []


@pytest.mark.parametrize("rules, granted", [
    ("[{apiGroups: [''], resources: [pods/ephemeralcontainers], verbs: [patch]}]",
     PODS.format("patch on pods/ephemeralcontainers")),
    ("[{apiGroups: [''], resources: [serviceaccounts/token], verbs: [create]}]",
     "issuing tokens cluster-wide (create on serviceaccounts/token: a token for any ServiceAccount of any namespace)"),
    ("[{apiGroups: [extensions], resources: [deployments, statefulsets], verbs: [create, get]}]",
     PODS.format("create on deployments")),  # extensions never served StatefulSets
    ("[{apiGroups: ['*'], resources: [replicationcontrollers, cronjobs], verbs: [create]}, "
     "{apiGroups: [batch], resources: [jobs], verbs: [create]}]", PODS.format("create on replicationcontrollers, cronjobs, jobs")),
    ("[{apiGroups: [apps], resources: [daemonsets], verbs: [patch]}, {apiGroups: [''], resources: [pods/exec, pods], "
     "verbs: [create, get]}]", PODS.format("patch on daemonsets; create on pods; create and get on pods/exec")),
    ("[{apiGroups: [certificates.k8s.io], resources: [signers], verbs: [approve]}]", f"approve on every signer {APPROVE}"),
    ("[{apiGroups: [certificates.k8s.io], resources: [signers], verbs: [approve], resourceNames: ['kubernetes.io/*']}]",
     "approve on signers kubernetes.io/* " + APPROVE),
])  # fmt: skip
def test_application_cluster_roles_that_start_pods_or_approve_certificates(rules: str, granted: str) -> None:
    assert grants(role(rules) + binding("r")) == [f"{granted} through ClusterRole 'r'"]


@pytest.mark.parametrize("rules", [
    "[{apiGroups: [apps], resources: [pods, jobs], verbs: [create]}]",  # not the groups that serve them
    "[{apiGroups: [''], resources: [pods], verbs: [get, list, watch, delete]}]",
    "[{apiGroups: [''], resources: [pods/ephemeralcontainers], verbs: [get]}]",
    "[{apiGroups: [''], resources: [pods], verbs: [create], resourceNames: [one]}]",
    "[{apiGroups: [certificates.k8s.io], resources: [signers], verbs: [approve], "
    "resourceNames: [kubernetes.io/kubelet-serving, acme.io/*]}]",
    "[{apiGroups: [certificates.k8s.io], resources: [signers], verbs: [sign]}]",
])  # fmt: skip
def test_application_cluster_roles_that_do_not_start_pods(rules: str) -> None:
    assert grants(role(rules) + binding("r")) == []


# --- F6: Argo CD's own ServiceAccounts -----------------------------------------------------------

ARGOCD_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sneaky
  namespace: argocd
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: argocd-application-controller
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""

TINY = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: tiny, namespace: argocd}
rules: [{apiGroups: [''], resources: [configmaps], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tiny, namespace: argocd}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: tiny}
subjects: [{kind: ServiceAccount, name: argocd-application-controller}]
"""


def test_hook_running_as_the_argocd_application_controller() -> None:
    """Before: no finding at all (HL104 silenced by the tiny binding, HL106 judging only it)."""
    assert hits("HL104", ARGOCD_HOOK, context=TINY) == []
    assert hits("HL106", ARGOCD_HOOK, context=TINY) == [(11, 27, (
        "Job/sneaky runs as ServiceAccount 'argocd-application-controller', one of Argo CD's own, which this "
        "application does not create: the stock Argo CD install grants it every verb on every resource of the cluster "
        "(ClusterRole argocd-application-controller), and reading the Secrets of Argo CD's namespace; a PreSync hook "
        "runs on every sync, so whoever controls its image or command holds those rights. Give it its own "
        "ServiceAccount with only the verbs and resources it needs."))]  # fmt: skip
    # without any binding in the application too
    assert [h[:2] for h in hits("HL106", ARGOCD_HOOK)] == [(11, 27)]


@pytest.mark.parametrize("name", ["argocd-server", "argocd-applicationset-controller", "argocd-notifications-controller",
                                  "argocd-dex-server", "argocd-redis"])  # fmt: skip
def test_hook_running_as_other_argocd_service_accounts(name: str) -> None:
    found = hits("HL106", ARGOCD_HOOK.replace("argocd-application-controller", name))
    assert [(line, column, message.split(",")[0]) for line, column, message in found] == [
        (11, 27, f"Job/sneaky runs as ServiceAccount '{name}'")]


def test_argocd_named_service_account_the_application_creates_is_its_own() -> None:
    """An application that deploys Argo CD itself creates these ServiceAccounts: its bindings are
    judged as any other's (the tiny Role reads configmaps only: nothing to report)."""
    sa = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: argocd-application-controller, namespace: argocd}\n"
    assert hits("HL106", ARGOCD_HOOK, context=sa + "---\n" + TINY) == []
    other_namespace = sa.replace("namespace: argocd", "namespace: elsewhere")
    assert [h[:2] for h in hits("HL106", ARGOCD_HOOK, context=other_namespace)] == [(11, 27)]


def test_own_service_account_with_a_role_that_reads_configmaps_is_clean() -> None:
    own = ARGOCD_HOOK.replace("argocd-application-controller", "migrate")
    sa = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: migrate, namespace: argocd}\n---\n"
    context = sa + TINY.replace("argocd-application-controller", "migrate")
    assert hits("HL106", own, context=context) == []
    assert hits("HL104", own, context=context) == []
