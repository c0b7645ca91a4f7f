"""What Argo CD reads from the repository through Go's ``encoding/json`` (trial 4 item 3).

``.argocd-source*.yaml`` (``reposerver/repository/repository.go`` ``mergeSourceParameters``) and an
ApplicationSet's ``templatePatch`` (``applicationset/controllers/template/patch.go``
``applyTemplatePatch``) end in ``json.Unmarshal``, which matches keys case-insensitively and decodes
into what is already there; the override file of an Application outside the control plane's
namespace is ``.argocd-source-<namespace>_<name>.yaml`` (``pkg/apis/application/v1alpha1/types.go``
``InstanceName``). Argo CD v3.5.1.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.argocd import instance_name
from hooklint.sources.appmap.applications import merge_source_parameters
from hooklint.sources.appmap.applicationsets import _apply_patch
from hooklint.sources.appmap.gojson import SOURCE, GoJSONError, decode, fold_equal
from hooklint.sources.render.helm import find_helm

runner = CliRunner()


@pytest.mark.parametrize(
    "key, name, equal",
    [
        ("helm", "helm", True),
        ("Helm", "helm", True),
        ("HELM", "helm", True),
        ("hElM", "helm", True),
        ("\u212austomize", "kustomize", True),  # Kelvin sign folds to k (unicode.SimpleFold)
        ("ku\u017ftomize", "kustomize", True),  # long s folds to s
        ("Helm ", "helm", False),
        ("hełm", "helm", False),
        ("valuefiles", "valueFiles", True),
        ("value_files", "valueFiles", False),  # v1 encoding/json ignores no '_' or '-' (v2 would)
    ],
)
def test_keys_match_fields_as_go_folds_them(key, name, equal):
    assert fold_equal(key, name) is equal


def test_go_decodes_into_what_is_there_in_sorted_key_order():
    existing = {"helm": {"releaseName": "r", "valueFiles": ["a.yaml"],
                         "parameters": [{"name": "a", "value": "1", "forceString": True}]}}  # fmt: skip
    # "Helm" sorts before "helm": decoded first, then "helm" overrides the fields it names
    got = decode(SOURCE, existing, {"Helm": {"releaseName": "x", "values": "evil: true"},
                                    "helm": {"releaseName": "y", "parameters": [{"name": "b"}]}})  # fmt: skip
    assert got == {"helm": {"releaseName": "y", "valueFiles": ["a.yaml"], "values": "evil: true",
                            # an array decodes into the elements already there (decode.go array)
                            "parameters": [{"name": "b", "value": "1", "forceString": True}]}}  # fmt: skip
    assert decode(SOURCE, {"path": "p"}, {"path": None, "Unknown": 1}) == {"path": "p"}  # null: no effect
    with pytest.raises(GoJSONError):
        decode(SOURCE, {}, {"HELM": "a string"})


def _write(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "override, helm",
    [
        ("Helm:\n  parameters:\n  - {name: evil, value: 'true'}\n",  # trial 4 item 3 (a)
         {"valueFiles": ["values.yaml"], "parameters": [{"name": "evil", "value": "true"}]}),
        ("HELM:\n  Parameters:\n  - {NAME: evil, vAlUe: 'true'}\n",
         {"valueFiles": ["values.yaml"], "parameters": [{"name": "evil", "value": "true"}]}),
        # JSON merge patch removes valueFiles from the marshalled source, but json.Unmarshal into
        # the same source leaves the field it does not see as it was
        ("helm:\n  valueFiles: null\n", {"valueFiles": ["values.yaml"]}),
        ("helm:\n  valueFiles: [evil.yaml]\n", {"valueFiles": ["evil.yaml"]}),
    ],
)
def test_override_files_are_decoded_as_go_decodes_them(tmp_path, override, helm):
    _write(tmp_path, ".argocd-source.yaml", override)
    merged, used = merge_source_parameters({"repoURL": "https://x", "path": "chart",
                                            "helm": {"valueFiles": ["values.yaml"]}}, str(tmp_path), "a")  # fmt: skip
    assert merged == {"repoURL": "https://x", "path": "chart", "helm": helm}
    assert used == [str(tmp_path / ".argocd-source.yaml")]


def test_an_override_of_the_wrong_type_is_argo_cds_error(tmp_path):
    _write(tmp_path, ".argocd-source.yaml", "Helm: evil\n")
    with pytest.raises(ValueError, match="cannot unmarshal string into Go struct field helm"):
        merge_source_parameters({"repoURL": "https://x", "path": "chart"}, str(tmp_path), "a")


@pytest.mark.parametrize(
    "name, namespace, instance",
    [("a", None, "a"), ("a", "", "a"), ("a", "argocd", "a"), ("a", "team-a", "team-a_a")],
)
def test_the_instance_name_names_the_override_file(name, namespace, instance):
    assert instance_name(name, namespace, "argocd") == instance


def test_a_template_patch_is_decoded_as_go_decodes_it_and_keeps_the_project():
    base = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "a"},
            "spec": {"project": "team", "source": {"repoURL": "https://x", "path": "chart"}}}  # fmt: skip
    patched = _apply_patch(base, "Spec:\n  project: default\n  source:\n    helm:\n      parameters:\n"
                                 "      - {name: evil, value: 'true'}\n")  # fmt: skip
    assert patched["spec"] == {"project": "team", "source": {"repoURL": "https://x", "path": "chart",
                                                             "helm": {"parameters": [{"name": "evil", "value": "true"}]}}}  # fmt: skip


CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    "chart/values.yaml": "evil: false\n",
    "chart/templates/job.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n{{- if .Values.evil }}\n---\napiVersion: batch/v1\n"
        "kind: Job\nmetadata:\n  name: evil\n  annotations: {argocd.argoproj.io/hook: PreSync}\nspec:\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: 'evil.example/x:1'}]\n"
        "{{- end }}\n"),
}
EVIL = "helm:\n  parameters:\n  - {name: evil, value: 'true'}\n"
APP = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: a{namespace}}}\nspec:\n  project: p\n"
       "  destination: {{server: https://kubernetes.default.svc, namespace: x}}\n  source:\n"
       "    repoURL: https://github.com/acme/srcov\n    path: chart\n")
APPSET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: s, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - list:
      elements: [{nm: one}]
  template:
    metadata: {name: 'app-{{ .nm }}'}
    spec:
      project: team
      destination: {server: https://kubernetes.default.svc, namespace: x}
      source:
        repoURL: https://github.com/acme/srcov
        path: chart
  templatePatch: |
    Spec:
      source:
        helm:
          parameters:
          - {name: evil, value: "true"}
"""


