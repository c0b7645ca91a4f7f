"""What hooklint prints outside its reports says no URL credential either: ``doctor``'s lines (an
Application's ``repoURL``, a Helm repository's URL), a configuration error that echoes a value as
written, the one-line errors on stderr (attacker trial 19 B4, B5: ``doctor`` printed
``repoURL https://deploy:PASSWORD@...`` in its "ignored" lines; ``'helm-repositories' entry 'x'
must be ..., not 'https://u:PASSWORD@...'`` went to the CI log)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import git, write
from hooklint.cli import app
from hooklint.config import ConfigError, parse_config

APPLICATIONS = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: web}
  source:
    repoURL: "https://release:Tm4'Bq9@Xv2Lp7@code.elsewhere.org/ops/web.git"
    path: web
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: db, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: db}
  source:
    repoURL: https://robot:Kc8Wn3Yr6Hs1@charts.elsewhere.org/stable
    chart: postgres
    targetRevision: 1.0.0
"""


def test_doctor_prints_no_repo_url_password(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "remote", "add", "origin", "https://ci-token:Gz5Jq8Rw2Dn6@code.example.org/ops/deploy.git")
    write(tmp_path, {"apps/apps.yaml": APPLICATIONS})
    result = CliRunner().invoke(app, ["doctor", "."])
    assert result.exit_code == 0, result.output
    for piece in ("Tm4'", "Bq9@", "Xv2Lp7", "Kc8Wn3Yr6Hs1", "Gz5Jq8Rw2Dn6"):
        assert piece not in result.output, piece
    lines = result.output.splitlines()
    assert ("  ignored  Application web (apps/apps.yaml:1) spec.source: repoURL "
            "https://release:[redacted]@code.elsewhere.org/ops/web.git is another repository") in lines
    assert ("  ignored  Application db (apps/apps.yaml:11) spec.source: chart postgres from the Helm repository "
            "https://robot:[redacted]@charts.elsewhere.org/stable, not a folder of this repository") in lines


def test_a_configuration_error_echoes_no_url_credential_nor_a_secret_named_value(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {".hooklint.yaml": 'helm-repositories: {stable: "https://ops:Lw3Pz8\'Qe@5Rt@charts.example.org/s"}\n',
                     "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})  # fmt: skip
    for command in (["lint", "."], ["plan", "."], ["doctor", "."]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert "Lw3Pz8" not in result.output and "5Rt@" not in result.output, command
        assert 'not "https://ops:[redacted]@charts.example.org/s"' in result.output, command
    try:
        parse_config({"helm-repositories": {"vault-token": 4711_2023_9981}}, "cfg.yaml")
    except ConfigError as error:
        assert str(error).endswith("'helm-repositories' entry 'vault-token' must be a string matching "
                                   r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/@]+(/\S*)?\s*$, not int [redacted]")
        assert "4711" not in str(error)
    else:
        raise AssertionError("no error")
    # the configuration's own keys name no secret: their values are echoed
    try:
        parse_config({"fetch-credentials": 5}, "cfg.yaml")
    except ConfigError as error:
        assert str(error).endswith(", not 5"), str(error)
    else:
        raise AssertionError("no error")


def test_an_option_error_on_stderr_echoes_no_url_credential(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    result = CliRunner().invoke(app, ["lint", "--fetch", "--fetch-host", "https://ops:Hy6Nc2'Vb@9Pk@charts.example.org",
                                      "app"])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "Hy6Nc2" not in result.output and "9Pk@" not in result.output
    assert "https://ops:[redacted]@charts.example.org" in result.output


@pytest.mark.parametrize(("config", "message"), [
    ({"helm-repositories": {"bitnami": {"url": "https://charts.example.org/b", "username": "ci", "password": "Lr2secretvalueKKK"}}},
     "cfg.yaml: 'helm-repositories' entry 'bitnami' must be a string matching "
     r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/@]+(/\S*)?\s*$, not a mapping"),
    ({"fail-on": {"token": "Lr2secretvalueKKK"}}, "cfg.yaml: 'fail-on' must be one of error, warning, note, never, not a mapping"),
    ({"exclude": [{"apiKey": "Lr2secretvalueKKK"}]},
     "cfg.yaml: 'exclude' must be a list of non-empty strings, not a list whose entry 1 is a mapping"),
])  # fmt: skip
def test_a_configuration_error_names_a_mapping_by_what_it_is(config, message):
    """A mapping (or list of them) where a string was expected is named by what it is, never echoed
    (attacker trial 22, B3: the password of a helm-repositories entry written as {url, username,
    password}; trial 25, B14: any value of it)."""
    with pytest.raises(ConfigError) as error:
        parse_config(config, "cfg.yaml")
    assert str(error.value) == message
