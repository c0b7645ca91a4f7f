"""A chart that branches on ``.Capabilities`` (attack round 8, F1): HL025 says what hooklint stood
in for the cluster with, and an Application of the in-cluster destination renders with Argo CD's
own ``argoproj.io/v1alpha1`` kinds, which that cluster always serves."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

runner = CliRunner()
pytestmark = pytest.mark.skipif(find_helm() is None, reason="needs a Helm renderer")

#: /work/attack8/h2/chart/templates/hook.yaml
HOOK = """\
{{- if or (.Capabilities.APIVersions.Has "argoproj.io/v1alpha1/Application") (semverCompare "<1.36.0-0" .Capabilities.KubeVersion.Version) }}
apiVersion: batch/v1
kind: Job
metadata:
  name: pwn
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      serviceAccountName: ops
      automountServiceAccountToken: false
      hostPID: true
      hostNetwork: true
      containers:
      - name: x
        image: ghcr.io/acme/tool:1.0
        securityContext:
          privileged: true
      restartPolicy: Never
{{- end }}
"""
APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: shop
  source: {repoURL: https://git.example.com/acme/deploy.git, path: chart}
  destination: {server: %s, namespace: shop}
"""
NOTE = (
    "chart/templates/hook.yaml:1:13: note HL025 chart-reads-cluster-capabilities: chart/templates/hook.yaml reads "
    ".Capabilities.APIVersions: what this chart renders depends on the cluster Argo CD syncs it to, whose Kubernetes "
    "version and API resources Argo CD passes to Helm (--kube-version, --api-versions). hooklint has no cluster: it "
    "rendered for %s, serving the built-in kinds of that version%s, so objects a cluster of another Kubernetes version "
    "would render were not checked. Set kube-version and api-versions in .hooklint.yaml to your destination cluster's (an "
    "Application's helm.kubeVersion and helm.apiVersions win, as in Argo CD), and lint once per cluster version you "
    "deploy to."
)


def _chart(tmp_path, monkeypatch, server: str, config: str = "") -> list[str]:
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (tmp_path / "chart" / "templates" / "hook.yaml").write_text(HOOK)
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {a: b}\n")
    (tmp_path / "app.yaml").write_text(APP % server)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://git.example.com/acme/deploy.git\n')
    if config:
        (tmp_path / ".hooklint.yaml").write_text(config)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return [line for line in result.output.splitlines() if "HL025" in line or "HL105" in line]


def test_in_cluster_application_renders_argocd_kinds_and_notes_the_guess(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings, 0 notes in 2 files``, exit 0: neither branch was taken and
    nothing said the cluster was guessed."""
    lines = _chart(tmp_path, monkeypatch, "https://kubernetes.default.svc")
    assert [line.split(": ")[0] for line in lines if "HL105" in line] == [
        "chart/templates/hook.yaml:16:7", "chart/templates/hook.yaml:17:7", "chart/templates/hook.yaml:22:11"]
    assert [line for line in lines if "HL025" in line] == [NOTE % (
        "Helm's default Kubernetes version (kube-version is not set)",
        " and Argo CD's own argoproj.io/v1alpha1 kinds (the in-cluster destination serves them)")]


def test_remote_destination_gets_no_argocd_kinds_but_is_rendered_again_with_them(tmp_path, monkeypatch):
    """A remote cluster serves Argo CD's kinds when Argo CD runs there too: the second rendering,
    with every API version the chart names (issue 32), renders the hook, which is checked."""
    lines = _chart(tmp_path, monkeypatch, "https://prod.example.com", 'kube-version: "1.37"\n')
    assert [line.split(": ")[0] for line in lines if "HL105" in line] == [
        "chart/templates/hook.yaml:16:7", "chart/templates/hook.yaml:17:7", "chart/templates/hook.yaml:22:11"]
    assert [line for line in lines if "HL025" in line] == [NOTE % (
        "Kubernetes 1.37 (kube-version)", ", and again with every API version the chart names served "
        "(argoproj.io/v1alpha1/Application), which also renders Job/pwn, checked too")]


def test_capability_reads_positions_and_fields(tmp_path):
    """The first read of a cluster field, at ``Capabilities`` or the field; text outside actions
    does not count; a variable holding ``.Capabilities`` does."""
    from hooklint.sources.render.helm import capability_reads

    text = tmp_path / "a.yaml"
    text.write_text("# .Capabilities.KubeVersion in a comment\nv: 1\n")
    variable = tmp_path / "b.tpl"
    variable.write_text("x\n  {{- $c := $.Capabilities }}{{ if $c.APIVersions.Has \"x/v1\" }}y{{ end }}\n")
    assert capability_reads([str(text)]) is None
    assert capability_reads([str(text), str(variable)]) == (str(variable), 2, 39, "APIVersions")


def test_argocd_kinds_only_for_the_in_cluster_destination():
    from hooklint.sources.render.capabilities import ARGOCD_API_VERSIONS, cluster_api_versions, in_cluster

    assert in_cluster("https://kubernetes.default.svc") and in_cluster("in-cluster")
    assert not in_cluster("https://prod.example.com") and not in_cluster(None)
    assert set(ARGOCD_API_VERSIONS) <= set(cluster_api_versions("1.30", argocd=True))
    assert not any(v.startswith("argoproj.io") for v in cluster_api_versions("1.30"))
