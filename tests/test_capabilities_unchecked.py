"""``.Capabilities`` never passes silently (issue 32; attack round 11, F1 and F3): a chart reaching
``.Capabilities`` by a name built at render time, or reading ``.HelmVersion`` (hooklint's Helm
library is not Argo CD's helm binary), gets HL025 as a warning; every chart reading ``.Capabilities``
is rendered again with every API version it names, and the objects only that rendering holds are
checked too. The common apiVersion pick stays a note."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render.helm import capability_scan, find_helm

runner = CliRunner()
pytestmark = pytest.mark.skipif(find_helm() is None, reason="needs a Helm renderer")

#: A privileged PreSync Job (nothing else about it fires but HL103/HL104/HL105).
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: reindex
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 2
  activeDeadlineSeconds: 120
  template:
    spec:
      restartPolicy: Never
      hostNetwork: true
      containers:
      - name: run
        image: "registry.example.com/tools@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
"""


def _lint(tmp_path, monkeypatch, template: str) -> tuple[int, list[str]]:
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: search\nversion: 1.2.0\n")
    (tmp_path / "chart" / "templates" / "job.yaml").write_text(template)
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata: {a: b}\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "."])
    return result.exit_code, [line for line in result.output.splitlines() if line.startswith("chart/")]


def _rules(lines: list[str]) -> list[str]:
    return [" ".join(line.split(" ")[:3]) for line in lines]


CLUSTER = ("what this chart renders depends on the cluster Argo CD syncs it to, whose Kubernetes version and API "
           "resources Argo CD passes to Helm (--kube-version, --api-versions)")
RENDERED = "it rendered for Helm's default Kubernetes version (kube-version is not set), serving the built-in kinds of that version"
SETTING = ("Set kube-version and api-versions in .hooklint.yaml to your destination cluster's (an Application's "
           "helm.kubeVersion and helm.apiVersions win, as in Argo CD), and lint once per cluster version you deploy to.")
OPAQUE = (f"{CLUSTER} and on the helm binary that renders it. hooklint cannot list what this read asks for: {RENDERED}"
          "%s, so objects another cluster or Helm build renders were not checked. Read .Capabilities.APIVersions.Has "
          "with the API version written as a string and .Capabilities.KubeVersion by name (never .HelmVersion), or "
          f"gate the objects on a value. {SETTING}")
HL105 = ("chart/templates/job.yaml:14:7: error HL105 hook-privileged-pod: Job/reindex sets hostNetwork: true: a PreSync "
         "hook runs on every sync and then controls the node, not just its pod. Remove it, or do this work outside the "
         "cluster's workloads.")
AGAIN = (", and again with every API version the chart names served (search.example.com/v1), which also renders "
         "Job/reindex, checked too")


def test_capabilities_reached_by_a_built_name_is_a_warning_and_its_hook_is_checked(tmp_path, monkeypatch):
    """Before: ``0 errors, 0 warnings, 0 notes``, exit 0 (attack 11 F1: ``index $ (print "Capa"
    "bilities")``): no HL025, the hook never rendered."""
    code, lines = _lint(tmp_path, monkeypatch, '{{- with index $ (printf "%s%s" "Capabil" "ities") }}'
                        '{{- if .APIVersions.Has "search.example.com/v1" }}\n' + JOB + "{{- end }}{{- end }}\n")
    assert code == 1
    assert _rules(lines) == ["chart/templates/job.yaml:1:10: warning HL025", "chart/templates/job.yaml:12:5: warning HL103",
                             "chart/templates/job.yaml:12:5: warning HL104", "chart/templates/job.yaml:14:7: error HL105"]
    assert lines[0] == ("chart/templates/job.yaml:1:10: warning HL025 chart-reads-cluster-capabilities: "
                        "chart/templates/job.yaml reads the root context by a key not written as a string (index "
                        "with $ or .), which reaches .Capabilities without naming it: " + OPAQUE % AGAIN)
    assert lines[3] == HL105


