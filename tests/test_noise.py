"""Noise on real repositories (issue 36): what a repository whose Applications are known says of
the folders none of them deploys, and of what it cannot tell."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app

runner = CliRunner()
URL = "https://github.com/acme/shop"
APPLICATION = f"""\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  project: shop
  source:
    repoURL: {URL}
    path: deploy
  destination:
    server: https://kubernetes.default.svc
    namespace: shop
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", URL], check=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


def test_json_data_in_a_folder_no_application_deploys_is_not_hl003(repo):
    """renovate.json and a dashboard: not objects, in folders no Application deploys; the same JSON
    in the folder the Application deploys is HL003 (the repo server fails on it)."""
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/cm.yaml": CM.format("x"),
                 "renovate.json": '{"extends": ["config:base"]}\n', "dashboards/d.json": '{"title": "d"}\n',
                 "deploy/package.json": '{"name": "p"}\n'})  # fmt: skip
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["path"]) for f in doc["findings"]] == [("HL003", "deploy/package.json")]
    why = ("JSON that is no Kubernetes object, in a folder no Application of this repository deploys: not a "
           "manifest Argo CD reads")
    assert {s["path"]: s["reason"] for s in doc["skipped"]} == {"dashboards/d.json": why, "renovate.json": why}


def test_json_data_is_hl003_when_no_application_is_known(repo):
    """Without Applications every folder is an application: the JSON may be one, so HL003 stays."""
    write(repo, {"deploy/cm.yaml": CM.format("x"), "renovate.json": '{"extends": []}\n'})
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["path"]) for f in doc["findings"]] == [("HL003", "renovate.json")]


def test_folders_no_application_deploys_with_nothing_to_apply_are_listed_once(repo):
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/cm.yaml": CM.format("x"),
                 "renovate.json": "{}\n", "dashboards/d.json": '{"title": "d"}\n'})  # fmt: skip
    text = runner.invoke(app, ["plan", "."]).output
    assert [line for line in text.splitlines() if line.startswith(("Application", "Not deployed"))] == [
        "Application argocd: 1 object, 1 step (Argo CD 3.5.1, directory source, which no Application of this "
        "repository deploys)",
        "Application deploy: 1 object, 1 step (Argo CD 3.5.1, directory source of Application shop (argocd/app.yaml:8))",
        "Not deployed by any Application, with nothing to apply: ., dashboards",
    ]
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    assert doc["not_deployed"] == [".", "dashboards"] and len(doc["applications"]) == 2


def test_applications_that_name_only_other_repositories_get_one_note_naming_repo_urls(repo):
    other = APPLICATION.replace(URL, "https://github.com/acme/shop-deploy.git")
    second = other.replace("name: shop", "name: shop2")
    write(repo, {"argocd/app.yaml": other, "argocd/app2.yaml": second, "deploy/cm.yaml": CM.format("x")})
    result = runner.invoke(app, ["lint", "."])
    notes = [line for line in result.output.splitlines() if "none deploys from this repository" in line]
    assert notes == [
        "note: Applications were found, but none deploys from this repository: they name "
        "https://github.com/acme/shop-deploy.git, and this repository is github.com/acme/shop; each folder is linted "
        "as its own application. If one of those URLs is this repository (a mirror, another spelling), list it under "
        "repo-urls in .hooklint.yaml."]
    write(repo, {".hooklint.yaml": "repo-urls: [https://github.com/acme/shop-deploy]\n"})
    result = runner.invoke(app, ["lint", "."])
    assert "none deploys from this repository" not in result.output


def test_no_note_when_one_application_names_this_repository(repo):
    other = APPLICATION.replace(URL, "https://github.com/acme/shop-deploy.git").replace("name: shop", "name: o")
    write(repo, {"argocd/app.yaml": APPLICATION, "argocd/other.yaml": other, "deploy/cm.yaml": CM.format("x")})
    assert "none deploys from this repository" not in runner.invoke(app, ["lint", "."]).output


