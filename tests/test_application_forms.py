"""Applications in every form Argo CD deploys them (attacker trial 8): a hydrated Application
(``spec.sourceHydrator``, F2), Applications and ApplicationSets written as items of a ``kind: List``
(F4), a folder inside a Helm chart that an Application deploys as a directory source (F10), and an
explicit ``directory:`` source on a folder holding a ``Chart.yaml`` (F11).

Each case is the attacker's: a chart whose privileged PreSync hook is behind a value that is off by
default, and an Application that turns it on (or a plain privileged hook where only Argo CD's reading
of the folder applies it). Before, each was a silent pass."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

URL = "https://git.example.com/acme/deploy.git"

GATED_HOOK = """\
{{- if .Values.migrate.enabled }}
apiVersion: batch/v1
kind: Job
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      serviceAccountName: x
      automountServiceAccountToken: false
      hostPID: true
      containers:
      - name: x
        image: ghcr.io/a/b:1.0
        securityContext: {privileged: true}
      restartPolicy: Never
{{- end }}
"""

PLAIN_HOOK = GATED_HOOK.split("\n", 1)[1].rsplit("{{- end }}", 1)[0]

CHART = {
    ".git/config": f'[remote "origin"]\n\turl = {URL}\n',
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
    "chart/values.yaml": "migrate:\n  enabled: false\n",
    "chart/templates/hook.yaml": GATED_HOOK,
    "chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n",
}

#: The findings of the gated hook rendered with ``migrate.enabled: true`` (concise format).
HOOK_ON = [
    "chart/templates/hook.yaml:2:1: HL105 The container 'x' of Job/pwn is privileged",
    "chart/templates/hook.yaml:16:7: HL105 Job/pwn sets hostPID",
]


def lint(*args: str) -> tuple[int, list[str]]:
    """Exit code and the finding lines of ``hooklint lint --format concise ARGS``."""
    result = runner.invoke(app, ["lint", "--format", "concise", *args])
    return result.exit_code, [line for line in result.output.splitlines() if re.match(r"\S+:\d+:\d+: HL", line)]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, CHART)
    return tmp_path


HYDRATED = f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: shop, namespace: argocd}}
spec:
  project: shop
  source: {{repoURL: {URL}, path: elsewhere}}
  sourceHydrator:
    drySource:
      repoURL: {URL}
      targetRevision: main
      path: chart
      chart: ignored
      helm:
        valuesObject:
          migrate: {{enabled: true}}
    syncSource:
      targetBranch: environments/prod
      path: prod/shop
  destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""


@needs_helm
def test_a_hydrated_application_renders_its_dry_source_with_its_options(repo):
    """F2: the hydrator renders ``drySource`` (``GetDrySource``: its helm options; ``chart`` is no
    field of it) and syncs the output; ``spec.source`` is ignored (``GetSources``)."""
    write(repo, {"apps/shop.yaml": HYDRATED})
    assert lint(".") == (1, HOOK_ON)
    doctor = runner.invoke(app, ["doctor", "."]).output
    assert ("Applications written in these files: 1 mapped, 0 ignored (those an app of apps or an ApplicationSet "
            "makes: hooklint plan)\n  mapped   Application shop (apps/shop.yaml:1) spec.sourceHydrator.drySource -> "
            "chart\n") in doctor


def test_a_hydrated_applications_dry_source_from_elsewhere_is_named(repo):
    """F2: a dry source in another repository is not rendered, and said so (HL009), never silently."""
    write(repo, {"apps/shop.yaml": HYDRATED.replace(f"repoURL: {URL}\n      target",
                                                    "repoURL: https://git.example.com/acme/other.git\n      target")})
    code, lines = lint("apps")
    assert (code, lines) == (1, [
        "apps/shop.yaml:9:7: HL009 Application shop (apps/shop.yaml:9): spec.sourceHydrator.drySource is the Git "
        "repository https://git.example.com/acme/other.git at main (path chart), not this one"])


LISTED = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: argoproj.io/v1alpha1
  kind: Application
  metadata: {{name: shop, namespace: argocd}}
  spec:
    project: shop
    source:
      repoURL: {URL}
      path: chart
      helm: {{valuesObject: {{migrate: {{enabled: true}}}}}}
    destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""


@needs_helm
def test_an_application_in_a_list_is_mapped(repo):
    """F4: ``GenerateManifests`` applies each item of a list (``IsList``): the Application is created."""
    write(repo, {"apps/list.yaml": LISTED})
    assert lint(".") == (1, HOOK_ON)
    doctor = runner.invoke(app, ["doctor", "."]).output
    assert "  mapped   Application shop (apps/list.yaml:4) spec.source -> chart\n" in doctor


LISTED_SET = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: argoproj.io/v1alpha1
  kind: ApplicationSet
  metadata: {{name: shops, namespace: argocd}}
  spec:
    goTemplate: true
    generators:
    - list:
        elements: [{{env: prod}}]
    template:
      metadata: {{name: 'shop-{{{{.env}}}}'}}
      spec:
        project: shop
        source:
          repoURL: {URL}
          path: chart
          helm: {{valuesObject: {{migrate: {{enabled: true}}}}}}
        destination: {{server: https://kubernetes.default.svc, namespace: shop}}
"""


