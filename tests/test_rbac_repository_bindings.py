"""A hook's ServiceAccount bound to a role by another application of the repository (new-user
trial 28: eight PreSync Jobs running ``oc get`` got HL104, "set automountServiceAccountToken:
false", and ``fix --unsafe-fixes`` turned their token off, though the operator's folder binds their
ServiceAccount): HL104 names that binding's file, whether the run names the other folder or not,
and its fix is left for a person. It is still reported: what Argo CD applies from another
application's file (which cluster, which revision, after which kustomize patches) is not known
from the file, and such a binding made HL104 quiet for decoys (attacker trials 29 and 30)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: presync-check
  namespace: shop
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: presync-sa
      containers: [{name: check, image: "ghcr.io/acme/oc:4.15.0", command: [oc, get, datasciencecluster]}]
"""
HL104 = ("Job/presync-check mounts the token of ServiceAccount 'presync-sa' (not turned off here; the "
         "ServiceAccount is not in this application), and no binding in this application grants it a role. Set "
         "automountServiceAccountToken: false, or bind it to a least-privilege Role.")  # fmt: skip


def binding(subject: str, namespace: str = "", kind: str = "RoleBinding") -> str:
    meta = f"{{name: presync-sa-reader, namespace: {namespace}}}" if namespace else "{name: presync-sa-reader}"
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata: {meta}\n"
            "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\n"
            f"subjects: [{subject}]\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"hooks/job.yaml": JOB})
    return tmp_path


def named(file: str) -> str:
    """HL104's message naming a binding of another application in ``file``."""
    return HL104.replace("grants it a role.", f"grants it a role (a binding of another application names it, in {file}).")


def lint(*args: str, cache: str = "off") -> tuple[int, list[tuple[str, str, int, int, str]]]:
    """``hooklint lint -f json ARGS`` in this process (the command line, as a user runs it): its
    exit code and HL104 findings as ``(path, rule, line, column, message)``."""
    result = CliRunner().invoke(app, ["lint", "-f", "json", *args], env={"HOOKLINT_CACHE_DIR": cache})
    assert result.exit_code in (0, 1), result.output
    found = json.loads(result.stdout)["findings"]
    return result.exit_code, [(f["path"], f["rule_id"], f["line"], f["column"], f["message"]) for f in found
                              if f["rule_id"] == "HL104"]  # fmt: skip


def test_unbound_the_hook_is_reported(repo):
    assert lint(".") == (1, [("hooks/job.yaml", "HL104", 13, 5, HL104)])


@pytest.mark.parametrize("subject, namespace", [
    ("{kind: ServiceAccount, name: presync-sa, namespace: shop}", ""),
    ("{kind: ServiceAccount, name: presync-sa}", "shop"),
    ("{kind: User, name: 'system:serviceaccount:shop:presync-sa', apiGroup: rbac.authorization.k8s.io}", ""),
])  # fmt: skip
@pytest.mark.parametrize("paths", [["."], ["hooks"]])
def test_a_binding_of_another_application_of_the_repository_is_named(repo, subject, namespace, paths):
    write(repo, {"operator/rbac.yaml": binding(subject, namespace)})
    assert lint(*paths) == (1, [("hooks/job.yaml", "HL104", 13, 5, named("operator/rbac.yaml"))])