def test_common_cluster_scoped_kinds_and_the_repositorys_cluster_crds_get_no_destination_namespace(repo):
    """OpenShift's Project and SecurityContextConstraints, a CRD of the application with ``scope:
    Cluster`` and its objects: no namespace; Config Connector's (namespaced) Project keeps it."""
    crd = ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\n"
           "spec:\n  group: acme.io\n  scope: Cluster\n  names: {kind: Widget, plural: widgets}\n---\n"
           "apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: w\n---\n"
           "apiVersion: acme.io/v1\nkind: Gadget\nmetadata:\n  name: g\n")
    openshift = ("apiVersion: project.openshift.io/v1\nkind: Project\nmetadata:\n  name: p\n---\n"
                 "apiVersion: security.openshift.io/v1\nkind: SecurityContextConstraints\nmetadata:\n  name: scc\n---\n"
                 "apiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1\nkind: Project\nmetadata:\n  name: gcp\n")
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/crd.yaml": crd, "deploy/openshift.yaml": openshift})
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    tasks = [t for p in doc["applications"] for s in p["steps"] for t in s["tasks"] if t["kind"] != "Application"]
    assert sorted((t["kind"], t["name"], t["namespace"]) for t in tasks) == [
        ("CustomResourceDefinition", "widgets.acme.io", None), ("Gadget", "g", "shop"), ("Project", "gcp", "shop"),
        ("Project", "p", None), ("SecurityContextConstraints", "scc", None), ("Widget", "w", None)]