def _tasks(tmp_path, monkeypatch, files: dict[str, str]) -> list[str]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    for name, text in {".git/config": '[remote "origin"]\n\turl = https://github.com/acme/srcov\n', **CHART,
                       **files}.items():  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = runner.invoke(app, ["plan", "--format", "json", "."])
    assert result.exit_code == 0, result.output
    [chart] = [a for a in json.loads(result.output)["applications"] if a["application"] == "chart"]
    return sorted(t["name"] for s in chart["steps"] for t in s["tasks"])


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
@pytest.mark.parametrize(
    "files, evil",
    [
        # (a) a capitalised key of .argocd-source.yaml
        ({"apps/a.yaml": APP.format(namespace=", namespace: argocd"),
          "chart/.argocd-source.yaml": EVIL.replace("helm:", "Helm:")}, True),
        # (b) the file of an Application outside the control plane's namespace (argocd, as configured; else
        # team-a may be the controller's: HL009, test_control_plane)
        ({"apps/a.yaml": APP.format(namespace=", namespace: team-a"), "chart/.argocd-source-team-a_a.yaml": EVIL,
          ".hooklint.yaml": "argocd-namespace: argocd\n"}, True),
        ({"apps/a.yaml": APP.format(namespace=", namespace: team-a"), "chart/.argocd-source-a.yaml": EVIL,
          ".hooklint.yaml": "argocd-namespace: argocd\n"}, False),
        ({"apps/a.yaml": APP.format(namespace=""), "chart/.argocd-source-a.yaml": EVIL}, True),
        # in argocd, Argo CD's when configured so; else it may run in openshift-gitops (HL009: test_control_plane)
        ({"apps/a.yaml": APP.format(namespace=", namespace: argocd"), "chart/.argocd-source-a.yaml": EVIL,
          ".hooklint.yaml": "argocd-namespace: argocd\n"}, True),
        ({"apps/a.yaml": APP.format(namespace=", namespace: argocd"), "chart/.argocd-source-a.yaml": EVIL,
          ".hooklint.yaml": "argocd-namespace: openshift-gitops\n"}, False),
        # (c) a capitalised key of an ApplicationSet's templatePatch
        ({"apps/set.yaml": APPSET}, True),
        ({"apps/set.yaml": APPSET.replace("    Spec:", "    spec:")}, True),
        # an ApplicationSet's Applications live in its namespace (template.go), whatever the template says
        ({"apps/set.yaml": APPSET.split("  templatePatch")[0].replace("namespace: argocd", "namespace: team-a")
          .replace("{name: 'app-{{ .nm }}'}", "{name: 'app-{{ .nm }}', namespace: argocd}"),
          "chart/.argocd-source-team-a_app-one.yaml": EVIL, ".hooklint.yaml": "argocd-namespace: argocd\n"}, True),
        ({"apps/set.yaml": APPSET.split("  templatePatch")[0].replace("namespace: argocd", "namespace: team-a")
          .replace("{name: 'app-{{ .nm }}'}", "{name: 'app-{{ .nm }}', namespace: argocd}"),
          "chart/.argocd-source-app-one.yaml": EVIL, ".hooklint.yaml": "argocd-namespace: argocd\n"}, False),
    ],
)
def test_what_argo_cd_renders_is_linted(tmp_path, monkeypatch, files, evil):
    assert _tasks(tmp_path, monkeypatch, files) == (["c", "evil"] if evil else ["c"])


