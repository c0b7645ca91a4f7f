"""The API versions Helm sees (attacker trial 7, F7): Argo CD passes the destination cluster's API
resources to ``helm template --api-versions`` as ``group/version`` and ``group/version/Kind``
(``util/argo/argo.go`` ``APIResourcesToStrings(..., true)``, v3.5.1 line 722; ``controller/state.go``
lines 164 and 285), unless the Application sets ``helm.apiVersions`` (``GetAPIVersionsOrDefault``).
hooklint stands in with the built-in kinds of ``kube-version``, the repository's CRDs and the
``api-versions`` setting (:mod:`hooklint.sources.render.capabilities`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hooklint.catalog import load_catalog
from hooklint.config import Config
from hooklint.pipeline import lint_paths
from hooklint.sources.render.capabilities import built_in_api_versions, cluster_api_versions
from hooklint.sources.render.helm import find_helm
from hooklint.sources.repository import facts
from hooklint.sources.repository.crds import crd_api_versions

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")


@pytest.mark.parametrize(("kube", "present", "absent"), [
    (None, ["batch/v1", "batch/v1/Job", "batch/v1/CronJob", "v1/Pod", "v1", "autoscaling/v2/HorizontalPodAutoscaler",
            "rbac.authorization.k8s.io/v1/ClusterRoleBinding", "resource.k8s.io/v1/ResourceClaim"],
     ["autoscaling/v1/HorizontalPodAutoscaler", "batch/v1beta1/CronJob", "policy/v1beta1/PodSecurityPolicy",
      # Argo CD's exclusions: coreExcludedResources and the default argocd-cm resource.exclusions
      "v1/Event", "events.k8s.io/v1/Event", "coordination.k8s.io/v1/Lease", "v1/Endpoints",
      "discovery.k8s.io/v1/EndpointSlice", "authorization.k8s.io/v1/SubjectAccessReview"]),
    ("1.30", ["admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy", "flowcontrol.apiserver.k8s.io/v1/FlowSchema"],
     ["resource.k8s.io/v1/ResourceClaim", "storage.k8s.io/v1/VolumeAttributesClass", "networking.k8s.io/v1/IPAddress"]),
    ("v1.22.3", ["autoscaling/v1/HorizontalPodAutoscaler", "policy/v1beta1/PodSecurityPolicy", "batch/v1/CronJob",
                 "flowcontrol.apiserver.k8s.io/v1beta1/FlowSchema"],
     ["autoscaling/v2/HorizontalPodAutoscaler", "batch/v1beta1/CronJob"]),
])  # fmt: skip
def test_built_in_kinds_by_kubernetes_version(kube, present, absent):
    served = built_in_api_versions(kube)
    assert [p for p in present if p not in served] == []
    assert [a for a in absent if a in served] == []
    assert served == sorted(set(served))


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1alpha1, served: true, storage: false}
  - {name: v1beta1, served: true, storage: true}
  - {name: v1, served: false, storage: false}
"""


def test_a_crd_is_served_at_its_preferred_version(tmp_path):
    """Discovery's ServerPreferredResources (gitops-engine ``GetAPIResources(config, true, ...)``):
    the kind at the best served version only, GA > beta > alpha, newest first; ``served: false`` is not."""
    (tmp_path / "crd.yaml").write_text(CRD)
    facts.reset()
    assert sorted(crd_api_versions([str(tmp_path / "crd.yaml")])) == ["example.com/v1beta1", "example.com/v1beta1/Widget"]


def test_the_settings_and_crds_join_the_built_in_kinds():
    apis = cluster_api_versions("1.30", ["monitoring.coreos.com/v1"], ["example.com/v1beta1/Widget"])
    assert {"batch/v1/Job", "monitoring.coreos.com/v1", "example.com/v1beta1/Widget"} <= set(apis)
    assert list(apis) == sorted(set(apis))


PROBE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: caps
data:
  job: {{ .Capabilities.APIVersions.Has "batch/v1/Job" | quote }}
  batch: {{ .Capabilities.APIVersions.Has "batch/v1" | quote }}
  widget: {{ .Capabilities.APIVersions.Has "example.com/v1beta1/Widget" | quote }}
  configured: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}
  hpa1: {{ .Capabilities.APIVersions.Has "autoscaling/v1/HorizontalPodAutoscaler" | quote }}
