"""Run-level text quotes URLs as written: the notes under a report, a review's notes and the
one-line input errors. A URL's credentials are redacted there as in findings (found by a helper
reading output: the note about Applications that name other repositories printed an Application's
``https://user:password@...`` repoURL whole, while the finding beside it redacted it)."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import git
from hooklint.cli import app
from hooklint.findings import InputError

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: a, namespace: argocd}
spec:
  project: team
  destination: {server: https://kubernetes.default.svc, namespace: a}
  source: {repoURL: "https://user:pw-in-app-123@example.com/x.git", path: app}
"""


def test_the_note_on_applications_of_other_repositories_redacts_their_credentials(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://gitlab-ci-token:glcbt-token-4567@gitlab.com/acme/deploy.git")
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps/a.yaml").write_text(APPLICATION)
    for form in ("text", "json", "sarif", "github", "markdown", "gitlab"):
        result = CliRunner().invoke(app, ["lint", "-f", form, "."])
        assert "pw-in-app-123" not in result.output and "glcbt-token-4567" not in result.output, form
    result = CliRunner().invoke(app, ["lint", "."])
    assert ("note: Applications were found, but none deploys from this repository: they name "
            "https://user:[redacted]@example.com/x.git, and this repository is gitlab.com/acme/deploy; each folder is "
            "linted as its own application. If one of those URLs is this repository (a mirror, another spelling), "
            "list it under repo-urls in .hooklint.yaml.") in result.output.splitlines()  # fmt: skip


def test_an_input_error_redacts_the_credentials_of_a_url_it_quotes():
    error = InputError("apps/a.yaml", "cannot fetch https://ci:s3cr3t-token@charts.example.com/index.yaml: 403")
    assert error.message == "cannot fetch https://ci:[redacted]@charts.example.com/index.yaml: 403"
