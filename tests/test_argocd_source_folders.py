"""``.argocd-source.yaml`` of a folder no Application of the repository deploys (attacker trial 14, break 2).

Argo CD's repo server merges a source folder's ``.argocd-source.yaml`` into every Application that
deploys the folder, whatever its name (``reposerver/repository/repository.go`` v3.5.1
``GetAppSourceType`` -> ``mergeSourceParameters``), and ``.argocd-source-NAME.yaml`` into the
Application named NAME only. A folder linted without an Application of the repository (a chart,
a kustomization, a directory with guessed defaults) is linted as such an Application renders it:
the file's ``helm``, ``kustomize`` and ``directory`` options apply and may change the source type;
a ``.argocd-source-NAME.yaml`` is HL009 at the file (which Application deploys the folder is
unknown). The attacker's fixtures (/work/attack14/fx/srchelm, srcov, srckus) are written here from
scratch as small git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.sources.appmap.applications import app_source_files, stand_in_source
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"

#: A privileged, hostNetwork PreSync Job, otherwise well kept: two HL105 errors only.
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: debug
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: runner
      automountServiceAccountToken: false
      hostNetwork: true
      containers:
      - name: x
        image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
        securityContext: {privileged: true}
"""
JOB_HL105 = [("HL105", 15, 20), ("HL105", 19, 39)]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty git repository, the current folder."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", "https://github.com/acme/deploy.git")
    return repo


def commit(repo: Path, tag: str, files: dict[str, str]) -> None:
    """Write ``files`` and commit them, tagged ``tag``."""
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


def lint(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def diff(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["diff", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def found(findings: list[dict], path: str | None = None) -> list[tuple]:
    return sorted((f["rule_id"], f["line"], f["column"]) for f in findings if path is None or f["path"] == path)


# --- Helm: valuesObject turns a gated hook on (srchelm) ---------------------------------------------

CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
    "chart/values.yaml": "debugHook: false\n",
    "chart/templates/cm.yaml": CM,
    "chart/templates/debug.yaml": "{{- if .Values.debugHook }}\n" + JOB + "{{- end }}\n",
}
HELM_ON = "helm:\n  valuesObject:\n    debugHook: true\n"
#: JOB's HL105 in the template: hostNetwork one line down (the ``if``), the flow-mapped privileged at the object.
CHART_HL105 = [("HL105", 2, 1), ("HL105", 16, 7)]


@needs_helm
def test_lint_a_chart_applies_its_argocd_source_values(repo):
    """Was: 0 findings, exit 0 (the override was never read)."""
    commit(repo, "base", {**CHART, "chart/.argocd-source.yaml": HELM_ON})
    code, doc = lint("chart")
    assert (code, found(doc["findings"])) == (1, CHART_HL105)
    assert {f["path"] for f in doc["findings"]} == {"chart/templates/debug.yaml"}


@needs_helm
def test_diff_counts_the_hooks_an_added_argocd_source_file_turns_on(repo):
    """Was: 0 new findings, no plan change, exit 0."""
    commit(repo, "base", CHART)
    commit(repo, "head", {"chart/.argocd-source.yaml": HELM_ON})
    code, doc = diff("base", "--head", "head", "chart")
    assert (code, found(doc["new"]), doc["unchanged"], doc["fixed"]) == (1, CHART_HL105, 0, [])


@needs_helm
def test_an_in_repository_application_keeps_its_own_reading(repo):
    """With an Application of the repository deploying the folder, that Application's reading stands
    (no stand-in, no HL009 for its own .argocd-source-NAME.yaml): the override is merged as before."""
    application = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\n"
                   "spec:\n  source: {repoURL: 'https://github.com/acme/deploy.git', path: chart}\n"
                   "  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n")
    # argocd is Argo CD's namespace (else it may be openshift-gitops's, and 'argocd_shop': test_control_plane)
    commit(repo, "base", {**CHART, "chart/.argocd-source-shop.yaml": HELM_ON, "apps/shop.yaml": application,
                          ".hooklint.yaml": "argocd-namespace: argocd\n"})  # fmt: skip
    code, doc = lint(".")
    assert (code, found(doc["findings"], "chart/templates/debug.yaml")) == (1, CHART_HL105)
    assert not [f for f in doc["findings"] if f["rule_id"] == "HL009"]


# --- directory: recurse applies a hidden folder (srcov) ----------------------------------------------

def test_lint_a_folder_whose_argocd_source_recurses_reads_its_hidden_folder(repo):
    """Was: exit 0, app/.hooks/job.yaml listed "in hidden folders no Application reads"."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/job.yaml": JOB,
                          "app/.argocd-source.yaml": "directory:\n  recurse: true\n"})
    code, doc = lint("app")
    assert (code, found(doc["findings"], "app/.hooks/job.yaml")) == (1, JOB_HL105)


def test_diff_counts_a_hidden_hook_an_added_recurse_applies(repo):
    """The hidden file is unchanged since the base; the added override makes Argo CD apply it.
    Was: 0 new findings, exit 0."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/job.yaml": JOB})
    commit(repo, "head", {"app/.argocd-source.yaml": "directory:\n  recurse: true\n"})
    code, doc = diff("base", "--head", "head", "app")
    assert (code, found(doc["new"], "app/.hooks/job.yaml")) == (1, JOB_HL105)