def test_a_hook_gated_on_a_named_api_version_is_rendered_and_checked(tmp_path, monkeypatch):
    """Before: only the HL025 note ("were not checked"), exit 0 (attack 11, cap1)."""
    code, lines = _lint(tmp_path, monkeypatch,
                        '{{- if .Capabilities.APIVersions.Has "search.example.com/v1" }}\n' + JOB + "{{- end }}\n")
    assert code == 1
    assert lines[0] == (
        "chart/templates/job.yaml:1:9: note HL025 chart-reads-cluster-capabilities: chart/templates/job.yaml reads "
        f".Capabilities.APIVersions: {CLUSTER}. hooklint has no cluster: {RENDERED}{AGAIN}, so objects a cluster of "
        f"another Kubernetes version would render were not checked. {SETTING}")
    assert lines[3] == HL105


def test_helm_version_read_is_a_warning(tmp_path, monkeypatch):
    """Before: 0 findings, exit 0 (attack 11 F3: the Helm SDK reports ``v4.2`` and no commit; Argo
    CD's helm binary its release's), and the SDK cannot be told another HelmVersion."""
    code, lines = _lint(tmp_path, monkeypatch, "{{- if .Capabilities.HelmVersion.GitCommit }}\n" + JOB + "{{- end }}\n")
    assert code == 1
    assert lines == [
        "chart/templates/job.yaml:1:8: warning HL025 chart-reads-cluster-capabilities: chart/templates/job.yaml reads "
        ".Capabilities.HelmVersion, the renderer's own build (hooklint's Helm library reports v4.2 and no commit; "
        "Argo CD 3.5.1's helm binary, the 4.2.1 release, its own): " + OPAQUE % ""]


def test_a_pod_changed_by_a_named_api_version_is_a_warning(tmp_path, monkeypatch):
    """The object is in both renderings, its pod differs: not checked as the second has it."""
    gated = JOB.replace("      hostNetwork: true\n", '{{- if .Capabilities.APIVersions.Has "search.example.com/v1" }}\n'
                        "      hostNetwork: true\n{{- end }}\n")
    code, lines = _lint(tmp_path, monkeypatch, gated)
    assert code == 1
    assert [line for line in lines if "HL025" in line] == [
        "chart/templates/job.yaml:13:9: warning HL025 chart-reads-cluster-capabilities: chart/templates/job.yaml "
        f"reads .Capabilities.APIVersions: {CLUSTER}. hooklint has no cluster: {RENDERED}, and again with every API "
        "version the chart names served (search.example.com/v1); with them Job/reindex renders with other hook "
        f"annotations or another pod, which was not checked. {SETTING}"]


def test_the_api_version_pick_stays_a_note(tmp_path, monkeypatch):
    """No noise on the common idiom (bitnami and most charts): the second rendering only picks
    another apiVersion for the same object."""
    code, lines = _lint(tmp_path, monkeypatch, (
        '{{- if .Capabilities.APIVersions.Has "policy/v1" }}\napiVersion: policy/v1\n{{- else }}\n'
        "apiVersion: policy/v1beta1\n{{- end }}\nkind: PodDisruptionBudget\nmetadata:\n  name: search\nspec:\n"
        "  minAvailable: 1\n  selector:\n    matchLabels: {app: search}\n"))
    assert code == 0
    assert _rules(lines) == ["chart/templates/job.yaml:1:9: note HL025"]
    assert "again with every API version the chart names served (policy/v1beta1), so objects" in lines[0]


