"""hooklint.sources.placement: a finding in a rendered object placed back in the user's files, by
its field path, whatever the keys on that path hold."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import parse_text
from hooklint.sources.kustomize import find_kustomize
from hooklint.sources.placement import resolve

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
runner = CliRunner()

CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    "argocd.argoproj.io/x\\ny": v\n    a: "1"\n'


def test_resolve_follows_a_key_that_holds_a_newline():
    # Before, a key with a newline matched no segment: 'NoneType' object has no attribute 'group'.
    body = parse_text("cm.yaml", CM).documents[0].value
    metadata, labels = body["metadata"], body["metadata"]["labels"]
    assert resolve(body, "metadata.labels.argocd.argoproj.io/x\ny") == [
        (body, "metadata"), (metadata, "labels"), (labels, "argocd.argoproj.io/x\ny")]
    assert resolve(body, "metadata.labels.a\n") == []  # not the key "a": before, "$" matched before the newline
    assert resolve(body, "metadata.labels.a") == [(body, "metadata"), (metadata, "labels"), (labels, "a")]


@needs_kustomize
def test_a_rendered_label_key_with_a_newline_is_reported_where_it_is_written(tmp_path, monkeypatch):
    # Before, the kustomize application was HL007 "hooklint failed on this application (internal error:
    # AttributeError: 'NoneType' object has no attribute 'group')".
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "cm.yaml").write_text(CM)
    (tmp_path / "k" / "kustomization.yaml").write_text("resources: [cm.yaml]\nnamePrefix: x-\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "-f", "json", "k"])
    assert result.exit_code == 1, result.output  # a warning fails the run by default
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in findings] == [("HL021", "k/cm.yaml", 6, 5)]