PARENT = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: parent, namespace: argocd}}\n"
          "spec:\n  project: p\n  destination: {{server: https://kubernetes.default.svc, namespace: {namespace}}}\n"
          "  source:\n    repoURL: https://github.com/acme/srcov\n    path: parent\n")
CHILD = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  project: p\n"
         "  destination: {server: https://kubernetes.default.svc, namespace: x}\n  source:\n"
         "    repoURL: https://github.com/acme/srcov\n    path: chart\n")


@pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
@pytest.mark.parametrize("namespace, override, evil", [
    ("team-a", "chart/.argocd-source-team-a_a.yaml", True),
    ("team-a", "chart/.argocd-source-a.yaml", False),
    ("argocd", "chart/.argocd-source-a.yaml", True),
])
def test_an_application_another_renders_lives_in_its_destination_namespace(tmp_path, monkeypatch, namespace,
                                                                           override, evil):
    """A child Application without metadata.namespace is applied to its parent's destination
    namespace, which decides its InstanceName and so its override file."""
    files = {"apps/parent.yaml": PARENT.format(namespace=namespace),
             "parent/Chart.yaml": "apiVersion: v2\nname: parent\nversion: 1.0.0\n",
             "parent/templates/child.yaml": CHILD, override: EVIL,
             ".hooklint.yaml": "argocd-namespace: argocd\n"}  # fmt: skip
    assert _tasks(tmp_path, monkeypatch, files) == (["c", "evil"] if evil else ["c"])


def test_value_files_of_an_override_are_placed_where_go_reads_them(tmp_path, monkeypatch):
    from hooklint.loader import read_file
    from hooklint.sources.appmap.applications import _value_file_places

    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.yaml").write_text("helm:\n  valueFiles: [values.yaml]\n")
    (tmp_path / ".argocd-source.yaml").write_text("Helm:\n  ValueFiles:\n  - a.yaml\n  - b.yaml\n")
    source = read_file("app.yaml").documents[0].value
    assert _value_file_places(source, "app.yaml", None, [".argocd-source.yaml"], 2) == (
        (".argocd-source.yaml", 3, 5), (".argocd-source.yaml", 4, 5))
