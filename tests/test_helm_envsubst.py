"""Argo CD substitutes its build environment into Helm parameters (attacker trial 9, F12).

Argo CD v3.5.1 ``reposerver/repository/repository.go`` ``helmTemplate`` runs ``env.Envsubst`` (``newEnv``:
``ARGOCD_APP_NAME``, ``ARGOCD_APP_NAMESPACE``, ``ARGOCD_APP_PROJECT_NAME``, the revision, the source's
repository URL, path and target revision; not ``KUBE_VERSION``, which only plugins get) over every
``--set`` / ``--set-string`` value and over each ``fileParameters`` path. hooklint passed ``$ARGOCD_APP_NAME`` as written: a chart branch on
``.Values.mode == "shop"`` holding a privileged PreSync Pod was never rendered (lint exit 0). A revision
variable, unknowable offline, leaves the chart not rendered (HL009: fail closed)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.appmap.applications import substitute_parameters
from hooklint.sources.render.helm import find_helm

runner = CliRunner()
ENV = {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "prod"}


def test_parameter_values_and_file_parameter_paths_are_substituted():
    helm = {"parameters": [{"name": "a", "value": "$ARGOCD_APP_NAME-${ARGOCD_APP_NAMESPACE}"},
                           {"name": "b", "value": "$$x", "forceString": True}, {"name": "c"}],
            "fileParameters": [{"name": "f", "path": "files/$ARGOCD_APP_NAME.txt"},
                               {"name": "g", "path": "$values/$ARGOCD_APP_NAME.txt"}],
            "valueFiles": ["$ARGOCD_APP_NAME.yaml"]}  # fmt: skip
    assert substitute_parameters(helm, ENV, {"$values"}) == {
        "parameters": [{"name": "a", "value": "shop-prod"}, {"name": "b", "value": "$x", "forceString": True},
                       {"name": "c"}],
        "fileParameters": [{"name": "f", "path": "files/shop.txt"}, {"name": "g", "path": "$values/$ARGOCD_APP_NAME.txt"}],
        "valueFiles": ["$ARGOCD_APP_NAME.yaml"],  # resolved by _resolve_refs, not here
    }  # fmt: skip


CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    "chart/templates/job.yaml": """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
{{- if eq .Values.mode "shop" }}
---
apiVersion: v1
kind: Pod
metadata:
  name: pwn
  annotations: {argocd.argoproj.io/hook: PreSync}
spec:
  hostPID: true
  containers:
  - {name: x, image: "registry.example.com/x@sha256:0000000000000000000000000000000000000000000000000000000000000000"}
{{- end }}
""",
    ".hooklint.yaml": "repo-urls: [https://example.com/x.git]\n",
    "apps/app.yaml": """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: shop}
  source:
    repoURL: https://example.com/x.git
    path: chart
    helm: {parameters: [{name: mode, value: "VALUE"}]}
""",
}


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
@pytest.mark.parametrize(("value", "expected"), [
    ("$ARGOCD_APP_NAME", "chart/templates/job.yaml:13:3: error HL105 hook-privileged-pod: Pod/pwn sets hostPID: true: a "
                         "PreSync hook runs on every sync and then controls the node, not just its pod. Remove it, or "
                         "do this work outside the cluster's workloads."),
    ("${ARGOCD_APP_REVISION}", "chart/Chart.yaml:1:1: warning HL009 source-not-rendered: spec.source.helm.parameters: "
                               "the value of mode names the commit Argo CD syncs, which hooklint does not know offline. "
                               "Argo CD substitutes the revision it syncs into the value. hooklint did not render "
                               "chart/, so none of its objects were checked, hooks included."),
])  # fmt: skip
def test_a_chart_branch_on_a_build_variable_is_rendered(tmp_path, monkeypatch, value, expected):
    """/work/attack9/fx/y_helmenv: "0 errors, 0 warnings, 0 notes in 2 files", exit 0."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {**CHART, "apps/app.yaml": CHART["apps/app.yaml"].replace("VALUE", value)})
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1, result.output
    assert expected in result.output.splitlines(), result.output