@needs_helm
def test_an_applicationset_in_a_list_is_expanded(repo):
    write(repo, {"apps/list.yaml": LISTED_SET})
    assert lint(".") == (1, HOOK_ON)


ROOT_CHART_LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: argoproj.io/v1alpha1
  kind: Application
  metadata: {name: shop, namespace: argocd}
  spec:
    project: shop
    source:
      repoURL: {{ .Values.repoURL }}
      path: chart
      helm: {valuesObject: {migrate: {enabled: true}}}
    destination: {server: https://kubernetes.default.svc, namespace: shop}
"""


@needs_helm
def test_an_application_in_a_list_an_app_of_apps_renders_is_mapped(repo):
    """F4: the same list rendered by a parent chart (app of apps) is a child Application."""
    write(repo, {
        "root/Chart.yaml": "apiVersion: v2\nname: root\nversion: 0.1.0\n",
        "root/values.yaml": f"repoURL: {URL}\n",
        "root/templates/apps.yaml": ROOT_CHART_LIST,
    })
    assert lint(".") == (1, HOOK_ON)


def application(name: str, path: str, extra: str = "", namespace: str = "shop") -> str:
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\n"
            f"spec:\n  project: shop\n  source:\n    repoURL: {URL}\n    path: {path}\n{extra}"
            f"  destination: {{server: https://kubernetes.default.svc, namespace: {namespace}}}\n")  # fmt: skip


SHOP_ON = application("shop", "chart", "    helm: {valuesObject: {migrate: {enabled: true}}}\n")


@needs_helm
def test_a_folder_inside_a_chart_deployed_as_a_directory_source_is_linted_and_mapped(repo):
    """F10: ``chart/apps`` has no Chart.yaml of its own, so Argo CD's directory source applies
    ``chart/apps/shop.yaml``, and the Application ``shop`` it holds renders the chart with the hook on.
    Before: 0 findings in 2 files, nothing listed as skipped."""
    write(repo, {"apps/root.yaml": application("root", "chart/apps", namespace="argocd"),
                 "chart/apps/shop.yaml": SHOP_ON,
                 "chart/apps/job.yaml": PLAIN_HOOK.replace("name: pwn", "name: plain")})
    assert lint(".") == (1, [
        "chart/apps/job.yaml:15:16: HL105 Job/plain sets hostPID",
        "chart/apps/job.yaml:19:39: HL105 The container 'x' of Job/plain is privileged",
        *HOOK_ON,
    ])
    plan = runner.invoke(app, ["plan", "."]).output
    assert ("Application chart/apps: 2 objects, 2 steps (Argo CD 3.5.1, directory source of Application root "
            "(apps/root.yaml:7))\n") in plan
    assert ("Application chart: 2 objects, 2 steps (Argo CD 3.5.1, helm source of Application shop "
            "(chart/apps/shop.yaml:7) rendered by") in plan
    doctor = runner.invoke(app, ["doctor", "."]).output
    assert ("  mapped   Application root (apps/root.yaml:1) spec.source -> chart/apps\n"
            "  mapped   Application shop (chart/apps/shop.yaml:1) spec.source -> chart\n") in doctor


def commit(repo, tag: str, files: dict[str, str]) -> None:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


@pytest.fixture
def history(tmp_path, monkeypatch):
    repo = tmp_path / "history"
    repo.mkdir()
    monkeypatch.chdir(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    git(repo, "remote", "add", "origin", URL)
    return repo


def test_a_change_adding_a_hook_to_a_folder_inside_a_chart_a_directory_source_deploys_is_reviewed(history):
    """F10 in review: the base deploys ``chart/apps`` as a directory source; the change adds a plain
    privileged PreSync Job there. Before: 0 new findings, no plan change, exit 0."""
    commit(history, "base", {**{k: v for k, v in CHART.items() if not k.startswith(".git/")},
                             "apps/root.yaml": application("root", "chart/apps", namespace="argocd"),
                             "chart/apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apps\n"})
    commit(history, "head", {"chart/apps/job.yaml": PLAIN_HOOK.replace("name: pwn", "name: plain")})
    result = runner.invoke(app, ["diff", "base", "--head", "head", "--format", "json"])
    found = sorted((f["path"], f["line"], f["rule_id"]) for f in json.loads(result.stdout)["new"])
    assert (result.exit_code, found) == (1, [("chart/apps/job.yaml", 15, "HL105"), ("chart/apps/job.yaml", 19, "HL105")])


EXPLICIT = application("shop", "chart", "    directory: {recurse: false}\n")


def test_an_explicit_directory_source_on_a_chart_folder_reads_its_manifest_files(repo):
    """F11: ``ExplicitType`` returns Directory whenever ``directory`` is set, and ``findManifests``
    reads the folder's files (``Chart.yaml`` and ``values.yaml`` are YAML that is no object;
    ``templates/`` is a subfolder, read only with ``recurse``). Before: 0 objects, extra.yaml unlinted.
    An ``include`` keeps the directory when Argo CD normalizes the spec (``NormalizeSource``)."""
    explicit = EXPLICIT.replace("{recurse: false}", "{include: '*.yaml'}")
    write(repo, {"apps/app.yaml": explicit, "chart/extra.yaml": PLAIN_HOOK})
    assert lint(".") == (1, [
        "chart/extra.yaml:6:30: HL305 Every object of this application is a hook (1 hook run during a sync, no plain "
        "resource)",
        "chart/extra.yaml:15:16: HL105 Job/pwn sets hostPID",
        "chart/extra.yaml:19:39: HL105 The container 'x' of Job/pwn is privileged",
    ])
    plan = runner.invoke(app, ["plan", "chart"]).output
    assert plan.startswith("Application chart: 1 object, 1 step (Argo CD 3.5.1, directory source of Application shop "
                           "(apps/app.yaml:7))\n")


def test_a_recursive_directory_source_on_a_chart_folder_reads_its_templates_as_written(repo):
    """F11 with ``recurse``: ``templates/*.yaml`` are applied as written, and a template Argo CD cannot
    parse as YAML fails there too (never a silent pass)."""
    write(repo, {"apps/app.yaml": EXPLICIT.replace("recurse: false", "recurse: true")})
    assert lint(".") == (1, ["chart/templates/hook.yaml:1:3: HL001 YAML syntax error: did not find expected node content (while parsing a flow node)"])


@needs_helm
def test_a_recursive_directory_source_above_a_chart_reads_the_chart_as_written_and_maps_its_applications(repo):
    """F10 and F11 from above: ``recurse`` walks into ``deploy/chart`` (the chart's templates are
    plain files to it: the template that is no YAML is HL001, as Argo CD fails on it) and applies
    ``deploy/chart/apps/shop.yaml``, whose Application renders the chart with the hook on."""
    moved = {k.replace("chart/", "deploy/chart/", 1) if k.startswith("chart/") else k: v for k, v in CHART.items()}
    write(repo, {**moved, "apps/root.yaml": application("root", "deploy", "    directory: {recurse: true}\n", "argocd"),
                 "deploy/chart/apps/shop.yaml": SHOP_ON.replace("path: chart", "path: deploy/chart")})
    for name in CHART:
        if name.startswith("chart/"):
            (repo / name).unlink()
    assert lint(".") == (1, [
        "deploy/chart/templates/hook.yaml:1:3: HL001 YAML syntax error: did not find expected node content (while parsing a flow node)",
        "deploy/chart/templates/hook.yaml:2:1: HL105 The container 'x' of Job/pwn is privileged",
        "deploy/chart/templates/hook.yaml:16:7: HL105 Job/pwn sets hostPID",
    ])


def test_go_decodes_a_templatepatch_of_source_hydrator_field_by_field():
    """F2: an ApplicationSet's ``templatePatch`` is decoded into ``Application`` by Go's
    ``encoding/json``: ``DrySource:`` is ``drySource:`` (``SourceHydrator`` is a struct, not opaque)."""
    from hooklint.sources.appmap.gojson import APPLICATION, decode

    patch = {"spec": {"SourceHydrator": {"DrySource": {"Path": "chart", "Helm": {"valuesObject": {"a": 1}}},
                                         "syncSource": {"path": "prod"}}}}
    assert decode(APPLICATION, None, patch) == {"spec": {"sourceHydrator": {
        "drySource": {"helm": {"valuesObject": {"a": 1}}, "path": "chart"}, "syncSource": {"path": "prod"}}}}


needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")


@needs_helm
@needs_kustomize
def test_list_items_a_kustomization_renders_and_a_hydrated_child_of_a_chart_are_mapped(repo):
    """F4 and F2 in an app of apps: a kustomization's resource that is a List of Applications, and a
    chart's template that is a hydrated Application (placed at its ``sourceHydrator`` line)."""
    write(repo, {"root/kustomization.yaml": "resources:\n- apps.yaml\n", "root/apps.yaml": LISTED,
                 "hroot/Chart.yaml": "apiVersion: v2\nname: hroot\nversion: 0.1.0\n",
                 "hroot/templates/a.yaml": HYDRATED.replace("name: shop,", "name: shop2,")})
    headers = [line for line in runner.invoke(app, ["plan", "."]).output.splitlines() if line.startswith("Application")]
    assert [h.split(", rendered by")[0] for h in headers[:2]] == [
        "Application chart (shop): 2 objects, 2 steps (Argo CD 3.5.1, helm source of Application shop (root/apps.yaml:1) "
        "(made by the kustomization root/kustomization.yaml)",
        "Application chart (shop2): 2 objects, 2 steps (Argo CD 3.5.1, helm source of Application shop2 "
        "(hroot/templates/a.yaml:7) (made by the Helm chart hroot/Chart.yaml)",
    ]
