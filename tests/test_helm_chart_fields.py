"""Chart.yaml and requirements.yaml read as Helm's loader decodes them (attack 21, B2 and B3).

Helm decodes ``Chart.yaml`` with ``sigs.k8s.io/yaml`` then Go's ``encoding/json`` into its
``Metadata`` struct: keys match the fields case-insensitively with Go's folding, so
``Dependencies:`` and ``dependencieſ:`` (U+017F) list dependencies too. It decodes
``requirements.yaml`` into the same struct for every apiVersion (``pkg/chart/loader/load.go``),
not only v1. A dependency hooklint missed was built by Argo CD and its hook ran unchecked."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()

SUB_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: mig
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 100
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: x
      automountServiceAccountToken: false
      containers:
      - name: c
        image: registry.k8s.io/busybox:1.0
        securityContext:
          privileged: {{ .Values.priv }}
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
HEAD = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
DEP = "- name: sub\n  version: 0.1.0\n  repository: file://../sub\n"


def chart(root, chart_yaml: str, requirements: str | None = None) -> None:
    """``root/chart`` (a ConfigMap; its values make ``sub`` privileged) and ``root/sub`` (a
    PreSync Job, not privileged by its own values)."""
    for path, text in {"chart/Chart.yaml": chart_yaml, "chart/templates/cm.yaml": CM,
                       "chart/values.yaml": "sub:\n  priv: true\n", "sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                       "sub/values.yaml": "priv: false\n", "sub/templates/job.yaml": SUB_JOB}.items():  # fmt: skip
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    if requirements is not None:
        (root / "chart/requirements.yaml").write_text(requirements)


def lint(*args: str) -> tuple[int, list[tuple[str, str, int]]]:
    result = runner.invoke(app, ["lint", "-f", "json", *args])
    doc = json.loads(result.stdout)
    return result.exit_code, [(f["rule_id"], f["path"], f["line"]) for f in doc["findings"]]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return tmp_path


@needs_helm
@pytest.mark.parametrize("key", ["Dependencies", "DEPENDENCIES", "dependencie\u017f", "dependencies"])
def test_a_dependency_under_any_key_helm_folds_to_dependencies_is_rendered(here, key):
    chart(here, HEAD + f"{key}:\n" + DEP)
    code, findings = lint("chart")
    assert code == 1
    assert ("HL105", "sub/templates/job.yaml", 20) in findings


@needs_helm
def test_dependency_fields_fold_too(here):
    """``Name``/``REPOSITORY``: the Dependency struct's fields are matched alike."""
    chart(here, HEAD + "dependencies:\n- Name: sub\n  Version: 0.1.0\n  REPOSITORY: file://../sub\n")
    code, findings = lint("chart")
    assert code == 1
    assert ("HL105", "sub/templates/job.yaml", 20) in findings


@needs_helm
def test_requirements_yaml_of_a_v2_chart_is_read(here):
    chart(here, HEAD, requirements="dependencies:\n" + DEP)
    code, findings = lint("chart")
    assert code == 1
    assert ("HL105", "sub/templates/job.yaml", 20) in findings


def refused() -> tuple[int, str, str, int, int, str]:
    result = runner.invoke(app, ["lint", "-f", "json", "chart"])
    [finding] = json.loads(result.stdout)["findings"]
    return (result.exit_code, finding["rule_id"], finding["path"], finding["line"], finding["column"],
            finding["message"].split(". ")[0])  # fmt: skip


def test_two_keys_for_one_field_are_refused(here):
    """Which of ``dependencies`` and ``Dependencies`` Helm keeps depends on decoding order:
    hooklint refuses (HL009 at the later key) rather than guess."""
    chart(here, HEAD + "dependencies: []\nDependencies:\n" + DEP)
    assert refused() == (1, "HL009", "chart/Chart.yaml", 5, 1, (
        "chart/Chart.yaml: 'Dependencies' and 'dependencies' (line 4) "
        "both name Helm's field 'dependencies' (Go's JSON decoder matches keys case-insensitively): keep one, "
        "spelled as Helm documents it"))


def test_two_keys_for_one_dependency_field_are_refused(here):
    chart(here, HEAD + "dependencies:\n" + DEP + "  Repository: https://charts.example.com\n")
    assert refused()[:5] == (1, "HL009", "chart/Chart.yaml", 8, 3)
    assert "'repository' and 'Repository'" in refused()[5] or "'Repository' and 'repository'" in refused()[5]


def test_dependencies_in_both_files_are_refused(here):
    chart(here, HEAD + "dependencies:\n" + DEP, requirements="dependencies:\n" + DEP)
    assert refused()[:5] == (1, "HL009", "chart/Chart.yaml", 1, 1)
    assert refused()[5].startswith("chart/Chart.yaml lists dependencies and "
                                   "so does requirements.yaml beside it")  # fmt: skip


def test_requirements_yaml_setting_another_field_is_refused(here):
    chart(here, HEAD, requirements="Name: other\ndependencies: []\n")
    assert refused()[:5] == (1, "HL009", "chart/Chart.yaml", 1, 1)
    assert "chart/requirements.yaml sets the chart's 'name'" in refused()[5]


@needs_helm
def test_a_diff_adding_a_chart_with_folded_dependencies_reports_the_hook(here):
    repo = here / "repo"
    (repo / "base").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")
    (repo / "base/cm.yaml").write_text(CM)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    chart(repo, HEAD + "Dependencies:\n" + DEP)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two")
    import os

    os.chdir(repo)
    result = runner.invoke(app, ["diff", "-f", "json", "HEAD~1", "--head", "HEAD"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert ("HL105", "sub/templates/job.yaml", 20) in [(f["rule_id"], f["path"], f["line"]) for f in doc["new"]]