def test_an_explicit_directory_source_reads_a_kustomization_as_a_manifest(repo):
    """``GetAppSourceType`` (argo-cd v3.5.1 ``reposerver/repository/repository.go``) returns the
    explicit type before ``discovery.AppType`` looks for a kustomization: the folder is a directory
    source, kustomize never runs (the ``namespace:`` of the kustomization is not applied) and the
    kustomization.yaml is a manifest of a kind no cluster has. Before, the plan said "directory
    source" and, of the same file, "Argo CD builds the folder with it". An ``include`` keeps the
    directory when Argo CD normalizes the spec (``NormalizeSource``)."""
    explicit = APPLICATION.replace("    path: deploy\n", "    path: deploy\n    directory:\n      include: '*.yaml'\n")
    write(repo, {"argocd/app.yaml": explicit, "deploy/cm.yaml": CM.format("x"),
                 "deploy/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                              "namespace: other\nresources: [cm.yaml]\n"})  # fmt: skip
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    shop = [p for p in doc["applications"] if (p["source"]["application"] or "").startswith("Application shop")]
    assert [p["source"]["type"] for p in shop] == ["directory"]
    deploy = shop[0]
    assert [(t["kind"], t["namespace"]) for s in deploy["steps"] for t in s["tasks"]] == [("ConfigMap", "shop")]
    assert [e["reason"] for e in deploy["not_applied"]] == [
        "kustomize configuration (Kustomization) read as a manifest: the directory source applies its files as "
        "written and never runs kustomize, and the API server has no such kind, so the sync fails (HL003)"]
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in lint["findings"]] == [
        ("HL003", "deploy/kustomization.yaml", 2, 7)]


def test_an_empty_directory_source_is_dropped_and_the_kustomization_built(repo):
    """``directory: {recurse: false}`` is empty (``ApplicationSourceDirectory.IsZero``): Argo CD
    stores the Application without it (``NormalizeSource``) and builds the kustomization (namespace
    ``other``); only the first comparison of the Application as written reads the folder as a
    directory, where the kustomization is a manifest no cluster has (HL003)."""
    explicit = APPLICATION.replace("    path: deploy\n", "    path: deploy\n    directory:\n      recurse: false\n")
    write(repo, {"argocd/app.yaml": explicit, "deploy/cm.yaml": CM.format("x"),
                 "deploy/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                              "namespace: other\nresources: [cm.yaml]\n"})  # fmt: skip
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    shop = [p for p in doc["applications"] if (p["source"]["application"] or "").startswith("Application shop")]
    assert [(p["source"]["type"], p["source"]["application"],
             [(t["kind"], t["namespace"]) for s in p["steps"] for t in s["tasks"]]) for p in shop] == [
        ("kustomize", "Application shop (argocd/app.yaml:8)", [("ConfigMap", "other")]),
        ("directory", "Application shop (argocd/app.yaml:8, as first compared, before Argo CD drops its empty "
                      "spec.source.directory)", [("ConfigMap", "shop")])]  # fmt: skip
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in lint["findings"]] == [
        ("HL003", "deploy/kustomization.yaml", 2, 7)]


def test_a_kustomization_without_an_explicit_type_is_built(repo):
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/cm.yaml": CM.format("x"),
                 "deploy/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                              "resources: [cm.yaml]\n"})  # fmt: skip
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [f["rule_id"] for f in lint["findings"]] == []


CHART = {"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n", "charts/web/values.yaml": "image: {}\n",
         "charts/web/templates/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '
                                         '{{ required "image.tag is required" .Values.image.tag }}\n'}  # fmt: skip


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None, reason="no Helm")
def test_a_chart_no_application_deploys_that_fails_with_its_defaults_is_a_warning_that_says_so(repo):
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/cm.yaml": CM.format("x"), **CHART})
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["severity"], f["path"], f["line"], f["column"]) for f in lint["findings"]] == [
        ("HL007", "warning", "charts/web/templates/cm.yaml", 4, 11)]
    message = lint["findings"][0]["message"]
    assert message.startswith("Rendering with its defaults failed: execution error at (web/templates/cm.yaml:4:11): "
                              "image.tag is required. No Application of this repository deploys this chart")
    assert "fails the same way" not in message


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None, reason="no Helm")
def test_a_chart_an_application_deploys_that_fails_is_an_error_as_argo_cd_fails(repo):
    chart_app = APPLICATION.replace("path: deploy", "path: charts/web")
    write(repo, {"argocd/app.yaml": chart_app, **CHART})
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["severity"]) for f in lint["findings"]] == [("HL007", "error")]
    assert "Argo CD's repo server fails the same way" in lint["findings"][0]["message"]


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None, reason="no Helm")
def test_a_chart_an_app_of_apps_deploys_is_rendered_with_the_values_the_parent_gives(repo):
    """The parent chart renders the child Application with ``valuesObject`` from its own values:
    the child chart (whose defaults fail) renders with them, no HL007."""
    child = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  project: shop\n"
             f"  source:\n    repoURL: {URL}\n    path: charts/web\n    helm:\n      valuesObject:\n        image:\n"
             "          tag: {{ .Values.tag | quote }}\n  destination:\n    server: https://kubernetes.default.svc\n"
             "    namespace: web\n")
    write(repo, {"argocd/root.yaml": APPLICATION.replace("path: deploy", "path: apps"), **CHART,
                 "apps/Chart.yaml": "apiVersion: v2\nname: apps\nversion: 1.0.0\n", "apps/values.yaml": 'tag: "v7"\n',
                 "apps/templates/web.yaml": child})  # fmt: skip
    lint = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert lint["findings"] == []
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    web = next(p for p in doc["applications"] if (p["source"]["application"] or "").startswith("Application web "))
    assert [(t["kind"], t["namespace"], t["name"]) for s in web["steps"] for t in s["tasks"]] == [("ConfigMap", "web", "v7")]


def test_chart_repositories_are_not_named_as_other_repositories(repo):
    chart = APPLICATION.replace(f"    repoURL: {URL}\n    path: deploy\n",
                                "    repoURL: https://charts.jetstack.io\n    chart: cert-manager\n    targetRevision: 1.0.0\n")
    write(repo, {"argocd/app.yaml": chart, "deploy/cm.yaml": CM.format("x")})
    assert "none deploys from this repository" not in runner.invoke(app, ["lint", "."]).output


def test_the_markdown_report_names_folders_no_application_deploys_once_and_draws_no_empty_diagram(repo):
    write(repo, {"argocd/app.yaml": APPLICATION, "deploy/cm.yaml": CM.format("x"),
                 "renovate.json": "{}\n", "dashboards/d.json": '{"title": "d"}\n'})  # fmt: skip
    text = runner.invoke(app, ["lint", "--format", "markdown", "."]).output
    assert "- Not deployed by any Application, with nothing to apply: `.`, `dashboards`" in text
    assert "Sync steps of <code>dashboards</code>" not in text and "Sync steps of <code>deploy</code>" in text