def test_an_argocd_source_that_types_a_folder_helm_without_a_chart_fails_its_render(repo):
    """The source type follows the override: ``helm:`` on a folder with no Chart.yaml is the repo
    server's render error, for any Application deploying it (HL007 at the override)."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.argocd-source.yaml": "helm:\n  releaseName: x\n"})
    code, doc = lint("app")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [
        ("HL007", "app/.argocd-source.yaml", 1, 1,
         "Rendering failed: any Application that deploys app/ (app/.argocd-source.yaml:1): spec.source.helm is set, "
         "but 'app' has no Chart.yaml (helm: Chart.yaml file is missing). Argo CD's repo server fails the same way, "
         "so the application cannot sync; nothing of it is checked until it renders.")]


# --- kustomize: images bypass allowed-registries (srckus) --------------------------------------------

KUSTOMIZED = {
    ".hooklint.yaml": "allowed-registries: [registry.example.com]\n",
    "app/kustomization.yaml": "resources:\n- job.yaml\n",
    "app/job.yaml": JOB.replace("registry.example.com/x@sha256:" + "0" * 64, "registry.example.com/migrate:1.0.0"),
}
IMAGES = "kustomize:\n  images:\n  - registry.example.com/migrate=evil.example/pwn:1.0.0\n"


@needs_kustomize
def test_lint_a_kustomization_applies_its_argocd_source_images(repo):
    """Was: exit 0 (only an HL305 note): the image Argo CD runs was never read."""
    commit(repo, "base", {**KUSTOMIZED, "app/.argocd-source.yaml": IMAGES})
    code, doc = lint("app")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"] if f["rule_id"] == "HL101"] == [
        ("HL101", "app/.argocd-source.yaml", 3, 5)]


@needs_kustomize
def test_diff_counts_an_image_an_added_argocd_source_swaps_in(repo):
    """Was: 0 new findings, 1 unchanged, exit 0."""
    commit(repo, "base", KUSTOMIZED)
    commit(repo, "head", {"app/.argocd-source.yaml": IMAGES})
    code, doc = diff("base", "--head", "head", "app")
    assert (code, [(f["rule_id"], f["path"], f["line"]) for f in doc["new"] if f["rule_id"] != "HL105"]) == (
        1, [("HL101", "app/.argocd-source.yaml", 3)])


# --- .argocd-source-NAME.yaml: the Application it is for is unknown -----------------------------------

PER_APP = ("HL009", "app/.argocd-source-shop.yaml", 1, 1,
           ".argocd-source-shop.yaml sets kustomize, which Argo CD merges (after .argocd-source.yaml) only into the "
           "Application whose instance name is 'shop'; no Application of this repository deploys app/, so hooklint "
           "cannot know whether that one does (it may live in another repository) and rendered the folder without "
           "this file: what it changes (images, values, source options, hooks included) was not checked; add that "
           "Application to this repository (or its repoURL to repo-urls), or lint what it renders with "
           "`hooklint lint -`.")


def test_an_argocd_source_file_of_an_unknown_application_is_hl009(repo):
    """Never a silent pass: the file is not merged (its Application is not known), and it says so.
    Was: exit 0, the file listed as unrelated YAML."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.argocd-source-shop.yaml": "kustomize:\n  images: [x=evil/x:1]\n"})
    code, doc = lint("app")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [PER_APP]