@pytest.mark.parametrize("subject, namespace, kind", [
    ("{kind: ServiceAccount, name: presync-sa, namespace: other}", "", "RoleBinding"),
    ("{kind: ServiceAccount, name: presync-sa}", "other", "RoleBinding"),
    # its application's destination namespace, which no Application here says: none known (a RoleBinding of
    # 'default' in one team's folder silenced HL104 on every hook running as 'default' in the repository)
    ("{kind: ServiceAccount, name: presync-sa}", "", "RoleBinding"),
    ("{kind: ServiceAccount, name: presync-sa}", "", "ClusterRoleBinding"),  # the API server rejects it: nobody
    ("{kind: ServiceAccount, name: someone-else, namespace: shop}", "", "RoleBinding"),
    ("{kind: Group, name: 'system:serviceaccounts:other', apiGroup: rbac.authorization.k8s.io}", "", "RoleBinding"),
    # a group of ServiceAccounts: granted, but nothing says this hook needs its token
    ("{kind: Group, name: 'system:serviceaccounts:shop', apiGroup: rbac.authorization.k8s.io}", "", "RoleBinding"),
    ("{kind: Group, name: 'system:authenticated', apiGroup: rbac.authorization.k8s.io}", "", "ClusterRoleBinding"),
])  # fmt: skip
def test_a_binding_of_another_namespace_or_account_is_not_named(repo, subject, namespace, kind):
    write(repo, {"operator/rbac.yaml": binding(subject, namespace, kind)})
    assert lint(".") == (1, [("hooks/job.yaml", "HL104", 13, 5, HL104)])


def test_a_binding_of_the_hooks_own_application_is_judged_with_its_namespace(repo):
    """No namespace on the binding: the application's destination, not the hook's 'shop'."""
    write(repo, {"hooks/rbac.yaml": binding("{kind: ServiceAccount, name: presync-sa}")})
    assert lint(".") == (1, [("hooks/job.yaml", "HL104", 13, 5, HL104)])


def test_the_unsafe_fix_leaves_a_token_bound_elsewhere(repo):
    write(repo, {"operator/rbac.yaml": binding("{kind: ServiceAccount, name: presync-sa, namespace: shop}")})
    proc = subprocess.run([sys.executable, "-m", "hooklint", "fix", "--unsafe-fixes", "hooks"], capture_output=True,
                          text=True, env={**os.environ, "HOOKLINT_CACHE_DIR": "off"})  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert (repo / "hooks/job.yaml").read_text() == JOB


def test_a_binding_added_elsewhere_is_seen_by_a_cached_run(repo, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))
    assert lint("hooks", cache=cache) == (1, [("hooks/job.yaml", "HL104", 13, 5, HL104)])
    write(repo, {"operator/rbac.yaml": binding("{kind: ServiceAccount, name: presync-sa, namespace: shop}")})
    assert lint("hooks", cache=cache) == (1, [("hooks/job.yaml", "HL104", 13, 5, named("operator/rbac.yaml"))])


# --- with the repository's Applications known, only a binding one of them syncs counts (trial 29, B2) ----

REPO = "https://git.example.com/acme/deploy.git"


def application(name: str, path: str, extra: str = "") -> str:
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\n"
            f"spec:\n  project: default\n  source:\n    repoURL: {REPO}\n    targetRevision: HEAD\n    path: {path}\n"
            f"{extra}  destination: {{server: 'https://kubernetes.default.svc', namespace: shop}}\n")


@pytest.fixture
def mapped(repo):
    write(repo, {".hooklint.yaml": f"repo-urls: [{REPO}]\n", "argocd/hooks.yaml": application("hooks", "hooks")})
    return repo


SA_SHOP = "{kind: ServiceAccount, name: presync-sa, namespace: shop}"


@pytest.mark.parametrize("files", [
    {"rbac-examples/rbac.yaml": binding(SA_SHOP)},  # a folder no Application syncs
    {"docs/examples/rbac.json": json.dumps({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                                            "metadata": {"name": "x"}, "roleRef": {"kind": "ClusterRole", "name": "view"},
                                            "subjects": [{"kind": "ServiceAccount", "name": "presync-sa",
                                                          "namespace": "shop"}]})},
    {"argocd/operator.yaml": application("operator", "operator", "    directory: {exclude: rbac.yaml}\n"),
     "operator/rbac.yaml": binding(SA_SHOP)},  # the Application leaves the file out
    {"argocd/operator.yaml": application("operator", "operator"), "operator/nested/rbac.yaml": binding(SA_SHOP)},
    {"argocd/operator.yaml": application("operator", "operator/overlays/prod"),
     "operator/overlays/prod/kustomization.yaml": "resources: [../../base]\n",
     "operator/base/kustomization.yaml": "resources: [sa.yaml]\n",
     "operator/base/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: other}\n",
     "operator/base/rbac.yaml": binding(SA_SHOP)},  # beside a base, not one of its resources
    {"argocd/operator.yaml": application("operator", "operator"),
     "operator/rbac.yaml": binding(SA_SHOP).replace("rbac.authorization.k8s.io/v1\n", "rbac.authorization.k8s.io/v1beta1\n")},
    {"argocd/operator.yaml": application("operator", "operator"),
     "operator/rbac.yaml": binding("{kind: ServiceAccount, name: presync-sa, namespace: shop, apiGroup: x.io}")},
])  # fmt: skip
def test_a_binding_nothing_syncs_is_not_named(mapped, files):
    write(mapped, files)
    assert lint(".") == (1, [("hooks/job.yaml", "HL104", 13, 5, HL104)])