def test_a_cluster_scoped_crd_another_application_installs_gives_its_objects_no_namespace(repo):
    """The CRD is in crds/ (its own Application), the object in deploy/: the repository's CRDs are
    read for their scope, not only the application's."""
    crd = ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\n"
           "spec:\n  group: acme.io\n  scope: Cluster\n  names: {kind: Widget, plural: widgets}\n")
    crds_app = APPLICATION.replace("name: shop", "name: crds").replace("path: deploy", "path: crds")
    write(repo, {"argocd/app.yaml": APPLICATION, "argocd/crds.yaml": crds_app, "crds/widget.yaml": crd,
                 "deploy/w.yaml": "apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: w\n---\n"
                                  "apiVersion: acme.io/v1\nkind: Gadget\nmetadata:\n  name: g\n"})  # fmt: skip
    doc = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    tasks = [t for p in doc["applications"] for s in p["steps"] for t in s["tasks"] if t["kind"] in ("Widget", "Gadget")]
    assert sorted((t["kind"], t["namespace"]) for t in tasks) == [("Gadget", "shop"), ("Widget", None)]


APP_OF_APPS = {
    "apps/Chart.yaml": "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
    "apps/values.yaml": "repoURL: https://github.com/acme/shop.git\n",
    "apps/templates/app.yaml": APPLICATION.replace(URL, "{{ .Values.repoURL }}"),
    "deploy/cm.yaml": CM.format("x"),
}


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                    reason="no Helm: neither a helm binary nor helm-python-sdk")  # fmt: skip
def test_a_clone_of_a_local_mirror_gets_one_note_naming_repo_urls(tmp_path, monkeypatch):
    """newuser8: a clone whose remote is a local path; the app of apps renders Applications naming
    https://github.com/acme/shop.git, this repository's name: they are read as another repository's
    (HL009) and, before, nothing said why (the note on foreign URLs reads only written Applications)."""
    repo = tmp_path / "shop"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", "/srv/git/shop.git"], check=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(repo, APP_OF_APPS)
    result = runner.invoke(app, ["lint", "."])
    assert [line for line in result.output.splitlines() if "repo-urls" in line] == [
        "note: 1 Application source names https://github.com/acme/shop.git, which has this repository's name (shop) "
        "but is not its git remote (/srv/git/shop.git), so it is read as another repository's (HL009); if it is this "
        "repository, add it to repo-urls in .hooklint.yaml (repo-urls: [https://github.com/acme/shop.git])."]
    write(repo, {".hooklint.yaml": "repo-urls: [https://github.com/acme/shop]\n"})
    result = runner.invoke(app, ["lint", "."])
    assert "repo-urls" not in result.output and "HL009" not in result.output


@pytest.mark.skipif(__import__("hooklint.sources.render.helm", fromlist=["find_helm"]).find_helm() is None,
                    reason="no Helm: neither a helm binary nor helm-python-sdk")  # fmt: skip
@pytest.mark.parametrize(("remote", "url"), [
    ("/srv/git/shop.git", "https://github.com/acme/payments.git"),  # another name: another repository
    ("/srv/git/shop.git", "/srv/git/other/shop"),  # not a hosted URL
])  # fmt: skip
def test_no_repo_urls_note_for_applications_of_other_repositories(tmp_path, monkeypatch, remote, url):
    repo = tmp_path / "shop"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", remote], check=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    write(repo, {**APP_OF_APPS, "apps/values.yaml": f"repoURL: {url}\n"})
    assert "repo-urls" not in runner.invoke(app, ["lint", "."]).output


def test_no_repo_urls_note_for_a_same_named_repository_when_the_hosted_remote_matches(repo):
    """A fork's Applications: some name the fork (this repository's hosted remote), one names the
    upstream of the same name: that is another repository, no hint."""
    upstream = APPLICATION.replace(URL, "https://github.com/upstream/shop.git").replace("name: shop", "name: up")
    write(repo, {"argocd/app.yaml": APPLICATION, "argocd/up.yaml": upstream.replace("path: deploy", "path: other"),
                 "deploy/cm.yaml": CM.format("x")})
    assert "repo-urls" not in runner.invoke(app, ["lint", "."]).output