def test_diff_an_edited_argocd_source_file_of_an_unknown_application_is_new(repo):
    """Its content's digest is the finding's field: added, then edited, it is a new finding each time."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"app/.argocd-source-shop.yaml": "kustomize:\n  images: [x=registry.example.com/x:1]\n"})
    commit(repo, "edit", {"app/.argocd-source-shop.yaml": "kustomize:\n  images: [x=evil.example/x:1]\n"})
    code, doc = diff("base", "--head", "head", "app")
    assert (code, [(f["rule_id"], f["path"]) for f in doc["new"]]) == (1, [("HL009", "app/.argocd-source-shop.yaml")])
    code, doc = diff("head", "--head", "edit", "app")
    # the base's HL009 on the file is the one the new one replaces, not a fixed one
    assert (code, [(f["rule_id"], f["path"]) for f in doc["new"]], doc["fixed"]) == (
        1, [("HL009", "app/.argocd-source-shop.yaml")], [])


def test_an_argocd_source_file_of_another_application_than_the_repositorys_is_hl009(repo):
    """An Application of the repository deploys the folder, and the folder holds the per-application
    file of another name: Argo CD merges it into that other Application (of another repository,
    say), which hooklint cannot see. Was: exit 0, the file passed over."""
    application = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\n"
                   "spec:\n  project: team\n  source: {repoURL: 'https://github.com/acme/deploy.git', path: app}\n"
                   "  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n")
    commit(repo, "base", {"app/cm.yaml": CM, "apps/shop.yaml": application, ".hooklint.yaml": "argocd-namespace: argocd\n",
                          "app/.argocd-source-shop.yaml": "directory:\n  recurse: false\n",
                          "app/.argocd-source-other.yaml": "directory:\n  recurse: true\n"})  # fmt: skip
    code, doc = lint(".")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [(
        "HL009", "app/.argocd-source-other.yaml", 1, 1,
        ".argocd-source-other.yaml sets directory, which Argo CD merges (after .argocd-source.yaml) only into the "
        "Application whose instance name is 'other'; the Applications of this repository that deploy app/ "
        "are not that one (Argo CD reads the overrides of Application shop (apps/shop.yaml:6) from "
        ".argocd-source-shop.yaml), so it is one hooklint cannot see (it may live in "
        "another repository), and hooklint rendered the folder without this file: what it changes (images, values, "
        "source options, hooks included) was not checked; if the file is meant for one of those Applications, name "
        "it after that one's instance name; if it is for another Application, add that Application to this "
        "repository (or its repoURL to repo-urls), or lint what it renders with `hooklint lint -`.")]


@needs_helm
def test_an_argocd_source_file_of_an_unknown_application_in_a_chart_is_hl009(repo):
    """A rendered folder reports only its Chart.yaml: the HL009 is placed in the file all the same."""
    commit(repo, "base", {**CHART, "chart/.argocd-source-shop.yaml": HELM_ON})
    code, doc = lint("chart")
    assert (code, [(f["rule_id"], f["path"], f["line"]) for f in doc["findings"]]) == (
        1, [("HL009", "chart/.argocd-source-shop.yaml", 1)])


def test_stand_in_source_reads_the_folder_as_sources_of_does(repo):
    """The stand-in is an Application source of ``path: FOLDER`` read by ``sources_of``: the
    override merged, the type it sets, its label; None without ``.argocd-source.yaml``."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.argocd-source.yaml": "directory: {recurse: true}\n",
                          "app/.argocd-source-app.yaml": "directory: {exclude: cm.yaml}\n", "other/cm.yaml": CM})
    source = stand_in_source("app", str(repo))
    assert source is not None
    assert (source.source_type, source.options, source.overrides, source.stand_in, source.label()) == (
        "directory", {"recurse": True}, ("app/.argocd-source.yaml",), True,
        "any Application that deploys app/ (app/.argocd-source.yaml:1)")
    assert stand_in_source("other", str(repo)) is None
    assert app_source_files("app") == ["app/.argocd-source-app.yaml"]


