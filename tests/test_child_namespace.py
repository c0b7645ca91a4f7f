"""Where a child Application of an app of apps lives names it (a new user's report).

Argo CD applies an object written without ``metadata.namespace`` into the destination namespace of the
Application that applies it (gitops-engine v3.5.1 ``pkg/sync/sync_context.go`` ``getSyncTasks``: "enrich
target objects with the namespace", ``SetNamespace(sc.namespace)``), so the Application ``web`` of
``apps/web.yaml``, applied by ``root`` (destination ``team-a``), is ``team-a/web``: with Argo CD in
``argocd`` its instance name is ``team-a_web`` (argo-cd v3.5.1 ``pkg/apis/application/v1alpha1/types.go``
``InstanceName``), and the repo server merges ``.argocd-source-team-a_web.yaml``, never
``.argocd-source-web.yaml`` (``reposerver/repository/repository.go`` ``mergeSourceParameters``).
hooklint read the child as ``web`` of no namespace: it merged ``.argocd-source-web.yaml`` (an override
there hid a hook Argo CD runs) and left ``.argocd-source-team-a_web.yaml`` unmerged (HL009)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import commit_tagged as commit, git_checkout
from hooklint.cli import app

runner = CliRunner()

#: A PreSync Job that shares the node's process namespace, otherwise well kept: one HL105 error.
HOOK = """apiVersion: batch/v1
kind: Job
metadata:
  name: pre
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: x
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: a
        image: registry.k8s.io/pause:3.9
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
EXCLUDE = "directory:\n  exclude: '{hook.yaml,wip-*}'\n"


def application(name: str, path: str, destination: str, namespace: str | None = None, recurse: bool = False) -> str:
    metadata = f"{{name: {name}, namespace: {namespace}}}" if namespace else f"{{name: {name}}}"
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            f"metadata: {metadata}\nspec:\n  project: shop\n"
            f"  destination: {{server: 'https://kubernetes.default.svc', namespace: {destination}}}\n"
            f"  source:\n    repoURL: https://github.com/acme/deploy.git\n    path: {path}\n"
            "    targetRevision: HEAD\n" + ("    directory: {recurse: true}\n" if recurse else ""))  # fmt: skip


def tree(override: str, child_namespace: str | None = None, config: str = "argocd-namespace: argocd\n",
         child_file: str = "apps/web.yaml", recurse: bool = False) -> dict[str, str]:
    """root (argocd, destination team-a) applies ``child_file``: web, of ``child_namespace``, deploying web/."""
    return {"root/root.yaml": application("root", "apps", "team-a", "argocd", recurse),
            child_file: application("web", "web", "web", child_namespace),
            "web/cm.yaml": CM, "web/hook.yaml": HOOK, f"web/.argocd-source-{override}.yaml": EXCLUDE,
            ".hooklint.yaml": config}  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty git repository, the current folder."""
    return git_checkout(tmp_path, monkeypatch)


def run(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args[:1], "--format", "json", *args[1:]])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def said(findings: list[dict]) -> list[tuple]:
    return sorted((f["rule_id"], f["path"], f["line"], f["column"]) for f in findings)


def test_an_override_named_after_the_childs_bare_name_is_not_merged(repo):
    """The user's first case. Was: exit 0, web/hook.yaml left out by .argocd-source-web.yaml, which Argo CD
    never reads for team-a/web. Now the hook is applied (HL105) and the file is an override no Application
    merges (HL009), whose message names the Application that deploys the folder and its instance name."""
    commit(repo, "base", tree("web"))
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1, [("HL009", "web/.argocd-source-web.yaml", 1, 1),
                                                 ("HL105", "web/hook.yaml", 16, 16)])
    message = next(f["message"] for f in doc["findings"] if f["rule_id"] == "HL009")
    assert message == (
        ".argocd-source-web.yaml sets directory, which Argo CD merges (after .argocd-source.yaml) only into the "
        "Application whose instance name is 'web'; the Applications of this repository that deploy web/ are not that "
        "one (Argo CD reads the overrides of Application web (apps/web.yaml:8) from .argocd-source-team-a_web.yaml "
        "(its instance name: it lives in namespace 'team-a', not Argo CD's; an Application written without "
        "metadata.namespace lives in the destination namespace of the Application that applies it)), so it is one "
        "hooklint cannot see (it may live in another repository), and "
        "hooklint rendered the folder without this file: what it changes (images, values, source options, hooks "
        "included) was not checked; if the file is meant for one of those Applications, name it after that one's "
        "instance name; if it is for another Application, add that Application to this repository (or its repoURL "
        "to repo-urls), or lint what it renders with `hooklint lint -`.")


def test_the_override_of_the_childs_instance_name_is_merged(repo):
    """The user's second case. Was: HL009 at .argocd-source-team-a_web.yaml ("Application web ... are not
    that one") and the hook reported, though Argo CD leaves it out."""
    commit(repo, "base", tree("team-a_web"))
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (0, [])