@pytest.mark.parametrize("template, opaque", [
    ('{{ if .Capabilities.APIVersions.Has "a.example.com/v1" }}{{ end }}', None),
    ('{{ print "Capa" "bilities" | index $ }}', (1, 30, "index")),
    ("{{ range $k, $v := $ }}{{ end }}", (1, 4, "ranges over the root context")),
    ('{{ tpl (print "{{ .Capa" "bilities }}") $ }}', (1, 15, "builds template text from pieces")),
    ('{{ if .Capabilities.APIVersions.Has (print "a" "/v1") }}{{ end }}', (1, 7, "other than .Has")),
    ("{{ $c := .Capabilities }}", (1, 11, "holds or passes on .Capabilities itself")),
    ("{{ has \"a/v1\" .Capabilities.APIVersions }}", (1, 15, "other than .Has")),
    ('{{ get . (lower "CAPABILITIES") }}', (1, 4, "get")),
    ('{{ dig "a" (print "Capa" "bilities") "" $ }}', (1, 4, "dig")),
    # a name written with Go's escapes (attacker trial 40, 1): text/template reads "\x43" as "C"
    ('{{ $c := index $ "\\x43apabilities" | toJson | fromJson }}', (1, 18, "written with escapes")),
    ('{{ index . "\\103apabilities" "HelmVersion" }}', (1, 12, "written with escapes")),
    ('{{ tpl "{{ .\\u0043apabilities.HelmVersion }}" . }}', (1, 8, "written with escapes")),
    ('{{ index $c "H\\x65lmVersion" "git_commit" }}', (1, 13, "written with escapes")),
    ('{{ printf "\\x41\\x42" }}{{ index . "\\x6eame" }}', None),
    # kube-prometheus-stack's kubeVersionDefaultValue: a number is a key written in the chart
    ("{{- $values := index . 0 -}}{{- $old := index . 2 -}}", None),
    # a named template nothing calls never runs (bitnami's common.capabilities.supportsHelmVersion)
    ('{{- define "lib.helm" -}}{{- if regexMatch "x" (.Capabilities | toString) }}{{ end }}{{- end -}}'
     '{{ include (print $.Template.BasePath "/cm.yaml") . | sha256sum }}', None),
    ('{{- define "lib.helm" -}}{{- if regexMatch "x" (.Capabilities | toString) }}{{ end }}{{- end -}}'
     '{{ include "lib.helm" . }}', (1, 50, "holds or passes on")),
    ('{{- define "lib.helm" -}}{{ .Capabilities.HelmVersion.Version }}{{- end -}}{{ include (print "lib." "helm") . }}',
     (1, 29, "reads .Capabilities.HelmVersion")),
    # bitnami's common.utils.getValueFromKey: the range element is the key, the map is not the root
    ("{{- range $splitKey -}}{{- $value = ( index $latestObj . ) -}}{{- end -}}", None),
    # bitnami's helpers: the name comes through a dict literal, the template text is whole
    ('{{ if .context.Capabilities.APIVersions.Has .version }}{{ end }}'
     '{{ include "x" (dict "version" "autoscaling.k8s.io/v1/VerticalPodAutoscaler" "context" $) }}', None),
    ('{{ tpl (cat "{{- with $.RelativeScope -}}" $value "{{- end }}") (merge (dict "RelativeScope" .scope) .context) }}'
     '{{ index .Values.images $name }}{{ index . "name" }}{{ range . }}{{ end }}', None),
])
def test_capability_scan_fails_closed_on_reads_it_cannot_enumerate(tmp_path, template, opaque):
    (tmp_path / "templates").mkdir()
    path = tmp_path / "templates" / "t.yaml"
    path.write_text(template)
    found = capability_scan([str(path)]).opaque
    if opaque is None:
        assert found is None
    else:
        assert found[1:3] == opaque[:2] and opaque[2] in found[3]


def test_capability_scan_lists_the_api_versions_the_chart_names(tmp_path):
    """In templates only: a value file's text may be a secret, which HL025 would print."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "values.yaml").write_text("password: s3cret/v2\n")
    path = tmp_path / "templates" / "t.yaml"
    path.write_text('apiVersion: apps/v1\n{{ if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor" }}'
                    '{{ end }}\n# see docs/v2 and x.io/v1beta1/\n')
    assert capability_scan([str(path), str(tmp_path / "values.yaml")]).named == (
        "apps/v1", "docs/v2", "monitoring.coreos.com/v1/ServiceMonitor")


def test_a_second_rendering_that_fails_is_a_warning_and_quotes_nothing(tmp_path, monkeypatch):
    """Its message may quote a value: never printed; what that cluster renders was not checked."""
    code, lines = _lint(tmp_path, monkeypatch, '{{- if .Capabilities.APIVersions.Has "search.example.com/v1" }}'
                        '{{ fail (printf "token %s" "hunter2") }}{{- end }}\n' + JOB)
    assert code == 1
    assert [line for line in lines if "HL025" in line] == [
        "chart/templates/job.yaml:1:9: warning HL025 chart-reads-cluster-capabilities: chart/templates/job.yaml reads "
        f".Capabilities.APIVersions: {CLUSTER}. hooklint has no cluster: {RENDERED}, and again with every API version "
        "the chart names served (search.example.com/v1), which failed; the objects a cluster serving them renders "
        f"were not checked. {SETTING}"]
    assert not any("hunter2" in line for line in lines)
