"""hooklint.sources.render.placement: a finding in a rendered object placed back in the user's files, by
its field path, whatever the keys on that path hold."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import parse_text
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.render.placement import resolve

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


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: {image}
"""


@needs_kustomize
@pytest.mark.parametrize("order", ["shorter-first", "longer-first"])
def test_an_image_set_by_kustomize_is_placed_on_the_entry_naming_it_exactly(tmp_path, monkeypatch, order):
    """New-user trial: ``ghcr.io/acme/payments`` (a prefix of the other entry's name) took the
    HL102 of ``ghcr.io/acme/payments-migrate:latest`` when it came first."""
    entries = ["  - name: ghcr.io/acme/payments\n    newTag: '1.4.2'\n",
               "  - name: ghcr.io/acme/payments-migrate\n    newTag: latest\n"]  # fmt: skip
    if order == "longer-first":
        entries.reverse()
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "job.yaml").write_text(JOB.format(name="migrate", image="ghcr.io/acme/payments-migrate:1.0")
                                             + "---\n" + JOB.format(name="app", image="ghcr.io/acme/payments:1.0"))
    (tmp_path / "k" / "kustomization.yaml").write_text("resources: [job.yaml]\nimages:\n" + "".join(entries))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "-f", "json", "--select", "HL102", "k"])
    findings = json.loads(result.stdout)["findings"]
    line = 3 if order == "longer-first" else 5  # the payments-migrate entry
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in findings] == [("HL102", "k/kustomization.yaml", line, 5)]
