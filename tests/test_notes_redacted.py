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


def test_a_remote_generator_entry_quotes_the_url_not_the_text_that_holds_it(tmp_path, monkeypatch):
    """Attacker trial 17, F3: the HL009 of a generators folder whose patch rewrites a file source to
    a URL quoted the whole patch text, and with it a Secret literal the same patch adds (and named
    the configured kind 'None'). Such a folder is now left out whole (its built configurations are
    unknown before kustomize runs); a configuration written with a URL is quoted by the URL alone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    files = {
        "app/kustomization.yaml": "resources:\n- cm.yaml\ngenerators:\n- gdir\n",
        "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "app/gdir/kustomization.yaml": (
            "resources:\n- g.yaml\npatches:\n- target: {kind: SecretGenerator}\n  patch: |-\n"
            "    - op: replace\n      path: /files/0\n      value: ca.crt=https://files.example.com/ca.crt\n"
            "    - op: add\n      path: /literals\n      value: [\"password=Wq7xL2vNp9Zr4Tk8\"]\n"),
        "app/gdir/g.yaml": "apiVersion: builtin\nkind: SecretGenerator\nmetadata: {name: db}\nfiles: [ca.crt=local.txt]\n",
        "app/gdir/local.txt": "x\n",
        "direct/kustomization.yaml": "generators:\n- g.yaml\n",
        "direct/g.yaml": ("apiVersion: builtin\nmetadata: {name: db}\n"
                          "files: [\"ca.crt=https://files.example.com/ca.crt Wq7xL2vNp9Zr4Tk8\"]\n"),
    }  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(app, ["lint", "-f", "concise", "app"])
    assert "Wq7xL2vNp9Zr4Tk8" not in result.output
    assert result.output.splitlines()[0].startswith("app/kustomization.yaml:4:3: HL009 generators entry 'gdir' is a "
                                                    "kustomization whose patches")
    result = CliRunner().invoke(app, ["lint", "-f", "concise", "direct"])
    assert "Wq7xL2vNp9Zr4Tk8" not in result.output
    assert result.output.splitlines()[0].startswith(
        "direct/kustomization.yaml:2:3: HL009 generators entry 'g.yaml' configures a plugin with "
        "'https://files.example.com/ca.crt', which kustomize fetches")