"""
JOB = """\
{{- if .Capabilities.APIVersions.Has "batch/v1/Job" }}
apiVersion: batch/v1
kind: Job
metadata:
  name: evil
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      hostPID: true
      containers:
      - name: c
        image: registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000
{{- end }}
"""
APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: shop
spec:
  project: default
  destination: {namespace: shop, server: https://kubernetes.default.svc}
  source:
    repoURL: https://github.com/acme/shop.git
    path: chart
    helm:
      apiVersions: [example.com/v1beta1/Widget]
"""


def _chart(root: Path) -> None:
    (root / ".git").mkdir()
    (root / "chart" / "templates").mkdir(parents=True)
    (root / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (root / "chart" / "templates" / "caps.yaml").write_text(PROBE)
    (root / "chart" / "templates" / "job.yaml").write_text(JOB)
    (root / "crds").mkdir()
    (root / "crds" / "widget.yaml").write_text(CRD)


@needs_helm
def test_a_hook_behind_capabilities_has_a_kind_is_linted(tmp_path, monkeypatch):
    """Trial 7 F7 (/work/attack7/f/caps): ``{{ if .Capabilities.APIVersions.Has "batch/v1/Job" }}``
    hid a privileged PreSync hook: true in every Argo CD sync, false under Helm's defaults."""
    monkeypatch.chdir(tmp_path)
    _chart(tmp_path)
    config = Config(kube_version="1.30", api_versions=["monitoring.coreos.com/v1"])
    result = lint_paths(["chart"], config, load_catalog(), plans=True)
    assert [(f.path, f.span.line, f.span.column, f.rule_id) for f in result.findings if f.severity == "error"] == [
        ("chart/templates/job.yaml", 12, 7, "HL105")]
    from hooklint.sources.render import render

    facts.reset()
    _, rendered, _, _ = render("helm", "chart", "chart/Chart.yaml", config, crd_apis=("example.com/v1beta1",
                                                                                      "example.com/v1beta1/Widget"))  # fmt: skip
    [caps] = [r.loaded.documents[0].value for r in rendered if r.loaded.documents[0].value.get("kind") == "ConfigMap"]
    assert dict(caps.get("data").items()) == {"job": "true", "batch": "true", "widget": "true", "configured": "true",
                                              "hpa1": "false"}  # fmt: skip


@needs_helm
def test_the_repository_crds_reach_helm_and_an_application_api_versions_replace_the_cluster(tmp_path, monkeypatch):
    """``GetAPIVersionsOrDefault``: an Application's ``helm.apiVersions`` replaces the cluster's list,
    so only Helm's defaults (group/version) and that list are left: no Job then."""
    monkeypatch.chdir(tmp_path)
    _chart(tmp_path)
    (tmp_path / ".hooklint.yaml").write_text("repo-urls: [https://github.com/acme/shop]\n")
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "shop.yaml").write_text(APPLICATION)
    config = Config(repo_urls=["https://github.com/acme/shop"])
    result = lint_paths(["chart"], config, load_catalog(), plans=True)
    assert [f.rule_id for f in result.findings if f.severity == "error"] == []
    (tmp_path / "apps" / "shop.yaml").write_text(APPLICATION.replace("    helm:\n      apiVersions: [example.com/v1beta1/Widget]\n", ""))
    result = lint_paths(["chart"], config, load_catalog(), plans=True)
    assert [(f.path, f.span.line, f.rule_id) for f in result.findings if f.severity == "error"] == [
        ("chart/templates/job.yaml", 12, "HL105")]
    # no Application, the Job behind a kind of the repository's CRD (crds/, outside the folder linted;
    # the repository's files are read when its URL is known)
    (tmp_path / "apps" / "shop.yaml").unlink()
    job = tmp_path / "chart" / "templates" / "job.yaml"
    job.write_text(JOB.replace('"batch/v1/Job"', '"example.com/v1beta1/Widget"'))
    result = lint_paths(["chart"], config, load_catalog(), plans=True)
    assert [(f.path, f.span.line, f.rule_id) for f in result.findings if f.severity == "error"] == [
        ("chart/templates/job.yaml", 12, "HL105")]
