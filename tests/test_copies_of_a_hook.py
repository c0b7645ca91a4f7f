"""Copies of one hook that Argo CD runs as different objects stay different findings (attacker
trial 22, B0 and B1): a kustomize base rendered by a ``dev`` and a ``prod`` overlay, each deployed by
its own Application, is two Jobs; the run said one finding at the base's line once, and when the
copy kept was the ``dev`` overlay's suppressed one, ``lint`` passed (exit 0) and ``diff`` of a change
adding the ``prod`` overlay said "0 new findings"."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import commit_tagged as commit, git_checkout
from hooklint.cli import app
from hooklint.findings import Finding, ObjectRef, Span, Suppression
from hooklint.pipeline import _unique
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: mig
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: mig
      automountServiceAccountToken: false
      hostPID: true
      containers: [{name: c, image: "registry.k8s.io/pause:3.9"}]
"""
SUPPRESS = """patches:
- target: {kind: Job, name: mig}
  patch: |
    - op: add
      path: /metadata/annotations/hooklint.io~1ignore
      value: "HL105: node debugger, dev cluster only"
"""
HOSTPID = ("Job/mig sets hostPID: true: a PreSync hook runs on every sync and then controls the node, not just its "
           "pod. Remove it, or do this work outside the cluster's workloads.")  # fmt: skip


def application(name: str, cluster: str) -> str:
    return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            f"metadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n"
            f"  destination: {{server: 'https://{cluster}.example.com', namespace: {name}}}\n"
            f"  source: {{repoURL: 'https://github.com/acme/deploy.git', path: ov/{name}, targetRevision: HEAD}}\n")


def overlay(namespace: str, suppressed: bool) -> str:
    return f"resources: [../../base]\nnamespace: {namespace}\n" + (SUPPRESS if suppressed else "")


BASE = {".hooklint.yaml": "select: [HL105]\n", "base/kustomization.yaml": "resources: [job.yaml]\n", "base/job.yaml": JOB,
        "ov/dev/kustomization.yaml": overlay("dev", True), "apps/dev.yaml": application("dev", "dev")}  # fmt: skip
PROD = {"ov/prod/kustomization.yaml": overlay("prod", False), "apps/prod.yaml": application("prod", "prod")}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty git repository, the current folder."""
    return git_checkout(tmp_path, monkeypatch)


def _finding(namespace: str | None, suppression: Suppression | None = None) -> Finding:
    return Finding("HL105", "hook-privileged-pod", "error", HOSTPID, "base/job.yaml", Span(16, 16, 16, 29),
                   obj=ObjectRef("batch/v1", "Job", "mig", None, namespace), suppression=suppression)  # fmt: skip


def test_the_same_finding_is_said_once_per_object_and_suppression():
    accepted = Suppression("annotation", "node debugger, dev cluster only", 7, ("HL105",))
    dev, prod, again = _finding("dev", accepted), _finding("prod"), _finding("prod")
    assert _unique([dev, prod, again]) == [dev, prod]  # prod rendered twice (an overlay and its base): one
    assert _unique([_finding("dev"), _finding("dev", accepted)]) == [_finding("dev"), _finding("dev", accepted)]


@needs_kustomize
def test_a_hook_suppressed_in_one_overlay_is_still_reported_in_the_other(repo):
    commit(repo, "base", {**BASE, **PROD})
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"], f["object"]["namespace"], f.get("suppression"))
            for f in doc["findings"]] == [
        ("HL105", "base/job.yaml", 16, 16, "prod", None),
        ("HL105", "base/job.yaml", 16, 16, "dev", {"kind": "annotation", "reason": "node debugger, dev cluster only"})]
    assert doc["summary"]["suppressed"] == 1


@needs_kustomize
def test_a_change_adding_an_overlay_for_a_hook_suppressed_elsewhere_is_new(repo):
    commit(repo, "base", BASE)
    commit(repo, "head", PROD)
    result = runner.invoke(app, ["diff", "base", "--head", "head", "--format", "json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["object"]["namespace"], f["message"]) for f in doc["new"]] == [
        ("HL105", "base/job.yaml", 16, "prod", HOSTPID)]
    assert doc["suppressed"] == []


@needs_kustomize
def test_the_base_annotation_rendered_into_a_new_namespace_covers_nothing_there(repo):
    """The suppression written on the base's Job itself (both overlays carry it): accepted for the
    dev copy the base had, not for the prod copy the change adds."""
    annotated = JOB.replace("    argocd.argoproj.io/hook: PreSync\n", "    argocd.argoproj.io/hook: PreSync\n"
                            "    hooklint.io/ignore: \"HL105: node debugger, dev cluster only\"\n")  # fmt: skip
    commit(repo, "base", {**BASE, "base/job.yaml": annotated, "ov/dev/kustomization.yaml": overlay("dev", False)})
    commit(repo, "head", PROD)
    result = runner.invoke(app, ["diff", "base", "--head", "head", "--format", "json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [(f["path"], f["line"], f["object"]["namespace"], f.get("not_covered")) for f in doc["new"]] == [
        ("base/job.yaml", 17, "prod", "Not covered by the hooklint.io/ignore annotation at base/job.yaml:7: the base had "
         "no such finding under it; the annotation was written for: HL105 Job/mig sets hostPID: true.")]
