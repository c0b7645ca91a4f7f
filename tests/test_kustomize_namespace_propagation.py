"""kustomize v5.8.0's namespace propagation into bases (attack 17 F1).

Argo CD 3.3.0 runs kustomize 5.8.0 (``hack/tool-versions.sh`` ``kustomize5_version=5.8.0``), whose
``accumulateDirectory`` (``api/internal/target/kusttarget.go``, commit 75839a81b) gives a base
without a namespace its overlay's ``namespace`` before the base's own transformers run; v5.8.1
reverted it (commit 4e75138d2). A base's selector naming a namespace then matches objects under
Argo CD 3.3.0 that it matches under no other kustomize: HL009 at the selector, never a rendering
by the kustomize here."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render import kustomize as kz
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.render.rendered import Renderer

runner = CliRunner()
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: migrate
      containers:
      - name: main
        image: registry.example.com/tool@sha256:1111111111111111111111111111111111111111111111111111111111111111
        stdin: true
"""
REPLACEMENT = """\
resources:
- job.yaml
replacements:
- source: {kind: Job, name: migrate, fieldPath: spec.template.spec.containers.0.stdin}
  targets:
  - select: {kind: Job, namespace: prod}
    fieldPaths: [spec.template.spec.hostPID]
    options: {create: true}
"""
JSON6902 = """\
resources:
- job.yaml
patchesJson6902:
- target: {group: batch, version: v1, kind: Job, name: migrate, namespace: prod}
  patch: |-
    - op: add
      path: /spec/template/spec/hostPID
      value: true
"""


def lint(tmp_path, monkeypatch, base: str, version: str = "3.3.0", middle: bool = False):
    files = {".hooklint.yaml": f"argocd-version: \"{version}\"\n", "base/job.yaml": JOB,
             "base/kustomization.yaml": base,
             "overlay/kustomization.yaml": "namespace: prod\nresources:\n- " + ("../mid" if middle else "../base") + "\n"}
    if middle:
        files["mid/kustomization.yaml"] = "resources:\n- ../base\n"
    write(tmp_path, files)
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return runner.invoke(app, ["lint", "overlay", "--no-cache"])


def hl009(entry: str, position: str, what: str) -> str:
    found = find_kustomize()
    assert found is not None
    return (f"{entry}: warning HL009 source-not-rendered: {position}: {what} is read differently: this base has no "
            "namespace of its own and overlay/kustomization.yaml sets namespace 'prod', which kustomize v5.8.0 "
            "propagates into its bases before their replacements and patchesJson6902 run and into what their "
            "generators make (only v5.8.0: v5.8.1 reverted it), so the selector matches other objects there than with the kustomize that renders here; drop the "
            "namespace from the selector or give the base its own namespace. Argo CD 3.3 renders it with kustomize "
            f"v5.8.0; hooklint's renderer is {found[1].label()}: put kustomize v5.8.0 on PATH to render as Argo CD "
            "does. hooklint did not render overlay/, so none of its objects were checked, hooks included.")


@pytest.mark.parametrize(("renderer", "release", "gap"), [
    ("v5.8.1", (3, 3, 0), True), ("v5.8.0", (3, 3, 0), False), ("v5.8.1", (3, 3, 1), False),
    ("unknown", (3, 3, 0), True),
])  # fmt: skip
def test_a_gap_when_only_argo_cds_kustomize_propagates(renderer, release, gap):
    found = kz.version_gap(Renderer("kustomize", renderer), release)
    assert (found is not None) == gap
    assert found is None or found.propagates_namespace()


@needs_kustomize
def test_a_replacement_selecting_the_overlays_namespace_in_a_base(tmp_path, monkeypatch):
    """The attack's k2: kubectl's kustomize leaves hostPID out, Argo CD 3.3.0's sets it. Before: exit 0."""
    result = lint(tmp_path, monkeypatch, REPLACEMENT)
    assert result.exit_code == 1, result.output
    assert hl009("overlay/kustomization.yaml:3:3", "base/kustomization.yaml:6:36",
                 "replacements[0].targets[0].select.namespace 'prod'") in result.output.splitlines(), result.output


@needs_kustomize
def test_a_json6902_target_in_a_base_two_levels_down(tmp_path, monkeypatch):
    """The attack's k3, through a middle kustomization without a namespace (propagated further)."""
    result = lint(tmp_path, monkeypatch, JSON6902, middle=True)
    assert result.exit_code == 1, result.output
    assert hl009("overlay/kustomization.yaml:1:1", "base/kustomization.yaml:4:76",
                 "patchesJson6902[0].target.namespace 'prod'") in result.output.splitlines(), result.output


@needs_kustomize
@pytest.mark.parametrize("version", ["3.3.1", "3.2.0"])
def test_no_hl009_for_argo_cd_versions_without_propagation(tmp_path, monkeypatch, version):
    result = lint(tmp_path, monkeypatch, JSON6902, version=version)
    assert " HL009 " not in result.output, result.output


@needs_kustomize
def test_a_base_with_its_own_namespace_is_not_propagated_into(tmp_path, monkeypatch):
    result = lint(tmp_path, monkeypatch, "namespace: prod\n" + JSON6902)
    assert " HL009 " not in result.output, result.output
