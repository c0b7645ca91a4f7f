"""A run that names the repository, or a folder of it, by its absolute path lints what a run that
names it relatively lints (attacker-trial-14 helper: ``hooklint lint /abs/app`` compared the run's
folders with an Application's folder as strings, so the Application was left out, and with it the
hidden hooks its ``directory.recurse`` applies: a silent pass)."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: {name}, namespace: argocd}}
spec:
  project: team
  destination: {{server: https://kubernetes.default.svc, namespace: {name}}}
  source: {{repoURL: "https://github.com/acme/deploy.git", path: {path}{extra}}}
"""
HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  annotations: {{argocd.argoproj.io/hook: PreSync}}
spec:
  template:
    spec:
      hostPID: true
      containers: [{{name: c, image: busybox}}]
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/deploy.git")
    files = {
        "apps/dir.yaml": APPLICATION.format(name="dir", path="dir", extra=", directory: {recurse: true}"),
        "dir/cm.yaml": CM, "dir/.hooks/job.yaml": HOOK.format(name="hidden"),
        "apps/kust.yaml": APPLICATION.format(name="kust", path="kust", extra=""),
        "kust/kustomization.yaml": "resources: [job.yaml]\n", "kust/job.yaml": HOOK.format(name="kustomized"),
        "plain/job.yaml": HOOK.format(name="plain"),
    }  # fmt: skip
    for name, text in files.items():
        os.makedirs(tmp_path / os.path.dirname(name), exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def findings(*paths: str) -> tuple[int, list[tuple[str, int, str, str]], int]:
    result = CliRunner().invoke(app, ["lint", "-f", "json", *paths])
    doc = json.loads(result.stdout)
    top = os.getcwd() + os.sep
    return (result.exit_code, sorted((f["path"].removeprefix(top), f["line"], f["rule_id"], f["message"])
                                     for f in doc["findings"]), doc["summary"]["files"])  # fmt: skip


@pytest.mark.parametrize("named", [".", "dir", "kust", "plain"])
def test_an_absolute_path_lints_what_the_relative_one_lints(repo, named):
    relative = findings(named)
    assert findings(os.path.abspath(named)) == relative
    hooks = {message.split(" sets ")[0] for _, _, rule, message in relative[1] if rule == "HL105"}
    assert hooks == {".": {"Job/hidden", "Job/kustomized", "Job/plain"}, "dir": {"Job/hidden"},
                     "kust": {"Job/kustomized"}, "plain": {"Job/plain"}}[named]  # fmt: skip
