"""An empty source type of an Application (attacker trial 14, Break 6): ``directory: {}``,
``directory: {recurse: false}``, ``directory: {jsonnet: {}}``, ``helm: {}``, ``kustomize: {}``.

Argo CD drops it before it renders (``util/argo/argo.go`` ``NormalizeSource``, v3.5.1 lines
1035-1056; each ``IsZero`` of ``pkg/apis/application/v1alpha1/types.go``): the API server stores
the Application so, the ApplicationSet controller creates it so, and the application controller
patches it so after its first comparison (``controller/appcontroller.go`` ``normalizeApplication``).
From then on the repo server's ``GetAppSourceType`` finds no explicit type and the folder decides:
a chart is Helm, a kustomization kustomize. Before, hooklint read the empty type as explicit: a
chart's privileged hook, or a kustomize patch, passed with 0 findings and exit 0.

hooklint lints the steady rendering and, for an Application applied as written (kubectl, an app of
apps), also its first comparison's when that types the folder otherwise and can render."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint import argocd
from hooklint.cli import app
from hooklint.sources.appmap.applications import is_zero, normalize_source
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

URL = "https://github.com/acme/deploy.git"
V351 = (3, 5, 1)


# --- IsZero and NormalizeSource, pinned --------------------------------------------------------


@pytest.mark.parametrize(("kind", "options", "zero"), [
    ("directory", {}, True),
    ("directory", {"recurse": False}, True),
    ("directory", {"jsonnet": {}}, True),
    ("directory", {"jsonnet": {"extVars": [], "tlas": [], "libs": []}}, True),
    ("directory", {"include": "*.yaml", "exclude": "x"}, True),  # kept by NormalizeSource, not by IsZero
    ("directory", {"recurse": True}, False),
    ("directory", {"jsonnet": {"libs": ["l"]}}, False),
    ("directory", {"jsonnet": {"tlas": [{"name": "a", "value": "b"}]}}, False),
    ("helm", {}, True),
    ("helm", {"valueFiles": [], "parameters": [], "values": "", "valuesObject": None}, True),
    ("helm", {"valuesObject": {}}, False),  # ValuesYAML of {} is "{}\n"
    ("helm", {"values": "a: 1"}, False),
    ("helm", {"skipTests": True}, False),
    ("helm", {"skipSchemaValidation": True}, False),
    ("helm", {"namespace": "x"}, False),
    ("helm", {"passCredentials": True}, False),
    ("helm", {"skipCrds": False, "ignoreMissingValueFiles": False}, True),
    ("kustomize", {}, True),
    ("kustomize", {"forceCommonLabels": True, "forceCommonAnnotations": True, "commonAnnotationsEnvsubst": True,
                   "labelWithoutSelector": True, "labelIncludeTemplates": True}, True),  # never read by IsZero
    ("kustomize", {"commonLabels": {}}, True),
    ("kustomize", {"commonLabels": {"a": "b"}}, False),
    ("kustomize", {"ignoreMissingComponents": True}, False),
    ("kustomize", {"patches": [{"patch": "x"}]}, False),
    ("kustomize", {"apiVersions": ["v1"]}, False),
])  # fmt: skip
def test_is_zero_is_argo_cd_3_5_1s(kind, options, zero):
    assert is_zero(kind, options, V351) is zero


@pytest.mark.parametrize(("kind", "options", "version", "zero"), [
    ("kustomize", {"commonLabels": {"a": "b"}}, (1, 1, 0), True),  # the field, not yet read by IsZero
    ("kustomize", {"commonLabels": {"a": "b"}}, (1, 2, 0), False),
    ("kustomize", {"ignoreMissingComponents": True}, (2, 14, 0), True),  # a field 2.14 does not have
    ("kustomize", {"ignoreMissingComponents": True}, (3, 0, 0), False),
    ("helm", {"skipTests": True}, (2, 13, 0), True),
    ("helm", {"skipTests": True}, (2, 14, 0), False),
    ("helm", {"valuesObject": {"a": 1}}, (2, 7, 0), True),
    ("helm", {"valuesObject": {"a": 1}}, (2, 8, 0), False),
    ("directory", {"jsonnet": {"libs": ["l"]}}, (1, 6, 0), True),
    ("directory", {"jsonnet": {"libs": ["l"]}}, (1, 7, 0), False),
])  # fmt: skip
def test_is_zero_by_release(kind, options, version, zero):
    assert is_zero(kind, options, version) is zero


def test_normalize_source_drops_empty_types_and_keeps_a_directorys_globs():
    source = {"repoURL": URL, "path": "app"}
    assert normalize_source({**source, "directory": {"recurse": False}}) == source
    assert normalize_source({**source, "directory": {"jsonnet": {}}}) == source
    assert normalize_source({**source, "helm": {}}) == source
    assert normalize_source({**source, "kustomize": {"forceCommonLabels": True}}) == source
    assert normalize_source({**source, "directory": {"include": "*.yaml", "recurse": False}}) == {
        **source, "directory": {"include": "*.yaml"}}
    assert normalize_source({**source, "directory": {"exclude": "x", "include": "y"}}) == {
        **source, "directory": {"exclude": "x", "include": "y"}}
    # include came in 2.0, exclude in 1.8: an older CRD drops them, and the directory with them
    assert normalize_source({**source, "directory": {"include": "y"}}, (1, 8, 0)) == source
    assert normalize_source({**source, "directory": {"exclude": "x", "include": "y"}}, (1, 8, 0)) == {
        **source, "directory": {"exclude": "x"}}
    assert normalize_source({**source, "directory": {"recurse": True}}) == {**source, "directory": {"recurse": True}}
    assert normalize_source({**source, "plugin": {}}) == {**source, "plugin": {}}  # never normalized


def test_the_applicationset_normalization_release():
    assert argocd.since("appset-normalize") == (2, 8, 0)
    assert argocd.supports((2, 7, 8), "appset-normalize") and not argocd.supports((2, 7, 7), "appset-normalize")
    assert not argocd.supports((2, 6, 15), "appset-normalize")


# --- lint and diff: the attacker's three cases, written from scratch ---------------------------


def application(kind_line: str, path: str = "app", name: str = "shop") -> str:
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\n"
            f"spec:\n  project: shop\n  source:\n    repoURL: {URL}\n    path: {path}\n{kind_line}"
            "  destination:\n    server: https://kubernetes.default.svc\n    namespace: shop\n")


EVIL_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      serviceAccountName: evil
      automountServiceAccountToken: false
      hostNetwork: true
      restartPolicy: Never
      containers:
      - name: x
        image: registry.example.com/x:1.0.0
        securityContext: {privileged: true}
"""

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: {a: b}\n"

CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
    "chart/templates/cm.yaml": CM,
    "chart/templates/job.yaml": EVIL_JOB,
}

HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: migrate
      automountServiceAccountToken: false
      containers:
      - name: m
        image: registry.example.com/migrate:1.0.0
"""

PATCHED = {
    "app/job.yaml": HOOK_JOB,
    "app/cm.yaml": CM,
    "app/kustomization.yaml": "resources:\n- job.yaml\n- cm.yaml\npatches:\n- path: p.patch\n",
    "app/p.patch": ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n"
                    "      hostNetwork: true\n      containers:\n      - name: m\n        image: evil.example/pwn:1.0.0\n"
                    "        securityContext: {privileged: true}\n"),
}  # fmt: skip

#: The findings of the patched Job, which only a kustomize build makes (concise format).
PATCHED_FINDINGS = [
    "app/kustomization.yaml:4:1: HL101 Image 'evil.example/pwn:1.0.0' of container 'm' of Job/migrate comes from "
    "registry 'evil.example', which is not in allowed-registries",
    "app/kustomization.yaml:4:1: HL105 Job/migrate sets hostNetwork",
    "app/kustomization.yaml:4:1: HL105 The container 'm' of Job/migrate is privileged",
]


def lint(*args: str) -> tuple[int, list[str]]:
    """Exit code and the finding lines of ``hooklint lint --format concise ARGS``."""
    result = runner.invoke(app, ["lint", "--format", "concise", *args])
    return result.exit_code, [line for line in result.output.splitlines() if re.match(r"\S+:\d+:\d+: HL", line)]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {".git/config": f'[remote "origin"]\n\turl = {URL}\n',
                     ".hooklint.yaml": "allowed-registries: [registry.example.com]\n"})
    return tmp_path


def plan_views(name: str = "shop") -> list[tuple[str, str, list[tuple[str, str]]]]:
    """``(source type, application label, [(kind, name)])`` of each plan entry of Application ``name``."""
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    return [(p["source"]["type"], p["source"]["application"],
             [(t["kind"], t["name"]) for s in p["steps"] for t in s["tasks"]])
            for p in doc["applications"] if (p["source"]["application"] or "").startswith(f"Application {name} ")]


CHART_FINDINGS = [
    "chart/templates/job.yaml:1:1: HL105 The container 'x' of Job/evil is privileged",
    "chart/templates/job.yaml:15:7: HL105 Job/evil sets hostNetwork",
]


@needs_helm
@pytest.mark.parametrize("empty", ["    directory: {}\n", "    directory: {recurse: false}\n",
                                   "    directory: {jsonnet: {}}\n", "    directory:\n      jsonnet: {libs: []}\n"])
def test_an_empty_directory_on_a_chart_renders_the_chart(repo, empty):
    """dirzerohelm: before, 0 findings and exit 0 (Chart.yaml "unrelated YAML", templates never read)."""
    write(repo, {**CHART, "apps/app.yaml": application(empty, "chart")})
    assert lint(".") == (1, CHART_FINDINGS)
    line = 9
    assert plan_views() == [
        ("helm", f"Application shop (apps/app.yaml:{line})", [("Job", "evil"), ("ConfigMap", "c")]),
        ("directory", f"Application shop (apps/app.yaml:{line}, as first compared, before Argo CD drops its empty "
                      "spec.source.directory)", []),
    ]  # fmt: skip


@needs_helm
def test_a_directory_with_a_glob_stays_a_directory_on_a_chart(repo):
    """``NormalizeSource`` keeps ``include``/``exclude``: the directory stays explicit, and the
    folder's own files (none that are objects here) are what Argo CD applies."""
    write(repo, {**CHART, "apps/app.yaml": application("    directory: {recurse: false, include: '*.yaml'}\n", "chart")})
    assert lint(".") == (0, [])
    assert [v[0] for v in plan_views()] == ["directory"]


