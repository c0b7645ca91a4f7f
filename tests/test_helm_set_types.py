"""Helm's types for the values a chart renders with (attack round 14, break 4): ``--set`` (Argo CD's
``helm.parameters``) integers are int64 (helm pkg/strvals/parser.go ``typedVal``, v4.2.3),
``forceString`` values strings, value-file and ``values``/``valuesObject`` numbers float64
(``sigs.k8s.io/yaml``), in the chart, in lists, and in each subchart's copy of ``global``
(pkg/cli/values/options.go ``MergeValues``; pkg/chart/common/util/coalesce.go ``coalesceGlobals``).
The Helm SDK takes values as JSON (float64): hooklint's child process sets the integers back."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import HelmOptions, find_helm, render_helm

runner = CliRunner()
needs_sdk = pytest.mark.skipif(find_helm() is None or find_helm()[0] != "sdk", reason="needs helm-python-sdk")

KINDS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kinds
data:
  x: {{ kindOf .Values.x | quote }}
  big: {{ .Values.big | quote }}
  s: {{ kindOf .Values.s | quote }}
  file: {{ kindOf .Values.file | quote }}
  inline: {{ kindOf .Values.inline | quote }}
  list: {{ range .Values.ports }}{{ kindOf . }},{{ end }}
  item: "{{ kindOf (index .Values.items 0).n }} {{ len .Values.items }}"
  nested: "{{ kindOf .Values.a.b.c }} {{ kindOf .Values.a.keep }}"
  global: {{ kindOf .Values.global.g | quote }}
  zero: "{{ kindOf .Values.zero }} {{ kindOf .Values.lead }} {{ kindOf .Values.neg }}"
"""
SUB = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: sub
data:
  global: {{ kindOf .Values.global.g | quote }}
  own: {{ kindOf .Values.n | quote }}
"""


def _chart(root: Path) -> Path:
    chart = root / "shop"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("file: 7\na: {keep: 1, b: {c: 2}}\nitems: [{n: 1}, {name: one}]\n")
    (chart / "templates" / "kinds.yaml").write_text(KINDS)
    sub = chart / "charts" / "sub"
    (sub / "templates" / "deep" / "er").mkdir(parents=True)
    (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    (sub / "values.yaml").write_text("n: 3\n")
    (sub / "templates" / "deep" / "er" / "sub.yaml").write_text(SUB)  # deeper: Helm runs it before kinds.yaml
    return chart


@needs_sdk
def test_set_integers_are_int64_and_file_numbers_float64(tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    options = HelmOptions(release_name="shop", values="inline: 4\n", parameters=(
        ("x", "5", False), ("big", "20240101123456789", False), ("s", "6", True), ("ports", "{80,443}", False),
        ("items[0].n", "9", False), ("a.b.c", "10", False), ("global.g", "11", False), ("zero", "0", False),
        ("lead", "012", False), ("neg", "-3", False), ("sub.n", "12", False)))  # fmt: skip
    docs = {d.origin: d.text for d in render_helm(str(chart), str(tmp_path), options).documents}
    assert docs[os.path.join(str(chart), "templates", "kinds.yaml")] == (
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kinds\ndata:\n  x: "int64"\n  big: "20240101123456789"\n'
        '  s: "string"\n  file: "float64"\n  inline: "float64"\n  list: int64,int64,\n  item: "int64 1"\n'
        '  nested: "int64 float64"\n  global: "int64"\n  zero: "int64 string int64"\n')
    assert docs[os.path.join(str(chart), "charts", "sub", "templates", "deep", "er", "sub.yaml")] == (
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  global: "int64"\n  own: "int64"\n')


@needs_sdk
def test_a_hook_gated_on_an_int64_parameter_is_rendered(tmp_path: Path, monkeypatch) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (chart / "templates" / "job.yaml").write_text(
        '{{- if and (kindIs "int64" .Values.replicas) (eq .Values.replicas 5) }}\n'
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: debug\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: '{{ .Values.wave }}'\n"
        "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      serviceAccountName: debug\n      automountServiceAccountToken: false\n"
        "      hostIPC: true\n      containers: [{name: d, image: 'ghcr.io/acme/d@sha256:" + "d" * 64 + "'}]\n"
        "{{- end }}\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "https://github.com/acme/deploy.git"],
                   check=True)  # fmt: skip
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\n"
        "spec:\n  project: shop\n  source:\n    repoURL: https://github.com/acme/deploy.git\n    path: chart\n"
        "    helm:\n      parameters: [{name: replicas, value: '5'}, {name: wave, value: '20240101123456789'}]\n"
        "  destination: {server: 'https://kubernetes.default.svc', namespace: shop}\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "--format", "concise", "."])
    assert result.output.splitlines()[:3] == [
        "chart/templates/job.yaml:7:5: HL305 Every object of this application is a hook (1 hook run during a sync, "
        "no plain resource)",
        "chart/templates/job.yaml:17:7: HL105 Job/debug sets hostIPC",
        "",
    ]
    assert result.exit_code == 1


@needs_sdk
@pytest.mark.parametrize(("values", "expected"), [
    ("a: 1\n---\ndebug: true\n", "on float64"),
    ("a: 1\r\n--- # the rest\r\ndebug: true\r\na: 2", "on float64"),
    ("---\ndebug: false\n---\n# nothing\n---\na: 3\n", "off float64"),
], ids=["two-documents", "crlf-comment", "empty-documents"])
def test_every_document_of_a_value_file_is_merged(tmp_path: Path, values: str, expected: str) -> None:
    """Helm 4 reads a value file's documents and merges them (pkg/chart/v2/loader/load.go
    ``LoadValues``, v4.2.3, with apimachinery's ``YAMLReader``), as Argo CD 3.5's helm does."""
    chart = tmp_path / "shop"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n'
        '  mode: "{{ if .Values.debug }}on{{ else }}off{{ end }} {{ kindOf .Values.a }}"\n')
    (chart / "prod.yaml").write_bytes(values.encode())
    rendering = render_helm(str(chart), str(tmp_path), HelmOptions(release_name="shop", value_files=("prod.yaml",)))
    assert [d.text for d in rendering.documents] == [
        f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  mode: "{expected}"\n']


@needs_sdk
def test_a_separator_followed_by_more_than_a_comment_fails_as_in_helm(tmp_path: Path) -> None:
    from hooklint.sources.render.rendered import RenderError

    chart = tmp_path / "shop"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (chart / "prod.yaml").write_text("a: 1\n---x: 2\n")
    with pytest.raises(RenderError) as caught:
        render_helm(str(chart), str(tmp_path), HelmOptions(release_name="shop", value_files=("prod.yaml",)))
    assert caught.value.message == (f"failed to parse {chart}/prod.yaml: error reading yaml document: invalid Yaml "
                                    "document separator: x: 2")
