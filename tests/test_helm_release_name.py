"""A chart no Application of the repository deploys (attack round 14, break 3): hooklint renders it
as release <folder> in namespace ``default``, Argo CD with the name (or ``helm.releaseName``) and
destination namespace of the Application that deploys it (reposerver/repository/repository.go
``helmTemplate``). When a template decides on ``.Release.Name`` or ``.Release.Namespace`` the chart
is rendered once more under another name and namespace; what only that rendering holds is checked
too, and HL009 at the deciding action says so. Charts that only print them (names, labels,
``helm create``'s fullname helper) are not reported."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.hermetic import release_decisions

runner = CliRunner()
needs_helm = pytest.mark.skipif(find_helm() is None, reason="needs a Helm renderer")

HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 120
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: migrate
      automountServiceAccountToken: false
      hostPID: true
      containers: [{{name: m, image: "ghcr.io/acme/migrate@sha256:{digest}"}}]
""".replace("{digest}", "c" * 64)
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n  namespace: {{ .Release.Namespace }}\n"
TAIL = ("Argo CD renders it with the name (or helm.releaseName) and destination namespace of the Application that "
        "deploys it, and may render other objects and fields then. hooklint checked the objects of both renderings, "
        "so objects another release name or namespace renders were not checked; lint the chart through the "
        "Application that deploys it (add it to the repository), or decide them with a value of the chart.")


def _chart(root: Path, templates: dict[str, str]) -> None:
    folder = root / "deploy"
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: deploy\nversion: 0.1.0\n")
    (folder / "templates" / "settings.yaml").write_text(SETTINGS)
    for name, text in templates.items():
        (folder / name).write_text(text)


def _lint(root: Path, monkeypatch, target: str = "deploy") -> tuple[int, list[str]]:
    monkeypatch.chdir(root)
    result = runner.invoke(app, ["lint", "--no-cache", target])
    return result.exit_code, [line for line in result.output.splitlines() if re.search(r": (error|warning|note) HL", line)]


def _hostpid(path: str, name: str, line: int = 15) -> str:
    return (f"{path}:{line}:7: error HL105 hook-privileged-pod: Job/{name} sets hostPID: true: a PreSync hook runs on "
            "every sync and then controls the node, not just its pod. Remove it, or do this work outside the cluster's "
            "workloads.")


@needs_helm
def test_a_hook_gated_on_the_release_name_is_rendered_and_reported(tmp_path: Path, monkeypatch) -> None:
    _chart(tmp_path, {"templates/debug.yaml": '{{- if ne .Release.Name "deploy" }}\n' + HOOK.format(name="debug")
                      + "{{- end }}\n"})
    code, lines = _lint(tmp_path, monkeypatch)
    assert lines == [
        "deploy/templates/debug.yaml:1:1: warning HL009 source-not-rendered: the `if` condition here depends on "
        "`.Release.Name`, the release's name or namespace, which the Application that deploys the chart decides, "
        "and no Application of the repository deploys deploy/: hooklint rendered it as release deploy in namespace "
        "default, and as hooklint-other-release in hooklint-other-namespace, which also renders Job/debug. " + TAIL,
        _hostpid("deploy/templates/debug.yaml", "debug", 16),
    ]
    assert code == 1


@needs_helm
def test_a_hook_gated_on_the_namespace_through_a_helper_and_a_variable(tmp_path: Path, monkeypatch) -> None:
    helpers = '{{- define "deploy.shared" -}}{{- ne .Release.Namespace "default" -}}{{- end -}}\n'
    gate = '{{- $shared := include "deploy.shared" . }}\n{{- if eq $shared "true" }}\n'
    _chart(tmp_path, {"templates/_helpers.tpl": helpers,
                      "templates/debug.yaml": gate + HOOK.format(name="debug") + "{{- end }}\n"})
    code, lines = _lint(tmp_path, monkeypatch)
    assert lines == [
        "deploy/templates/_helpers.tpl:1:31: warning HL009 source-not-rendered: the result of `ne` here depends on "
        "`.Release.Namespace`, the release's name or namespace, which the Application that deploys the chart "
        "decides, and no Application of the repository deploys deploy/: hooklint rendered it as release deploy in "
        "namespace default, and as hooklint-other-release in hooklint-other-namespace, which also renders Job/debug. "
        + TAIL,
        _hostpid("deploy/templates/debug.yaml", "debug", 17),
    ]
    assert code == 1


