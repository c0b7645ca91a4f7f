"""Replacements into a string holding YAML or JSON (attack 17 F4).

kustomize v5.8.0 (api v0.21.0, commit 2dc0d0da8, ``api/filters/replacement/replacement.go``
``setValueInStructuredData``) writes a replacement whose target fieldPath continues past a string
field that holds a mapping (``spec.podSpecPatch.hostPID``) into that string; older kustomize fails
("wrong node kind"). For an Argo CD whose kustomize is v5.8.0 or later (3.3.0 on) hooklint's failure
here is not Argo CD's: HL009, never HL007 "Argo CD's repo server fails the same way"."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render.kustomize import find_kustomize

runner = CliRunner()


def _old() -> bool:
    found = find_kustomize()
    parts = found[1].version.lstrip("v").split(".")[:2] if found is not None else []
    return len(parts) == 2 and all(p.isdigit() for p in parts) and (int(parts[0]), int(parts[1])) < (5, 8)


needs_old_kustomize = pytest.mark.skipif(not _old(), reason="needs a kustomize older than v5.8.0")

WORKFLOW = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: w
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  podSpecPatch: {patch}
  entrypoint: main
  templates:
  - name: main
    container: {{image: ghcr.io/acme/a:1.0}}
"""
FILES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: src}\ndata: {v: \"true\"}\n",
    "kustomization.yaml": "resources:\n- wf.yaml\n- cm.yaml\nreplacements:\n"
                          "- source: {kind: ConfigMap, name: src, fieldPath: data.v}\n  targets:\n"
                          "  - select: {kind: Workflow}\n    fieldPaths: [spec.podSpecPatch.hostPID]\n",
}


def lint(tmp_path, monkeypatch, version: str, patch: str = '"{\\"hostPID\\": false}"'):
    write(tmp_path, {**FILES, "wf.yaml": WORKFLOW.format(patch=patch), ".hooklint.yaml": f"argocd-version: \"{version}\"\n"})
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return runner.invoke(app, ["lint", ".", "--no-cache"])


@needs_old_kustomize
def test_a_structured_data_target_is_hl009_for_argo_cd_3_3(tmp_path, monkeypatch):
    found = find_kustomize()
    assert found is not None
    result = lint(tmp_path, monkeypatch, "3.3.0")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[0] == (
        "kustomization.yaml:1:1: warning HL009 source-not-rendered: kustomization.yaml: unable to find field "
        "\"spec.podSpecPatch.hostPID\" in replacement target: wrong node kind: expected MappingNode but got "
        "ScalarNode: node contents: \"{\\\"hostPID\\\": false}\": the replacement's fieldPath continues into a string "
        "that holds YAML or JSON, which kustomize v5.8.0 and later write into (setValueInStructuredData) and older "
        "kustomize refuses, so whether it renders depends on the kustomize version. Argo CD 3.3 renders it with "
        f"kustomize v5.8.0; hooklint's renderer is {found[1].label()}: put kustomize v5.8.0 on PATH to render as "
        "Argo CD does. hooklint did not render ./, so none of its objects were checked, hooks included.")
    assert " HL007 " not in result.output


@needs_old_kustomize
def test_argo_cd_3_2_fails_the_same_way(tmp_path, monkeypatch):
    """kustomize 5.7.0 (Argo CD 3.2) refuses it too: HL007 stays."""
    result = lint(tmp_path, monkeypatch, "3.2.0")
    assert result.output.startswith("kustomization.yaml:1:1: error HL007 render-failed: "), result.output
    assert "fails the same way" in result.output and " HL009 " not in result.output


@needs_old_kustomize
def test_a_plain_string_stays_hl007(tmp_path, monkeypatch):
    """A string that holds no mapping: v5.8.0 cannot write into it either."""
    result = lint(tmp_path, monkeypatch, "3.3.0", patch='"not yaml: [: x"')
    assert " HL007 " in result.output and " HL009 " not in result.output, result.output