@pytest.mark.parametrize("files", [
    {"argocd/operator.yaml": application("operator", "operator"), "operator/rbac.yaml": binding(SA_SHOP)},
    {"argocd/operator.yaml": application("operator", "operator", "    directory: {recurse: true}\n"),
     "operator/nested/rbac.yaml": binding(SA_SHOP)},
    {"argocd/operator.yaml": application("operator", "operator/overlays/prod"),
     "operator/overlays/prod/kustomization.yaml": "resources: [../../base]\n",
     "operator/base/kustomization.yaml": "resources: [rbac.yaml]\n", "operator/base/rbac.yaml": binding(SA_SHOP)},
])  # fmt: skip
def test_a_binding_an_application_syncs_is_named(mapped, files):
    """The new-user trial's shape: an ApplicationSet's overlay building on a base that holds the binding."""
    write(mapped, files)
    file = next(name for name in files if name.endswith("rbac.yaml"))
    assert lint(".") == lint("hooks") == (1, [("hooks/job.yaml", "HL104", 13, 5, named(file))])


@pytest.mark.parametrize("destination, counts", [("shop", True), ("other", False)])
def test_a_binding_without_a_namespace_is_in_the_namespace_its_application_syncs_it_to(mapped, destination, counts):
    write(mapped, {"argocd/operator.yaml": application("operator", "operator").replace("namespace: shop}", f"namespace: {destination}}}"),
                   "operator/rbac.yaml": binding("{kind: ServiceAccount, name: presync-sa}")})  # fmt: skip
    assert lint(".")[1] == [("hooks/job.yaml", "HL104", 13, 5, named("operator/rbac.yaml") if counts else HL104)]


@pytest.mark.parametrize("files", [
    # synced to another cluster
    {"argocd/operator.yaml": application("operator", "operator").replace(
        "server: 'https://kubernetes.default.svc'", "server: 'https://staging.example.com:6443'"),
     "operator/rbac.yaml": binding(SA_SHOP)},
    # from a revision that is not this checkout
    {"argocd/operator.yaml": application("operator", "operator").replace("targetRevision: HEAD", "targetRevision: never"),
     "operator/rbac.yaml": binding(SA_SHOP)},
    # a chart's folder, outside its templates
    {"argocd/operator.yaml": application("operator", "chart"), "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
     "chart/examples/rbac.yaml": binding(SA_SHOP)},
    # read by a kustomization that deletes it
    {"argocd/operator.yaml": application("operator", "operator"),
     "operator/kustomization.yaml": "resources: [rbac.yaml]\npatches:\n- patch: |\n    $patch: delete\n    apiVersion: "
                                    "rbac.authorization.k8s.io/v1\n    kind: RoleBinding\n    metadata: {name: presync-sa-reader}\n",
     "operator/rbac.yaml": binding(SA_SHOP)},
])  # fmt: skip
def test_no_binding_elsewhere_makes_hl104_quiet(mapped, files):
    """Attacker trial 30, B5-B7: each of these silenced HL104 while nothing Argo CD applies grants the
    hook's ServiceAccount anything; HL104 is reported whatever another application's file says."""
    write(mapped, files)
    code, found = lint(".")
    assert code == 1 and [(path, rule, line, column) for path, rule, line, column, _ in found] == [
        ("hooks/job.yaml", "HL104", 13, 5)]