@needs_helm
@needs_kustomize
def test_a_kustomize_patch_applies_under_an_empty_directory(repo):
    """dirzero: the patch (``p.patch``, no manifest name) only a kustomize build reads; before,
    lint and ``diff HEAD~1`` passed with exit 0."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    write(repo, {**PATCHED, "apps/app.yaml": application("    directory: {}\n")})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    assert lint(".") == (1, PATCHED_FINDINGS)
    result = runner.invoke(app, ["diff", "--format", "json", "HEAD~1"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["path"], f["line"], f["column"], f["rule_id"]) for f in doc["new"]] == [
        ("app/kustomization.yaml", 4, 1, "HL101"), ("app/kustomization.yaml", 4, 1, "HL105"),
        ("app/kustomization.yaml", 4, 1, "HL105")]
    views = plan_views()
    assert [(v[0], v[2]) for v in views] == [("kustomize", [("Job", "migrate"), ("ConfigMap", "c")]),
                                             ("directory", [("Job", "migrate"), ("ConfigMap", "c")])]


@needs_helm
@needs_kustomize
def test_an_empty_helm_on_a_folder_kustomize_builds_renders_both(repo):
    """helmzero: ``helm: {}`` on a folder with a ``Chart.yaml`` and a kustomization. Stored, the
    Application has no type and the kustomization wins (``discovery.AppType``); its first
    comparison renders the chart. Both are linted: before, only the chart (a ConfigMap), exit 0."""
    write(repo, {"app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n", "app/templates/cm.yaml": CM,
                 "app/kustomization.yaml": "resources: [evil.job]\n", "app/evil.job": EVIL_JOB,
                 "apps/app.yaml": application("    helm: {}\n")})  # fmt: skip
    assert lint(".") == (1, [
        "app/evil.job:6:30: HL305 Every object of this application is a hook (1 hook run during a sync, no plain "
        "resource)",
        "app/evil.job:15:20: HL105 Job/evil sets hostNetwork",
        "app/evil.job:20:39: HL105 The container 'x' of Job/evil is privileged",
    ])
    assert [(v[0], v[2]) for v in plan_views()] == [("kustomize", [("Job", "evil")]), ("helm", [("ConfigMap", "c")])]


@needs_helm
def test_an_empty_kustomize_on_a_chart_renders_the_chart(repo):
    """``kustomize: {}`` on a chart: Argo CD renders the chart once the Application is stored; its
    first comparison fails (no kustomization) and applies nothing. Before: HL007 only."""
    write(repo, {**CHART, "apps/app.yaml": application("    kustomize: {forceCommonLabels: true}\n", "chart")})
    assert lint(".") == (1, CHART_FINDINGS)
    assert [v[0] for v in plan_views()] == ["helm"]


def test_a_set_kustomize_on_a_chart_is_still_refused(repo):
    """A kustomize option that ``IsZero`` reads keeps the type: no kustomization, HL007."""
    write(repo, {**CHART, "apps/app.yaml": application("    kustomize: {namePrefix: x-}\n", "chart")})
    code, lines = lint(".")
    assert (code, [line.split(" ", 2)[1] for line in lines]) == (1, ["HL007", "HL105", "HL105"])
    assert lines[0] == ("apps/app.yaml:9:5: HL007 Rendering failed: Application shop (apps/app.yaml:9): "
                        "spec.source.kustomize is set, but 'chart' has no kustomization (kustomize: unable to find one "
                        "of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization')")


@needs_helm
def test_a_multi_source_entry_keeps_its_empty_directory(repo):
    """``NormalizeApplicationSpec`` ranges over ``spec.sources`` by value (2.6 to 3.5.1): each
    entry is normalized as a copy, so ``directory: {}`` stays and the chart folder is read as a
    directory (no object in it), never rendered as a chart."""
    multi = application("", "chart").replace(
        f"  source:\n    repoURL: {URL}\n    path: chart\n",
        f"  sources:\n  - repoURL: {URL}\n    path: chart\n    directory: {{}}\n")
    write(repo, {**CHART, "apps/app.yaml": multi})
    assert lint(".") == (0, [])
    assert [v[0] for v in plan_views()] == ["directory"]


APPSET = f"""\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shops
  namespace: argocd
