"""HL106 escalations attacker trial 12 found (issue 32): a Role bound in kube-system or Argo CD's
namespace that runs pods, issues tokens or reads Secrets there (F1); ``*/subresource`` rule
resources, which Kubernetes matches against that subresource of every resource (F2:
``ResourceMatches`` of k8s.io/kubernetes ``pkg/apis/rbac/v1/evaluation_helpers.go``); ``create`` on
admission webhook configurations and create, update or patch on admission policies (F3)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import git, hits, write
from hooklint.checks.rbac import _serves
from hooklint.cli import app


def job(namespace: str) -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: {namespace}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      restartPolicy: Never
      containers: [{{name: a, image: "ghcr.io/acme/a:1.0.0"}}]
"""


def role(namespace: str, groups: str, resources: str, verbs: str, kind: str = "Role") -> str:
    where = f", namespace: {namespace}" if kind == "Role" else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: runner{where}}}\n"
            f"rules:\n- apiGroups: [{groups}]\n  resources: [{resources}]\n  verbs: [{verbs}]\n")


def binding(namespace: str, kind: str = "RoleBinding") -> str:
    role_kind = "Role" if kind == "RoleBinding" else "ClusterRole"
    where = f", namespace: {namespace}" if kind == "RoleBinding" else ""
    return (f"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {{name: runner{where}}}\n"
            f"roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: runner}}\n"
            f"subjects: [{{kind: ServiceAccount, name: runner, namespace: {namespace}}}]\n")


def head(kind: str = "RoleBinding") -> str:
    return f"Job/migrate runs as ServiceAccount 'runner', and {kind}/runner grants "


def tail(where: str) -> str:
    return (f": a PreSync hook runs on every sync, so whoever controls its image or command holds those rights over "
            f"{where}. Grant only the verbs and resources it needs.")


ARGOCD = ("Argo CD's, whose Secrets hold every managed cluster's and repository's credentials and whose "
          "argocd-application-controller holds every verb on every resource")
KUBE_SYSTEM = ("the controllers' ServiceAccounts, clusterrole-aggregation-controller's escalate on every ClusterRole "
               "among them, and their tokens")


# F1: a RoleBinding in kube-system or Argo CD's namespace


@pytest.mark.parametrize("namespace, groups, resources, verbs, extra, grant, why", [
    ("argocd", '""', "secrets", "get, list", "", "reading secrets in namespace 'argocd' ({why})", ARGOCD),
    ("argocd", '""', "secrets", "watch", "", "watching secrets in namespace 'argocd' (a watch streams every Secret "
     "with its data; {why})", ARGOCD),
    ("openshift-gitops", "batch", "jobs", "create", "", "running pods in namespace 'openshift-gitops' (create on "
     "jobs: it can run code as any ServiceAccount there, with its Secrets; {why})", ARGOCD),
    ("kube-system", '""', "pods", "create, list", "", "running pods in namespace 'kube-system' (create on pods: it "
     "can run code as any ServiceAccount there, with its Secrets; {why})", KUBE_SYSTEM),
    ("kube-system", '""', "serviceaccounts/token", "create", "", "issuing tokens in namespace 'kube-system' (create "
     "on serviceaccounts/token: a token for any ServiceAccount there; {why})", KUBE_SYSTEM),
    # Argo CD installed in another namespace, told by its argocd-cm or a component of this run
    ("gitops", '""', "secrets", "list", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, "
     "namespace: gitops}\n", "reading secrets in namespace 'gitops' ({why})", ARGOCD),
    ("cd", "apps", "deployments", "patch", "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: "
     "{name: argocd-application-controller, namespace: cd}\n", "running pods in namespace 'cd' (patch on "
     "deployments: it can run code as any ServiceAccount there, with its Secrets; {why})", ARGOCD),
])  # fmt: skip
def test_hl106_reports_a_role_bound_in_a_namespace_that_holds_the_cluster(namespace, groups, resources, verbs,
                                                                          extra, grant, why):  # fmt: skip
    """Before: nothing (only a ClusterRoleBinding's pods, tokens and Secrets were reported)."""
    context = role(namespace, groups, resources, verbs) + binding(namespace) + extra
    assert hits("HL106", job(namespace), context=context) == [
        (11, 27, head() + grant.format(why=why) + " through Role 'runner'" + tail(f"namespace '{namespace}'")),
    ]