@needs_helm
@pytest.mark.parametrize("template, ends, keyword, name", [
    ('{{ with $r := index . "Release" }}{{ if ne $r.Namespace "default" }}\n', "{{- end }}{{ end }}", "with", "debug2"),
    # attacker trial 40, 2: ``index $ "R\x65lease" "N\x61mespace"`` is ``.Release.Namespace`` to Go's
    # template engine; the scan looked for the bytes ``Release`` first, found none, and rendered the
    # chart once, in namespace default, where the hook is not
    ('{{ if ne (index $ "R\\x65lease" "N\\x61mespace") "default" }}\n', "{{- end }}", "if", "debug3"),
], ids=["variable", "escapes"])  # fmt: skip
def test_a_hook_gated_on_a_namespace_other_than_default(template: str, ends: str, keyword: str, name: str,
                                                        tmp_path: Path, monkeypatch) -> None:  # fmt: skip
    _chart(tmp_path, {"templates/debug.yaml": template + HOOK.format(name=name) + ends + "\n"})
    code, lines = _lint(tmp_path, monkeypatch)
    assert lines == [
        f"deploy/templates/debug.yaml:1:1: warning HL009 source-not-rendered: the `{keyword}` condition here depends "
        "on `Release`, the release's name or namespace, which the Application that deploys the chart decides, and no "
        "Application of the repository deploys deploy/: hooklint rendered it as release deploy in namespace default, "
        f"and as default in hooklint-other-namespace, which also renders Job/{name}. " + TAIL,
        _hostpid("deploy/templates/debug.yaml", name, 16),
    ]
    assert code == 1


@needs_helm
def test_the_second_rendering_takes_the_name_the_chart_compares_with(tmp_path: Path, monkeypatch) -> None:
    _chart(tmp_path, {"templates/debug.yaml": '{{- if or (eq .Release.Namespace "prod") (eq .Release.Name "x") }}\n'
                      + HOOK.format(name="debug") + "{{- end }}\n"})
    code, lines = _lint(tmp_path, monkeypatch)
    assert lines == [
        "deploy/templates/debug.yaml:1:1: warning HL009 source-not-rendered: the `if` condition here depends on "
        "`.Release.Namespace`, the release's name or namespace, which the Application that deploys the chart "
        "decides, and no Application of the repository deploys deploy/: hooklint rendered it as release deploy in "
        "namespace default, and as hooklint-other-release in prod, which also renders Job/debug. " + TAIL,
        _hostpid("deploy/templates/debug.yaml", "debug", 16),
    ]
    assert code == 1


FULLNAME = """\
{{- define "deploy.fullname" -}}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "deploy.fullname" . }}
  namespace: {{ .Release.Namespace }}
spec:
  selector: {matchLabels: {app.kubernetes.io/instance: {{ .Release.Name }}}}
  template:
    metadata:
      labels: {app.kubernetes.io/instance: {{ .Release.Name }}}
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/settings.yaml") . | sha256sum }}
    spec:
      serviceAccountName: {{ include "deploy.fullname" . }}
      containers:
      - name: web
        image: "ghcr.io/acme/web:1.0.0"
        env: [{name: RELEASE, value: "{{ .Release.Name }}.{{ .Release.Namespace }}.svc"}]
"""


@needs_helm
def test_helm_creates_fullname_helper_is_no_noise(tmp_path: Path, monkeypatch) -> None:
    _chart(tmp_path, {"templates/_helpers.tpl": FULLNAME, "templates/deployment.yaml": DEPLOYMENT})
    assert _lint(tmp_path, monkeypatch) == (0, [])


@needs_helm
def test_a_chart_an_application_deploys_is_rendered_once_with_its_name(tmp_path: Path, monkeypatch) -> None:
    _chart(tmp_path, {"templates/debug.yaml": '{{- if ne .Release.Name "deploy" }}\n' + HOOK.format(name="debug")
                      + "{{- end }}\n"})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "https://github.com/acme/deploy.git"],
                   check=True)  # fmt: skip
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: deploy, namespace: argocd}\n"
        "spec:\n  project: shop\n  source: {repoURL: 'https://github.com/acme/deploy.git', path: deploy}\n"
        "  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n")
    assert _lint(tmp_path, monkeypatch, ".") == (0, [])  # the Application's name: the Job is not rendered


def _decisions(tmp_path: Path, text: str) -> list[tuple[int, int, str, str]]:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return [(d.line, d.column, d.function, d.construct)
            for d in release_decisions([(str(path), "deploy/templates/t.yaml")], 1 << 20)]


@pytest.mark.parametrize(("text", "expected"), [
    ("name: {{ .Release.Name }}-x\nnamespace: {{ .Release.Namespace | quote }}\n", []),
    ('x: {{ printf "%s-%s" .Release.Name "a" | trunc 63 }}\n{{ if .Release.Name }}y: 1{{ end }}\n', []),
    ('{{ if .Release.IsInstall }}a: 1{{ end }}\n{{ if eq .Release.Service "Helm" }}b: 1{{ end }}\n', []),
    ('a: 1\n{{- if regexMatch "^prod" $.Release.Namespace }}\n', [(2, 1, "$.Release.Namespace", "the `if` condition")]),
    ('{{ $n := .Release.Name }}\nhostPID: {{ ternary true false (eq $n "x") }}\n',
     [(2, 10, ".Release.Name", "the result of `ternary`")]),
    ('{{ range $k, $v := .Release }}{{ $k }}{{ end }}\n', [(1, 1, ".Release", "the `range` list")]),
], ids=["printed", "printf-and-truth", "constant-fields", "regex", "variable-ternary", "range"])
def test_release_decisions(tmp_path: Path, text: str, expected: list) -> None:
    assert _decisions(tmp_path, text) == expected
