"""What the lint run's ClusterRoles add to the built-in ``view``, ``edit`` and ``admin`` (attacker
trial 26, B2): a ClusterRole labelled ``rbac.authorization.k8s.io/aggregate-to-view: "true"`` has
its rules aggregated into ``view`` by the ClusterRole aggregation controller, and so into ``edit``
and ``admin`` (``view`` carries ``aggregate-to-edit``, ``edit`` ``aggregate-to-admin``:
``k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``); a binding to
``view`` passed silently (exit 0) before (HL106)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hooklint.cli import app

FIXTURE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "ROLE"}
subjects:
- {kind: ServiceAccount, name: mig, namespace: default}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: mig, namespace: default}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: default
  annotations:
    argocd.argoproj.io/hook: PostSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: mig
      containers:
      - name: c
        image: busybox:1.36
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: extra
  labels: {rbac.authorization.k8s.io/aggregate-to-LABEL: "true"}
rules:
- RULE
"""
EVERYTHING = '{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}'
SECRETS = '{apiGroups: [""], resources: [secrets], verbs: [get, list]}'
HEAD = "fx/a.yaml:26:27: error HL106 hook-overprivileged-rbac: Job/j runs as ServiceAccount 'mig', and ClusterRoleBinding/crb "
TAIL = (": a PostSync hook runs on every sync, so whoever controls its image or command holds those rights over the "
        "cluster. Grant only the verbs and resources it needs.")
GATHERED = " (its aggregationRule gathers the rules of ClusterRole 'extra')"
EDIT = "binds it to the built-in ClusterRole 'edit', which reads and writes Secrets and workloads (Pods, Deployments, Jobs) and runs commands in pods"
ADMIN = ("binds it to the built-in ClusterRole 'admin', which reads and writes Secrets and workloads (Pods, Deployments, "
         "Jobs), runs commands in pods, and manages Roles and RoleBindings")
ADDED = ", and grants every resource with every verb through the rules its aggregationRule gathers from ClusterRole 'extra'"


def lint(tmp_path, monkeypatch, role: str, label: str, rule: str) -> tuple[int, list[str]]:
    """``hooklint lint fx`` on the fixture: its exit code and its finding lines."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "fx").mkdir()
    (tmp_path / "fx" / "a.yaml").write_text(FIXTURE.replace("ROLE", role).replace("LABEL", label).replace("RULE", rule))
    result = CliRunner().invoke(app, ["lint", "fx"])
    return result.exit_code, [line for line in result.output.splitlines() if " HL" in line and line.startswith("fx/")]


def test_aggview2_everything_added_to_view(tmp_path, monkeypatch) -> None:
    """The trial's fixture: ``*`` on ``*`` added to view (exit 0, no finding, before)."""
    assert lint(tmp_path, monkeypatch, "view", "view", EVERYTHING) == (
        1, [HEAD + "grants every resource with every verb through the built-in ClusterRole 'view'" + GATHERED + TAIL])


def test_aggview_secrets_added_to_view(tmp_path, monkeypatch) -> None:
    """Reading Secrets added to view is reading Secrets cluster-wide (exit 0 before)."""
    assert lint(tmp_path, monkeypatch, "view", "view", SECRETS) == (
        1, [HEAD + "grants reading secrets cluster-wide through the built-in ClusterRole 'view'" + GATHERED + TAIL])


@pytest.mark.parametrize(("role", "label", "said"), [
    ("edit", "view", EDIT + ADDED),  # view's labels are edit's selector
    ("edit", "edit", EDIT + ADDED),
    ("edit", "admin", EDIT),  # admin's rules do not reach edit
    ("admin", "view", ADMIN + ADDED),  # view -> edit -> admin
    ("admin", "edit", ADMIN + ADDED),
    ("admin", "admin", ADMIN + ADDED),
])
def test_edit_and_admin_hold_what_the_chain_gathers(tmp_path, monkeypatch, role: str, label: str, said: str) -> None:
    """edit and admin are reported already; the message now says the ``*`` on ``*`` they gather."""
    assert lint(tmp_path, monkeypatch, role, label, EVERYTHING) == (1, [HEAD + said + TAIL])


@pytest.mark.parametrize("label", ["edit", "admin"])
def test_view_holds_nothing_of_edit_or_admin(tmp_path, monkeypatch, label: str) -> None:
    """Rules labelled for edit or admin do not reach view: no noise, exit 0."""
    assert lint(tmp_path, monkeypatch, "view", label, EVERYTHING) == (0, [])


def test_an_aggregation_selecting_view_gathers_what_the_run_adds_to_view(tmp_path, monkeypatch) -> None:
    """A ClusterRole of the run selecting ``aggregate-to-edit`` gathers the built-in view, and with
    it the ``*`` on ``*`` the run adds to view (only edit's rules were counted before)."""
    sneaky = ('---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: sneaky}\n'
              'aggregationRule:\n  clusterRoleSelectors: [{matchLabels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}}]\n'
              'rules: []\n')  # fmt: skip
    code, lines = lint(tmp_path, monkeypatch, "sneaky", "view", EVERYTHING + "\n" + sneaky)
    assert code == 1
    assert lines == [
        HEAD + "grants every resource with every verb, and impersonate on serviceaccounts (it can act as any user, group "
        "or ServiceAccount it names), and running pods cluster-wide (create, update and patch on pods, "
        "replicationcontrollers, daemonsets, deployments, replicasets, statefulsets, cronjobs, jobs; create on "
        "pods/exec, pods/attach: it can run code as any ServiceAccount of any namespace, with that namespace's "
        "Secrets), and issuing tokens cluster-wide (create on serviceaccounts/token: a token for any ServiceAccount "
        "of any namespace), and reading secrets cluster-wide through ClusterRole 'sneaky' (its aggregationRule "
        "gathers the rules of the built-in ClusterRole 'system:aggregate-to-edit', ClusterRole 'extra')" + TAIL]
