"""The Application's Helm options Argo CD passes to ``helm template`` that change what a sync
applies (``reposerver/repository/repository.go`` ``helmTemplate``, v3.5.1): ``fileParameters``
(``--set-file``: a value read from a file could turn an object into a hook), ``ignoreMissingValueFiles``
(Argo CD 2.3) and ``skipSchemaValidation`` (Argo CD 2.14). hooklint ignored all three: a hook made
by a file parameter went unseen, and a missing value file or a refused value was a false HL007."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import HelmOptions, find_helm

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()
REPO = "https://example.com/acme/deploy.git"
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  {{- if eq (toString .Values.hookon) "true" }}
  annotations:
    argocd.argoproj.io/hook: PreSync
  {{- end }}
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: m
        image: ghcr.io/acme/m:1.0.0
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text(f'[remote "origin"]\n\turl = {REPO}\n')
    (tmp_path / "c/templates").mkdir(parents=True)
    (tmp_path / "c/Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "c/values.yaml").write_text("hookon: false\nx: hi\n")
    (tmp_path / "c/templates/job.yaml").write_text(JOB)
    (tmp_path / "c/flag.txt").write_text("true")
    (tmp_path / "apps").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


def _application(repo, helm: str) -> None:
    (repo / "apps/a.yaml").write_text(
        f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n"
        f"  source:\n    repoURL: {REPO}\n    path: c\n    helm:\n{helm}  destination:\n    namespace: d\n")  # fmt: skip


def _chart_plan(repo) -> tuple[str, list[tuple[str, list[str]]]]:
    result = runner.invoke(app, ["plan", "-f", "json", "."])
    [chart] = [a for a in json.loads(result.output)["applications"] if a["application"] == "c"]
    return chart["rendered"], [(t["name"], t["hook_types"]) for s in chart["steps"] for t in s["tasks"]]


def test_the_options_are_read_from_the_application():
    options = HelmOptions.from_application({"fileParameters": [{"name": "a.b", "path": "f.txt"}],
                                            "ignoreMissingValueFiles": True, "skipSchemaValidation": True},
                                           "app", None)  # fmt: skip
    assert (options.file_parameters, options.ignore_missing_value_files, options.skip_schema_validation) == (
        (("a.b", "f.txt"),), True, True)
    with pytest.raises(ValueError, match=r"^spec.source.helm.fileParameters\[0\] needs a non-empty name and path$"):
        HelmOptions.from_application({"fileParameters": [{"name": "a"}]}, "app", None)


@needs_helm
def test_a_file_parameter_sets_its_value_from_the_file(repo):
    _application(repo, "      fileParameters:\n      - name: hookon\n        path: flag.txt\n")
    assert _chart_plan(repo) == ("full", [("migrate", ["PreSync"])])


@needs_helm
def test_without_the_file_parameter_the_job_is_no_hook(repo):
    _application(repo, "      releaseName: r\n")
    assert _chart_plan(repo) == ("full", [("migrate", [])])


@needs_helm
@pytest.mark.parametrize("ignore", [True, False])
def test_a_missing_value_file_is_skipped_only_with_ignore_missing_value_files(repo, ignore):
    _application(repo, f"      ignoreMissingValueFiles: {str(ignore).lower()}\n      valueFiles: [missing.yaml]\n")
    result = runner.invoke(app, ["lint", "-f", "json", "."])
    failed = [(f["rule_id"], f["path"], f["message"]) for f in json.loads(result.output)["findings"] if f["rule_id"] == "HL007"]
    assert failed == ([] if ignore else [("HL007", "c/Chart.yaml", "Rendering failed: value file c/missing.yaml not "
                                          "found. Argo CD's repo server fails the same way, so the application cannot "
                                          "sync; nothing of it is checked until it renders.")])  # fmt: skip


@needs_helm
@pytest.mark.parametrize("skip", [True, False])
def test_skip_schema_validation_renders_values_the_schema_refuses(repo, skip):
    (repo / "c/values.schema.json").write_text('{"properties": {"x": {"enum": ["nope"]}}}\n')
    _application(repo, f"      skipSchemaValidation: {str(skip).lower()}\n")
    rendered, tasks = _chart_plan(repo)
    assert (rendered, tasks) == (("full", [("migrate", [])]) if skip else ("none", []))
