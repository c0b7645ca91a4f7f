"""RBAC rules limited by ``resourceNames`` that HL106 dropped (issue 32; attack 10, item 2): a
rule with ``resourceNames`` was never reported, so a hook's ServiceAccount that may impersonate the
group ``system:masters``, or bind itself to ``cluster-admin`` by name, passed ``lint`` and
``diff``. Kubernetes grants the verbs of such a rule on those names only ("Using RBAC
Authorization", "Referring to resources"), so HL106 now judges what the names reach: a named
identity to impersonate ("User impersonation"), a named role to bind or escalate ("Restrictions
on role binding creation or update"), a named ServiceAccount's tokens and token Secret, named
nodes' kubelet API ("RBAC good practices", "Privilege escalation risks"). And ``get`` on
``nodes/proxy``, ``pods/exec`` and ``pods/attach`` (a WebSocket upgrade is a GET) runs commands
as surely as ``create``."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from conftest import git, hits, write
from hooklint.cli import app
from tests.manifests import RUNNER_HOOK_JOB

TAIL = ("a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over "
        "the cluster. Grant only the verbs and resources it needs.")

# The attacker's shape, written anew: a PreSync hook's ServiceAccount, a ClusterRole whose every
# rule names its objects, and a ClusterRoleBinding.
HOOK = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: schema-sync
  namespace: billing
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-3"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: schema-sync
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-3"
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
rules:
  - apiGroups: [""]
    resources: [groups]
    verbs: [impersonate]
    resourceNames: ["system:masters"]
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [clusterroles]
    verbs: [bind]
    resourceNames: [cluster-admin]
  - apiGroups: [rbac.authorization.k8s.io]
    resources: [clusterrolebindings]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: schema-sync
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-2"
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: schema-sync}
subjects:
  - {kind: ServiceAccount, name: schema-sync, namespace: billing}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: schema-sync
  namespace: billing
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 600
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: schema-sync
      containers:
        - name: sync
          image: ghcr.io/acme/schema-sync:3.1.0
"""
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: billing}\ndata: {a: b}\n"
HOOK_FINDING = (
    "hooks.yaml:56:27: error HL106 hook-overprivileged-rbac: Job/schema-sync runs as ServiceAccount 'schema-sync', "
    "and ClusterRoleBinding/schema-sync grants impersonate on groups 'system:masters' (it can act as group "
    "'system:masters', which bypasses every authorization check), and bind on clusterroles 'cluster-admin' (it can "
    f"bind itself to cluster-admin) through ClusterRole 'schema-sync': {TAIL}")


def findings(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if " error HL" in line or " warning HL" in line]


