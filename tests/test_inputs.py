"""Inputs a new user's trial run showed mishandled: each case pins the fix."""

import json
import os

import pytest

from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.loader import parse_text
from hooklint.sources.helm import find_helm

runner = CliRunner()


def test_broken_json_is_a_syntax_error_not_an_unrelated_file(tmp_path, monkeypatch):
    """Argo CD decodes .json files with json.Unmarshal and fails on any error: no "unrelated file"
    pass as for YAML."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.json").write_text('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}, "spec": {')
    result = runner.invoke(app, ["lint", "job.json"])
    assert result.exit_code == 1
    assert result.output.startswith("job.json:1:78: error HL001 yaml-syntax-error: ")


def test_a_helm_chart_folder_is_rendered_and_reported_at_template_lines(tmp_path, monkeypatch):
    if find_helm() is None:
        pytest.skip("no Helm: neither a helm binary nor helm-python-sdk")
    monkeypatch.chdir(tmp_path)
    chart = tmp_path / "deploy" / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    # a template is not YAML until rendered: linted as written, this would be a syntax error
    (chart / "templates" / "cm.yaml").write_text("{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n")
    (chart / "templates" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\nspec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n"
        "  template:\n    spec:\n      serviceAccountName: migrate\n      automountServiceAccountToken: false\n"
        "      restartPolicy: Never\n      containers:\n        - name: m\n"
        '          image: "busybox:{{ .Values.tag | default "latest" }}"\n'
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
    )
    for named in (["deploy"], ["deploy/chart/templates/cm.yaml"]):
        result = runner.invoke(app, ["lint", *named])
        assert result.exit_code == 1, named
        assert result.output.splitlines()[:3] == [
            "deploy/chart/templates/job.yaml:17:11: warning HL102 hook-image-mutable-tag: Image 'busybox:latest' of "
            "container 'm' of Job/chart-migrate uses the mutable tag ':latest': each sync may run different code "
            "than was reviewed. Pin a version tag or, better, an @sha256 digest.",
            "",
            "0 errors, 1 warning, 0 notes in 1 file",
        ], named


def test_unclosed_bracket_at_the_end_points_inside_the_file():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [\n"
    [(issue, index)] = parse_text("x.yaml", text).issues
    assert (issue.kind, index, issue.span.line, issue.span.column) == ("syntax-error", 1, 5, 7)


def test_file_names_that_are_not_utf8_keep_reports_valid(tmp_path):
    os.chdir(tmp_path)
    name = os.fsdecode(b"bad\xffname.yaml")
    with open(name, "w") as handle:
        handle.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: 5\n")
    result = runner.invoke(app, ["lint", "--format", "json", "."])
    doc = json.loads(result.output)
    assert [f["path"] for f in doc["findings"]] == ["bad\ufffdname.yaml"]
    sarif = runner.invoke(app, ["lint", "--format", "sarif", "."])
    [run] = json.loads(sarif.output)["runs"]
    [location] = run["results"][0]["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "bad%EF%BF%BDname.yaml"


def test_a_named_file_argo_cd_never_renders_is_said_not_linted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values.yaml").write_text("image:\n  tag: 1.0.0\n")
    result = runner.invoke(app, ["lint", "values.yaml"])
    assert result.exit_code == 0
    assert result.output.splitlines()[:2] == [
        "0 errors, 0 warnings, 0 notes in 0 files",
        "note: 1 file not linted: Argo CD does not render it (+argocd:skip-file-rendering, YAML with no "
        "Kubernetes object, a kustomization's patch or generator input, or left out by an Application's "
        "directory.include/exclude).",
    ]