@needs_helm
def test_a_recursive_override_above_a_chart_leaves_the_chart_linted_as_a_chart(repo):
    """``recurse`` at the top reads the chart's templates as plain files (HL001, as Argo CD's
    directory source fails on them), and the chart is still rendered on its own: another
    Application may deploy it. Covering it would have hidden its hook."""
    commit(repo, "base", {**CHART, "chart/values.yaml": "debugHook: true\n", "top.yaml": CM,
                          ".argocd-source.yaml": "directory:\n  recurse: true\n"})
    code, doc = lint(".")
    assert (code, found(doc["findings"], "chart/templates/debug.yaml")) == (1, [("HL001", 1, 3), *CHART_HL105])


def test_a_folder_named_by_its_absolute_path_reads_its_override(repo):
    """The map matches folders as the run spells them: an absolute path reads the override too."""
    commit(repo, "base", {"app/cm.yaml": CM, "app/.hooks/job.yaml": JOB,
                          "app/.argocd-source.yaml": "directory:\n  recurse: true\n"})
    code, doc = lint(str(repo / "app"))
    assert (code, found(doc["findings"], str(repo / "app" / ".hooks" / "job.yaml"))) == (1, JOB_HL105)


def test_diff_does_not_believe_an_exclude_the_change_adds_to_an_override(repo):
    """An ``exclude`` the change adds in ``.argocd-source.yaml`` with the hook it hides is the
    change's own filter: the hook is linted as if it were not left out, and a note says so."""
    commit(repo, "base", {"app/cm.yaml": CM})
    commit(repo, "head", {"app/evil.yaml": JOB, "app/.argocd-source.yaml": "directory:\n  exclude: evil.yaml\n"})
    code, doc = diff("base", "--head", "head", "app")
    assert (code, found(doc["new"], "app/evil.yaml")) == (1, JOB_HL105)
    assert doc["notes"] == [
        "app/evil.yaml: any Application that deploys app/ (app/.argocd-source.yaml:1) leaves it out "
        "(spec.source.directory): it matches directory.exclude 'evil.yaml'; base does not leave it out this way, and a "
        "change cannot narrow its own review: linted as if it were not left out"]


APPS_TEMPLATE = """{{- range .Values.applications }}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ .name }}
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/acme/deploy.git
    path: {{ .path }}
    directory:
      recurse: true
  destination: {server: 'https://kubernetes.default.svc', namespace: x}
{{- end }}
"""


@needs_helm
def test_an_app_of_apps_nobody_deploys_renders_its_children_with_its_override(repo):
    """The map renders a chart no Application deploys to find the Applications it makes: with its
    ``.argocd-source.yaml`` values, as Argo CD would. Here they add a recursive Application of
    hooks/, whose hidden folder then holds an applied hook. Was: the hidden job not linted, exit 0."""
    commit(repo, "base", {"apps/Chart.yaml": "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
                          "apps/values.yaml": "applications: []\n", "apps/templates/apps.yaml": APPS_TEMPLATE,
                          "apps/.argocd-source.yaml": "helm:\n  valuesObject:\n    applications:\n"
                                                      "    - {name: hooks, path: hooks}\n",
                          "hooks/cm.yaml": CM, "hooks/.x/job.yaml": JOB})
    code, doc = lint(".")
    assert (code, found(doc["findings"], "hooks/.x/job.yaml")) == (1, JOB_HL105)