def test_lint_reports_impersonating_system_masters_and_binding_cluster_admin_by_name(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings``, exit 0."""
    write(tmp_path, {"hooks.yaml": HOOK, "settings.yaml": SETTINGS, ".hooklint.yaml": "{}\n"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "."])
    assert (result.exit_code, findings(result.output)) == (1, [HOOK_FINDING])


def test_diff_counts_the_named_escalation_as_new(tmp_path, monkeypatch):
    """Before: ``0 new findings``, exit 0: the pull request added the hook."""
    write(tmp_path, {"settings.yaml": SETTINGS, ".hooklint.yaml": "{}\n"})
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write(tmp_path, {"hooks.yaml": HOOK})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "head")
    result = CliRunner().invoke(app, ["diff", "--no-cache", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    assert "1 new finding, 0 fixed" in result.output
    assert findings(result.output) == [HOOK_FINDING]


JOB = RUNNER_HOOK_JOB


def binding(role: str = "r", kind: str = "ClusterRoleBinding", role_kind: str = "ClusterRole", name: str = "grant",
            subject: str = "{kind: ServiceAccount, name: runner, namespace: app}") -> str:
    ns = ", namespace: app" if kind == "RoleBinding" else ""
    return (f"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: {name}{ns}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: '{role}'}}\n"
            f"subjects: [{subject}]\n")  # fmt: skip


def role(rules: str, kind: str = "ClusterRole", name: str = "r") -> str:
    ns = ", namespace: app" if kind == "Role" else ""
    return f"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: '{name}'{ns}}}\nrules: {rules}\n"


def grants(context: str) -> list[str]:
    """What HL106 says each binding grants, the hook's position checked."""
    found = hits("HL106", JOB, context=context)
    assert all((line, column) == (11, 27) for line, column, _ in found)
    return [message.split(" grants ", 1)[-1].removesuffix(": " + TAIL) for _, _, message in found]


def named(group: str, resource: str, verbs: str, names: str) -> str:
    return f"[{{apiGroups: ['{group}'], resources: [{resource}], verbs: [{verbs}], resourceNames: [{names}]}}]"


RBAC = "rbac.authorization.k8s.io"
GC = ("kube-system's ServiceAccount 'generic-garbage-collector', bound to the built-in ClusterRole "
      "'system:controller:generic-garbage-collector', which grants every resource")
GC_TOKEN = ("---\napiVersion: v1\nkind: Secret\nmetadata: {name: gc-token, namespace: kube-system, annotations: "
            "{kubernetes.io/service-account.name: generic-garbage-collector}}\ntype: kubernetes.io/service-account-token\n")
NAMESPACE_TAIL = ("a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over "
                  "namespace 'app'. Grant only the verbs and resources it needs.")


@pytest.mark.parametrize("context, granted", [
    (role(named("", "groups", "impersonate", "'system:masters'")) + binding(),
     "impersonate on groups 'system:masters' (it can act as group 'system:masters', which bypasses every "
     "authorization check)"),
    (role(named("", "users", "impersonate", "deployer")) + binding(),
     "impersonate on users 'deployer' (it can act as user 'deployer', with every right that user holds)"),
    (role(named("", "users", "impersonate", "ops-lead")) + binding()
     + binding("cluster-admin", name="ops", subject="{kind: User, name: ops-lead}"),
     "impersonate on users 'ops-lead' (it can act as user 'ops-lead', whom ClusterRoleBinding/ops binds to "
     "cluster-admin)"),
    (role(named("", "serviceaccounts", "impersonate", "argocd-server")) + binding(),
     "impersonate on serviceaccounts 'argocd-server' (it can act as Argo CD's own ServiceAccount 'argocd-server', "
     "which the stock install grants delete, get and patch on every resource of the cluster)"),
    (role(named(RBAC, "clusterroles", "bind", "admin")) + binding(),
     "bind on clusterroles 'admin' (it can bind itself to the built-in ClusterRole 'admin')"),
    (role(named(RBAC, "clusterroles", "bind, escalate", "reader")) + binding()
     + role("[{apiGroups: [''], resources: [secrets], verbs: [list]}]", name="reader"),
     "escalate, bind on clusterroles 'reader' (it can write into ClusterRole 'reader', which grants reading secrets "
     "cluster-wide rules it does not hold; it can bind itself to ClusterRole 'reader', which grants reading secrets "
     "cluster-wide)"),
    (role(named(RBAC, "clusterroles", "escalate, update", "r")) + binding(),
     "escalate on clusterroles 'r' (it can write any rule into its own ClusterRole 'r')"),
    (role(named("", "serviceaccounts/token", "create", "argocd-application-controller")) + binding(),
     "issuing tokens for named ServiceAccounts (create on serviceaccounts/token 'argocd-application-controller': a "
     "token for Argo CD's own ServiceAccount 'argocd-application-controller', which the stock install grants every "
     "verb on every resource of the cluster)"),
    (role(named("", "serviceaccounts/token", "create", "replicaset-controller, generic-garbage-collector")) + binding(),
     "issuing tokens for named ServiceAccounts (create on serviceaccounts/token 'replicaset-controller', "
     "'generic-garbage-collector': a token for kube-system's ServiceAccount 'replicaset-controller', bound to the "
     "built-in ClusterRole 'system:controller:replicaset-controller', which grants running pods cluster-wide; for "
     f"{GC})"),
    (role(named("", "serviceaccounts/token", "create", "deployer")) + binding()
     + binding("cluster-admin", name="deployer", subject="{kind: ServiceAccount, name: deployer, namespace: ci}"),
     "issuing tokens for named ServiceAccounts (create on serviceaccounts/token 'deployer': a token for "
     "ServiceAccount 'deployer', which ClusterRoleBinding/deployer binds to cluster-admin)"),
    (role(named("", "secrets", "get, watch", "gc-token")) + binding() + GC_TOKEN,
     f"reading named token Secrets cluster-wide (get, watch on secrets 'gc-token': the token Secret 'gc-token' of {GC})"),
    (role(named("", "nodes/proxy", "get", "node-1, node-2")) + binding(),
     "running commands in every pod of nodes 'node-1', 'node-2' (get on nodes/proxy: the kubelet API of those nodes)"),
])  # fmt: skip
def test_rules_with_resource_names_judged_by_what_the_names_reach(context: str, granted: str) -> None:
    """Each was silent before: any rule with ``resourceNames`` but a signer's ``approve`` was
    dropped."""
    assert grants(context) == [f"{granted} through ClusterRole 'r'"]


@pytest.mark.parametrize("context", [
    role(named(RBAC, "clusterroles", "bind, escalate", "view")) + binding(),  # the built-in view
    role(named(RBAC, "clusterroles", "bind", "cm")) + binding()
    + role("[{apiGroups: [''], resources: [configmaps], verbs: [get]}]", name="cm"),
    role(named(RBAC, "clusterroles", "bind", "r")) + binding(),  # binding itself to its own role: nothing more
    role(named("apps", "clusterroles", "bind", "cluster-admin")) + binding(),  # not the RBAC group
    role(named("", "groups", "get, list", "'system:masters'")) + binding(),  # no impersonate
    # through a RoleBinding: escalate on a cluster-scoped role is not granted, tokens and secrets stay in 'app'
    role(named(RBAC, "clusterroles", "escalate", "r")) + binding(kind="RoleBinding"),
    role(named("", "serviceaccounts/token", "create", "argocd-application-controller")) + binding(kind="RoleBinding"),
    role(named("", "secrets", "get", "gc-token")) + binding(kind="RoleBinding") + GC_TOKEN,
    role(named("", "nodes/proxy", "get, create", "node-1")) + binding(kind="RoleBinding"),
    # a ServiceAccount, or a Secret, nothing reaches
    role(named("", "serviceaccounts/token", "create", "deployer")) + binding(),
    role(named("", "secrets", "get", "db, gc-token")) + binding() + GC_TOKEN.replace("kube-system", "billing"),
    role(named("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "update, patch", "acme")) + binding(),
])  # fmt: skip
def test_rules_with_resource_names_that_reach_nothing_reported(context: str) -> None:
    assert grants(context) == []


def test_named_roles_of_a_namespace_through_a_role_binding() -> None:
    """A RoleBinding grants bind and escalate on the Roles of its namespace; the message says the
    namespace."""
    strong = role("[{apiGroups: [''], resources: ['*'], verbs: [get]}]", kind="Role", name="all")
    assert hits("HL106", JOB, context=role(named(RBAC, "roles", "bind", "all"), kind="Role") + strong
                + binding(kind="RoleBinding", role_kind="Role")) == [(11, 27, (
        "Job/migrate runs as ServiceAccount 'runner', and RoleBinding/grant grants bind on roles 'all' (it can bind "
        f"itself to Role 'all', which grants every resource) through Role 'r': {NAMESPACE_TAIL}"))]  # fmt: skip
    assert hits("HL106", JOB, context=role(named(RBAC, "roles", "escalate", "r"), kind="Role")
                + binding(kind="RoleBinding", role_kind="Role")) == [(11, 27, (
        "Job/migrate runs as ServiceAccount 'runner', and RoleBinding/grant grants escalate on roles 'r' (it can "
        f"write any rule into its own Role 'r') through Role 'r': {NAMESPACE_TAIL}"))]  # fmt: skip
    elsewhere = strong.replace("namespace: app", "namespace: other")
    assert hits("HL106", JOB, context=role(named(RBAC, "roles", "bind", "all"), kind="Role") + elsewhere
                + binding(kind="RoleBinding", role_kind="Role")) == []


PODS = ("running pods cluster-wide ({}: it can run code as any ServiceAccount of any namespace, with that namespace's "
        "Secrets)")


@pytest.mark.parametrize("rules, granted", [
    ("[{apiGroups: [''], resources: [nodes/proxy], verbs: [get]}]", PODS.format("get on nodes/proxy")),
    ("[{apiGroups: ['*'], resources: [nodes/proxy], verbs: [create]}]", PODS.format("create on nodes/proxy")),
    ("[{apiGroups: [''], resources: [pods/exec, pods/attach], verbs: [get]}]", PODS.format("get on pods/exec, pods/attach")),
    # the attacker's rbac-token role
    ("[{apiGroups: [''], resources: [serviceaccounts/token], verbs: [create]}, {apiGroups: [''], resources: [pods/exec, "
     "nodes/proxy], verbs: [create, get]}, {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests, "
     "certificatesigningrequests/approval, signers], verbs: [create, update, approve]}]",
     PODS.format("create and get on pods/exec, nodes/proxy") + ", and issuing tokens cluster-wide (create on "
     "serviceaccounts/token: a token for any ServiceAccount of any namespace), and approve on every signer (it can "
     "approve certificates that authenticate to the API server as another user or node)"),
])  # fmt: skip
def test_get_on_the_kubelet_api_and_on_exec_runs_commands(rules: str, granted: str) -> None:
    """``get`` on nodes/proxy is not read-only ("RBAC good practices", "Access to proxy subresource
    of Nodes"): a WebSocket GET reaches the kubelet's exec; pods/exec and pods/attach likewise on a
    cluster before Kubernetes 1.35 (``AuthorizePodWebsocketUpgradeCreatePermission``). Before, only
    ``create`` on pods/exec was reported."""
    assert grants(role(rules) + binding()) == [f"{granted} through ClusterRole 'r'"]
    assert grants(role(rules) + binding(kind="RoleBinding")) == []  # nodes are cluster-scoped


def test_roles_that_name_one_another_are_each_judged_whole() -> None:
    """A cycle: 's' reads secrets and may bind 'loop', which may bind 's'. Judging 's' first meets
    'loop' while 's' is under way; 'loop' must not be remembered as harmless."""
    s = role("[{apiGroups: [''], resources: [secrets], verbs: [get]}, "
             f"{{apiGroups: [{RBAC}], resources: [clusterroles], verbs: [bind], resourceNames: [loop]}}]", name="s")
    loop = role(f"[{{apiGroups: [{RBAC}], resources: [clusterroles], verbs: [bind], resourceNames: [s]}}]", name="loop")
    assert grants(s + loop + binding("s", name="a") + binding("loop", name="b")) == [
        "reading secrets cluster-wide through ClusterRole 's'",
        "bind on clusterroles 's' (it can bind itself to ClusterRole 's', which grants reading secrets cluster-wide) "
        "through ClusterRole 'loop'"]  # fmt: skip


def test_many_roles_naming_one_another_end_in_bounded_time() -> None:
    """Sixty roles each allowed to bind every other: the judgement stops following names past its
    budget and says so (fail closed) instead of running for ever."""
    names = ", ".join(f"n{i}" for i in range(60))
    roles = "".join(role(named(RBAC, "clusterroles", "bind", names), name=f"n{i}") for i in range(60))
    started = time.monotonic()
    found = grants(roles + binding("n0"))
    assert time.monotonic() - started < 30
    assert len(found) == 1 and "which hooklint did not follow (too many roles named through resourceNames)" in found[0]


def test_a_long_chain_of_named_roles_ends_at_the_depth_limit() -> None:
    """r binds c0, c0 binds c1, ... each role naming the next: past 40 roles deep the judgement
    stops following names (fail closed) rather than recurse past Python's limit and crash; a chain
    of three is followed to cluster-admin, and one ending in a harmless role is not reported."""
    chain = "".join(role(named(RBAC, "clusterroles", "bind", f"c{i + 1}"), name=f"c{i}") for i in range(1200))
    started = time.monotonic()
    assert grants(role(named(RBAC, "clusterroles", "bind", "c0")) + chain + binding()) == [
        "bind on clusterroles 'c0' (it can bind itself to ClusterRole 'c0', which grants bind on clusterroles 'c1') "
        "through ClusterRole 'r'"]  # fmt: skip
    assert time.monotonic() - started < 60
    three = "".join(role(named(RBAC, "clusterroles", "bind", nxt), name=f"c{i}")
                    for i, nxt in enumerate(["c1", "c2", "cluster-admin"]))  # fmt: skip
    assert grants(role(named(RBAC, "clusterroles", "bind", "c0")) + three + binding()) == [
        "bind on clusterroles 'c0' (it can bind itself to ClusterRole 'c0', which grants bind on clusterroles 'c1') "
        "through ClusterRole 'r'"]
    harmless = three.replace("cluster-admin", "view")
    assert grants(role(named(RBAC, "clusterroles", "bind", "c0")) + harmless + binding()) == []


def test_impersonating_a_service_account_through_a_role_binding_is_judged_in_its_namespace() -> None:
    """A RoleBinding grants impersonation of the ServiceAccounts of its namespace only: 'deployer'
    of 'app' is bound to cluster-admin, 'deployer' of 'ci' is not reached."""
    rules = named("", "serviceaccounts", "impersonate", "deployer")
    admin_in = binding("cluster-admin", name="d", subject="{kind: ServiceAccount, name: deployer, namespace: %s}")
    assert grants(role(rules) + binding(kind="RoleBinding") + admin_in % "app") == [
        "impersonate on serviceaccounts 'deployer' (it can act as ServiceAccount 'deployer', which "
        f"ClusterRoleBinding/d binds to cluster-admin) through ClusterRole 'r': {NAMESPACE_TAIL}"]  # fmt: skip
    assert grants(role(rules) + binding(kind="RoleBinding") + admin_in % "ci") == [
        "impersonate on serviceaccounts 'deployer' (it can act as ServiceAccount 'deployer', with its rights) through "
        f"ClusterRole 'r': {NAMESPACE_TAIL}"]  # fmt: skip