@pytest.mark.parametrize("namespace, groups, resources, verbs", [
    ("argocd", '""', "configmaps", "get, list, watch"),  # Argo CD's settings, no credential
    ("argocd", '""', "pods", "get, list, delete"),  # no pod of its own
    ("app", '""', "pods", "create"),  # an ordinary namespace: the reach a Role is meant to have
    ("app", '""', "secrets", "get, list"),
    ("gitops", '""', "secrets", "get"),  # no sign of Argo CD there in this run
    ("kube-system", '""', "nodes/proxy", "get"),  # nodes are cluster-scoped: a RoleBinding grants none
    ("argocd", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "create"),  # likewise
])
def test_hl106_leaves_a_role_that_holds_no_cluster_alone(namespace, groups, resources, verbs):
    context = role(namespace, groups, resources, verbs) + binding(namespace)
    assert hits("HL106", job(namespace), context=context) == []


# F2: */subresource, as Kubernetes RBAC matches it


@pytest.mark.parametrize("resources, requested, matched", [
    (["*"], "pods", "*"),
    (["*"], "pods/exec", "*"),  # every resource and subresource
    (["pods"], "pods", "pods"),
    (["pods"], "pods/exec", None),  # a resource does not grant its subresources
    (["pods/exec"], "pods/exec", "pods/exec"),
    (["*/exec"], "pods/exec", "*/exec"),
    (["*/exec"], "pods", None),  # */sub grants only the subresource
    (["*/exec"], "exec", None),  # a resource named like the subresource is not one
    (["*/exe"], "pods/exec", None),
    (["pods/*"], "pods/exec", None),  # no resource/* form upstream
    (["*/*"], "pods/exec", None),
    (["Pods"], "pods", None),  # case matters
    (["nodes/proxy", "*/proxy"], "services/proxy", "*/proxy"),
    ([], "pods", None),
])  # fmt: skip
def test_resource_match_follows_kubernetes_resource_matches(resources, requested, matched):
    from hooklint.model import resource_match  # the one matcher every RBAC rule uses

    assert resource_match(resources, requested) == matched


@pytest.mark.parametrize("rule, asked, matched", [
    (["*"], "create", True), (["create"], "create", True), (["get"], "create", False), ([], "get", False),
    (["Create"], "create", False),
])  # fmt: skip
def test_verb_matches_follows_kubernetes_verb_matches(rule, asked, matched):
    from hooklint.model import verb_matches

    assert verb_matches(rule, asked) is matched


@pytest.mark.parametrize("groups, served, matched", [
    (["*"], ("",), True), ([""], ("",), True), (["apps"], ("",), False), (["apps"], ("apps", "extensions"), True),
    ([], ("",), False),
])  # fmt: skip
def test_api_groups_match_as_kubernetes_api_group_matches(groups, served, matched):
    assert _serves(groups, served) is matched


PODS = "it can run code as any ServiceAccount of any namespace, with that namespace's Secrets"


@pytest.mark.parametrize("groups, resources, verbs, grant", [
    ('""', '"*/exec"', "create", f"running pods cluster-wide (create on */exec: {PODS})"),
    ('""', '"*/attach"', "get", f"running pods cluster-wide (get on */attach: {PODS})"),
    ('""', '"*/proxy"', "get", f"running pods cluster-wide (get on */proxy: {PODS})"),
    ('""', '"*/ephemeralcontainers"', "patch", f"running pods cluster-wide (patch on */ephemeralcontainers: {PODS})"),
    ('"*"', '"*/exec", "*/proxy"', "create", f"running pods cluster-wide (create on */exec, */proxy: {PODS})"),
    ('""', '"*/token"', "create", "issuing tokens cluster-wide (create on */token: a token for any ServiceAccount "
     "of any namespace)"),
])  # fmt: skip
def test_hl106_reads_subresource_wildcards(groups, resources, verbs, grant):
    """Before: nothing; only ``pods/exec``, ``nodes/proxy``... spelt out were reported."""
    context = role("app", groups, resources, verbs, kind="ClusterRole") + binding("app", "ClusterRoleBinding")
    assert hits("HL106", job("app"), context=context) == [
        (11, 27, head("ClusterRoleBinding") + grant + " through ClusterRole 'runner'" + tail("the cluster")),
    ]


@pytest.mark.parametrize("groups, resources, verbs", [
    ("apps", '"*/exec"', "create"),  # the apps group serves no pods/exec
    ('""', '"*/exec"', "list"),
    ('""', '"*/status"', "update, patch"),
    ('""', '"*/log"', "get"),
])
def test_hl106_leaves_other_subresource_wildcards_alone(groups, resources, verbs):
    context = role("app", groups, resources, verbs, kind="ClusterRole") + binding("app", "ClusterRoleBinding")
    assert hits("HL106", job("app"), context=context) == []


