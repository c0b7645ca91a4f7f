"""The reasons an application is not fully rendered are redacted as its findings are, with the
secrets of every source of the Application (attacker trial 19 B3: one source of a multi-source
Application held a Secret, another a chart whose template ``fail``s printing the same value; the
HL007 finding and ``plan`` said ``[the value of `key`]``, but the "not fully rendered" reasons of
``lint -f markdown`` and of every ``diff`` report printed the value as written)."""

from __future__ import annotations

import json
import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm

pytestmark = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

VALUE = "Vn8Tq3Lw6Zp1Rk5Y"

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: billing, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: billing}
  sources:
  - repoURL: https://git.example.com/acme/deploy.git
    path: deploy/creds
    targetRevision: HEAD
  - repoURL: https://git.example.com/acme/deploy.git
    path: deploy/chart
    targetRevision: HEAD
"""
SECRET = f"apiVersion: v1\nkind: Secret\nmetadata: {{name: api}}\nstringData:\n  upstream: {VALUE}\n"
CHART = {
    "deploy/chart/Chart.yaml": "apiVersion: v2\nname: billing\nversion: 1.0.0\n",
    "deploy/chart/values.yaml": f"api:\n  value: {VALUE}\n",
    "deploy/chart/templates/check.yaml": '{{ fail (printf "api.value %s is refused" .Values.api.value) }}\n',
}
REASON = "deploy/chart/templates/check.yaml:1:3: execution error at (billing/templates/check.yaml:1:3): api.value " \
         "[the value of `upstream`] is refused"  # fmt: skip


def _repo(tmp_path, monkeypatch, with_chart: bool = True):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"apps/billing.yaml": APPLICATION, "deploy/creds/secret.yaml": SECRET,
                     **(CHART if with_chart else {})})  # fmt: skip
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://git.example.com/acme/deploy.git")
    git(tmp_path, "config", "user.email", "ci@example.com")
    git(tmp_path, "config", "user.name", "ci")
    return tmp_path


def test_lint_reports_of_a_multi_source_application_never_print_the_secret(tmp_path, monkeypatch):
    _repo(tmp_path, monkeypatch)
    for form in ("text", "concise", "json", "sarif", "github", "gitlab", "markdown"):
        result = CliRunner().invoke(app, ["lint", "-f", form, "--show-skipped", "."])
        assert result.exit_code == 1, (form, result.output)
        assert VALUE not in result.output, form
    markdown = CliRunner().invoke(app, ["lint", "-f", "markdown", "."]).output
    row = next(line for line in markdown.splitlines() if line.startswith("| `apps/billing.yaml (billing)` |"))
    assert row == ("| `apps/billing.yaml (billing)` | partial | deploy/chart/templates/check.yaml:&#8203;1:&#8203;3: "
                   "execution error at (billing/templates/check.yaml:&#8203;1:3): api.value \\[the value of "
                   "\\`upstream\\`\\] is refused |")  # fmt: skip


def test_plan_reports_of_a_multi_source_application_never_print_the_secret(tmp_path, monkeypatch):
    _repo(tmp_path, monkeypatch)
    text = CliRunner().invoke(app, ["plan", "."]).output
    assert VALUE not in text and f"    {REASON}" in text.splitlines()
    shape = CliRunner().invoke(app, ["plan", "-f", "json", "."]).output
    assert VALUE not in shape
    plans = json.loads(shape)
    plans = plans if isinstance(plans, list) else plans["applications"]
    assert [p["rendered_reasons"] for p in plans if p["application"] == "apps/billing.yaml (billing)"] == [[REASON]]


def test_diff_reports_of_a_change_adding_the_chart_never_print_the_secret(tmp_path, monkeypatch):
    repo = _repo(tmp_path, monkeypatch, with_chart=False)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    write(repo, CHART)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "chart")
    outputs = {form: CliRunner().invoke(app, ["diff", "HEAD~1", "-f", form]) for form in ("text", "json", "markdown")}
    for form, result in outputs.items():
        assert result.exit_code == 1, (form, result.output)
        assert VALUE not in result.output, form
    assert f"  apps/billing.yaml (billing): rendered partial: {REASON}" in outputs["text"].output.splitlines()
    report = json.loads(outputs["json"].output)
    assert report["not_fully_rendered"] == [{"application": "apps/billing.yaml (billing)", "rendered": "partial",
                                             "reasons": [REASON]}]  # fmt: skip
    assert "api.value \\[the value of \\`upstream\\`\\] is refused" in outputs["markdown"].output