def test_a_recursive_parent_applies_a_child_in_a_subfolder(repo):
    """directory.recurse reads apps/team/web.yaml too: the child lives in team-a as well."""
    commit(repo, "base", tree("team-a_web", child_file="apps/team/web.yaml", recurse=True))
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (0, [])


@pytest.mark.parametrize("override, expected", [
    ("web", []),  # the control: a child that writes metadata.namespace argocd is named 'web'
    ("team-a_web", [("HL009", "web/.argocd-source-team-a_web.yaml", 1, 1), ("HL105", "web/hook.yaml", 16, 16)]),
])  # fmt: skip
def test_a_child_that_writes_its_namespace_keeps_it(repo, override, expected):
    commit(repo, "base", tree(override, child_namespace="argocd"))
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1 if expected else 0, expected)


def test_where_argo_cd_runs_is_unknown_the_childs_name_is_open(repo):
    """No argocd-namespace: team-a/web is named 'team-a_web' when the controller runs elsewhere (apps in any
    namespace) and 'web' when it runs in team-a (ControlPlane.instance_names): hooklint renders neither guess,
    HL009 at the child's source, and the hook is reported."""
    commit(repo, "base", tree("team-a_web", config="{}\n"))
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1, [("HL009", "apps/web.yaml", 8, 5),
                                                 ("HL009", "web/.argocd-source-team-a_web.yaml", 1, 1),
                                                 ("HL105", "web/hook.yaml", 16, 16)])
    message = next(f["message"] for f in doc["findings"] if f["path"] == "web/.argocd-source-team-a_web.yaml")
    # the Application that deploys the folder is named, not "no Application of this repository deploys web/"
    assert message == (
        ".argocd-source-team-a_web.yaml sets directory, which Argo CD merges (after .argocd-source.yaml) only into the "
        "Application whose instance name is 'team-a_web'; the Applications of this repository that deploy web/ "
        "(Application web (apps/web.yaml:8)) have an instance name hooklint does not know (HL009 at each: set "
        "argocd-namespace), so hooklint cannot know whether one of them is that one, and rendered the folder without "
        "this file: what it changes (images, values, source options, hooks included) was not checked; set "
        "argocd-namespace in the configuration to the namespace Argo CD runs in, or lint what it renders with "
        "`hooklint lint -`.")


def test_diff_counts_a_hook_an_override_of_the_bare_name_would_hide(repo):
    """In a review: the base's .argocd-source-web.yaml already excludes wip-*; the change adds a hostPID
    PreSync hook there. Argo CD never reads that file for team-a/web: the hook is new."""
    base = tree("web")
    del base["web/hook.yaml"]
    commit(repo, "base", base)
    commit(repo, "head", {"web/wip-migrate.yaml": HOOK})
    code, doc = run("diff", "base", "--head", "head")
    assert (code, said(doc["new"])) == (1, [("HL105", "web/wip-migrate.yaml", 16, 16)])


APPSET = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: webs}
spec:
  generators:
  - list:
      elements:
      - name: web
  template:
    metadata: {name: '{{name}}'}
    spec:
      project: shop
      destination: {server: 'https://kubernetes.default.svc', namespace: web}
      source: {repoURL: 'https://github.com/acme/deploy.git', path: web, targetRevision: HEAD}
"""


@pytest.mark.parametrize("override, expected", [
    ("team-a_web", []),
    ("web", [("HL009", "web/.argocd-source-web.yaml", 1, 1), ("HL105", "web/hook.yaml", 16, 16)]),
])  # fmt: skip
def test_an_applicationset_applied_by_a_parent_generates_into_its_namespace(repo, override, expected):
    """The ApplicationSet written without metadata.namespace lives in root's destination namespace, and the
    controller creates its Applications there (template.go: app.Namespace = applicationSetInfo.Namespace)."""
    files = tree(override)
    files["apps/web.yaml"] = APPSET
    commit(repo, "base", files)
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1 if expected else 0, expected)


ROOTS = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: roots, namespace: argocd}
spec:
  generators:
  - list:
      elements:
      - team: team-a
  template:
    metadata: {name: 'root-{{team}}'}
    spec:
      project: shop
      destination: {server: 'https://kubernetes.default.svc', namespace: '{{team}}'}
      source: {repoURL: 'https://github.com/acme/deploy.git', path: apps, targetRevision: HEAD}
"""


@pytest.mark.parametrize("override, expected", [
    ("team-a_web", []),
    ("web", [("HL009", "web/.argocd-source-web.yaml", 1, 1), ("HL105", "web/hook.yaml", 16, 16)]),
])  # fmt: skip
def test_a_generated_parent_applies_its_child_into_its_destination_namespace(repo, override, expected):
    """The parent is an ApplicationSet's Application (root-team-a, destination team-a): the child it applies
    lives in team-a as well."""
    files = tree(override)
    del files["root/root.yaml"]
    files["root/roots.yaml"] = ROOTS
    commit(repo, "base", files)
    code, doc = run("lint", ".")
    assert (code, said(doc["findings"])) == (1 if expected else 0, expected)