def test_hl106_judges_a_named_subresource_wildcard_by_the_names():
    """``*/token`` with ``resourceNames`` issues tokens of those ServiceAccounts (:meth:`_Judge.named`)."""
    rule = role("app", '""', '"*/token"', "create", kind="ClusterRole") + "  resourceNames: [argocd-server]\n"
    assert hits("HL106", job("app"), context=rule + binding("app", "ClusterRoleBinding")) == [
        (11, 27, head("ClusterRoleBinding") + "issuing tokens for named ServiceAccounts (create on "
                 "serviceaccounts/token 'argocd-server': a token for Argo CD's own ServiceAccount 'argocd-server', "
                 "which the stock install grants delete, get and patch on every resource of the cluster) through "
                 "ClusterRole 'runner'" + tail("the cluster")),
    ]  # fmt: skip


# F3: creating admission webhooks and writing admission policies

WEBHOOK = ("a new admission webhook receives every object it asks for, Secrets included, and a mutating one may "
           "rewrite it, a pod made privileged")
POLICY = ("an admission policy applies to every object its bindings match: a mutating one may make every pod "
          "privileged, a validating one decides what the cluster admits")


@pytest.mark.parametrize("resources, verbs, grant", [
    ("mutatingwebhookconfigurations", "create", f"create on mutatingwebhookconfigurations ({WEBHOOK})"),
    ("validatingwebhookconfigurations", "create, get", f"create on validatingwebhookconfigurations ({WEBHOOK})"),
    ("mutatingwebhookconfigurations", "create, update", "update on mutatingwebhookconfigurations without "
     "resourceNames (it can rewrite every admission webhook of the cluster), and create on "
     f"mutatingwebhookconfigurations ({WEBHOOK})"),
    ("mutatingadmissionpolicies", "create", f"create on mutatingadmissionpolicies ({POLICY})"),
    ("mutatingadmissionpolicybindings", "update, patch", f"update and patch on mutatingadmissionpolicybindings ({POLICY})"),
    ("validatingadmissionpolicies", "create, update, patch", "create, update and patch on validatingadmissionpolicies "
     f"({POLICY})"),
    ('"*/status", mutatingadmissionpolicies', "patch", f"patch on mutatingadmissionpolicies ({POLICY})"),
])  # fmt: skip
def test_hl106_reports_new_admission_webhooks_and_policies(resources, verbs, grant):
    """Before: nothing for create, nor for any admission policy (update or patch on webhook
    configurations was reported)."""
    context = (role("app", "admissionregistration.k8s.io", resources, verbs, kind="ClusterRole")
               + binding("app", "ClusterRoleBinding"))  # fmt: skip
    assert hits("HL106", job("app"), context=context) == [
        (11, 27, head("ClusterRoleBinding") + grant + " through ClusterRole 'runner'" + tail("the cluster")),
    ]


def test_hl106_leaves_reading_admission_webhooks_alone():
    context = (role("app", "admissionregistration.k8s.io", "mutatingwebhookconfigurations, validatingadmissionpolicies",
                    "get, list, watch", kind="ClusterRole") + binding("app", "ClusterRoleBinding"))  # fmt: skip
    assert hits("HL106", job("app"), context=context) == []


# the command line: lint and diff

SECRETS_IN_ARGOCD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: argocd
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: runner
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: runner
  namespace: argocd
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-1"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: runner
  namespace: argocd
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-1"}
rules:
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: runner
  namespace: argocd
  annotations: {argocd.argoproj.io/hook: PreSync, argocd.argoproj.io/sync-wave: "-1"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: runner}
subjects: [{kind: ServiceAccount, name: runner, namespace: argocd}]
"""
LINE = (f"hooks.yaml:13:27: error HL106 hook-overprivileged-rbac: {head()}reading secrets in namespace 'argocd' "
        f"({ARGOCD}) through Role 'runner'{tail(chr(110) + 'amespace ' + repr('argocd'))}")
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: argocd}\ndata: {a: b}\n"


def findings(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if " error HL" in line or " warning HL" in line]


def test_lint_fails_on_a_role_reading_argocd_secrets(tmp_path, monkeypatch):
    """Before: ``0 errors``, exit 0."""
    write(tmp_path, {"hooks.yaml": SECRETS_IN_ARGOCD, "settings.yaml": SETTINGS, ".hooklint.yaml": "{}\n"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "."])
    assert (result.exit_code, findings(result.output)) == (1, [LINE])


def test_diff_counts_a_new_escalation_as_new(tmp_path, monkeypatch):
    """Before: ``0 new findings``, exit 0: the pull request adds a hook whose Role reads Argo CD's
    Secrets."""
    write(tmp_path, {"settings.yaml": SETTINGS, ".hooklint.yaml": "{}\n"})
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write(tmp_path, {"hooks.yaml": SECRETS_IN_ARGOCD})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "head")
    result = CliRunner().invoke(app, ["diff", "--no-cache", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    assert "1 new finding, 0 fixed" in result.output
    assert findings(result.output) == [LINE]
