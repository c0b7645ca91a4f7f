"""Argo CD 3.6 as the upstream snapshot has it: no ``v3.6.0`` tag (the newest tag is v3.5.1; master's
``VERSION`` is 3.6.0), so rules follow v3.5.1; the 3.6 changes hooklint models are pinned here."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from hooklint.argocd import NEWEST_RELEASE, RELEASES, read_version
from hooklint.cli import app

runner = CliRunner()
URL = "https://github.com/acme/shop"


def repository(tmp_path: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", URL], check=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_newest_release_is_the_snapshots_newest_tag_and_3_6_reads_as_it():
    assert NEWEST_RELEASE == (3, 5, 1) and max(RELEASES) == (3, 5)
    assert read_version("3.6")[0] == (3, 5, 1)


APPSET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shops
spec:
  generators:
    - list:
        elements:
          - {env: dev, name: shop-dev}
          - {env: qa, name: ''}
  template:
    metadata:
      name: '{{name}}'
    spec:
      project: shop
      source: {repoURL: %s, path: deploy}
      destination: {server: https://kubernetes.default.svc, namespace: 'shop-{{env}}'}
""" % URL


def test_an_application_generated_with_an_empty_name_is_an_error_and_not_planned(tmp_path, monkeypatch):
    """argo-cd #28833 (master after v3.5.1, ``validateGeneratedApplications``): an Application
    with no name is refused, the others are created; v3.5.1 sends it to the API server, which
    refuses it too. Before: hooklint planned an Application named '' and said nothing."""
    repository(tmp_path, {"argocd/appset.yaml": APPSET, "deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                          "metadata:\n  name: settings\n"})  # fmt: skip
    monkeypatch.chdir(tmp_path)
    doc = json.loads(runner.invoke(app, ["lint", "--format", "json", "."]).output)
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in doc["findings"]] == [
        ("HL007", "argocd/appset.yaml", 13, 7)]
    assert ("ApplicationSet shops (argocd/appset.yaml:1): generates an application with no name, which Argo CD does "
            "not create") in doc["findings"][0]["message"]
    assert doc["findings"][0]["message"].endswith("Argo CD's ApplicationSet controller fails the same way, so these "
                                                  "Applications are not created; nothing of them is checked until it "
                                                  "renders.")
    plans = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    made = [p["source"]["application"] for p in plans["applications"] if p["source"].get("generated_by")]
    assert made == ["Application shop-dev (argocd/appset.yaml:16)"]


def test_disable_extension_filter_of_3_6_is_not_read_at_3_5_1(tmp_path, monkeypatch):
    """argo-cd #28571 (master after v3.5.1) adds ``directory.disableExtensionFilter``; v3.5.1
    reads only ``*.yaml``, ``*.yml``, ``*.json`` (and jsonnet) whatever the field says
    (``reposerver/repository/repository.go`` ``manifestFile``)."""
    application = (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n"
                   f"  project: shop\n  source:\n    repoURL: {URL}\n    path: deploy\n    directory:\n"
                   "      disableExtensionFilter: true\n  destination:\n    server: https://kubernetes.default.svc\n"
                   "    namespace: shop\n")  # fmt: skip
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"
    repository(tmp_path, {"argocd/app.yaml": application, "deploy/cm.yaml": cm.format("x"),
                          "deploy/cm.txt": cm.format("y")})  # fmt: skip
    monkeypatch.chdir(tmp_path)
    plans = json.loads(runner.invoke(app, ["plan", "--format", "json", "."]).output)
    deploy = [p for p in plans["applications"] if (p["source"].get("application") or "").startswith("Application shop")]
    assert [t["name"] for p in deploy for s in p["steps"] for t in s["tasks"]] == ["x"]


def test_health_checks_added_on_the_3_6_master_are_not_those_of_3_5_1():
    """``resource_customizations/pulumi.com/Stack`` (#28534) and ``_.services.k8s.aws/_`` (AWS ACK,
    #29016) exist on master after v3.5.1, not at the tag: at 3.5.1 these kinds have no health, so a
    later step does not wait for them (HL308). A kind of v3.5.1 keeps its check."""
    from hooklint.argocd import has_health_check

    assert not has_health_check("pulumi.com", "Stack")
    assert not has_health_check("s3.services.k8s.aws", "Bucket")
    assert has_health_check("cluster.x-k8s.io", "Cluster")