spec:
  generators:
  - list:
      elements:
      - name: shop
  template:
    metadata:
      name: '{{{{name}}}}'
    spec:
      project: shop
      source:
        repoURL: {URL}
        path: chart
        directory: {{}}
      destination:
        server: https://kubernetes.default.svc
        namespace: shop
"""


@needs_helm
@pytest.mark.parametrize(("version", "views"), [("3.5.1", ["helm"]), ("2.7.8", ["helm"]),
                                                ("2.7.7", ["helm", "directory"])])
def test_an_applicationset_creates_its_applications_normalized(repo, version, views):
    """From 2.8 (and 2.7.8) the ApplicationSet controller normalizes each generated spec before it
    creates it: no first comparison reads the empty directory. Before, the chart was never rendered."""
    write(repo, {**CHART, "apps/appset.yaml": APPSET,
                 ".hooklint.yaml": f"allowed-registries: [registry.example.com]\nargocd-version: '{version}'\n"})
    assert lint(".") == (1, CHART_FINDINGS)
    assert [v[0] for v in plan_views()] == views


def _sources(repo, text: str, version=V351, normalized: bool = False):
    from hooklint.loader import read_file
    from hooklint.sources.appmap.applications import normalize_repo_url, sources_of

    write(repo, {"apps/app.yaml": text})
    body = read_file("apps/app.yaml").documents[0].value
    return [(s.field, s.source_type, s.options, s.view, s.remote is not None)
            for s in sources_of(body, "apps/app.yaml", str(repo), {normalize_repo_url(URL)}, version=version,
                                normalized=normalized)]  # fmt: skip


def test_sources_of_reads_spec_source_as_stored(repo):
    """The source types ``sources_of`` gives: the steady (stored) one, and the first comparison's
    before it when it renders the folder otherwise; a source of another repository (rendered only
    by ``--fetch``) is read as stored too; a ``spec.sources`` entry keeps its empty type."""
    write(repo, CHART)
    first = "as first compared, before Argo CD drops its empty spec.source.directory"
    assert _sources(repo, application("    directory: {}\n", "chart")) == [
        ("spec.source", "directory", {}, first, False), ("spec.source", None, None, "", False)]
    # stored normalized from the start (an ApplicationSet's): only the steady one
    assert _sources(repo, application("    directory: {}\n", "chart"), normalized=True) == [
        ("spec.source", None, None, "", False)]
    # a plain folder: both readings are the same directory source, said once
    write(repo, {"plain/cm.yaml": CM})
    assert _sources(repo, application("    directory: {recurse: false}\n", "plain")) == [
        ("spec.source", None, None, "", False)]
    assert _sources(repo, application("    directory: {recurse: false, exclude: x}\n", "plain")) == [
        ("spec.source", "directory", {"exclude": "x"}, "", False)]
    # kustomize: {} on a kustomization and helm: {} on a chart: the folder's own type, said once
    write(repo, {"kust/kustomization.yaml": "resources: []\n"})
    assert _sources(repo, application("    kustomize: {}\n", "kust")) == [("spec.source", None, None, "", False)]
    assert _sources(repo, application("    helm: {}\n", "chart")) == [("spec.source", None, None, "", False)]
    # helm: {} on a plain folder: the first comparison fails (no Chart.yaml), the stored one is a directory
    assert _sources(repo, application("    helm: {}\n", "plain")) == [("spec.source", None, None, "", False)]
    # the repo server merges .argocd-source.yaml after the spec is stored and never normalizes it:
    # an empty type written there is explicit (GetAppSourceType: mergeSourceParameters, ExplicitType)
    write(repo, {"chart/.argocd-source.yaml": "directory: {}\n"})
    assert _sources(repo, application("", "chart")) == [("spec.source", "directory", {}, "", False)]
    # with the Application's empty helm: stored, the file's directory; first compared, two types (an error)
    assert _sources(repo, application("    helm: {}\n", "chart")) == [("spec.source", "directory", {}, "", False)]
    (repo / "chart/.argocd-source.yaml").unlink()
    other = application("    directory: {}\n", "chart").replace(URL, "https://github.com/acme/other.git")
    assert _sources(repo, other) == [("spec.source", None, None, "", True)]
    assert _sources(repo, other.replace("directory: {}", "directory: {recurse: true}")) == [
        ("spec.source", "directory", {"recurse": True}, "", True)]
    multi = application("", "chart").replace(
        f"  source:\n    repoURL: {URL}\n    path: chart\n",
        f"  sources:\n  - repoURL: {URL}\n    path: chart\n    helm: {{}}\n"
        f"  - repoURL: https://github.com/acme/other.git\n    path: x\n    directory: {{}}\n")
    assert _sources(repo, multi) == [("spec.sources[0]", "helm", {}, "", False),
                                     ("spec.sources[1]", "directory", {}, "", True)]
